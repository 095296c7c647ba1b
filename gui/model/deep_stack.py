"""Running one call on a thread whose C stack is as deep as the call may need.

Python 3.11 hashes a tuple by recursing in C once per level of nesting, with no depth
check: a tuple nested a few hundred thousand deep overflows an ordinary thread's stack and
the interpreter dies. The window's careful reader (:mod:`gui.model.wire`) builds messages
whose nesting it can bound (one opcode byte per level) but not cheaply measure: it builds
a big message here, on a stack made deep enough for the bound, instead of reading every
opcode in Python first.

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

# C stack one level of a nested tuple's hash takes: about 55 bytes measured (x86-64,
# CPython 3.11: 300,000 levels overflow 16 MiB, 4.8 million fit in 256 MiB); four times
# that, for other builds and for what a message's own classes do per level.
STACK_PER_LEVEL = 256
# Never less than this (an ordinary thread's 8 MiB), never more than the most it can be.
MIN_STACK_BYTES = 8 * 1024**2
MAX_STACK_BYTES = 512 * 1024**2
_PAGE = 64 * 1024

# threading.stack_size applies to every thread started after it: one change at a time.
_STACK_SIZE_LOCK = threading.Lock()


class StackUnavailable(Exception):
    """No thread with such a stack: more than MAX_STACK_BYTES, or the system refused it
    (an address-space limit). The caller must bound the nesting another way."""


def stack_bytes_for(levels: int) -> int:
    """The stack size that :func:`call_with_stack` uses for ``levels`` of nesting."""
    wanted = max(MIN_STACK_BYTES, levels * STACK_PER_LEVEL)
    return -(-wanted // _PAGE) * _PAGE


def levels_covered(levels: int) -> bool:
    """Whether :func:`call_with_stack` can give ``levels`` of nesting a stack of its own."""
    return stack_bytes_for(levels) <= MAX_STACK_BYTES


def call_with_stack(levels: int, call: Callable[[], T]) -> T:
    """``call()`` on a new thread whose stack holds ``levels`` of nested hashing; its
    result, or what it raised. The caller waits (the call is the caller's own work).

    Raises
    ------
    StackUnavailable
        No such thread could be started; ``call`` did not run.
    """
    size = stack_bytes_for(levels)
    if size > MAX_STACK_BYTES:
        raise StackUnavailable(f"no thread stack holds {levels} levels")
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:  # handed to the caller, raised on its thread
            failure.append(exc)

    thread = threading.Thread(target=run, name="deep-stack", daemon=True)
    with _STACK_SIZE_LOCK:
        try:
            before = threading.stack_size(size)
        except (ValueError, RuntimeError) as exc:  # a size this platform does not take
            raise StackUnavailable(str(exc)) from exc
        try:
            thread.start()
        except RuntimeError as exc:  # "can't start new thread"
            raise StackUnavailable(str(exc)) from exc
        finally:
            threading.stack_size(before)
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]
