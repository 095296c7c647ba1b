"""Widget-test fixtures: a real session on the shared engine process, runs done inline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gui.model.runner import EngineProcess
from gui.model.session import Session, Snapshot
from gui.model.session_file import load_session
from gui.resources import lesson_paths


@pytest.fixture
def session(engine_process: EngineProcess) -> Session:
    """A session whose runs happen inline (ImmediateDispatcher): each call returns with the
    new result already emitted, so tests need no waiting."""
    return Session(engine_process.run)


def load_lesson(session: Session, number: int) -> Snapshot:
    """Load lesson ``number`` (1-based, as in resources/lessons) and return its snapshot."""
    path = lesson_paths()[number - 1]
    session.load(load_session(path), str(path))
    return session.snapshot


@pytest.fixture
def emitted(session: Session) -> Iterator[list[Snapshot]]:
    """Every snapshot the session emits from now on (to count echoes)."""
    seen: list[Snapshot] = []
    session.changed.connect(seen.append)
    yield seen
    session.changed.disconnect(seen.append)
