"""Pausing Python's cyclic garbage collector while a big, garbage-free structure is built.

Building a 5,000-box graph's scene makes tens of thousands of objects, none of them
garbage; each few hundred of them start a collection, and every so often a full one walks
everything the window holds (a big result is hundreds of thousands of objects): a third
of the scene's build went there. Reference counting still frees what is dropped meanwhile.

Kept free of torch and Qt: the model and the widgets both use it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_collector() -> Iterator[None]:
    """No cyclic collection inside the block; back on after it unless it was already off
    when the block began. The collector is the whole process's: of two threads' pauses,
    the one that found it on turns it back on, so together they never leave it off."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
