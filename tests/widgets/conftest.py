"""Widget-test fixtures: a real session on the shared engine process, runs done inline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication

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


# Point sizes: the app's font and presentation mode's (see gui.window_app, MainWindow).
POINT_SIZES = [11.0, 11.0 * 1.6]


@pytest.fixture(params=POINT_SIZES, ids=["normal", "presentation"])
def point_size(request: pytest.FixtureRequest, qapp: QApplication) -> Iterator[float]:
    """The application's font at each point size the window uses, for one test."""
    old = qapp.font()
    font = QFont(old)
    font.setPointSizeF(request.param)
    qapp.setFont(font)
    yield request.param
    qapp.setFont(old)
