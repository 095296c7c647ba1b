"""The status strip and the status bar say whether the picture matches the code."""

from __future__ import annotations

from gui.model.session import Session
from gui.model.views.status import STATUS_STYLES, status_bar_text, status_for

GOOD = "x = torch.tensor([3., 4.], requires_grad=True)\ny = (x ** 2).sum()\n"


def test_an_empty_session_asks_for_code(session: Session) -> None:
    assert status_for(session.snapshot, False) == ("Type some PyTorch code to start", "pending")
    assert status_bar_text(session.snapshot) == "Ready"


def test_a_good_run_is_up_to_date_and_names_its_output(session: Session) -> None:
    session.set_code(GOOD)
    assert status_for(session.snapshot, False) == ("Up to date", "ok")
    assert status_for(session.snapshot, True) == ("Edited: runs when you stop typing", "pending")
    assert status_bar_text(session.snapshot) == "Up to date · output y"


def test_an_error_points_at_its_line(session: Session) -> None:
    session.set_code("x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * 2\n")
    snapshot = session.snapshot
    assert snapshot.error is not None and snapshot.error.line is not None
    text, style = status_for(snapshot, False)
    assert style == "error"
    assert text == f"Error on line {snapshot.error.line}: see the explanation below"
    assert status_bar_text(snapshot).startswith(
        f"{snapshot.error.kind} (line {snapshot.error.line}): "
    )


def test_live_off_asks_for_a_run(session: Session) -> None:
    session.set_code(GOOD)
    session.set_live(False)
    session.set_input("x", 0, 1.0)
    assert status_for(session.snapshot, False) == ("Live is off: press Ctrl+Enter to run", "off")
    assert status_bar_text(session.snapshot) == "Changed: press F5 to run (live is off)"


def test_every_status_has_colours() -> None:
    styles = {"ok", "pending", "running", "stale", "off", "error", "warning"}
    assert set(STATUS_STYLES) == styles
    assert all(len(colours) == 2 for colours in STATUS_STYLES.values())
