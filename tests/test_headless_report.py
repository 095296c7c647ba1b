"""The command line without --export: a terminal report of a session."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gui.app import main
from gui.headless import summarize
from gui.resources import lesson


@pytest.mark.slow
def test_default_is_the_welcome_lesson() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert summarize(None, stdout=out, stderr=err) == 0
    assert "# Welcome" in out.getvalue()


@pytest.mark.slow
def test_report_has_the_lessons_numbers() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert summarize(str(lesson("01-why-sum")), stdout=out, stderr=err) == 0
    text = out.getvalue()
    assert "# Why sum?" in text
    assert "y = 125." in text
    assert "x.grad = [6., 8., 20.]" in text
    assert "UnbindBackward0" in text


@pytest.mark.slow
def test_an_error_is_reported_with_its_explanation_and_fix() -> None:
    out = io.StringIO()
    assert summarize(str(lesson("07-old-tutorial-code")), stdout=out) == 0
    text = out.getvalue()
    assert "error (line 7): Mismatch in shape" in text
    assert "fix:" in text and "tensor([[1.]])" in text


def test_a_bad_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "autograd-explorer/1"}))
    err = io.StringIO()
    assert summarize(str(path), stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and "code" in err.getvalue()


@pytest.mark.parametrize("bad", ["0", "-1", "soon", "99999"])
def test_time_limit_must_be_a_sensible_number(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["x.json", "--export", "out", "--time-limit", bad])
    assert exit_info.value.code == 2
    assert "--time-limit" in capsys.readouterr().err


def test_export_needs_a_session(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--export", "out"]) == 2
    assert "needs a session file" in capsys.readouterr().err
