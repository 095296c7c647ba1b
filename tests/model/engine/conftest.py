"""Fixtures of the engine's tests."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gui.model.engine import guard, pristine


@pytest.fixture
def owner_cycle() -> Iterator[pristine.Settings]:
    """The settings now; afterwards whatever a test left alive is dropped and put back."""
    baseline = pristine.capture()
    yield baseline
    guard.forget_verdicts()
    gc.collect()
    pristine.restore(baseline)
