"""Reading what the engine's child sends, without trusting it.

The child runs a stranger's program. Its walls (the Python guard, the operating-system
wall) keep the program from reaching the pipe, but if one ever gave way, whatever it wrote
on the pipe would be the stranger's, and ``pickle`` runs any callable a message names. So
the window never calls ``Connection.recv``: it reads the bytes and unpickles them with
:func:`loads`, which builds only the engine's own message classes (the dataclasses of
:mod:`gui.model.result` and :mod:`gui.model.request`, by identity) and plain data
(numbers, strings, bytes, tuples, lists, dicts, sets). Anything else is refused with
:class:`pickle.UnpicklingError` before it is built.

Kept free of torch and Qt: it runs in the window's process.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import pickle
from typing import Any

from gui.model import request, result

# Deeper pickles than this are refused: each level of ``loads`` inside a message (see
# :func:`_nested_loads`) is another unpickler on the stack.
MAX_NESTING = 4


@functools.cache
def _message_classes() -> dict[tuple[str, str], type]:
    """The classes a message may hold, by (module, qualified name), as pickle names them."""
    found: dict[tuple[str, str], type] = {}
    for module in (result, request):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and dataclasses.is_dataclass(value)
                and value.__module__ == module.__name__
            ):
                found[(module.__name__, value.__qualname__)] = value
    return found


class _MessageUnpickler(pickle.Unpickler):
    """An unpickler that finds only the engine's message classes."""

    def __init__(self, data: bytes, depth: int) -> None:
        super().__init__(io.BytesIO(data))
        self._depth = depth

    def find_class(self, module: str, name: str) -> Any:
        found = _message_classes().get((module, name))
        if found is not None:
            return found
        if (module, name) in (("_pickle", "loads"), ("pickle", "loads")):
            # The child sends a result it already pickled (to measure it) as the call
            # ``loads(those bytes)``: read them the same careful way.
            return functools.partial(_nested_loads, depth=self._depth + 1)
        raise pickle.UnpicklingError(
            f"the engine sent {module}.{name}, which is not one of its message types"
        )


def _nested_loads(data: object, depth: int) -> object:
    if not isinstance(data, bytes | bytearray):
        raise pickle.UnpicklingError("the engine sent a nested message that is not bytes")
    if depth > MAX_NESTING:
        raise pickle.UnpicklingError("the engine sent messages nested too deep")
    return _MessageUnpickler(bytes(data), depth).load()


def loads(data: bytes) -> object:
    """One message from the engine: its own classes and plain data only (else
    :class:`pickle.UnpicklingError`)."""
    return _nested_loads(data, depth=0)
