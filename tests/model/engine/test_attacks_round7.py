"""Round 7's red team: the function view's sweep (one job, many runs of one program in one
process), the graph walk's memory accounting of hostile saved tensors. Each test is an
attack that worked before its fix, or one that held and must keep holding."""

from __future__ import annotations

import pytest
import torch

from gui.model.engine import pristine
from gui.model.engine.jobs import answer
from gui.model.engine.sweep import sweep_program
from gui.model.request import Program, RunRequest, SweepRequest

XS = (1.0, 2.0, 3.0)
CUBE = "x = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n"

# A suspended generator kept only by a reference cycle: its `finally` (the program's code)
# runs when the collector frees the cycle, after the sample's namespace is cleared.
GRAD_OFF_AFTER_THE_SAMPLE = (
    "def later(t):\n"
    "    try:\n"
    "        yield 1\n"
    "    finally:\n"
    "        t.set_grad_enabled(False)\n"
    "it = later(torch)\n"
    "next(it)\n"
    "box = [it]\n"
    "box.append(box)\n"
) + CUBE

# The same, one collection later: the first `finally` leaves another such generator.
GRAD_OFF_TWO_COLLECTIONS_LATER = (
    "def later(t):\n"
    "    try:\n"
    "        yield 1\n"
    "    finally:\n"
    "        t.set_grad_enabled(False)\n"
    "def sooner(t, make):\n"
    "    try:\n"
    "        yield 1\n"
    "    finally:\n"
    "        again = make(t)\n"
    "        next(again)\n"
    "        box = [again]\n"
    "        box.append(box)\n"
    "it = sooner(torch, later)\n"
    "next(it)\n"
    "box = [it]\n"
    "box.append(box)\n"
) + CUBE


def sweep(code: str, second: bool = False, xs: tuple[float, ...] = XS) -> object:
    program = Program(code=code, values={"x": 2.0})
    return sweep_program(SweepRequest(program, "x", 0, xs, second, 10.0))


def test_a_generators_finally_after_a_sample_does_not_reach_the_next_sample(
    owner_cycle: pristine.Settings,
) -> None:
    # Before: the sweep put the settings back, then collected the sample's garbage, so
    # the `finally` switched grad mode off for every later sample (slopes None, no error).
    result = sweep(GRAD_OFF_AFTER_THE_SAMPLE)
    assert result.slopes == tuple(3 * x * x for x in XS)  # type: ignore[attr-defined]
    assert result.values == tuple(x**3 for x in XS)  # type: ignore[attr-defined]
    assert torch.is_grad_enabled()
    assert pristine.capture() == owner_cycle


def test_a_finaliser_made_by_a_finaliser_stops_the_sweep_rather_than_bend_it(
    owner_cycle: pristine.Settings,
) -> None:
    result = sweep(GRAD_OFF_TWO_COLLECTIONS_LATER)
    done = result.done  # type: ignore[attr-defined]
    assert 1 <= done < len(XS)
    assert "changed a setting" in (result.note or "")  # type: ignore[attr-defined]
    assert result.slopes == tuple(3 * x * x for x in XS[:done])  # type: ignore[attr-defined]
    assert torch.is_grad_enabled()
    assert pristine.capture() == owner_cycle


# -- torch's own Tensor subclasses in the engine's reads ------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "m = torch.nn.LazyLinear(2)\np = m.weight\n",
        "m = torch.nn.LazyLinear(2)\np = m.weight\ny = p.double()\n",
        "m = torch.nn.LazyLinear(2)\ny = m.weight.to(torch.float64).sum()\n",
    ],
)
def test_a_lazy_layers_uninitialized_parameter_is_no_engine_error(
    owner_cycle: pristine.Settings, code: str
) -> None:
    # Before: its `__torch_function__` raised ValueError for every read of the engine
    # (`numel` in tensor_data, `untyped_storage` in the memory ledger, the Jacobian): the
    # run ended as "a bug in the app".
    result = answer(RunRequest(Program(code=code)))
    assert result.error is None or result.error.kind != "engine-error", result.error
    assert "p" in result.tensors or "y" in result.tensors


def test_a_lazy_layer_used_the_ordinary_way_still_matches_torch(
    owner_cycle: pristine.Settings,
) -> None:
    code = (
        "torch.manual_seed(0)\n"
        "m = torch.nn.LazyLinear(2)\n"
        "x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)\n"
        "y = m(x).pow(2).sum()\n"
    )
    result = answer(RunRequest(Program(code=code)))
    assert result.error is None
    torch.manual_seed(0)
    m = torch.nn.LazyLinear(2)
    x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = m(x).pow(2).sum()
    y.backward()
    assert x.grad is not None
    assert result.tensors["y"].value.values == pytest.approx(y.item())
    assert result.tensors["x"].grad.values == pytest.approx(x.grad.tolist())


# -- the memory ledger: what a saved tensor's own elements are ------------------------------


def _saved_memory(code: str, node_type: str, name: str) -> list[tuple[int, int]]:
    result = answer(RunRequest(Program(code=code)))
    assert result.error is None and result.graph is not None
    (node,) = [n for n in result.graph.nodes if n.name == node_type]
    (saved,) = [s for s in node.saved if s.name == name]
    return [(m.storage_bytes, m.own_bytes) for m in saved.memory]


def test_an_expanded_tensor_owns_the_numbers_it_reads_not_its_repeats(
    owner_cycle: pristine.Settings,
) -> None:
    # Before: x.expand(3, 10**6) of 3 floats showed "its own elements: 11.4 MB of the 12 B
    # it keeps"; it reads 3 numbers, and keeps x's 12 bytes.
    code = "x = torch.ones(3, requires_grad=True)\nv = x.view(3, 1).expand(3, 10**6)\ny = v.sin().sum()\n"
    x = torch.ones(3)
    v = x.view(3, 1).expand(3, 10**6)
    assert _saved_memory(code, "SinBackward0", "self") == [(v.untyped_storage().nbytes(),) * 2]


def test_a_strided_view_still_owns_less_than_it_keeps(owner_cycle: pristine.Settings) -> None:
    code = "x = torch.ones(1000, requires_grad=True)\ny = x[::2].sin().sum()\n"
    x = torch.ones(1000)
    view = x[::2]
    expected = (x.untyped_storage().nbytes(), view.numel() * view.element_size())
    assert _saved_memory(code, "SinBackward0", "self") == [expected]
