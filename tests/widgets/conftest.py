"""Widget-test fixtures: a real session on the shared engine process, runs done inline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gui.model.engine_process import EngineProcess
from gui.model.session import Session, Snapshot
from tests.fixtures import SessionSpy


@pytest.fixture
def session(engine_process: EngineProcess) -> Session:
    """A session whose runs happen inline (ImmediateDispatcher): each call returns with the
    new result already emitted, so tests need no waiting."""
    return Session(engine_process.run)


@pytest.fixture
def emitted(session: Session) -> Iterator[list[Snapshot]]:
    """Every snapshot the session emits from now on (to count echoes)."""
    seen: list[Snapshot] = []
    session.changed.connect(seen.append)
    yield seen
    session.changed.disconnect(seen.append)


@pytest.fixture
def spy(session: Session, monkeypatch: pytest.MonkeyPatch) -> SessionSpy:
    """The session methods the widget under test calls (see :class:`SessionSpy`)."""
    return SessionSpy(session, monkeypatch)
