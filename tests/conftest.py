"""Shared test set-up: Qt offscreen (before anything imports Qt), one engine process."""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Nothing a test starts may autosave into (or restore from) the user's real data folder.
os.environ.setdefault(
    "AUTOGRAD_EXPLORER_DATA_DIR",
    os.path.join(tempfile.gettempdir(), f"autograd-explorer-tests-{os.getpid()}"),
)

from collections.abc import Iterator

import pytest

from gui.model.engine_process import EngineProcess


@pytest.fixture(scope="session")
def engine_process() -> Iterator[EngineProcess]:
    """One child engine for the whole run: starting one costs a torch import."""
    process = EngineProcess()
    process.start()
    yield process
    process.close()
