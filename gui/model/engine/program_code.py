"""Whether the program put its own code inside autograd during this run.

A tensor or layer hook, a custom Function, saved-tensor hooks: torch's backward then runs
the program's code, and the engine computes no Jacobian (which would run that code a second
time, so the program would not run as often as in plain torch). The guard notes the hooks
and Functions it hands out, the allowlist's stand-ins the saved-tensor hooks; the backward
recorder reads the flag. Its own module, so that those three need not import each other.
"""

from __future__ import annotations

_IN_AUTOGRAD = [False]


def note_in_autograd() -> None:
    """The program put its own code inside autograd."""
    _IN_AUTOGRAD[0] = True


def in_autograd() -> bool:
    """Whether it did, in this run."""
    return _IN_AUTOGRAD[0]


def reset() -> None:
    """Forget what the previous run of this process did (before each run)."""
    _IN_AUTOGRAD[0] = False
