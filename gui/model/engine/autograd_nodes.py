"""What a program holds of autograd's C++ side: nodes, saved tensors, saved-tensor hooks.

torch hands out its autograd nodes and their saved tensors as bare references into C++
memory, callable or writable in ways its engine does not check. Programs get
:class:`NodeView` and :class:`RawSavedTensor` instead, saved-tensor hooks that check what
they hand back, and only the listed context managers for ``with`` blocks.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
import weakref
from typing import Any

import torch
import torch.autograd.forward_ad
import torch.autograd.graph

from gui.model.engine import pristine, program_code
from gui.model.engine.refusal import PROGRAM_CLASSES, CodeRefusedAtRuntime


class RawSavedTensor:
    """What a program gets for ``y.grad_fn._raw_saved_self``: the node and the name, and
    ``register_hooks`` (torch's, with the checked hooks of :func:`_checked_hooks`).

    Not torch's ``SavedTensor`` itself: torch hands that out as a bare reference into the
    node's C++ memory, which does not keep the node alive, so once the node is gone
    (``(x * 2).grad_fn._raw_saved_self``, the product dropped at once) its ``data`` read
    freed memory and its ``register_hooks`` wrote there (pybind's ``reference`` policy, no
    keep-alive). This one holds the node, and reads torch's object only for the moment of
    the call. A list of saved tensors (``_raw_saved_tensors``) is not offered."""

    __slots__ = ("_name", "_node")

    def __init__(self, node: object, name: str) -> None:
        self._node = node
        self._name = name

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        saved: Any = getattr(self._node, self._name)
        if type(saved) is not torch._C._autograd.SavedTensor:
            raise CodeRefusedAtRuntime(
                f"`{self._name}.register_hooks` is not available: this node saved a list of "
                "tensors; use torch.autograd.graph.saved_tensors_hooks(pack, unpack) instead."
            )
        # torch calls the pack hook in the middle of its own `register_hooks`, with the
        # hooks already stored on the node: a pack of the program's that ran backward
        # through this node (`s.backward()`) freed them there, and torch then wrote the
        # packed value into the freed hooks object (and unpacked a null pointer). So
        # torch's call runs only the app's code, and the program's pack runs after it.
        deferred: list[tuple[_Packed, torch.Tensor]] = []
        checked = _checked_hooks(pack_hook, unpack_hook, deferred=deferred)
        saved.register_hooks(*checked)  # type: ignore[attr-defined]
        for packed, tensor in deferred:
            version = tensor._version
            with torch.no_grad():
                packed.value = pack_hook(tensor)
            if tensor._version != version:
                raise RuntimeError(
                    "A saved tensor pack hook is modifying its input in place. Tensors "
                    "provided as input to pack hook can not be modified by in-place "
                    "operations as this can lead to unexpected side-effects. Please "
                    "consider making a copy of the tensor before modifying it in place."
                )
            packed.ready = True

    def __repr__(self) -> str:
        return f"<torch._C._autograd.SavedTensor object at {id(self):#x}>"


class NodeView:
    """What a program gets for one of torch's C++ autograd nodes (``y.grad_fn``, an entry
    of ``next_functions``): the node to read, not to call. torch's node is callable
    (``y.grad_fn(g)`` runs its backward function on ``g`` alone), and a call is no
    attribute read: the guard never saw it, and torch checks the gradients it hands a node
    (shape, dtype) in its engine, not in the node (``F.pdist(a).grad_fn(torch.ones(1))``
    read past the one number given; AccumulateGrad took an int64 gradient for a float
    leaf). Every read of a view is the guard's read of its node; it prints, compares and
    hashes as the node, and one node has one view while the program holds it."""

    __slots__ = ("__weakref__", "_node")

    def __init__(self, node: object) -> None:
        self._node = node

    def __repr__(self) -> str:
        return repr(self._node)

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        """The node's class, for ``isinstance(y.grad_fn, type(z.grad_fn))`` to answer as
        in plain torch (``isinstance`` asks ``__class__`` after ``type()``). ``type(view)``
        stays NodeView, and the guard answers a program's ``view.__class__`` itself (as
        ``type(view)``, with its checks): this class is never handed out from here."""
        return type(self._node)

    def __eq__(self, other: object) -> bool:
        return type(other) is NodeView and other._node is self._node

    def __hash__(self) -> int:
        return hash(self._node)

    def __call__(self, *args: object, **kwargs: object) -> None:
        raise CodeRefusedAtRuntime(
            f"Calling `{type(self._node).__name__}` is not available: an autograd node runs "
            "inside backward, where torch checks the gradients it hands it; call "
            "`y.backward(g)` or `torch.autograd.grad(y, x, g)` instead."
        )


_NODE_VIEWS: weakref.WeakValueDictionary[int, NodeView] = weakref.WeakValueDictionary()


def node_view(value: object) -> object:
    """``value`` as a program may hold it: a C++ autograd node as its :class:`NodeView`
    (also inside ``next_functions``' pairs), anything else as it is."""
    if type(value) is tuple:
        return tuple(node_view(item) for item in value)
    if _NODE_CLASSES.get(id(type(value))) is not type(value):
        return value
    view = _NODE_VIEWS.get(id(value))
    if view is None or view._node is not value:
        view = NodeView(value)
        _NODE_VIEWS[id(value)] = view
    return view


# Saved-tensor hooks ("Hooks for autograd saved tensors"). torch calls the program's pack
# function on every tensor its forward saves and the unpack function whenever backward (or
# `y.grad_fn._saved_self`) needs it back. Both are the program's own code, still guarded;
# what the stand-ins below add:
#
# - What unpack returns replaces the saved tensor, and torch then checks only that it is a
#   tensor (no version counter, no shape): a backward kernel indexes memory with saved
#   integer tensors (max pooling's indices) and sizes its loops by saved shapes. So the
#   unpacked tensor must have the shape, dtype, layout and device of the one packed, and a
#   saved tensor of integers or booleans its very values (a copy is kept, taken before the
#   program's pack could change the tensor in place); and backward gets a tensor the
#   program holds no reference to, so a later unpack cannot change it after the check.
# - The stack of default hooks is the thread's, not the program's: a pair left on it (a
#   generator suspended inside the `with`) is emptied by `pristine.restore`, and a `with`
#   block of an earlier run, closed later by the garbage collector, pops nothing.
# - The engine reads every node's `_saved_*` to draw the graph (`graph_walk._read_saved`):
#   the program's unpack does not run for that (it runs as often as in plain torch), the
#   value is shown as unavailable instead.
# - While a program has such hooks the engine computes no Jacobian (like tensor hooks).


class _Packed:
    """What the stand-in's pack hook stores: the program's packed value and what the
    tensor was like before the program saw it."""

    __slots__ = ("device", "dtype", "kept", "layout", "ready", "shape", "value")

    def __init__(self, tensor: torch.Tensor, value: object, kept: torch.Tensor | None) -> None:
        self.ready = False  # the program's pack has returned `value`
        self.shape = tuple(tensor.shape)
        self.dtype = tensor.dtype
        self.layout = tensor.layout
        self.device = tensor.device
        self.kept = kept
        self.value = value

    def problem(self, tensor: object) -> str | None:
        if not isinstance(tensor, torch.Tensor):
            return None  # torch refuses it itself, with its own TypeError
        if (
            tuple(tensor.shape) != self.shape
            or tensor.dtype != self.dtype
            or tensor.layout != self.layout
            or tensor.device != self.device
        ):
            return (
                f"it returned a tensor of shape {tuple(tensor.shape)} and dtype "
                f"{tensor.dtype} for one of shape {self.shape} and dtype {self.dtype}"
            )
        if self.kept is not None and not torch.equal(tensor.detach(), self.kept):
            return "it returned other values for a saved tensor of whole numbers (indices)"
        return None


def _reads_for_the_graph(frame: types.FrameType | None) -> bool:
    """Whether the engine's graph drawing is reading saved tensors (``frame`` is the
    caller of the node's ``_saved_*`` getter)."""
    from gui.model.engine import graph_walk

    return frame is not None and frame.f_code is graph_walk._read_saved.__code__


def _checked_hooks(
    pack: Any, unpack: Any, deferred: list[tuple[_Packed, torch.Tensor]] | None = None
) -> tuple[Any, Any]:
    """The program's pack/unpack functions, wrapped as described above. With ``deferred``,
    the pack hook only records the tensor there, and the caller runs the program's pack
    later (see :meth:`RawSavedTensor.register_hooks`)."""
    program_code.note_in_autograd()

    def pack_hook(tensor: torch.Tensor) -> _Packed:
        kept = None
        if not (tensor.is_floating_point() or tensor.is_complex()):
            with torch.no_grad():
                kept = tensor.detach().clone()
        shape = _Packed(tensor, None, kept)  # before the program's pack sees the tensor
        if deferred is not None:
            deferred.append((shape, tensor))
            return shape
        shape.value = pack(tensor)
        shape.ready = True
        return shape

    def unpack_hook(packed: _Packed) -> object:
        if _reads_for_the_graph(sys._getframe(1)):
            raise RuntimeError("saved by the program's own pack hook: not read for the graph")
        if not packed.ready:
            raise CodeRefusedAtRuntime(
                "This saved tensor is not available: its `pack_hook` had not returned (or "
                "had failed) when it was needed; a pack hook cannot run backward through "
                "the node that saved the tensor it packs."
            )
        tensor = unpack(packed.value)
        problem = packed.problem(tensor)
        if problem is not None:
            raise CodeRefusedAtRuntime(
                "This `unpack_hook` is not available: what it returns stands for the tensor "
                f"that was packed, and {problem}; return a tensor like the packed one."
            )
        if not isinstance(tensor, torch.Tensor):
            return tensor  # torch's own TypeError follows
        # Backward uses the tensor after the node's other saved tensors are unpacked, which
        # runs the program's unpack again: it could change a tensor it kept, in place
        # (`idx.add_(n)`, `t.resize_(1)`), after the check. So backward gets a tensor no
        # one else holds: whole numbers a copy of the values checked, other tensors a
        # view of their own (the same storage, never smaller; sizes nobody else can change).
        if packed.kept is not None:
            return packed.kept.clone()
        return tensor.detach()

    return pack_hook, unpack_hook


class _SavedTensorsHooks(torch.autograd.graph.saved_tensors_hooks):
    """``torch.autograd.graph.saved_tensors_hooks`` for programs: torch's, with the checked
    hooks of :func:`_checked_hooks`, and an exit that pops only in the run that entered."""

    def __init__(self, pack_hook: Any, unpack_hook: Any) -> None:
        super().__init__(*_checked_hooks(pack_hook, unpack_hook))
        self._entered: list[int] = []

    def __enter__(self) -> None:
        self._entered.append(pristine.generation())
        super().__enter__()

    def __exit__(self, *args: object) -> None:
        entered = self._entered.pop() if self._entered else None
        if entered == pristine.generation():
            super().__exit__(*args)


class _SaveOnCpu(_SavedTensorsHooks):
    """``torch.autograd.graph.save_on_cpu`` for programs: torch's pack and unpack functions
    (copies to the CPU and back: here, where everything is on the CPU, a copy), checked like
    the program's. torch's reads ``getattr(torch, device_type)``: any name, so only a device
    type, and a plain bool for ``pin_memory``."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        if type(pin_memory) is not bool or not (
            type(device_type) is str and device_type in ("cuda", "cpu")
        ):
            raise CodeRefusedAtRuntime(
                "`save_on_cpu(...)` is not available with these arguments: pin_memory must be "
                "True or False and device_type 'cuda' or 'cpu'."
            )
        torchs = torch.autograd.graph.save_on_cpu(pin_memory, device_type)
        super().__init__(torchs.pack_hook, torchs.unpack_hook)


def check_checkpoint_recomputation() -> None:
    """Non-reentrant checkpointing's saved tensors checked like a program's unpack hook's.

    ``checkpoint(block, x, use_reentrant=False)`` keeps a placeholder for every tensor the
    block's nodes save, and backward uses what running the program's block again saves in
    its place; torch compares only shapes, dtypes and devices (nothing with
    ``determinism_check="none"`` or after a backward inside the block). A block that made
    other indices the second time (a counter) made an embedding's backward count past its
    buffer (red team, round 13: SIGSEGV). Each recomputed tensor must now be like the one
    packed (:class:`_Packed`); whole numbers keep their forward values (a copy, as for a
    program's hooks); the graph's reader never runs the block again."""
    checkpointing: Any = importlib.import_module("torch.utils.checkpoint")
    torchs: Any = checkpointing._checkpoint_hook
    if getattr(torchs, "_ae_checked", False):
        return

    class CheckedCheckpointHook(torchs):
        _ae_checked = True

        def __init__(self, frame: object) -> None:
            super().__init__(frame)
            hooks: Any = self  # torch's pack and unpack, wrapped below
            pack, unpack = hooks.pack_hook, hooks.unpack_hook

            def pack_hook(tensor: torch.Tensor) -> _Packed:
                kept = None
                if not (tensor.is_floating_point() or tensor.is_complex()):
                    with torch.no_grad():
                        kept = tensor.detach().clone()
                return _Packed(tensor, pack(tensor), kept)

            def unpack_hook(packed: _Packed) -> object:
                if _reads_for_the_graph(sys._getframe(1)):
                    raise RuntimeError("recomputed by a checkpoint: not read for the graph")
                tensor = unpack(packed.value)
                problem = packed.problem(tensor)
                if problem is not None:
                    raise CodeRefusedAtRuntime(
                        "This checkpointed block is not available: backward ran it again "
                        f"to recompute what it saved, and {problem}; a checkpointed block "
                        "must compute the same tensors every time it runs."
                    )
                if packed.kept is not None:
                    return packed.kept.clone()
                return tensor.detach() if isinstance(tensor, torch.Tensor) else tensor

            hooks.pack_hook, hooks.unpack_hook = pack_hook, unpack_hook

    checkpointing._checkpoint_hook = CheckedCheckpointHook


@contextlib.contextmanager
def _disable_saved_tensors_hooks(error_message: str) -> Any:
    """``torch.autograd.graph.disable_saved_tensors_hooks`` for programs: torch's, except
    that a block left open past its run (a suspended generator, closed later) puts back
    nothing in a later run (``pristine.restore`` has put the switch back already)."""
    autograd: Any = torch._C._autograd
    entered = pristine.generation()
    previous = autograd._saved_tensors_hooks_get_disabled_error_message()
    autograd._saved_tensors_hooks_disable(error_message)
    try:
        yield
    finally:
        if entered == pristine.generation():
            if previous is None:
                autograd._saved_tensors_hooks_enable()
            else:
                autograd._saved_tensors_hooks_disable(previous)


# The classes of torch's C++ autograd nodes (`PowBackward0`, `AccumulateGrad`...), which
# torch registers in `torch._C._functions`, by identity.
_NODE_CLASSES: dict[int, type] = {
    id(v): v for v in vars(torch._C._functions).values() if isinstance(v, type)
}
_BASETYPE_FLAG = 1 << 10  # Py_TPFLAGS_BASETYPE: a `class` statement may build on it
# Node classes torch gives a constructor that always raises "Cannot construct" (its
# `NoCtor`, functions/init.cpp); the other two with a `__new__` of their own,
# `DelayedError(msg, n)` and `UndefinedGrad()`, really make a node.
_NO_CONSTRUCTOR: tuple[str, ...] = (
    "AccumulateGrad", "Error", "NotImplemented", "UndefinedGradBackward", "CopyBackwards",
    "CopySlices",
)  # fmt: skip
_NO_CONSTRUCTOR_CLASSES: tuple[object, ...] = tuple(
    vars(torch._C._functions).get(name) for name in _NO_CONSTRUCTOR
)
# Those a program may hold as `type(y.grad_fn)` (`print(type(node).__name__)` walking a
# graph, down to its AccumulateGrad): each cannot be called to make a node (no `__new__`
# of its own: "cannot create 'SumBackward0' instances", or torch's "Cannot construct")
# nor subclassed (no BASETYPE flag), so the class gives no node the program does not
# already hold as a NodeView, and its descriptors, read through the guard like any value,
# only accept a raw node, which a program never holds.
UNMAKEABLE_NODE_CLASSES: frozenset[type] = frozenset(
    v
    for v in _NODE_CLASSES.values()
    if v is not object
    and ("__new__" not in vars(v) or v in _NO_CONSTRUCTOR_CLASSES)
    and not v.__flags__ & _BASETYPE_FLAG
)


def is_saved_attribute(obj: object, name: str) -> bool:
    """``y.grad_fn._saved_self``, ``_saved_exponent``, ``_raw_saved_self``: a read-only
    attribute that one of torch's C++ autograd node classes defines itself (a getter over
    what the node saved for backward), on an instance of exactly that class."""
    if not name.startswith(("_saved_", "_raw_saved_")):
        return False
    cls = type(obj)
    if _NODE_CLASSES.get(id(cls)) is not cls:
        return False
    return type(vars(cls).get(name)) is types.GetSetDescriptorType


def is_allowed_context(value: object) -> bool:
    """Whether ``with value:`` may enter ``value``: torch's grad-mode and anomaly switches,
    the saved-tensor hooks' stand-ins, or an instance of the program's own class (its
    ``__enter__`` is the program's code, guarded). Nothing else: a ``torch.device`` (a
    function mode pushed for the block), a library's context manager."""
    kind = type(value)
    if kind in _CONTEXT_TYPES or kind in PROGRAM_CLASSES:
        return True
    if kind is contextlib._GeneratorContextManager:
        return getattr(value, "func", None) is _disable_saved_tensors_hooks.__wrapped__  # type: ignore[attr-defined]
    return False


def is_allowed_context_type(kind: type) -> bool:
    """Whether ``kind`` is one of the contexts ``with`` may enter (its instances: a ``with``
    on the class itself, ``with torch.no_grad:``, is Python's TypeError)."""
    return kind in _CONTEXT_TYPES


_CONTEXT_TYPES: frozenset[type] = frozenset(
    {
        torch.no_grad,
        torch.enable_grad,
        torch.set_grad_enabled,
        torch.inference_mode,
        torch.autograd.detect_anomaly,
        torch.autograd.set_detect_anomaly,  # as a `with` (restored like detect_anomaly)
        torch.autograd.forward_ad.dual_level,
        _SavedTensorsHooks,
        _SaveOnCpu,
        # nanoGPT's `with ctx:` where `ctx = nullcontext()`: its `__enter__` hands back the
        # value it was made with and its `__exit__` does nothing (no file, process, native
        # code or state). By identity: a program's subclass is a program class.
        contextlib.nullcontext,
    }
)
