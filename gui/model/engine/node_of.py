"""A tensor's ``grad_fn`` and ``is_leaf`` as the engine reads them, for tensors the
program never asked about.

torch refuses to give the ``grad_fn`` (and ``is_leaf``) of a view made under ``no_grad``
whose base then changed in place ("A view was created in no_grad mode and its base ...
has been modified inplace"): ``nn.init.orthogonal_`` leaves one behind, and a program may
keep one in a variable. Plain torch raises only if the program itself asks; the engine
asks to name, record and draw tensors, so it must not raise there.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import Any

import torch


def node_of(t: torch.Tensor) -> Any:
    """``t.grad_fn``, or ``None`` where torch refuses to give it (see the module)."""
    try:
        return t.grad_fn
    except RuntimeError:
        return None


def is_leaf(t: torch.Tensor) -> bool:
    """``t.is_leaf``; ``False`` where torch refuses to say (the view of the module
    docstring: a view, whose history torch no longer vouches for)."""
    try:
        return t.is_leaf
    except RuntimeError:
        return False


# A run that made at least this many nodes lets go of them newest first (see let_go): fewer
# fit the engine's stack however deep (os_wall.limits.DEEP_STACK_BYTES: ~170 bytes a node).
DEEP_GRAPH_NODES = 200_000


def let_go(drop: Callable[[], object], nodes_made: int) -> None:
    """``drop()`` (which lets go of what a run holds), then of its autograd nodes one at a
    time, newest first, when the run made many.

    torch frees a node Python has seen (the recorder reads every op's ``grad_fn``) through
    its Python object, each node's free inside its successor's: a chain of 600,000 nodes
    overflowed even a 100 MiB stack and the engine died of SIGSEGV, where plain torch
    (which never read those ``grad_fn``) frees them in a loop. Held here while ``drop()``
    runs, none is freed there; then each node's inputs are older (smaller sequence
    numbers) and still held when it goes, so each free is of one node.
    """
    if nodes_made < DEEP_GRAPH_NODES:
        drop()
        return
    kinds: dict[type, bool] = {}  # (by each object's type: no object's own lookup runs)
    held = []
    for item in gc.get_objects():
        kind = type(item)
        node = kinds.get(kind)
        if node is None:
            node = kinds[kind] = issubclass(kind, torch.autograd.graph.Node)
        if node:
            held.append(item)
    item = None  # (the last object looked at, held here, would be let go of last)
    held.sort(key=_sequence_number)
    drop()
    while held:
        held.pop()


def _sequence_number(node: Any) -> int:
    """The node's number in the order torch made them, read from its class (never from
    the object's own attributes)."""
    try:
        number = type(node)._sequence_nr(node)
    except Exception:  # no number: first to go
        return sys.maxsize * 4
    return number if type(number) is int else sys.maxsize * 4
