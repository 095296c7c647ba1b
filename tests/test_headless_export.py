"""``python main.py SESSION.json --export DIR``: the files, the exit statuses, nothing run on refusal."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from gui import headless
from gui.model.explain.messages import explain_engine_crash
from gui.model.request import RunRequest
from gui.model.result import RunResult, failed_result
from gui.resources import lesson
from tests.fixtures import approx

ROOT = Path(__file__).resolve().parents[1]


def export(session: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), str(session), "--export", str(out)],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )


def write_session(tmp_path: Path, **fields: object) -> Path:
    path = tmp_path / "session.json"
    path.write_text(json.dumps({"format": "autograd-explorer/1", **fields}))
    return path


@pytest.mark.slow
def test_export_writes_result_script_and_svg(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = export(lesson("05-gradients-accumulate"), out)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "result.json").read_text())
    assert doc["output"]["name"] == "z" and doc["output"]["shape"] == [2, 2]
    assert doc["output"]["grad_fn"] == "PowBackward0"
    assert doc["leaves"]["x"]["value"] == approx(
        [[1.3448, -0.2924], [-0.4746, 0.8842]], rel=1e-6, abs=0
    )
    assert doc["leaves"]["x"]["grad"] == approx([[43.40, 2.052], [5.405, 18.76]])
    assert [s["leaves"]["x"]["grad"][0][1] for s in doc["steps"]] == [
        0.0,
        pytest.approx(2.052, rel=1e-3),
    ]
    nodes = {n["key"]: n for n in doc["graph"]["nodes"]}
    assert {n["name"] for n in nodes.values() if n["kind"] == "function"} == {
        "PowBackward0",
        "MulBackward0",
    }
    assert all(a in nodes and b in nodes for a, b in doc["graph"]["edges"])
    assert doc["error"] is None
    svg = (out / "graph.svg").read_text()
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    texts = [t.text.strip() for t in root.iter("{http://www.w3.org/2000/svg}text") if t.text]
    assert any("PowBackward0" in t for t in texts)
    assert any(t.startswith("x") for t in texts), texts
    assert "z.backward(" in (out / "script.py").read_text()


@pytest.mark.slow
def test_export_of_a_session_whose_code_fails_still_succeeds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = export(lesson("07-old-tutorial-code"), out)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "result.json").read_text())
    assert doc["error"]["line"] == 7
    assert doc["error"]["message"].startswith(
        "Mismatch in shape: grad_output[0] has a shape of torch.Size([1])"
    )
    assert doc["error"]["explanation"]
    assert doc["leaves"]["x"]["grad"] is None
    assert "Backward step 1 failed: Mismatch in shape" in (out / "graph.svg").read_text()


@pytest.mark.parametrize(
    ("contents", "expected"),
    [
        (b"{ not json", "not valid JSON"),
        (b'{"format": "autograd-explorer/1"}', "code"),
        (b'{"format": "autograd-explorer/1", "code": "x = 1", "colour": 1}', "colour"),
        (b"\xff\xfe", "UTF-8"),
        (b'{"format": "autograd-explorer/1", "code": "", "a\\nb": 1}', "unknown field"),
    ],
)
def test_invalid_files_exit_2_with_one_line(tmp_path: Path, contents: bytes, expected: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(contents)
    out = tmp_path / "out"
    proc = export(path, out)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and expected in proc.stderr
    assert not out.exists()


def test_missing_file_exits_2(tmp_path: Path) -> None:
    proc = export(tmp_path / "nope.json", tmp_path / "out")
    assert proc.returncode == 2 and "cannot read it: there is no such file" in proc.stderr


def test_refused_code_exits_2_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "owned"
    code = f"x = tensor(1., requires_grad=True)\nopen({str(marker)!r}, 'w').write('x')\n"
    out = tmp_path / "out"
    proc = export(write_session(tmp_path, code=code), out)
    assert proc.returncode == 2
    assert "line 2" in proc.stderr and "open" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not marker.exists() and not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "01-why-sum",
        "02-backward-of-a-vector",
        "03-chain-rule-leaves-only",
        "04-gradient-argument-scales",
        "06-mean-reduces-to-a-scalar",
    ],
)
def test_every_lesson_exports(tmp_path: Path, name: str) -> None:
    proc = export(lesson(name), tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "result.json").read_text())
    assert doc["error"] is None and doc["steps"]
    ET.fromstring((tmp_path / "graph.svg").read_text())


@pytest.mark.slow
def test_runaway_code_in_an_export_is_reported_in_the_result(tmp_path: Path) -> None:
    session = write_session(
        tmp_path, code="x = tensor(1., requires_grad=True)\nwhile True:\n    x = x * 1\n"
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "main.py"),
            str(session),
            "--export",
            str(out),
            "--time-limit",
            "0.5",
        ],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((out / "result.json").read_text())
    assert doc["error"]["kind"] == "runaway-code"
    assert "0.5" in doc["error"]["message"] or "second" in doc["error"]["message"]
    ET.fromstring((out / "graph.svg").read_text())


def nested_values(depth: int) -> bytes:
    value = "[" * depth + "1" + "]" * depth
    return (
        f'{{"format": "autograd-explorer/1", "code": "x = 1", "values": {{"x": {value}}}}}'.encode()
    )


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        pytest.param(
            lambda p: p.write_bytes(nested_values(1000)),
            "nests more than 64 levels",
            id="1000-levels",
        ),
        pytest.param(
            lambda p: p.write_bytes(nested_values(700)),
            "nests more than 64 levels",
            id="700-levels",
        ),
        pytest.param(
            lambda p: p.write_bytes(
                b'{"format": "autograd-explorer/1", "code": "", "values": {"x": ['
                + b"9" * 400
                + b"]}}"
            ),
            "values.x[0]: the 400-digit integer",
            id="400-digits",
        ),
        pytest.param(lambda p: os.mkfifo(p), "it is a named pipe, not a session file", id="fifo"),
        pytest.param(
            lambda p: p.symlink_to("/dev/zero"), "it is a device, not a session file", id="dev-zero"
        ),
        pytest.param(
            lambda p: p.symlink_to("/dev/random"),
            "it is a device, not a session file",
            id="dev-random",
        ),
    ],
)
def test_hostile_files_exit_2_with_one_line_at_once(
    tmp_path: Path, make: Callable[[Path], object], expected: str
) -> None:
    path = tmp_path / "from-a-student.json"
    make(path)
    out = tmp_path / "out"
    started = time.monotonic()
    proc = export(path, out)
    assert time.monotonic() - started < 60
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines() == [proc.stderr.strip()] and "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {path}: ") and expected in proc.stderr, proc.stderr
    assert not out.exists()


def test_a_byte_order_mark_is_fine_for_export(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + b'{"format": "autograd-explorer/1", "code": "import os"}')
    proc = export(path, tmp_path / "out")
    assert proc.returncode == 2 and "code refused" in proc.stderr, "read, then refused for its code"


def test_an_engine_that_never_starts_exits_3_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class NeverReady:
        """An engine whose child died importing torch: every run says it crashed."""

        ready = None

        def run(self, request: RunRequest) -> RunResult:
            return failed_result(explain_engine_crash(""), seed=request.program.seed)

        def close(self) -> None:
            pass

    monkeypatch.setattr(headless, "EngineProcess", NeverReady)
    stderr = io.StringIO()
    out = tmp_path / "out"
    status = headless.export_session(str(lesson("01-why-sum")), str(out), stderr=stderr)
    assert status == headless.EXIT_CANNOT_RUN == 3
    assert stderr.getvalue() == headless.ENGINE_DID_NOT_START + "\n"
    assert not out.exists()
    assert headless.summarize(str(lesson("01-why-sum")), stderr=stderr) == 3
