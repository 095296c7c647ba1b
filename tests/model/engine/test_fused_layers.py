"""Attention and transformer-encoder layers in ``eval()`` with no graph to build take
torch's fused kernels, as in plain torch (:mod:`gui.model.engine.fused_layers`), and only
when nothing but torch runs inside and the kernels get the weights they trust.

Before, the engine's recorder (a torch function mode) sent them down the step-by-step path:
numbers differed in the last bits, and an encoder given a padding mask gave values where
plain torch gives exact zeros."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import pytest
import torch
from torch import nn

from gui.model.engine import fused_layers
from gui.model.engine.fused_layers import let_layers_take_fused_kernels, runs_as_plain_torch
from gui.model.engine.refusal import PROGRAM_CLASSES
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.checks import matches
from tests.corpus.harness import run_in_engine, run_plain

PADDED_ENCODER = (
    "import torch\nimport torch.nn as nn\n"
    "torch.manual_seed(0)\n"
    "layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, batch_first=True)\n"
    "encoder = nn.TransformerEncoder(layer, num_layers=2).eval()\n"
    "tokens = torch.randn(2, 4, 8)\n"
    "padding = torch.tensor([[False, False, True, True], [False, False, False, False]])\n"
    "with torch.no_grad():\n"
    "    out = encoder(tokens, src_key_padding_mask=padding)\n"
    "print(out[0, 2:])\n"
)


def test_a_padded_encoder_gives_plain_torchs_zeros() -> None:
    matches(PADDED_ENCODER)
    result = run_in_engine(PADDED_ENCODER)
    assert result.error is None
    # The padded places of the first sequence: exact zeros, as in plain torch.
    assert result.printed[0].text.count("0.") == 16 and "-" not in result.printed[0].text


@pytest.mark.parametrize(
    "build, call",
    [
        pytest.param(
            "nn.MultiheadAttention(8, 4, batch_first=True)",
            "model(x, x, x, key_padding_mask=pad, need_weights=False)[0]",
            id="attention-padding-mask",
        ),
        pytest.param(
            "nn.MultiheadAttention(8, 2, batch_first=True)",
            "model(x, x, x, attn_mask=nn.Transformer.generate_square_subsequent_mask(4))[1]",
            id="attention-causal-weights",
        ),
        pytest.param(
            "nn.TransformerEncoderLayer(8, 2, 32, activation='gelu', batch_first=True, "
            "norm_first=True)",
            "model(x, src_key_padding_mask=pad)",
            id="pre-norm-gelu-layer",
        ),
        pytest.param(
            "nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 3, "
            "norm=nn.LayerNorm(8), enable_nested_tensor=False)",
            "model(x, mask=torch.triu(torch.ones(4, 4, dtype=torch.bool), 1))",
            id="encoder-causal-norm",
        ),
        pytest.param(
            "nn.Transformer(8, 2, 1, 1, 16, batch_first=True)",
            "model(x, x[:, :3])",
            id="full-transformer",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["torch.no_grad()", "torch.inference_mode()"])
def test_layers_in_eval_without_a_graph_are_plain_torchs(build: str, call: str, mode: str) -> None:
    matches(
        "import torch\nimport torch.nn as nn\n"
        "torch.manual_seed(1)\n"
        f"model = {build}.eval()\n"
        "x = torch.randn(2, 4, 8)\n"
        "pad = torch.tensor([[False, False, False, True], [False, False, False, False]])\n"
        f"with {mode}:\n"
        f"    y = {call}\n"
        "print(y)\n"
    )


def test_a_layer_in_eval_with_a_graph_is_still_recorded() -> None:
    """Grad on and weights that want it: no fused kernel in plain torch either; every node
    of the graph keeps its forward value."""
    code = (
        "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
        "mha = nn.MultiheadAttention(4, 2, batch_first=True).eval()\n"
        "x = torch.randn(1, 3, 4)\n"
        "out, _ = mha(x, x, x)\nout.sum().backward()\n"
    )
    matches(code)
    result = run_in_engine(code)
    assert result.error is None and result.graph is not None
    nodes = [n for n in result.graph.nodes if n.kind == "function"]
    assert len(nodes) > 5 and nodes[0].value is not None  # the step-by-step path, recorded
    layer = _attention()
    x = torch.randn(1, 3, 8)
    forward = vars(nn.MultiheadAttention)["forward"].__wrapped_forward__
    assert not runs_as_plain_torch(layer, inspect.signature(forward), (x, x, x), {})


# --- when the fused path is left alone -------------------------------------------------


def _attention() -> nn.MultiheadAttention:
    torch.manual_seed(0)
    return nn.MultiheadAttention(8, 2, batch_first=True).eval()


class _Sub(nn.MultiheadAttention):
    pass


class _Truthy:
    def __bool__(self) -> bool:
        return True


def _with(change: Callable[[nn.MultiheadAttention], object]) -> nn.MultiheadAttention:
    layer = _attention()
    change(layer)
    return layer


def _set_data(layer: nn.MultiheadAttention, name: str, value: torch.Tensor) -> None:
    getattr(layer, name).data = value


UNFIT: list[object] = [
    pytest.param(
        lambda: _with(lambda m: m.out_proj.register_forward_pre_hook(lambda *a: None)),
        id="inner-hook",
    ),
    pytest.param(lambda: _with(lambda m: setattr(m, "forward", print)), id="own-forward"),
    pytest.param(lambda: _with(lambda m: setattr(m, "batch_first", _Truthy())), id="object"),
    pytest.param(lambda: _with(lambda m: setattr(m, "embed_dim", 4)), id="embed-dim-lies"),
    pytest.param(
        lambda: _with(lambda m: _set_data(m, "in_proj_bias", torch.ones(1))), id="short-bias"
    ),
    pytest.param(
        lambda: _with(lambda m: _set_data(m, "in_proj_weight", torch.ones(8, 24).t())),
        id="strided-weight",
    ),
    pytest.param(
        lambda: _with(lambda m: _set_data(m.out_proj, "weight", torch.ones(8, 8).double())),
        id="other-dtype",
    ),
    pytest.param(
        lambda: _with(lambda m: m.out_proj._parameters.__setitem__("bias", torch.ones(8))),
        id="plain-tensor-weight",
    ),
    pytest.param(lambda: _with(lambda m: m.add_module("extra", nn.Sequential())), id="other-layer"),
    pytest.param(lambda: _Sub(8, 2, batch_first=True).eval(), id="program-subclass"),
    pytest.param(lambda: _with(lambda m: m.train()), id="training"),
]


def _decides(layer: nn.Module, *args: object, **kwargs: object) -> bool:
    forward = type(layer).forward
    forward = getattr(forward, "__wrapped_forward__", forward)
    with torch.no_grad():
        return runs_as_plain_torch(layer, inspect.signature(forward), args, kwargs)


def test_a_plain_layer_and_call_take_the_fused_path() -> None:
    x = torch.randn(2, 3, 8)
    assert _decides(_attention(), x, x, x)
    assert _decides(_attention(), x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))
    # A mask of any strides: the kernels make it contiguous themselves.
    strided = torch.zeros(2, 6, dtype=torch.bool)[:, ::2]
    assert _decides(_attention(), x, x, x, key_padding_mask=strided)
    # The layer's own hooks run around its forward (Module.__call__), outside.
    hooked = _with(lambda m: m.register_forward_hook(lambda *a: None))
    assert _decides(hooked, x, x, x)
    assert _decides(_Init(8, 2).eval(), x, x, x)  # a program's subclass with only __init__


class _Init(nn.MultiheadAttention):
    def __init__(self, size: int, heads: int) -> None:
        super().__init__(size, heads, batch_first=True)


class _Mixin:
    """After torch's classes in the lookup order: a property here would shadow an instance
    attribute that torch's classes do not define on the class."""

    def extra(self) -> None:
        pass


class _Mixed(nn.MultiheadAttention, _Mixin):
    def __init__(self) -> None:
        super().__init__(8, 2, batch_first=True)


class _Method(nn.MultiheadAttention):
    def merge_masks(self, *args: object) -> tuple[None, None]:
        return None, None


# As the program's own classes are (the engine notes each class a program defines).
for _cls in (_Init, _Mixin, _Mixed, _Method):
    PROGRAM_CLASSES.add(_cls)


def test_a_subclass_that_adds_code_stays_recorded() -> None:
    """A method, property or descriptor of the program's, anywhere in the class's lookup
    order, would run the program's code inside."""
    x = torch.randn(2, 3, 8)
    for layer in (_Mixed(), _Method(8, 2, batch_first=True)):
        assert not _decides(layer.eval(), x, x, x)
    inner = _Init(8, 2).eval()
    inner.out_proj = nn.Linear(8, 8)  # a submodule of another of torch's classes
    assert _decides(inner, x, x, x)


@pytest.mark.parametrize("make", UNFIT)
def test_anything_but_torchs_own_layer_stays_recorded(make: Callable[[], nn.Module]) -> None:
    x = torch.randn(2, 3, 8)
    assert not _decides(make(), x, x, x)


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"key_padding_mask": torch.zeros(3, 2, dtype=torch.bool)}, id="mask-shape"),
        pytest.param({"key_padding_mask": torch.zeros(2, 3, dtype=torch.int64)}, id="mask-dtype"),
        pytest.param({"attn_mask": torch.zeros(3, 4)}, id="attn-mask-shape"),
        pytest.param({"need_weights": _Truthy()}, id="object-argument"),
    ],
)
def test_unfit_arguments_stay_recorded(kwargs: dict[str, object]) -> None:
    x = torch.randn(2, 3, 8)
    assert not _decides(_attention(), x, x, x, **kwargs)


def test_unfit_inputs_stay_recorded() -> None:
    x = torch.randn(2, 3, 8)
    layer = _attention()
    assert not _decides(layer, x, x.clone(), x)  # not self-attention
    assert not _decides(layer, x.double(), x.double(), x.double())  # other dtype than weights
    sliced = torch.randn(2, 5, 8)[:, :3]
    assert _decides(layer, sliced, sliced, sliced)  # read through torch's matmul
    assert not _decides(layer, x.to_sparse(), x.to_sparse(), x.to_sparse())
    flat = torch.randn(3, 8)
    assert not _decides(layer, flat, flat, flat)  # unbatched: torch's own slow path


def test_a_global_forward_hook_keeps_every_layer_recorded() -> None:
    x = torch.randn(2, 3, 8)
    handle = nn.modules.module.register_module_forward_hook(lambda *a: None)
    try:
        assert not _decides(_attention(), x, x, x)
    finally:
        handle.remove()


def test_outside_the_engine_the_layers_are_torchs_own() -> None:
    """No torch function mode: the wrapper calls torch's forward as it is."""
    let_layers_take_fused_kernels()
    let_layers_take_fused_kernels()  # twice: still one wrapper
    forward = vars(nn.MultiheadAttention)["forward"]
    assert not hasattr(forward.__wrapped_forward__, "__wrapped_forward__")
    x = torch.randn(2, 3, 8)
    with torch.no_grad():
        wrapped = _attention()(x, x, x)[0]
        plain = forward.__wrapped_forward__(_attention(), x, x, x)[0]
    assert torch.equal(wrapped, plain)
    assert fused_layers._GLOBAL_HOOKS and all(
        "registration" not in n for n in fused_layers._GLOBAL_HOOKS
    )


HOSTILE = (
    "import torch\nimport torch.nn as nn\n"
    "mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()\n"
    "mha.in_proj_bias.data = torch.ones(1)\n"
    "mha.embed_dim = 64\n"
    "x = torch.randn(2, 3, 8)\n"
    "with torch.no_grad():\n"
    "    out, _ = mha(x, x, x)\n"
)


def test_lying_weights_behind_the_walls_then_the_next_program() -> None:
    engine = EngineProcess()
    engine.start()
    try:
        first = engine.run(RunRequest(Program(code=HOSTILE, steps=()), time_limit=30))
        assert first.error is not None  # torch's own error from the step-by-step path
        second = engine.run(RunRequest(Program(code=PADDED_ENCODER, steps=()), time_limit=30))
        assert second.error is None, second.error
        plain = run_plain(PADDED_ENCODER, ())
        assert "\n".join(p.text for p in second.printed).splitlines() == plain.printed
    finally:
        engine.close()
