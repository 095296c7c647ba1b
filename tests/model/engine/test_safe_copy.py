"""``copy.deepcopy``/``copy.copy`` for programs (gui.model.engine.safe_copy): the same
copies as Python's own on torch's modules and state dicts, and nothing else copied.

The engine-level half (``import copy`` in a program, the refusals, no state left) is in
``test_safe_copy_in_programs.py``; tutorial code using it is in the corpus (142, 143).
"""

from __future__ import annotations

import collections
import copy
from typing import Any

import pytest
import torch
from torch import nn

from gui.model.engine import safe_copy


def modules_only(value: object) -> bool:
    return isinstance(value, nn.Module)


def deepcopy(value: object, memo: object = None) -> Any:
    return safe_copy.deepcopy(value, memo, modules_only)


class TwoLayers(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Linear(3, 4)
        self.second = nn.Linear(4, 2)
        self.note = "kept"
        self.activation = torch.relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(self.activation(self.first(x)))


def models() -> list[nn.Module]:
    torch.manual_seed(0)
    return [
        nn.Linear(3, 2),
        nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)),
        nn.LSTM(3, 5, 2),
        nn.GRU(3, 4, batch_first=True),
        nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
        nn.BatchNorm1d(3),
        nn.Conv2d(1, 2, 3),
        nn.MultiheadAttention(8, 2),
        nn.Embedding(5, 3),
        TwoLayers(),
    ]


@pytest.mark.parametrize("model", models(), ids=lambda m: type(m).__name__)
def test_a_module_copies_as_pythons_deepcopy_does(model: nn.Module) -> None:
    ours, theirs = deepcopy(model), copy.deepcopy(model)
    assert type(ours) is type(model)
    assert set(vars(ours)) == set(vars(theirs))
    mine, reference, original = ours.state_dict(), theirs.state_dict(), model.state_dict()
    assert list(mine) == list(reference)
    for key, tensor in mine.items():
        assert torch.equal(tensor, reference[key])
        assert tensor.data_ptr() != original[key].data_ptr(), f"{key} shares the original's data"
    for ours_p, model_p in zip(ours.parameters(), model.parameters(), strict=True):
        assert type(ours_p) is nn.Parameter and ours_p.is_leaf
        assert ours_p is not model_p and ours_p.requires_grad == model_p.requires_grad


def test_copied_recurrent_and_attention_layers_compute_the_same_and_learn_apart() -> None:
    torch.manual_seed(2)
    lstm = nn.LSTM(3, 4)
    copied = deepcopy(lstm)
    x = torch.randn(5, 1, 3)
    assert torch.equal(lstm(x)[0], copied(x)[0])
    copied(x)[0].sum().backward()
    assert all(p.grad is None for p in lstm.parameters())
    assert all(p.grad is not None for p in copied.parameters())
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    y = torch.randn(3, 1, 8)
    assert torch.equal(layer(y), deepcopy(layer)(y))


def test_a_state_dict_copy_keeps_its_order_metadata_and_survives_training() -> None:
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    state = model.state_dict()
    best = deepcopy(state)
    assert type(best) is collections.OrderedDict
    assert best._metadata == state._metadata  # type: ignore[attr-defined]
    before = {k: v.clone() for k, v in state.items()}
    with torch.no_grad():
        for p in model.parameters():
            p.add_(1.0)
    assert all(torch.equal(best[k], before[k]) for k in before)
    model.load_state_dict(best)
    assert all(torch.equal(model.state_dict()[k], before[k]) for k in before)


def test_shared_objects_are_copied_once_so_tied_weights_stay_tied() -> None:
    model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 3))
    model[1].weight = model[0].weight
    copied = deepcopy(model)
    assert copied[1].weight is copied[0].weight
    assert copied[0].weight is not model[0].weight
    items = [torch.ones(2)]
    pair = deepcopy([items, items])
    assert pair[0] is pair[1] and pair[0] is not items
    memo: dict[int, object] = {}
    first = deepcopy(items, memo)
    assert deepcopy(items, memo) is first


def test_tensors_follow_torchs_own_rules_for_grads_and_leaves() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    x2 = deepcopy(x)
    assert x2.is_leaf and x2.requires_grad and torch.equal(x2.grad, copy.deepcopy(x).grad)
    p = nn.Parameter(torch.ones(2))
    (p * 2).sum().backward()
    assert deepcopy(p).grad is None and copy.deepcopy(p).grad is None
    with pytest.raises(RuntimeError, match="graph leaves"):
        deepcopy(x * 2)
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(x * 2)


def test_numbers_strings_and_functions_are_kept_as_python_keeps_them() -> None:
    kept = (1, 2.5, "s", None, torch.float64, torch.Size([2]), torch.relu, len, int)
    assert all(a is b for a, b in zip(deepcopy(kept), kept, strict=True))
    nested = {"a": [1, {2, 3}], "b": (frozenset({4}), collections.deque([5], maxlen=3))}
    assert deepcopy(nested) == copy.deepcopy(nested)
    counts = collections.defaultdict(list, {"k": [1]})
    copied = deepcopy(counts)
    assert copied == counts and copied.default_factory is list and copied["k"] is not counts["k"]


class Holder:
    """An object the predicate does not allow (as a program's hostile class would be)."""

    def __init__(self) -> None:
        self.inside = torch.ones(1)


@pytest.mark.parametrize(
    "value",
    [
        Holder(),
        [1, Holder()],
        (x for x in range(3)),
        torch.Generator(),
        torch.optim.SGD([nn.Parameter(torch.ones(1))], lr=0.1),
    ],
    ids=["object", "inside-a-list", "generator", "torch-generator", "optimizer"],
)
def test_what_is_not_a_tensor_module_or_container_is_refused_by_its_type(value: object) -> None:
    with pytest.raises(safe_copy.CopyRefused, match="cannot copy a"):
        deepcopy(value)


def test_a_memo_that_is_not_a_dict_and_endless_nesting_are_refused() -> None:
    with pytest.raises(safe_copy.CopyRefused, match="memo"):
        deepcopy([1], memo=[])  # type: ignore[arg-type]
    deep: list[object] = []
    for _ in range(safe_copy.MAX_DEPTH + 10):
        deep = [deep]
    with pytest.raises(safe_copy.CopyRefused, match="nested"):
        deepcopy(deep)
    loop: list[object] = []
    loop.append(loop)
    copied = deepcopy(loop)
    assert copied[0] is copied


def test_shallow_copy_shares_what_it_holds_and_refuses_tensors() -> None:
    model = TwoLayers()
    shallow = safe_copy.copy(model, modules_only)
    assert shallow is not model and shallow.first is model.first
    items = [torch.ones(1)]
    assert safe_copy.copy(items, modules_only)[0] is items[0]
    with pytest.raises(safe_copy.CopyRefused, match="clone"):
        safe_copy.copy(torch.ones(1), modules_only)


class WithBoundMethod(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(2.0))
        self.act = self.scaled

    def scaled(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


def test_a_bound_method_is_bound_to_the_copy_as_pythons_deepcopy_binds_it() -> None:
    model = WithBoundMethod()
    ours, theirs = deepcopy(model), copy.deepcopy(model)
    assert theirs.act.__self__ is theirs
    assert ours.act.__self__ is ours and ours.act.__func__ is model.act.__func__
    with torch.no_grad():
        ours.scale.fill_(3.0)
    assert ours.act(torch.ones(1)).item() == 3.0 and model.act(torch.ones(1)).item() == 2.0
