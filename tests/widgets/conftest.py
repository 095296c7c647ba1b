"""Widget-test fixtures: a real session on the shared engine process, runs done inline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gui.model.engine_process import EngineProcess
from gui.model.session.file_format import load_session
from gui.model.session.session import Session
from gui.model.session.snapshot import Snapshot
from gui.resources import lesson_paths


@pytest.fixture
def session(engine_process: EngineProcess) -> Session:
    """A session whose runs happen inline (ImmediateDispatcher): each call returns with the
    new result already emitted, so tests need no waiting."""
    return Session(engine_process.run)


def load_lesson(session: Session, number: int) -> Snapshot:
    """Load the lesson whose file name starts with ``number`` (``01-...``); its snapshot."""
    path = next(p for p in lesson_paths() if p.name.startswith(f"{number:02d}-"))
    session.load(load_session(path), str(path))
    return session.snapshot


@pytest.fixture
def emitted(session: Session) -> Iterator[list[Snapshot]]:
    """Every snapshot the session emits from now on (to count echoes)."""
    seen: list[Snapshot] = []
    session.changed.connect(seen.append)
    yield seen
    session.changed.disconnect(seen.append)
