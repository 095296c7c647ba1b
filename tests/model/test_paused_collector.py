"""Pausing the cyclic collector while a big scene is built: off inside, as it was after."""

from __future__ import annotations

import gc

import pytest

from gui.model.paused_collector import paused_collector


def test_the_collector_is_off_inside_and_back_on_after_even_on_an_error() -> None:
    assert gc.isenabled()
    with paused_collector():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), paused_collector():
        raise ValueError("a failed build")
    assert gc.isenabled()


def test_a_collector_already_off_stays_off() -> None:
    gc.disable()
    try:
        with paused_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()  # whoever turned it off turns it back on
    finally:
        gc.enable()


def test_nested_pauses_turn_it_back_on_once_the_outer_one_ends() -> None:
    with paused_collector():
        with paused_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
