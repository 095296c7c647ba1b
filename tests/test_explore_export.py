"""``explore(loss, model=model, export=DIR)`` from a user's script: the files of ``--export``,
written in the user's own process, without Qt and without running their script twice."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pygraphviz
import pytest
import torch
from torch import nn

from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES

USER_SCRIPT = textwrap.dedent(
    """
    import sys

    import torch
    from torch import nn

    from gui import explore

    print("the user's script starts")
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x = torch.randn(6, 3)
    loss = model(x).pow(2).mean()
    explore(loss, model=model, export=sys.argv[1])
    qt = sys.modules.get("PySide6.QtWidgets")
    app = qt.QApplication.instance() if qt else None
    print("windows shown:", any(w.isVisible() for w in app.topLevelWidgets()) if app else False)
    print("grads untouched:", all(p.grad is None for p in model.parameters()))
    """
)


def same_model() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    return model, model(torch.randn(6, 3)).pow(2).mean()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("explore")
    script = folder / "train.py"  # no __main__ guard, as scripts are often written
    script.write_text(USER_SCRIPT)
    out = folder / "out"
    done = subprocess.run(
        [sys.executable, str(script), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=Path(__file__).resolve().parents[1],
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out, done.stdout


def test_the_script_runs_once_shows_no_window_and_keeps_its_grads(
    exported: tuple[Path, str],
) -> None:
    _, stdout = exported
    # The layout worker is a spawned child: it must not run the user's script again.
    assert stdout.count("the user's script starts") == 1
    assert "windows shown: False" in stdout
    assert "grads untouched: True" in stdout


def test_the_files_of_export_parse(exported: tuple[Path, str]) -> None:
    out, _ = exported
    assert sorted(p.name for p in out.iterdir()) == sorted((*EXPORT_FILES, *PICTURE_FILES))
    dot = pygraphviz.AGraph(string=(out / "graph.dot").read_text())
    assert any("0.weight" in str(n.attr.get("label", "")) + str(n) for n in dot.nodes())
    for png in PICTURE_FILES:
        header = (out / png).read_bytes()[:24]
        assert header[:8] == b"\x89PNG\r\n\x1a\n"
        width, height = struct.unpack(">II", header[16:24])
        assert width >= 200 and height >= 200
    result = json.loads((out / "result.json").read_text())
    assert json.dumps(result).count("0.weight") > 0
    svg = ET.parse(out / "graph.svg").getroot()
    assert svg.tag.endswith("svg")
    texts = " ".join(t for t in svg.itertext())
    assert "0.weight" in texts and "loss" in texts
    compile((out / "script.py").read_text(), "script.py", "exec")


def test_the_script_repeats_the_calls_on_the_users_tensors(
    exported: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = exported
    namespace: dict[str, object] = {}
    exec((out / "script.py").read_text(), namespace)
    model, loss = same_model()
    namespace["backward_calls"](loss, dict(model.named_parameters()))  # type: ignore[operator]
    printed = capsys.readouterr().out
    twin, twin_loss = same_model()
    twin_loss.backward()
    bias = twin.get_parameter("2.bias").grad
    assert bias is not None
    assert f"2.bias.grad = {bias}" in printed


def test_without_a_display_a_script_gets_one_clear_error(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\nfrom gui import explore\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "try:\n    explore((x * 2).sum())\nexcept RuntimeError as exc:\n    print('said:', exc)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 0, done.stderr  # Qt did not abort the process
    assert "said: explore() cannot open a window: this process has no display" in done.stdout
