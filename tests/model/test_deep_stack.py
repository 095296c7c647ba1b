"""A call on a thread whose stack holds the nesting it may meet (the careful reader's)."""

from __future__ import annotations

import threading

import pytest

from gui.model import deep_stack


def nested_tuple(levels: int) -> tuple[object, ...]:
    value: tuple[object, ...] = ()
    for _ in range(levels):
        value = (value,)
    return value


def test_the_call_runs_on_its_own_thread_and_its_result_comes_back() -> None:
    caller = threading.get_ident()
    assert deep_stack.call_with_stack(10, threading.get_ident) != caller
    assert deep_stack.call_with_stack(10, lambda: 42) == 42


def test_what_the_call_raises_is_raised_to_the_caller() -> None:
    def fail() -> None:
        raise ValueError("from the deep thread")

    with pytest.raises(ValueError, match="from the deep thread"):
        deep_stack.call_with_stack(10, fail)


def test_a_tuple_nested_deeper_than_an_ordinary_stack_holds_is_hashed_there() -> None:
    """About 150,000 levels overflow an 8 MiB stack (the interpreter dies); the thread's
    stack is sized for the levels it is told of."""
    deep = nested_tuple(400_000)
    before = threading.stack_size()
    assert isinstance(deep_stack.call_with_stack(400_000, lambda: hash(deep)), int)
    assert threading.stack_size() == before  # not left changed for other threads


def test_stack_sizes_grow_with_the_levels_and_stay_bounded() -> None:
    assert deep_stack.stack_bytes_for(1) == deep_stack.MIN_STACK_BYTES
    assert deep_stack.stack_bytes_for(1_000_000) >= 1_000_000 * deep_stack.STACK_PER_LEVEL
    assert deep_stack.levels_covered(1_000_000)
    too_many = deep_stack.MAX_STACK_BYTES // deep_stack.STACK_PER_LEVEL + 1
    assert not deep_stack.levels_covered(too_many)
    with pytest.raises(deep_stack.StackUnavailable):
        deep_stack.call_with_stack(too_many, lambda: None)


def test_a_refused_thread_is_said_as_such(monkeypatch: pytest.MonkeyPatch) -> None:
    """An address-space limit makes starting the thread fail: the caller hears
    StackUnavailable (and checks another way), and the call did not run."""
    ran: list[bool] = []

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    with pytest.raises(deep_stack.StackUnavailable):
        deep_stack.call_with_stack(10, lambda: ran.append(True))
    assert not ran
