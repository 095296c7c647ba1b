"""``copy.deepcopy`` and ``copy.copy`` for programs: tensors, modules and their containers.

Training loops from tutorials keep the best weights with
``best = copy.deepcopy(model.state_dict())`` and copy whole models (a target network, an
average of weights) with ``copy.deepcopy(model)``. Python's own ``copy`` cannot be handed
to a program: it rebuilds objects from whatever their ``__reduce_ex__`` returns, calling
callables it finds there in library code, where no guard is, and it reads ``copyreg``'s
global tables, which a program must not change for the next run.

These stand-ins copy by type, checked by identity, and call nothing of the program's:

- numbers, strings, ``None``, dtypes, devices, shapes, functions and classes are kept (as
  Python's ``deepcopy`` keeps them; a bound method is bound to the copy of its object);
- a tensor or a parameter becomes a new leaf with the same numbers, dtype, shape and
  ``requires_grad`` (a plain tensor's ``.grad`` is copied too, a parameter's is not:
  torch's own ``__deepcopy__`` rules); copying a non-leaf raises torch's own error;
- lists, tuples, dicts (``OrderedDict`` with its ``_metadata``, as ``state_dict()``
  returns), sets and deques are rebuilt from copies of what they hold;
- an ``nn.Module`` the allowlist lets programs build, or an instance of a class the program
  defined, is rebuilt from a copy of its ``__dict__`` through torch's ``__setstate__``
  (what Python's ``deepcopy`` does for them, without their ``__reduce_ex__``);
- anything else is refused with a message that names its type.

Objects met twice are copied once (the ``memo``), so tied weights stay tied.
"""

from __future__ import annotations

import collections
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import torch

# Kept as they are, as Python's deepcopy keeps them (immutable, or code: shared, not copied).
_ATOMIC: frozenset[type] = frozenset(
    {
        type(None),
        bool,
        int,
        float,
        complex,
        str,
        bytes,
        range,
        type(Ellipsis),
        type(NotImplemented),
        types.FunctionType,
        types.BuiltinFunctionType,
        type,
        weakref.ref,  # RNNs' _flat_weight_refs: rebuilt by their __setstate__
        torch.dtype,
        torch.device,
        torch.layout,
        torch.memory_format,
        torch.Size,
        torch.finfo,
        torch.iinfo,
    }
)
# Deeper than any model's attributes go: a program building a list nested 10,000 deep
# gets a plain error instead of the engine's C stack.
MAX_DEPTH = 100
NOT_A_LEAF = (
    "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
    "protocol at the moment."
)


class CopyRefused(TypeError):
    """What cannot be copied here, and why (a ``TypeError``, as Python raises for an
    object it cannot copy)."""


Instances = Callable[[object], bool]


def deepcopy(value: object, memo: object, instances: Instances) -> Any:
    """``copy.deepcopy(value, memo)`` for programs (see the module docstring).

    ``instances(obj)`` says whether an object that is not a tensor, a number or a
    container may be copied from its ``__dict__`` (the allowlist's answer, by identity).
    """
    if memo is None:
        memo = {}
    elif type(memo) is not dict:
        raise CopyRefused("deepcopy's memo must be a dict")
    # The program's memo answers for the value itself and learns its copy, nothing else:
    # the copier's own memo also holds what it made inside a layer (its `_modules`,
    # `_forward_hooks`... dicts, the very objects of the copy), and a program that read
    # them there wrote a dict under `__array_interface__`, which numpy reads from the layer
    # to build an array over any address. Entries the program wrote are never consulted
    # inside a copy for the same reason (ids of a layer's dicts, read from an earlier memo).
    key = id(value)
    if key in memo:
        return memo[key]
    copied = _Copier({}, True, instances).copy(value, 0)
    if copied is not value:
        memo[key] = copied
        kept = memo.setdefault(id(memo), [])
        if type(kept) is list:  # keeps `value` alive, so its id names it (as Python's)
            kept.append(value)
    return copied


def copy(value: object, instances: Instances) -> Any:
    """``copy.copy`` for programs: a new container holding the same objects, or a new
    module sharing its parameters (Python's shallow copy); tensors are refused with the
    ways torch offers instead."""
    if isinstance(value, torch.Tensor):
        raise CopyRefused(
            "copy.copy of a tensor is not available here: use t.clone() for a new tensor "
            "with the same numbers, or t.detach() for one that shares them"
        )
    return _Copier({}, False, instances).copy(value, 0)


class _Copier:
    def __init__(self, memo: dict[int, object], deep: bool, instances: Instances) -> None:
        self._memo = memo
        self._deep = deep
        self._instances = instances
        # Objects copied here stay alive until the copy ends, so no id is reused meanwhile.
        self._keep: list[object] = []

    def copy(self, value: object, depth: int) -> Any:
        kind = type(value)
        if kind in _ATOMIC:
            return value
        key = id(value)
        if key in self._memo:
            return self._memo[key]
        if depth > MAX_DEPTH:
            raise CopyRefused(f"the object is nested more than {MAX_DEPTH} levels deep")
        self._keep.append(value)
        copied = self._by_type(value, kind, depth + 1)
        self._memo[key] = copied
        return copied

    def _inner(self, value: object, depth: int) -> Any:
        return self.copy(value, depth) if self._deep else value

    def _by_type(self, value: Any, kind: type, depth: int) -> Any:
        if kind is torch.Tensor or kind is torch.nn.Parameter:
            return self._tensor(value, depth)
        if kind is types.MethodType:
            # As Python's deepcopy: the same function, bound to the copy of its object
            # (`self.act = self.swish` in a layer calls the copy's own method).
            if not self._deep:
                return value
            return types.MethodType(value.__func__, self.copy(value.__self__, depth))
        if kind is np.ndarray:
            return value.copy() if self._deep else value.view()
        container = _CONTAINERS.get(kind)
        if container is not None:
            return container(self, value, depth)
        if self._instances(value) and kind.__new__ is object.__new__:
            return self._instance(value, kind, depth)
        raise CopyRefused(
            f"copy.{'deepcopy' if self._deep else 'copy'} cannot copy a "
            f"{kind.__qualname__} here: it copies tensors, modules, numbers, strings and "
            "containers of them"
        )

    def _tensor(self, tensor: torch.Tensor, depth: int) -> torch.Tensor:
        if not tensor.is_leaf:
            raise RuntimeError(NOT_A_LEAF)
        with torch.no_grad():
            data = tensor.detach().clone(memory_format=torch.preserve_format)
        if type(tensor) is torch.nn.Parameter:
            new: torch.Tensor = torch.nn.Parameter(data, tensor.requires_grad)
        else:
            new = data.requires_grad_(tensor.requires_grad)
        self._memo[id(tensor)] = new
        if type(tensor) is torch.Tensor and tensor.grad is not None:
            new.grad = self.copy(tensor.grad, depth)
        attributes = vars(tensor)
        if attributes:
            vars(new).update(self.copy(dict(attributes), depth))
        return new

    def _instance(self, value: Any, kind: type, depth: int) -> Any:
        new: Any = object.__new__(kind)
        self._memo[id(value)] = new
        state = dict(vars(value))
        if self._deep:
            state = self.copy(state, depth)
        if isinstance(value, torch.nn.Module):
            # torch's own: fills in attributes older pickles lack; never the program's (a
            # program's class cannot define __setstate__, see safety.SAFE_DUNDER_METHODS).
            new.__setstate__(state)
        else:
            vars(new).update(state)
        return new

    def _list(self, value: list[Any], depth: int) -> list[Any]:
        new: list[Any] = []
        self._memo[id(value)] = new
        new.extend(self._inner(item, depth) for item in value)
        return new

    def _tuple(self, value: tuple[Any, ...], depth: int) -> tuple[Any, ...]:
        return tuple(self._inner(item, depth) for item in value)

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[Any, Any]:
        new: dict[Any, Any]
        if isinstance(value, collections.defaultdict):
            new = collections.defaultdict(value.default_factory)
        else:
            new = type(value)()
        self._memo[id(value)] = new
        for key, item in value.items():
            new[self._inner(key, depth)] = self._inner(item, depth)
        extra = vars(value) if type(value) is collections.OrderedDict else {}
        if extra:  # state_dict()'s _metadata: versions of each submodule's format
            vars(new).update(self.copy(dict(extra), depth) if self._deep else extra)
        return new

    def _set(self, value: set[Any] | frozenset[Any], depth: int) -> set[Any] | frozenset[Any]:
        return type(value)(self._inner(item, depth) for item in value)

    def _deque(self, value: collections.deque[Any], depth: int) -> collections.deque[Any]:
        new: collections.deque[Any] = collections.deque(maxlen=value.maxlen)
        self._memo[id(value)] = new
        new.extend(self._inner(item, depth) for item in value)
        return new


_CONTAINERS: dict[type, Callable[[_Copier, Any, int], Any]] = {
    list: _Copier._list,
    tuple: _Copier._tuple,
    dict: _Copier._dict,
    collections.OrderedDict: _Copier._dict,
    collections.defaultdict: _Copier._dict,
    set: _Copier._set,
    frozenset: _Copier._set,
    collections.deque: _Copier._deque,
}
