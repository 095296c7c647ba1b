"""The scale lock: the colour scale (and with it the plots' axes) stays put while values
change, so doubling v doubles the colours' reach and fading gradients fade. Saved in the
session file; taken from the numbers on screen, rounded up to a round number."""

from __future__ import annotations

import json

import pytest

from gui.model.drawing.colors import nice_scale
from gui.model.engine.run import run_program
from gui.model.request import Program
from gui.model.session import Session, SessionFileError, load_session
from gui.model.session.document import Document
from gui.model.session.file_format import parse_session, session_text, session_to_dict
from gui.resources import lesson, lesson_paths

SCALES = "04-gradient-argument-scales"


def session_with(name: str) -> Session:
    session = Session(run_program)
    session.load(load_session(lesson(name)))
    return session


def test_nice_scale_rounds_up_to_a_round_number() -> None:
    assert nice_scale(35.11) == 40.0
    assert nice_scale(43.40) == 50.0
    assert nice_scale(3.511) == 4.0
    assert nice_scale(0.0123) == 0.015
    assert nice_scale(40.0) == 40.0
    assert nice_scale(0.0) == 1.0


def test_the_file_format_round_trips_the_lock() -> None:
    document = Document(Program(code="x = 1\n"), scale_lock=True, locked_scale=40.0)
    data = session_to_dict(document)
    assert (data["scale_lock"], data["locked_scale"]) == (True, 40.0)
    assert parse_session(session_text(document)) == document
    captured = Document(Program(code="x = 1\n"), scale_lock=True)
    assert "locked_scale" not in session_to_dict(captured)
    assert parse_session(session_text(captured)) == captured
    plain = Document(Program(code="x = 1\n"))
    assert "scale_lock" not in session_to_dict(plain)  # off by default, not written
    assert parse_session(session_text(plain)).scale_lock is False


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"scale_lock": "yes"}, "scale_lock: expected true or false, got text"),
        ({"scale_lock": True, "locked_scale": -1}, "locked_scale: expected a positive number"),
        ({"scale_lock": True, "locked_scale": "inf"}, "locked_scale: expected a positive number"),
        ({"scale_lock": True, "locked_scale": True}, "locked_scale: expected a positive number"),
        ({"locked_scale": 40}, 'locked_scale: only with "scale_lock": true'),
    ],
)
def test_a_bad_lock_is_refused_by_name(fields: dict[str, object], message: str) -> None:
    text = json.dumps({"format": "autograd-explorer/1", "code": "x = 1\n", **fields})
    with pytest.raises(SessionFileError, match=message):
        parse_session(text)


def test_lessons_that_compare_values_ship_locked_and_the_rest_do_not() -> None:
    locked = {p.stem for p in lesson_paths() if load_session(p).scale_lock}
    assert locked == {SCALES, "05-gradients-accumulate"}


def test_a_locked_lesson_keeps_its_scale_while_v_changes() -> None:
    session = session_with(SCALES)
    first = session.snapshot
    assert first.scale_lock and first.locked_scale == 40.0
    assert first.colour_scale == 40.0 and first.paint is not None and first.paint.scale == 40.0
    assert first.natural_scale == pytest.approx(3.511, abs=1e-3)  # v = 0.1
    assert not first.beyond_scale
    session.set_gradient([[0.2]])
    doubled = session.snapshot
    assert doubled.colour_scale == 40.0
    assert doubled.natural_scale == pytest.approx(2 * first.natural_scale, rel=1e-5)
    session.set_gradient([[2.0]])  # 70.22: beyond the locked 40
    assert session.snapshot.colour_scale == 40.0 and session.snapshot.beyond_scale


def test_locking_takes_the_scale_on_screen_and_unlocking_follows_the_numbers() -> None:
    session = Session(run_program)
    session.set_code("x = torch.tensor([1., -2., 3.], requires_grad=True)\ny = (x * x).sum()\n")
    assert session.snapshot.colour_scale == 6.0 and not session.snapshot.scale_lock
    session.set_scale_lock(True)
    snapshot = session.snapshot
    assert snapshot.scale_lock and snapshot.locked_scale == 6.0 and snapshot.modified
    assert session.to_file().locked_scale == 6.0  # saved with the session
    session.set_input("x", 2, 1.5)  # x.grad = [2, -4, 3]: smaller, the scale stays
    assert session.snapshot.colour_scale == 6.0
    session.rescale()
    assert session.snapshot.colour_scale == 4.0 == session.to_file().locked_scale
    session.set_scale_lock(False)
    assert not session.snapshot.scale_lock and session.snapshot.colour_scale == 4.0
    assert session.snapshot.locked_scale is None and session.to_file().locked_scale is None


def test_a_lock_without_a_scale_takes_the_first_gradients() -> None:
    session = Session(run_program)
    code = "x = torch.tensor([[-1.2095]], requires_grad=True)\nz = (2 * x) ** 3\n"
    session.load(Document(Program(code=code), scale_lock=True))
    snapshot = session.snapshot
    assert snapshot.locked_scale == 40.0  # x.grad = 35.11
    assert not snapshot.modified  # taking it is not an edit of the file
    assert session.to_file().locked_scale is None
    session.set_input("x", 0, -0.5)
    assert session.snapshot.colour_scale == 40.0


def test_the_export_draws_with_the_locked_scale() -> None:
    session = session_with(SCALES)
    snapshot = session.snapshot
    assert snapshot.paint is not None and snapshot.paint.locked
    assert snapshot.paint.scale == snapshot.colour_scale == 40.0
