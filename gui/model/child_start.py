"""Starting a ``spawn`` child from inside someone else's program.

``multiprocessing``'s spawn makes the child import the parent's ``__main__`` module again
(to find functions defined there). For the app's own ``main.py`` that costs nothing; for a
user's script that called ``explore(loss)`` it would run their whole script (training
included) once more in every child, and a script without an ``if __name__ ==
"__main__":`` guard would fail there. The app's children run only functions of ``gui``, so
they need nothing from ``__main__``: it is hidden from spawn while a child starts.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def main_module_hidden() -> Iterator[None]:
    """While inside, ``__main__`` is an empty module: a child spawned now re-runs nothing."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is None:
            del sys.modules["__main__"]
        else:
            sys.modules["__main__"] = main
