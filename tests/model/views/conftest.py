"""Pure view tests: a session running the engine in this process, no Qt anywhere."""

from __future__ import annotations

import pytest

from gui.model.engine.run import run_program
from gui.model.session import Session


@pytest.fixture
def session() -> Session:
    """A session whose runs happen inline, in-process: each call returns with its result."""
    return Session(run_program)
