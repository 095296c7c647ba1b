"""Shared test set-up: Qt offscreen (before anything imports Qt), one engine process."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

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
