"""The window's reader takes complex numbers (pickle rebuilds them by calling
``complex``) and nothing else through that door: what ``complex()`` refuses is a refused
answer, never an exception the window does not expect."""

from __future__ import annotations

import pickle

import pytest

from gui.model import wire


def _call_complex(*args: object) -> bytes:
    """A hand-made pickle: ``builtins.complex(*args)``."""
    return b"\x80\x04cbuiltins\ncomplex\n" + pickle.dumps(args, protocol=4)[2:-1] + b"R."


def test_complex_numbers_are_read() -> None:
    assert wire.loads(pickle.dumps([1 + 2j, complex(0.5, -3.0)])) == [1 + 2j, 0.5 - 3j]


@pytest.mark.parametrize("args", [(10**400,), ("abc",), ([1.0],), (1.0, "x")])
def test_what_complex_refuses_is_a_refused_answer(args: tuple[object, ...]) -> None:
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(_call_complex(*args))
