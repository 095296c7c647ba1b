"""Pausing the cyclic collector while a big scene is built: off inside, as it was after."""

from __future__ import annotations

import gc

import pytest

from gui.model.paused_collector import collector_paused, collector_running, paused_during


def test_the_collector_is_off_inside_and_back_on_after_even_on_an_error() -> None:
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError("a failed build")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # whoever turned it off turns it back on
    finally:
        gc.enable()


def test_nested_pauses_turn_it_back_on_once_the_outer_one_ends() -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_running_resumes_the_collector_inside_a_pause_only_if_it_was_on() -> None:
    """A program's hooks run inside the engine's pause with the collector as the program
    left it."""
    with collector_paused():
        with collector_running():
            assert gc.isenabled()
        assert not gc.isenabled()
    gc.disable()
    try:
        with collector_paused(), collector_running():
            assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_paused_function_runs_with_the_collector_off_and_puts_it_back() -> None:
    seen: list[bool] = []

    @paused_during
    def build(x: int) -> int:
        seen.append(gc.isenabled())
        return x + 1

    assert build(1) == 2 and seen == [False] and gc.isenabled()
