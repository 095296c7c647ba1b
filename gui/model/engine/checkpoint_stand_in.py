"""``torch.utils.checkpoint`` for programs: torch's own, knowing which nodes it recomputes.

Activation checkpointing (``checkpoint(block, x, use_reentrant=False)``) keeps none of
the tensors the block's nodes save: each node holds a placeholder, and the first read of
one runs the block again (inside ``backward()``, where torch needs them). The graph
drawing reads every node's saved tensors; reading a checkpointed one would run the
program's block once more than plain torch does (its prints, its counters, its random
numbers). So the stand-in notes which nodes the block made, and the graph walk reads
nothing they saved as a tensor (:func:`made_in_checkpoint`): it shows them recomputed in
backward, which is checkpointing's lesson on the memory panel.

Which nodes: autograd numbers every node it makes, one after another on a thread
(``grad_fn._sequence_nr()``). The block's nodes are those numbered while torch's
checkpoint hooks are on: the stand-in hands torch a ``context_fn`` whose forward context
notes the next number when torch enters it and again when it leaves.

The reentrant variant (``use_reentrant=True``, torch's default when it is not given, with
torch's warning) runs the block under ``no_grad``: its graph is one node, which saves the
block's inputs as ordinary tensors, so it is torch's own, unchanged.
"""

from __future__ import annotations

import bisect
import contextlib
import sys
import types
from collections.abc import Iterator
from typing import Any

import torch
import torch.utils.checkpoint

from gui.model.engine import program_code
from gui.model.engine.refusal import CodeRefusedAtRuntime

_next_node_number = torch._C._autograd._get_sequence_nr

# The numbers of the nodes made inside checkpointed blocks this run, as sorted disjoint
# ranges [first, past last): ``_firsts[i]`` to ``_pasts[i]`` (a model checkpointing every
# layer has hundreds, looked up for each of thousands of nodes).
_firsts: list[int] = []
_pasts: list[int] = []


def forget_checkpoints() -> None:
    """A new run: no node of it was made inside a checkpoint yet."""
    _firsts.clear()
    _pasts.clear()


def made_in_checkpoint(node: Any) -> bool:
    """Whether ``node`` (a ``grad_fn``) was made inside a checkpointed block of this run:
    its saved tensors are recomputed when read, by running the program's block again."""
    if not _firsts:
        return False
    number = node._sequence_nr()
    i = bisect.bisect_right(_firsts, number) - 1
    return i >= 0 and number < _pasts[i]


def _note_range(first: int, past: int) -> None:
    """Blocks end in order (an inner one before the one around it), so a new range ends
    last: it swallows the ranges it overlaps (nested checkpoints) and goes at the end."""
    if past <= first:
        return
    while _pasts and _pasts[-1] > first:
        first = min(first, _firsts.pop())
        _pasts.pop()
    _firsts.append(first)
    _pasts.append(past)


def saved_through_checkpoint(node: Any) -> bool:
    """Whether ``node`` saved its tensors through ``torch.utils.checkpoint``'s hooks, told
    without unpacking them (which would run the checkpointed block again).

    For a graph built outside the engine (``explore(loss)`` of a model that checkpoints,
    as ``gradient_checkpointing`` does), which has no notes of the stand-in's: its first
    saved tensor's raw form names the function it unpacks with, compared by code object
    with those torch's checkpoint hooks are made of."""
    for raw_name in raw_saved_names(type(node)):
        try:
            raw = getattr(node, raw_name)
        except RuntimeError:  # freed by an earlier backward
            return False
        for one in raw if isinstance(raw, list | tuple) else (raw,):
            if one.unpack_hook is not None:
                return getattr(one.unpack_hook, "__code__", None) in _checkpoint_hook_codes()
    return False


_RAW_SAVED: dict[type, tuple[str, ...]] = {}


def raw_saved_names(node_type: type) -> tuple[str, ...]:
    """A node class's ``_raw_saved_*`` attributes: its saved tensors, raw (not unpacked)."""
    names = _RAW_SAVED.get(node_type)
    if names is None:
        names = _RAW_SAVED[node_type] = tuple(
            a for a in dir(node_type) if a.startswith("_raw_saved_")
        )
    return names


def _checkpoint_hook_codes() -> frozenset[types.CodeType]:
    """The code of the functions torch's checkpoint hooks are made of (pack, unpack, unpack
    with debug's error callback; each checkpoint makes new ones, all with these codes),
    and of the engine's checked hooks around them (:mod:`.autograd_nodes`) once they are
    in place: the class torch's checkpoint makes its hooks with, and its bases."""
    hooks: Any = torch.utils.checkpoint._checkpoint_hook
    found = _HOOK_CODES.get(hooks)
    if found is None:
        found = _HOOK_CODES[hooks] = frozenset(
            code
            for cls in hooks.__mro__
            if "__init__" in vars(cls) and hasattr(vars(cls)["__init__"], "__code__")
            for code in vars(cls)["__init__"].__code__.co_consts
            if isinstance(code, types.CodeType)
        )
    return found


_HOOK_CODES: dict[type, frozenset[types.CodeType]] = {}


@contextlib.contextmanager
def _noting_the_nodes() -> Iterator[None]:
    first = _next_node_number()
    try:
        yield
    finally:
        _note_range(first, _next_node_number())


def _contexts() -> tuple[contextlib.AbstractContextManager[None], contextlib.nullcontext[None]]:
    """The ``context_fn`` handed to torch: the forward noted, the recomputation as is."""
    return _noting_the_nodes(), contextlib.nullcontext()


def _checkpointing() -> None:
    """Before a checkpoint: a warm process, and the program's code noted in autograd.

    Checkpointing reaches ``torch._dynamo`` (its config, its "run without compiling"
    wrapper), which imports itself on first use and needs a temporary folder to do so:
    behind the operating system's wall, only a process that finished warming up (the
    allowlist's slow part imports it, making an optimizer) can checkpoint. A cold one
    refuses, and the engine hands a refused program to a warm process
    (:mod:`.fork_server`): the learner never sees this sentence."""
    if sys.modules.get("torch._dynamo") is None:
        raise CodeRefusedAtRuntime(
            "`torch.utils.checkpoint` is not available until the engine has warmed up: "
            "run the code again in a moment."
        )
    if torch.is_grad_enabled():
        # Both variants run the block again inside backward: the program's code, which
        # no second backward of the engine's own (a Jacobian) may run once more.
        program_code.note_in_autograd()


def checkpoint(
    function: Any,
    *args: Any,
    use_reentrant: Any = None,
    context_fn: Any = None,
    debug: Any = False,
    **kwargs: Any,
) -> Any:
    """``torch.utils.checkpoint.checkpoint`` for programs (same arguments, same numbers).

    ``context_fn`` (selective checkpointing's policies, which are torch dispatch modes) and
    ``debug=True`` (torch's own ``context_fn``) are not available: the stand-in's context
    is the one that tells the graph which nodes are recomputed."""
    if context_fn is not None:
        raise CodeRefusedAtRuntime(
            "`checkpoint(..., context_fn=...)` is not available here (selective "
            "checkpointing runs torch dispatch modes); leave it out: plain checkpointing "
            "computes the same numbers."
        )
    if debug is not False:
        raise CodeRefusedAtRuntime(
            "`checkpoint(..., debug=True)` is not available here; leave it out (the "
            "numbers are the same, and the graph shows which nodes are recomputed)."
        )
    _checkpointing()
    # Read once: torch reads it again, and a program's object could answer otherwise.
    reentrant = None if use_reentrant is None else bool(use_reentrant)
    if reentrant is None or reentrant:
        return torch.utils.checkpoint.checkpoint(function, *args, use_reentrant=reentrant, **kwargs)
    return torch.utils.checkpoint.checkpoint(
        function, *args, use_reentrant=False, context_fn=_contexts, **kwargs
    )


def checkpoint_sequential(
    functions: Any, segments: Any, input: Any, use_reentrant: Any = None, **kwargs: Any
) -> Any:
    """``torch.utils.checkpoint.checkpoint_sequential`` for programs: every segment but
    the last checkpointed (through :func:`checkpoint`), the last run as it is."""
    _checkpointing()
    reentrant = None if use_reentrant is None else bool(use_reentrant)
    if reentrant is None or reentrant:
        return torch.utils.checkpoint.checkpoint_sequential(
            functions, segments, input, reentrant, **kwargs
        )
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))

    def run_function(start: int, end: int, functions: Any) -> Any:
        def forward(input: Any) -> Any:
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    if isinstance(functions, torch.nn.Sequential):
        functions = list(functions.children())
    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(
            run_function(start, end, functions),
            input,
            use_reentrant=False,
            preserve_rng_state=preserve,
        )
    return run_function(end + 1, len(functions) - 1, functions)(input)
