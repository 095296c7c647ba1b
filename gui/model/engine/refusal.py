"""The refusal every part of the sandbox raises, and the classes it never refuses.

The guard, the allowlist and each stand-in raise :class:`CodeRefusedAtRuntime` when a
program reaches what it may not use; :data:`PROGRAM_CLASSES` holds the classes the program
itself defined, which all of them let through as the program's own. A module of its own so
that those families need not import each other.
"""

from __future__ import annotations

import weakref


class CodeRefusedAtRuntime(BaseException):
    """Raised inside the child when running code reaches something it may not use.

    A ``BaseException``, not an ``Exception``: a program's ``try``/``except Exception`` (and
    a bare ``except:``, which the engine turns into ``except Exception:``) cannot swallow a
    refusal and go on as if the refused thing had worked.

    Parameters
    ----------
    message : str
        Plain-language explanation naming the construct; also ``str(error)``.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


# Classes the running program defined (``class`` statements, see the guard's
# ``__build_class__``): held weakly, compared by identity.
PROGRAM_CLASSES: weakref.WeakSet[type] = weakref.WeakSet()
