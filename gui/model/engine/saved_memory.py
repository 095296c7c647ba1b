"""Where a saved tensor's numbers live, for "what did backward keep in memory?" (engine side).

A graph keeps every tensor its nodes saved alive until ``backward()`` frees it, and keeping a
tensor keeps its whole storage: a saved view ``x[0]`` holds all of ``x``'s numbers, and two
nodes saving the same tensor (ReLU's result is the next layer's input) hold one storage
between them. So each saved tensor is recorded by its storage: a small number per distinct
storage of one walk (never an address: those stay in this process), the storage's bytes and
the tensor's own bytes. The window adds them up (:mod:`gui.model.views.memory`).

Only torch's own readers of a tensor run here (``untyped_storage``, ``numel``...): the
tensors come from ``_saved_*`` getters, and a program cannot subclass ``Tensor``.
"""

from __future__ import annotations

import torch

from gui.model.engine.records import quick_maker
from gui.model.result import SavedStorage

_saved_storage = quick_maker(SavedStorage)  # thousands per big graph (see .records)
_STRIDED = torch.strided

# Python numbers torch wraps into 0-d tensors (``x * 2`` saves the 2) come in these dtypes.
# torch keeps them by value and never hands them to saved-tensor hooks, so they are marked
# and left out of the totals, as torch's own count leaves them out. Telling one from a 0-d
# tensor the program made: type promotion ranks a wrapped number below any 0-d tensor of its
# kind, so with a 0-d tensor of a narrower dtype of that kind the narrower dtype wins.
_NARROWER = {
    torch.int64: torch.tensor(0, dtype=torch.int32),
    torch.float64: torch.tensor(0.0, dtype=torch.float32),
    torch.complex128: torch.tensor(0j, dtype=torch.complex64),
}


def _wrapped_number(t: torch.Tensor) -> bool:
    """Whether the 0-d tensor ``t`` is a Python number torch wrapped (see ``_NARROWER``)."""
    narrower = _NARROWER.get(t.dtype)
    return narrower is not None and torch.result_type(t, narrower) != t.dtype


def _distinct_elements(t: torch.Tensor) -> int:
    """How many numbers ``t`` reads: an expanded tensor (a stride of 0) repeats its own,
    so ``x.expand(3, 10**6)`` of a 3-element ``x`` reads 3 numbers, not 3 million."""
    if t.numel() == 0:
        return 0
    count = 1
    for size, stride in zip(t.shape, t.stride(), strict=True):
        if stride != 0:
            count *= size
    return count


class StorageLedger:
    """Numbers the storages of one graph walk ``0, 1, 2...`` in the order they are met.

    The walk's tensors are alive while it runs (the graph holds them), so no address is
    reused by another storage before the ledger is dropped with the walk.
    """

    def __init__(self) -> None:
        self._numbers: dict[int, int] = {}
        self._count = 0

    def _number(self, address: int) -> int:
        if address == 0:  # an empty storage has no address: each is its own
            self._count += 1
            return self._count - 1
        number = self._numbers.get(address)
        if number is None:
            number = self._numbers[address] = self._count
            self._count += 1
        return number

    def storage_of(self, t: torch.Tensor) -> SavedStorage | None:
        """Where ``t``'s numbers live (``None``: nowhere to count, a sparse or meta tensor)."""
        if t.is_meta or t.layout is not _STRIDED:
            return None
        try:
            storage = t.untyped_storage()
            storage_bytes = storage.nbytes()
            # A contiguous tensor reads each of its elements once (no stride of 0).
            count = t.numel() if t.is_contiguous() else _distinct_elements(t)
            address = storage.data_ptr()
            number = self._numbers.get(address) if address else None
            if number is None:
                number = self._number(address)
            own_bytes = count * t.element_size()
            return _saved_storage(
                number,
                storage_bytes,
                own_bytes if own_bytes < storage_bytes else storage_bytes,
                t.dim() == 0 and _wrapped_number(t),
            )
        except (RuntimeError, NotImplementedError):  # a tensor without a plain storage
            return None

    def storages_of(self, raw: object) -> tuple[SavedStorage, ...]:
        """The storages of a saved attribute: one tensor, a list of them, or none."""
        if isinstance(raw, torch.Tensor):
            found = self.storage_of(raw)
            return () if found is None else (found,)
        # Most saved lists are sizes or strides: their first item tells them apart cheaply.
        if isinstance(raw, tuple | list) and raw and isinstance(raw[0], torch.Tensor):
            items = (self.storage_of(t) for t in raw if isinstance(t, torch.Tensor))
            return tuple(s for s in items if s is not None)
        return ()
