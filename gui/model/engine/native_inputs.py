"""Stand-ins that make a program's data plain before torch's C++ reads it.

torch's C++ reads a program's lists while the program's code can change them, shares the
memory of numpy arrays both ways, takes any buffer as a tensor's memory, and trusts some
arguments it indexes memory with (segment lengths, CTC targets). The stand-ins and patches
here hand it tuples, copies and checked values instead; :func:`.allowlist.allowlist`
applies the patches on ``torch.Tensor`` and in torch's namespace when it is built.
"""

from __future__ import annotations

import collections
import operator
from typing import Any

import numpy as np
import torch

from gui.model.engine.refusal import PROGRAM_CLASSES, CodeRefusedAtRuntime


class _CheckedNdarrayType(type):
    """The class of :class:`NdarrayClass`: ``isinstance``/``issubclass`` answer for numpy's
    ``ndarray``, class attributes are numpy's (read through the guard), and a call makes
    an array only when no raw memory would be read as Python objects."""

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, np.ndarray)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or (isinstance(sub, type) and issubclass(sub, np.ndarray))

    def __getattr__(cls, name: str) -> Any:
        return getattr(np.ndarray, name)

    def __call__(
        cls,
        shape: Any,
        dtype: Any = float,
        buffer: Any = None,
        offset: Any = 0,
        strides: Any = None,
        order: Any = None,
    ) -> Any:
        chosen = np.dtype(dtype)  # once: the program's object is not asked again
        if buffer is not None and (chosen.hasobject or not _plain_buffer(buffer)):
            raise CodeRefusedAtRuntime(
                "`np.ndarray(shape, dtype, buffer=...)` is not available with this buffer: "
                "an array over a buffer takes a writable numpy array of numbers (over other "
                "memory, dtype=object reads raw bytes as Python objects, and bytes or numpy "
                "scalars are shared by the whole process); use np.array(...) or "
                "np.zeros(...) instead."
            )
        return np.ndarray(shape, chosen, buffer, offset, strides, order)


def _plain_buffer(buffer: object) -> bool:
    """A writable array of numbers: memory that holds no object pointers, and memory the
    program may change anyway. Not ``bytes`` nor a numpy scalar, which are immutable and
    may be shared by the whole process (``np.True_``, the one-byte ``bytes``): an array
    over one, handed to ``torch.from_numpy``, wrote into it (``b'A'`` became ``b'B'``)."""
    return (
        isinstance(buffer, np.ndarray)
        and not buffer.dtype.hasobject
        and bool(buffer.flags.writeable)
    )


class NdarrayClass(metaclass=_CheckedNdarrayType):
    """What a program gets for ``np.ndarray`` (also from ``type(array)``): numpy's own
    ``ndarray(shape, dtype, buffer=...)`` takes any memory as the array's, and with
    ``dtype=object`` each 8 bytes there become a pointer to a Python object
    (``np.ndarray((1,), object, buffer=np.array([id(x) or any number]))``): any address
    made an object, past the guard and into native memory. This one makes arrays of
    numbers over a buffer, and of objects without one; ``isinstance(x, np.ndarray)`` and
    ``type(a) is np.ndarray`` still hold."""


NdarrayClass.__module__ = "numpy"
NdarrayClass.__name__ = NdarrayClass.__qualname__ = "ndarray"


# Whole numbers and booleans are what torch's kernels index memory with, and a backward
# trusts the ones it saved (max pooling's indices, an embedding's input, a mask) to be the
# values it saved: torch's version counter tells when a tensor was changed in place, but a
# tensor sharing the memory of a numpy array (or the array of a tensor's `.numpy()`) is
# changed through numpy without it (`arr[...] = 10**7`), and the kernel wrote where the
# numbers pointed (the process crashed). So such memory is never shared both ways here:
# numpy arrays of whole numbers are copied into tensors, and tensors of whole numbers into
# arrays. Fractions index nothing: they are shared as in torch.


# torch's C++ reads a list of numbers (`torch.tensor(rows)`, `torch.Tensor(rows)`, a legacy
# type, `new_tensor`) with a pointer to the list's items taken once, and calls Python for
# each item it cannot read itself: a program's `__len__`/`__getitem__` (an item that is a
# sequence of its own) or `__bool__`. That code emptied the list while torch went on
# reading the freed items (the process crashed, and memory the program then filled was
# read as objects). So what a program hands these constructors is first made of tuples,
# which no code can change, and a sequence of the program's own class is read into one
# here, by Python (torch would read whatever lists it returned the same way).
_PLAIN_NUMBERS = frozenset({int, float, bool, complex})
_SEQUENCES = (list, tuple, collections.deque)
MAX_DATA_NESTING = 64


def _frozen(data: object, depth: int = 0) -> object:
    """``data`` with every list, tuple and deque in it (and each sequence of the
    program's own classes) made a plain tuple; anything else as it is."""
    kind = type(data)
    if kind in PROGRAM_CLASSES:
        try:
            data = tuple(data)  # type: ignore[arg-type]  # the program's code, guarded
        except TypeError:
            return data  # not a sequence: torch reads it as a number (or refuses it)
        kind = tuple
    elif not isinstance(data, _SEQUENCES):  # a deque, a named tuple: read the same way
        return data
    if depth >= MAX_DATA_NESTING:
        raise ValueError(f"the data is nested more than {MAX_DATA_NESTING} levels deep")
    items: Any = data
    if set(map(type, items)) <= _PLAIN_NUMBERS:
        return items if kind is tuple else tuple(items)
    return tuple(_frozen(item, depth + 1) for item in items)


_NATIVE_TENSOR: Any = torch.tensor


def _holds_tensors(data: object, depth: int = 0) -> bool:
    """Whether frozen ``data`` (tuples of tuples, numbers...) holds a tensor inside."""
    if type(data) is not tuple or depth > MAX_DATA_NESTING:
        return False
    if set(map(type, data)) <= _PLAIN_NUMBERS:
        return False
    return any(isinstance(item, torch.Tensor) or _holds_tensors(item, depth + 1) for item in data)


def _scalar_type(value: object) -> torch.dtype:
    """The dtype torch's ``tensor()`` infers for one item of its data (a tensor's own, a
    Python number's, a numpy scalar's), or for a tuple of them, promoted as torch does."""
    if isinstance(value, torch.Tensor):
        return value.dtype
    if isinstance(value, np.generic):  # before float: `np.float64` is a Python float too
        return torch.from_numpy(np.asarray(value)).dtype
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    if isinstance(value, float):
        return torch.get_default_dtype()
    if isinstance(value, complex):
        return torch.complex128 if torch.get_default_dtype() is torch.float64 else torch.complex64
    if type(value) is tuple and value:
        dtype = _scalar_type(value[0])
        for item in value[1:]:
            dtype = torch.promote_types(dtype, _scalar_type(item))
        return dtype
    return torch.get_default_dtype()


def _items_of(data: object, dtype: Any = None) -> object:
    """Frozen ``data`` with each tensor in it as the one number it holds (torch's own
    error for a tensor of more: it reads each as a scalar). Into a given ``dtype`` of whole
    numbers or booleans torch reads a tensor with ``__index__``, which refuses fractions,
    and into one of fractions with ``__float__``, which refuses complex numbers: the same
    errors here (``item()`` would hand over ``1.5``, which torch then truncates)."""
    if isinstance(data, torch.Tensor):
        if data.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        if isinstance(dtype, torch.dtype) and not dtype.is_complex:
            if not dtype.is_floating_point and (data.is_floating_point() or data.is_complex()):
                raise TypeError(
                    "only integer tensors of a single element can be converted to an index"
                )
            if dtype.is_floating_point and data.is_complex():
                raise RuntimeError("value cannot be converted to type double without overflow")
        return data.item()
    if type(data) is tuple:
        return tuple(_items_of(item, dtype) for item in data)
    return data


def _read_as_scalars(frozen: object, dtype: object) -> tuple[object, object]:
    """Data holding tensors, as torch reads it: each tensor one number of its dtype.

    A Python ``__getitem__`` on ``torch.Tensor`` (:func:`_getitem`) makes tensors
    sequences to C, for good: torch read a tensor inside the data as a list of its
    elements, and a 0-d one failed ("len() of a 0-d tensor") where plain torch reads it
    as one number of its dtype (``torch.tensor([loss1, loss2])``). So the numbers are
    taken out here (``item`` is exact in every dtype) and the dtype torch would infer
    from the tensors and numbers is given, unless the program gave one.
    """
    if not _holds_tensors(frozen):
        return frozen, dtype
    return _items_of(frozen, dtype), _scalar_type(frozen) if dtype is None else dtype


def _tensor(data: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.tensor``; its data read from tuples (see :func:`_frozen`)."""
    values, dtype = _read_as_scalars(_frozen(data), kwargs.pop("dtype", None))
    return _NATIVE_TENSOR(values, *args, dtype=dtype, **kwargs)


_NATIVE_NEW_TENSOR: Any = torch._C.TensorBase.new_tensor
_NATIVE_TENSOR_NEW: Any = torch._C.TensorBase.__new__


def _new_tensor(self: torch.Tensor, data: Any, *args: Any, **kwargs: Any) -> Any:
    """``Tensor.new_tensor``; its data read from tuples (see :func:`_frozen`)."""
    # new_tensor takes self's dtype unless given one: only the numbers need taking out.
    values = _read_as_scalars(_frozen(data), self.dtype)[0]
    return _NATIVE_NEW_TENSOR(self, values, *args, **kwargs)


def _tensor_new(*args: Any, **kwargs: Any) -> Any:
    """``torch.Tensor(...)`` (torch's legacy constructor); its data read from tuples. Its
    signature is ``(*args, **kwargs)``: ``torch._dynamo`` (imported by optimizers and
    ``torch.func``) checks that a ``torch.Tensor.__new__`` it finds has torch's signature
    or this one."""
    cls, *data = args
    # The legacy constructor makes its own type's dtype: only the numbers need taking out.
    values = [_read_as_scalars(_frozen(d), torch.float32)[0] for d in data]
    return _NATIVE_TENSOR_NEW(cls, *values, **kwargs)


# An index (`t[rows]`, `t[rows] = v`) is read the same way as data when it holds lists.
_NATIVE_GETITEM: Any = torch._C.TensorBase.__getitem__
_NATIVE_SETITEM: Any = torch._C.TensorBase.__setitem__
_INDEX_ATOMS = frozenset(
    {int, bool, slice, type(None), type(Ellipsis), torch.Tensor, torch.nn.Parameter}
)


# From this length on torch reads a list index as one index tensor's data, never as one
# index per dimension (`treatSequenceAsTuple`, python_variable_indexing.cpp).
_LIST_AS_DATA = 32


def _index_item(item: object) -> object:
    """One frozen item of an index; a sequence holding tensors (``t[[[i, 0]]]``) as the
    index tensor torch makes of it (``indexing_tensor_from_data``: whole numbers, or bytes
    or booleans when it holds only those), its tensors read as in data (see
    :func:`_read_as_scalars`: read as a sequence, a 0-d tensor in it failed)."""
    if not _holds_tensors(item):
        return item
    inferred = _scalar_type(item)
    dtype = inferred if inferred in (torch.uint8, torch.bool) else torch.int64
    return _NATIVE_TENSOR(_items_of(item, dtype), dtype=dtype)


def _index_items(frozen: object) -> object:
    return tuple(map(_index_item, frozen)) if type(frozen) is tuple else frozen


def _plain_index(index: Any) -> Any:
    """``index`` read as :func:`_frozen` reads data, keeping whether it is a list (an index
    of many) or a tuple (one index per dimension)."""
    kind = type(index)
    if kind is tuple:
        return index if set(map(type, index)) <= _INDEX_ATOMS else _index_items(_frozen(index))
    if kind is list and len(index) >= _LIST_AS_DATA:
        return _index_item(_frozen(index))  # torch reads a list this long as data
    if kind is list:
        return [_index_item(_frozen(item)) for item in index]
    if isinstance(index, tuple):
        return _index_items(_frozen(index))
    if isinstance(index, collections.deque) or kind in PROGRAM_CLASSES:
        frozen = _index_items(_frozen(index))
        return list(frozen) if type(frozen) is tuple else frozen
    return index


def _getitem(*args: Any) -> Any:
    """``tensor[index]`` (see :func:`_plain_index`)."""
    tensor, index = args
    return _NATIVE_GETITEM(tensor, _plain_index(index))


def _setitem(*args: Any) -> None:
    """``tensor[index] = value`` (see :func:`_plain_index`)."""
    tensor, index, value = args
    _NATIVE_SETITEM(tensor, _plain_index(index), _frozen(value))


def _constructors_read_tuples() -> None:
    """Put :func:`_new_tensor`, :func:`_tensor_new`, :func:`_getitem` and
    :func:`_setitem` on ``torch.Tensor``."""
    tensor: Any = torch.Tensor
    if getattr(tensor, "_ae_reads_tuples", False):
        return
    _new_tensor.__doc__ = _NATIVE_NEW_TENSOR.__doc__
    tensor.new_tensor = _new_tensor
    tensor.__new__ = staticmethod(_tensor_new)
    tensor.__getitem__ = _getitem
    tensor.__setitem__ = _setitem
    tensor._ae_reads_tuples = True


def _own_whole_numbers(value: object) -> object:
    if isinstance(value, np.ndarray) and value.dtype.kind not in "fc":
        return value.copy()
    return value


def _from_numpy(array: Any) -> Any:
    """``torch.from_numpy``; a copy of an array of whole numbers (see above)."""
    return torch.from_numpy(_own_whole_numbers(array))


_NATIVE_AS_TENSOR: Any = torch.as_tensor


def _as_tensor(data: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.as_tensor``; a copy of an array of whole numbers (see above). Put in
    torch's namespace, where a DataLoader without batches (``default_convert``) calls it
    on what the program's dataset returns."""
    frozen = _frozen(_own_whole_numbers(data))
    values, dtype = _read_as_scalars(frozen, kwargs.pop("dtype", None))
    return _NATIVE_AS_TENSOR(values, *args, dtype=dtype, **kwargs)


def _asarray(obj: Any, *args: Any, **kwargs: Any) -> Any:
    """``torch.asarray``; a copy of an array of whole numbers (see above), and of any other
    memory a tensor must not share: ``torch.asarray`` takes any object with a buffer as
    the tensor's memory, also ``bytes``, which are immutable and shared by the whole
    process (``torch.asarray(b'A', dtype=torch.uint8)[0] = 66`` made every ``b'A'`` of
    the process ``b'B'``), and read-only arrays."""
    obj = _own_whole_numbers(obj)
    if not isinstance(obj, torch.Tensor) and not _plain_buffer(obj) and _has_buffer(obj):
        if kwargs.get("copy") is False:
            raise CodeRefusedAtRuntime(
                "`torch.asarray(..., copy=False)` is not available on this object: its "
                "memory is read-only or shared by the whole process; leave copy out to get "
                "a tensor of its numbers."
            )
        kwargs["copy"] = True
    return torch.asarray(_frozen(obj), *args, **kwargs)


def _has_buffer(obj: object) -> bool:
    """Whether ``obj`` hands out its memory (Python's buffer protocol, a C-level slot: no
    code of the program's runs)."""
    try:
        memoryview(obj).release()  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


_NATIVE_NUMPY: Any = torch._C.TensorBase.numpy


def _tensor_numpy(self: torch.Tensor, *, force: bool = False) -> Any:
    """``Tensor.numpy`` (also behind ``np.asarray(t)``); a copy for whole numbers."""
    array = _NATIVE_NUMPY(self, force=force)
    return array if self.is_floating_point() or self.is_complex() else array.copy()


def _numpy_copies_whole_numbers() -> None:
    """Put :func:`_tensor_numpy` on ``torch.Tensor``, where ``np.asarray`` finds it too."""
    tensor: Any = torch.Tensor
    if getattr(tensor, "_ae_numpy_copies", False):
        return
    _tensor_numpy.__doc__ = _NATIVE_NUMPY.__doc__
    tensor.numpy = _tensor_numpy
    tensor._ae_numpy_copies = True
    setattr(torch, "as_tensor", _as_tensor)  # noqa: B010 (a module's function)


# torch's legacy typed constructors share a numpy array's memory too
# (`torch.LongTensor(array)`); those of whole numbers get stand-ins that copy it.
_WHOLE_NUMBER_TYPES = (
    "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
)  # fmt: skip
# All of them read a list's items as `torch.tensor` does (see `_frozen`).
_LEGACY_TYPES = (
    *_WHOLE_NUMBER_TYPES, "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor",
)  # fmt: skip


class _CheckedTensorType(type):
    """The class of a legacy type's stand-in: ``isinstance``, ``repr`` and class
    attributes are torch's type's; a call copies a numpy array of whole numbers first.
    torch's C code reads a type argument by its name (``x.type(torch.LongTensor)``), so
    the stand-in is named like torch's (``torch.LongTensor``)."""

    _real: Any  # private: the guard never hands a program torch's own type through it

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, cls._real)

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls or (isinstance(sub, type) and issubclass(sub, cls._real))

    def __getattr__(cls, name: str) -> Any:
        return getattr(cls._real, name)

    def __repr__(cls) -> str:
        return repr(cls._real)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # Data holding tensors as torch reads it (`torch.LongTensor([t0, 3])`, see
        # `_read_as_scalars`): the type's own dtype decides how each tensor is read.
        data = [_frozen(_own_whole_numbers(arg)) for arg in args]
        return cls._real(*(_read_as_scalars(d, cls._real.dtype)[0] for d in data), **kwargs)


def _legacy_type(name: str) -> type:
    real = getattr(torch, name)
    stand_in = _CheckedTensorType(f"torch.{name}", (), {"_real": real, "__doc__": real.__doc__})
    stand_in.__module__ = "torch"
    return stand_in


def _segment_reduce(*args: Any, **kwargs: Any) -> Any:
    """``torch.segment_reduce`` without ``unsafe=True``: it skips the check that the lengths
    add up to the data, and then read past the data and wrote past it in backward.

    torch checks ``lengths`` (none negative, their sum the data's size), never ``offsets``:
    ``offsets=torch.tensor([0, 10**6])`` read past the data and its backward wrote past it
    (red team, round 11). So offsets are given to torch as the lengths between them, which
    it checks: they must start at 0 and end at the data's size, as segments that cover it.
    """
    if kwargs.get("unsafe", False) is not False:
        raise CodeRefusedAtRuntime(
            "`segment_reduce(..., unsafe=True)` is not available: it skips the check that "
            "the segments fit the data, and torch then reads and writes past it; leave "
            "unsafe out."
        )
    offsets = kwargs.pop("offsets", None)
    if offsets is not None:
        if kwargs.get("lengths") is not None or not _offsets_from_zero(offsets):
            raise CodeRefusedAtRuntime(
                "`segment_reduce(..., offsets=...)` is not available with these offsets: "
                "give whole numbers that start at 0 and end at the data's size (or give "
                "lengths instead, not both); torch does not check that offsets fit the data."
            )
        kwargs["lengths"] = offsets.diff(dim=-1)
    return torch.segment_reduce(*args, **kwargs)


def _offsets_from_zero(offsets: object) -> bool:
    """A tensor of whole numbers with at least one offset per row, each row from 0."""
    return (
        isinstance(offsets, torch.Tensor)
        and offsets.dim() > 0
        and offsets.size(-1) > 0
        and not (offsets.is_floating_point() or offsets.is_complex() or offsets.is_sparse)
        and offsets.dtype is not torch.bool
        and bool((offsets.select(-1, 0) == 0).all())
    )


_NATIVE_CTC_LOSS: Any = torch.ctc_loss


def _checked_ctc_loss(
    log_probs: Any,
    targets: Any,
    input_lengths: Any,
    target_lengths: Any,
    blank: Any = 0,
    reduction: Any = 1,
    zero_infinity: Any = False,
) -> Any:
    """``torch.ctc_loss`` (also behind ``F.ctc_loss`` and ``nn.CTCLoss``) with its targets
    checked: torch checks the lengths and the blank, not that each target is a class of
    ``log_probs`` (``targets=[[10**6, 1]]`` read past it, and backward wrote past it).
    The other arguments are made plain first, so no code of the program's (an
    ``__index__``) runs between the check and torch's call."""
    lengths = [
        value if isinstance(value, torch.Tensor) else torch.as_tensor(value, dtype=torch.long)
        for value in (input_lengths, target_lengths)
    ]
    blank, reduction = operator.index(blank), operator.index(reduction)
    zero_infinity = bool(zero_infinity)
    if isinstance(log_probs, torch.Tensor) and isinstance(targets, torch.Tensor):
        classes = log_probs.size(-1) if log_probs.dim() else 0
        whole = not (targets.is_floating_point() or targets.is_complex())
        if (
            whole
            and targets.numel()
            and (bool((targets < 0).any()) or bool((targets >= classes).any()))
        ):
            raise CodeRefusedAtRuntime(
                "`ctc_loss(...)` is not available with these targets: each must be a "
                f"class of log_probs, from 0 to {classes - 1} (its last dimension)."
            )
    return _NATIVE_CTC_LOSS(log_probs, targets, *lengths, blank, reduction, zero_infinity)


def _check_ctc_targets() -> None:
    """Put :func:`_checked_ctc_loss` where ``F.ctc_loss`` (and so ``nn.CTCLoss``) calls it."""
    if vars(torch).get("ctc_loss") is _checked_ctc_loss:
        return
    setattr(torch, "ctc_loss", _checked_ctc_loss)  # noqa: B010 (a module's function)
