"""Turning live tensors into plain :class:`TensorData` (engine side: imports torch)."""

from __future__ import annotations

import math
from typing import Any

import torch

from gui.model.engine.records import quick_maker
from gui.model.result import FULL_VALUES_LIMIT, TensorData, TensorSummary

# dtype -> its name: a few dtypes, asked for hundreds of times per run (every value and
# gradient in the graph becomes a TensorData).
_DTYPE_NAMES: dict[torch.dtype, str] = {}
# Shapes already met, each kept as one tuple: a big graph's values share a few shapes, and
# a tuple sent once is referenced after that (pickle's memo), not sent again and again
# (about a tenth of a 2,000-node graph's result). Bounded: a program may make many shapes.
_SHAPES: dict[tuple[int, ...], tuple[int, ...]] = {}
MAX_SHAPES = 1024


def dtype_name(dtype: torch.dtype) -> str:
    """``torch.float32`` -> ``"float32"``."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype).removeprefix("torch.")
    return name


def shared_shape(t: torch.Tensor) -> tuple[int, ...]:
    """``t``'s shape as a plain tuple of ints (a ``torch.Size`` would need torch to
    unpickle), the same tuple for every tensor of that shape (see ``_SHAPES``)."""
    shape = tuple(t.shape)
    known = _SHAPES.get(shape)
    if known is None:
        if len(_SHAPES) >= MAX_SHAPES:
            _SHAPES.clear()
        known = _SHAPES[shape] = shape
    return known


def tensor_data(t: torch.Tensor) -> TensorData:
    """A detached copy of ``t``'s numbers: in full when small, as statistics when large.

    On every slider tick's path (a few hundred calls for a 200-node graph): ``tolist``
    reads the numbers without detaching (it records nothing), and the shape is a plain
    tuple shared by every tensor of that shape (:func:`shared_shape`).

    Read as a plain tensor: torch's own subclasses answer reads in Python, and a lazy
    layer's ``UninitializedParameter`` raises ValueError for each (an engine error).
    """
    with torch._C.DisableTorchFunction():
        return read_tensor_data(t)


def read_tensor_data(t: torch.Tensor) -> TensorData:
    """:func:`tensor_data` for a caller that has torch functions disabled already (a graph
    walk or a backward's hooks read thousands of tensors inside one such block)."""
    try:
        if t.numel() <= FULL_VALUES_LIMIT:
            # A ``torch.Size`` is a tuple: it finds the plain tuple of its shape as a key.
            known = _SHAPES.get(t.shape)
            if known is None:
                known = shared_shape(t)
            dtype = _DTYPE_NAMES.get(t.dtype) or dtype_name(t.dtype)
            return _new_tensor_data(known, dtype, t.tolist())
        t = t.detach()
        if t._is_zerotensor():  # no memory: its statistics are known without reading
            return TensorData(shared_shape(t), dtype_name(t.dtype), None, ZEROS)
        return TensorData(shared_shape(t), dtype_name(t.dtype), None, summary_of(t))
    except (RuntimeError, NotImplementedError):  # no numbers to read where they are
        return _unusual_tensor_data(t)


class SharedReads:
    """:func:`read_tensor_data` for one graph walk, giving tensors that read exactly alike
    one :class:`TensorData` between them (records are frozen: sharing one is invisible).

    A big graph holds the same numbers many times over: a node's forward value is the
    next node's saved input, and ``h * 1.01`` wraps the same 1.01 at every step. Shared,
    they are made once, and packed, sent and read once. Only numbers whose ``==`` tells
    them apart exactly are shared: real and not zero (``0.0 == -0.0``), up to one
    dimension of at most :data:`SHARED_MOST`; a NaN never equals another, so it is never
    shared either.
    """

    def __init__(self) -> None:
        self._known: dict[tuple[Any, ...], TensorData] = {}

    def read(self, t: torch.Tensor) -> TensorData:
        """``read_tensor_data(t)``, or the equal record read before (torch functions are
        disabled by the caller, as for :func:`read_tensor_data`)."""
        try:
            if t.numel() <= FULL_VALUES_LIMIT:
                known = _SHAPES.get(t.shape)
                if known is None:
                    known = shared_shape(t)
                dtype = _DTYPE_NAMES.get(t.dtype) or dtype_name(t.dtype)
                values = t.tolist()
                key = _sharing_key(known, dtype, values)
                if key is None:
                    return _new_tensor_data(known, dtype, values)
                data = self._known.get(key)
                if data is None:
                    data = self._known[key] = _new_tensor_data(known, dtype, values)
                return data
        except (RuntimeError, NotImplementedError):
            pass
        return read_tensor_data(t)

    def shared(self, data: TensorData) -> TensorData:
        """``data`` (read earlier, e.g. when recorded), or an equal record read before."""
        if data.summary is not None:
            return data
        key = _sharing_key(data.shape, data.dtype, data.values)
        if key is None:
            return data
        return self._known.setdefault(key, data)


def _sharing_key(shape: tuple[int, ...], dtype: str, values: object) -> tuple[Any, ...] | None:
    """What tells numbers read as ``values`` apart exactly, or ``None`` (not shared)."""
    if dtype.startswith("complex"):
        return None  # complex(1, 0.0) == complex(1, -0.0)
    if type(values) is list:
        if len(values) > SHARED_MOST or (values and type(values[0]) is list) or 0 in values:
            return None
        return (shape, dtype, *values)
    if values == 0 or type(values) not in _SCALARS:
        return None
    return (shape, dtype, values)


_SCALARS = frozenset({float, int, bool})
# Longer lists are not shared: their key costs more to make, hash and compare than the
# record it would save (a 4,096-number read took three times as long).
SHARED_MOST = 16


# ``TensorData(shape, dtype, values)`` at a third of the frozen dataclass's ``__init__``
# cost: a 5,000-function graph reads some 25,000 tensors (see :mod:`.records`).
_new_tensor_data = quick_maker(TensorData)


def _unusual_tensor_data(t: torch.Tensor) -> TensorData:
    """A sparse tensor's numbers, read densely; a zero tensor's (torch's efficient zeros,
    which forward-mode AD saves: no memory, every number 0) as the zeros they are; a
    tensor with no numbers at all (on the ``meta`` device: a shape without data) as
    statistics that are not numbers, the way an empty tensor's are; a tensor that escaped
    a ``torch.func`` transform (``vmap`` appends its argument to a list) the same way:
    torch refuses every read of it, ``detach()`` too."""
    try:
        t = t.detach()
    except (RuntimeError, NotImplementedError):
        return TensorData(tuple(t.shape), dtype_name(t.dtype), None, NO_NUMBERS)
    if t._is_zerotensor():
        return tensor_data(torch.zeros(t.shape, dtype=t.dtype))
    if t.layout is not torch.strided and not t.is_meta and t.numel() <= SUMMARY_MOST:
        try:
            return tensor_data(t.to_dense())
        except (RuntimeError, NotImplementedError):
            pass
    return TensorData(tuple(t.shape), dtype_name(t.dtype), None, NO_NUMBERS)


def maybe_tensor_data(t: object) -> TensorData | None:
    """:func:`tensor_data` for a tensor, ``None`` for anything else (e.g. a missing ``.grad``)."""
    return tensor_data(t) if isinstance(t, torch.Tensor) else None


def summary_of(t: torch.Tensor) -> TensorSummary:
    """Statistics computed in place where possible: a large tensor is not copied again.

    The work is bounded by the memory the tensor reads, not by its shape: an expanded
    view is reduced over one repeat (before any conversion copies every repeat), and a
    view that reads the same memory many times over (``x.unfold(0, 30000, 1)`` of 60,000
    numbers: 9 * 10**8 of them) has no statistics past :data:`SUMMARY_MOST` numbers.
    """
    if t.numel() == 0:
        return NO_NUMBERS
    # An expanded view repeats its numbers without memory (x.expand(10**9): 16 bytes):
    # every statistic but the norm is that of one repeat, and the norm grows with the
    # square root of the repeats. Reduced over every repeat it took minutes.
    repeats = 1
    for dim, (size, stride) in enumerate(zip(t.shape, t.stride(), strict=True)):
        if stride == 0 and size > 1:
            repeats *= size
            t = t.narrow(dim, 0, 1)
    if t.numel() > SUMMARY_MOST and t.numel() > _stored_numbers(t):
        return NO_NUMBERS
    if t.is_complex():
        t = t.abs()
    elif not t.is_floating_point():
        t = t.to(torch.float64)
    return TensorSummary(
        minimum=t.min().item(),
        maximum=t.max().item(),
        mean=t.mean(dtype=torch.float64).item(),
        norm=t.norm().item() * math.sqrt(repeats),
    )


def _stored_numbers(t: torch.Tensor) -> int:
    """How many numbers ``t``'s memory holds (its storage's, from its offset on)."""
    return int(t.untyped_storage().nbytes()) // t.element_size() - int(t.storage_offset())


# Past this many numbers read from memory they repeat, a view has no statistics (their
# reductions took a minute for a one-line program); numbers each in memory of their own
# cost the program as much to make as they cost the engine to read.
SUMMARY_MOST = 2**24
NO_NUMBERS = TensorSummary(math.nan, math.nan, math.nan, math.nan)
ZEROS = TensorSummary(0.0, 0.0, 0.0, 0.0)


# A forward value of at most this many numbers is read as the recorder sees it made (a
# read costs less than the copy that would keep it for later, and the graph walk then
# has nothing left to read); a bigger one is kept as a :func:`snapshot` and read if shown.
READ_WHEN_RECORDED = 64


def recorded_value(t: torch.Tensor) -> TensorData | torch.Tensor:
    """What the forward recorder keeps of an op's result ``t``: its numbers read now, or a
    :func:`snapshot` to read later (a big one, or one of torch's subclasses); the same
    numbers either way, as later in-place changes to ``t`` alter neither.

    Called while the recorder handles a call, where torch sets every torch function mode
    aside: a plain tensor's reads then run no Python (as with torch functions disabled).
    """
    if type(t) is torch.Tensor and t.numel() <= READ_WHEN_RECORDED:
        return read_tensor_data(t)
    return snapshot(t)


class DeferredRead:
    """A forward value kept unread (a run that reads only some nodes: see
    :class:`~gui.model.request.Detail`, where most are never read): the tensor, its version
    when recorded, and its numbers then (a copy when small, as :func:`snapshot` keeps them
    for a whole run). Read later only if no in-place change touched it since
    (:meth:`read`): the numbers it had then, exactly.

    The copy is what makes them exact: the version counter sees no write through memory
    shared under another counter (``y.data.mul_(100)``, ``y.detach().numpy()[:] = 0``,
    ``w.data = y.detach()`` then ``w.mul_(2)``), and a late read of the tensor itself
    showed those numbers where a whole run shows the recorded ones (round 12).
    """

    __slots__ = ("numbers", "tensor", "version")

    def __init__(self, t: torch.Tensor) -> None:
        self.tensor = t
        self.version = t._version
        numbers = t.detach()
        self.numbers = numbers.clone() if numbers.numel() <= FULL_VALUES_LIMIT else numbers

    @property
    def shape(self) -> torch.Size:
        return self.numbers.shape

    def read(self) -> TensorData:
        """Its numbers as recorded; if it changed in place since, its shape and dtype with
        statistics that are not numbers (the forward value is gone: a run that reads
        every node, as the window makes once a drag ends, reads it when recorded)."""
        t = self.numbers
        if self.tensor._version == self.version:
            return read_tensor_data(t)
        return TensorData(tuple(t.shape), dtype_name(t.dtype), None, NO_NUMBERS)


class NotKept(DeferredRead):
    """A forward value a run that reads only some nodes was not asked for: its shape and
    dtype, no numbers (copying every op's result cost a drag tick on a 5,000-function graph
    a fifth of its time). Read, it is what a value changed in place since reads as (see
    :meth:`DeferredRead.read`): the window keeps the numbers it showed, until the drag
    ends and a run reads every node."""

    __slots__ = ("_shape", "dtype")  # (the tensor and its numbers are not kept)

    def __init__(self, t: torch.Tensor) -> None:
        self._shape = t.shape
        self.dtype = t.dtype

    @property
    def shape(self) -> torch.Size:
        return self._shape

    def read(self) -> TensorData:
        return TensorData(tuple(self._shape), dtype_name(self.dtype), None, NO_NUMBERS)


def deferred_value(t: torch.Tensor) -> DeferredRead | torch.Tensor:
    """:func:`recorded_value` for a run that reads only some nodes: a plain tensor is kept
    unread (a microsecond, where reading it takes several), anything else as before."""
    if type(t) is torch.Tensor:
        return DeferredRead(t)
    return snapshot(t)


def snapshot(t: torch.Tensor) -> torch.Tensor:
    """A detached tensor that later in-place changes to ``t`` will not alter.

    Small tensors are cloned (microseconds); big ones are only detached, since copying
    them on every recorded op would cost more than the rare in-place edit is worth.
    """
    d = t.detach()
    return d.clone() if d.numel() <= FULL_VALUES_LIMIT else d
