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

from gui.model.engine import pristine
from gui.model.engine_process import EngineProcess

# torch's global settings before any test ran.
_SETTINGS = pristine.capture()


@pytest.fixture(autouse=True)
def _torch_settings_put_back() -> Iterator[None]:
    """torch's global settings as they were before the tests, for every test: one that
    runs a program in this process (``run_program``, which the engine's process follows
    with ``pristine.restore`` itself), even in a module-wide fixture that runs before this
    one, must not leave, say, anomaly mode on for the next test."""
    if pristine.capture() != _SETTINGS:
        pristine.restore(_SETTINGS)
    yield
    if pristine.capture() != _SETTINGS:
        pristine.restore(_SETTINGS)


@pytest.fixture(scope="session")
def engine_process() -> Iterator[EngineProcess]:
    """One child engine for the whole run: starting one costs a torch import."""
    process = EngineProcess()
    process.start()
    yield process
    process.close()
