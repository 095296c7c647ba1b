"""Turning live tensors into plain :class:`TensorData` (engine side: imports torch)."""

from __future__ import annotations

import dataclasses
import math

import torch

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
            shape = tuple(t.shape)
            known = _SHAPES.get(shape)
            if known is None:
                known = shared_shape(t)
            dtype = _DTYPE_NAMES.get(t.dtype) or dtype_name(t.dtype)
            return _new_tensor_data(known, dtype, t.tolist())
        t = t.detach()
        return TensorData(shared_shape(t), dtype_name(t.dtype), None, summary_of(t))
    except (RuntimeError, NotImplementedError):  # no numbers to read where they are
        return _unusual_tensor_data(t)


# A TensorData's fields, in order, with their defaults: the start of each one made below.
_TENSOR_DATA_FIELDS = {f.name: f.default for f in dataclasses.fields(TensorData)}


def _new_tensor_data(shape: tuple[int, ...], dtype: str, values: object) -> TensorData:
    """``TensorData(shape, dtype, values)``, made at half the cost of the frozen
    dataclass's ``__init__`` (one ``object.__setattr__`` per field): a 5,000-function graph
    reads some 25,000 tensors. The instance is the one ``__init__`` makes (every field, in
    order, defaults for the rest; equal, pickled alike); nothing is checked there to skip
    (see :mod:`.records`, whose general maker costs twice this)."""
    fields = _TENSOR_DATA_FIELDS.copy()
    fields["shape"] = shape
    fields["dtype"] = dtype
    fields["values"] = values
    data = _new_object(TensorData)
    _set_attribute(data, "__dict__", fields)
    return data


_new_object = object.__new__
_set_attribute = object.__setattr__


def _unusual_tensor_data(t: torch.Tensor) -> TensorData:
    """A sparse tensor's numbers, read densely; a tensor with no numbers at all (on the
    ``meta`` device: a shape without data) as statistics that are not numbers, the way an
    empty tensor's are."""
    t = t.detach()
    if t.layout is not torch.strided and not t.is_meta:
        try:
            return tensor_data(t.to_dense())
        except (RuntimeError, NotImplementedError):
            pass
    nothing = TensorSummary(math.nan, math.nan, math.nan, math.nan)
    return TensorData(tuple(t.shape), dtype_name(t.dtype), None, nothing)


def maybe_tensor_data(t: object) -> TensorData | None:
    """:func:`tensor_data` for a tensor, ``None`` for anything else (e.g. a missing ``.grad``)."""
    return tensor_data(t) if isinstance(t, torch.Tensor) else None


def summary_of(t: torch.Tensor) -> TensorSummary:
    """Statistics computed in place where possible: a large tensor is not copied again."""
    if t.is_complex():
        t = t.abs()
    elif not t.is_floating_point():
        t = t.to(torch.float64)
    if t.numel() == 0:
        return TensorSummary(math.nan, math.nan, math.nan, math.nan)
    # An expanded view repeats its numbers without memory (x.expand(10**9): 16 bytes):
    # every statistic but the norm is that of one repeat, and the norm grows with the
    # square root of the repeats. Reduced over every repeat it took minutes.
    repeats = 1
    for dim, (size, stride) in enumerate(zip(t.shape, t.stride(), strict=True)):
        if stride == 0 and size > 1:
            repeats *= size
            t = t.narrow(dim, 0, 1)
    return TensorSummary(
        minimum=t.min().item(),
        maximum=t.max().item(),
        mean=t.mean(dtype=torch.float64).item(),
        norm=t.norm().item() * math.sqrt(repeats),
    )


def snapshot(t: torch.Tensor) -> torch.Tensor:
    """A detached tensor that later in-place changes to ``t`` will not alter.

    Small tensors are cloned (microseconds); big ones are only detached, since copying
    them on every recorded op would cost more than the rare in-place edit is worth.
    """
    d = t.detach()
    return d.clone() if d.numel() <= FULL_VALUES_LIMIT else d
