"""Round 15's red team, the engine: the fused attention and transformer-encoder path
(``fused_layers``), read as an attacker who has the source. Each test is an attack that
must keep holding.

1. Another of the admitted layer classes where torch's code expects a ``LayerNorm`` or a
   ``Linear`` (``encoder.norm = nn.ReLU()``): the fused check read ``.weight`` on it and
   the program stopped with an ``AttributeError`` where plain torch runs (the encoder only
   calls its ``norm``). The check now asks for the class first and such a call takes the
   step-by-step path, so the engine says what plain torch says, numbers and errors alike.
2. (Held) Weights the program could hand the fused kernels out of form (a bias or
   weight of another size, strided views): ``_native_multi_head_attention`` and
   ``_transformer_encoder_layer_fwd`` check every size and read strides, so even a
   weight swapped after the check stops with torch's error, never a read past a buffer.
3. (Held) Hostile inputs through the fused encoder: a padding mask covering everything,
   empty batches and sequences, strided and expanded inputs, odd mask strides, layers
   that disagree (heads, ``batch_first``, ``norm_first``, ``eps``, one in training):
   plain torch's numbers (up to the last bits where the engine keeps the step-by-step
   path: a non-contiguous mask, a bias that broadcasts) or an error, never a crash; so
   do ``vmap``, ``jvp``, dual tensors and ``inference_mode`` around the layers.
4. (Held, not a test: it depends on CPython's collector) program code running inside the
   unrecorded window: a program's generator ``finally`` runs when a collection frees it,
   but a collection starts only when an allocation takes the count past the threshold,
   and the window's forward holds at most one new tracked object at a time (its
   generator expressions, freed at once): over 2,000 tries, and with the threshold at 1,
   no collection started inside it.
"""

from __future__ import annotations

import sys

import pytest
import torch

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from tests.corpus.harness import differences, run_plain
from tests.model.engine.sandbox_helpers import printed


def _run(code: str) -> RunResult:
    return run_program(RunRequest(Program(code="import torch\n" + code), time_limit=60))


def _assert_as_plain(result: RunResult, code: str, exact: bool = True) -> None:
    """Plain torch's numbers (``exact``: every bit; else up to the last bits, where the
    engine takes the step-by-step path for weights or masks the fused kernels would get out
    of form) or plain torch's error (``exact``: its message; else an error of its own)."""
    plain = run_plain("import torch\n" + code)
    if plain.error is None:
        assert result.error is None, result.error
        if exact:
            assert differences(result, plain) == []
            assert printed(result) == plain.printed
        else:
            ours = torch.tensor(result.tensors["y"].value.values)
            theirs = torch.tensor(plain.namespace["y"].values)
            # plain torch's nested path gives zeros at the padded places, the step-by-step
            # path does not (see fused_layers): the places a learner reads must agree
            kept = ~torch.tensor(plain.namespace["mask"].values, dtype=torch.bool)
            assert torch.allclose(ours[kept], theirs[kept], atol=1e-5, equal_nan=True)
    else:
        assert result.error is not None, printed(result)
        assert result.error.kind != "engine-crashed", result.error
        if exact:
            assert result.error.message.splitlines()[0] == str(plain.error).splitlines()[0]


ENCODER = (
    "torch.manual_seed(0)\n"
    "layer = torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)\n"
    "enc = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()\n"
    "x = torch.randn(2, 3, 4)\n"
)
# 1. Another layer class in the place of a LayerNorm or a Linear.
SWAPPED = {
    "encoder_norm_relu": "enc.norm = torch.nn.ReLU()\n",
    "encoder_norm_dropout": "enc.norm = torch.nn.Dropout(0.0)\n",
    "layer_norm1_relu": "enc.layers[0].norm1 = torch.nn.ReLU()\n",
    "layer_linear1_dropout": "enc.layers[1].linear1 = torch.nn.Dropout(0.0)\n",
    "attention_out_proj_gelu": "enc.layers[0].self_attn.out_proj = torch.nn.GELU()\n",
}


@pytest.mark.parametrize("way", sorted(SWAPPED))
def test_another_layer_class_in_a_norm_or_linear_place_is_plain_torch(
    owner_cycle: pristine.Settings, way: str
) -> None:
    code = ENCODER + SWAPPED[way] + "with torch.no_grad():\n    y = enc(x)\nprint(y.sum().item())\n"
    _assert_as_plain(_run(code), code)


def test_encoder_with_a_relu_norm_runs_as_in_plain_torch(owner_cycle: pristine.Settings) -> None:
    code = ENCODER + "enc.norm = torch.nn.ReLU()\nwith torch.no_grad():\n    y = enc(x)\n"
    result = _run(code)
    assert result.error is None, result.error  # was: 'ReLU' object has no attribute 'weight'
    encoder = _plain_encoder()
    with torch.no_grad():
        expected = torch.relu(encoder(torch.randn(2, 3, 4)))
    assert torch.equal(torch.tensor(result.tensors["y"].value.values), expected)


def _plain_encoder() -> torch.nn.TransformerEncoder:
    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)
    return torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False).eval()


# 2.-3. Out-of-form weights and hostile inputs: plain torch's numbers or its error.
PADDED = (
    "torch.manual_seed(0)\n"
    "layer = torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)\n"
    "enc = torch.nn.TransformerEncoder(layer, 2).eval()\n"
    "second = enc.layers[1]\n"
    "src = torch.randn(3, 5, 4)\n"
    "mask = torch.tensor([[False] * 5, [False, False, False, True, True], [False] * 4 + [True]])\n"
    "{change}"
    "with torch.no_grad():\n    y = enc(src, src_key_padding_mask=mask)\n"
    "print(y.shape, y[1, 3:].abs().sum().item())\n"
)
HOSTILE = {
    "all_padded": "mask = torch.ones(3, 5, dtype=torch.bool)\n",
    "empty_sequence": "src = torch.randn(3, 0, 4)\nmask = torch.ones(3, 0, dtype=torch.bool)\n",
    "empty_batch": "src = torch.randn(0, 5, 4)\nmask = torch.ones(0, 5, dtype=torch.bool)\n",
    "expanded_input": "src = torch.randn(1, 5, 4).expand(3, 5, 4)\n",
    "permuted_input": "src = torch.randn(4, 5, 3).permute(2, 1, 0)\n",
    "stepped_input": "src = torch.randn(3, 5, 8)[:, :, ::2]\n",
    "stepped_mask": "mask = torch.zeros(3, 10, dtype=torch.bool)[:, ::2]\n",
    "second_not_batch_first": "second.self_attn.batch_first = False\n",
    "second_odd_heads": "second.self_attn.num_heads = 1\n",
    "second_four_heads": "second.self_attn.num_heads = 4\n",
    "second_norm_first": "second.norm_first = True\n",
    "second_negative_eps": "second.norm2.eps = -1.0\n",
    "second_gelu_flag": "second.activation_relu_or_gelu = 2\n",
    "second_training": "second.train()\n",
    "small_bias": "second.linear1.bias = torch.nn.Parameter(torch.ones(1))\n",
    "strided_weight": "second.linear2.weight = torch.nn.Parameter(torch.randn(8, 4).t())\n",
    "small_in_proj_bias": "second.self_attn.in_proj_bias = torch.nn.Parameter(torch.ones(3))\n",
    "embed_dim_lie": "second.self_attn.embed_dim = 2\n",
}


@pytest.mark.parametrize("way", sorted(HOSTILE))
def test_hostile_fused_encoder_inputs_are_plain_torch(
    owner_cycle: pristine.Settings, way: str
) -> None:
    code = PADDED.format(change=HOSTILE[way])
    result = _run(code)
    _assert_as_plain(result, code, exact=False)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="forks a process per program")
def test_swapped_norm_and_hostile_inputs_in_the_real_engine(
    engine_process: EngineProcess,
) -> None:
    codes = [
        (ENCODER + SWAPPED["encoder_norm_relu"] + "with torch.no_grad():\n    y = enc(x)\n", True),
        *((PADDED.format(change=HOSTILE[way]), False) for way in ("all_padded", "strided_weight")),
        (PADDED.format(change=""), True),
    ]
    for code, exact in codes:
        for _ in range(2):  # a first run, and the same program again (a slider tick)
            result = engine_process.run(RunRequest(Program(code="import torch\n" + code)))
            _assert_as_plain(result, code, exact=exact)


# 3. (Held) torch.func transforms and forward-mode AD around the fused layers.
TRANSFORMED = (
    "from torch.func import vmap, jvp\n"
    "import torch.autograd.forward_ad as fwAD\n"
    "torch.manual_seed(0)\n"
    "mha = torch.nn.MultiheadAttention(4, 2, batch_first=True).eval()\n"
    "layer = torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True)\n"
    "enc = torch.nn.TransformerEncoder(layer, 2).eval()\n"
    "x = torch.randn(5, 2, 3, 4)\n"
    "mask = torch.tensor([[False, False, True], [False, False, False]])\n"
    "{call}"
)
TRANSFORMS = {
    "vmap_attention": "with torch.no_grad():\n    y = vmap(lambda t: mha(t, t, t)[0])(x)\n",
    "vmap_padded_encoder": (
        "with torch.no_grad():\n    y = vmap(lambda t: enc(t, src_key_padding_mask=mask))(x)\n"
    ),
    "jvp_attention": "y = jvp(lambda t: mha(t, t, t)[0], (x[0],), (torch.ones(2, 3, 4),))[1]\n",
    "dual_attention": (
        "with fwAD.dual_level(), torch.no_grad():\n"
        "    d = fwAD.make_dual(x[0], torch.ones(2, 3, 4))\n"
        "    y = fwAD.unpack_dual(mha(d, d, d)[0]).tangent\n"
    ),
    "dual_padded_encoder": (
        "with fwAD.dual_level(), torch.no_grad():\n"
        "    d = fwAD.make_dual(x[0], torch.ones(2, 3, 4))\n"
        "    y = fwAD.unpack_dual(enc(d, src_key_padding_mask=mask)).tangent\n"
    ),
    "inference_mode_encoder": (
        "with torch.inference_mode():\n    y = enc(x[0], src_key_padding_mask=mask)\n"
    ),
}


@pytest.mark.parametrize("way", sorted(TRANSFORMS))
def test_transforms_around_fused_layers_are_plain_torch(
    owner_cycle: pristine.Settings, way: str
) -> None:
    code = TRANSFORMED.format(call=TRANSFORMS[way])
    _assert_as_plain(_run(code), code)


# The window's side of the layer-name hole (tests/widgets/test_attacks_round15_window.py):
# a parameter is named with its controls escaped, and a slider's value applies by that name.
def test_a_controlled_layer_name_is_escaped_and_still_takes_values(
    owner_cycle: pristine.Settings,
) -> None:
    code = (
        "import torch\nm = torch.nn.Sequential()\n"
        "m.add_module('a\\u202eb\\x07', torch.nn.Linear(2, 1))\ny = m(torch.ones(2)).sum()\n"
    )
    name = "m.a\\u202eb\\x07.bias"
    request = RunRequest(Program(code=code, values={name: [5.0]}), time_limit=60)
    result = run_program(request)
    assert result.error is None, result.error
    assert sorted(result.tensors) == sorted(["m.a\\u202eb\\x07.weight", name, "y"])
    assert result.tensors[name].value.values == [5.0]


# 3. (Held) `mask_check = False`: torch's nested path takes a padding mask it does not
# check is left-aligned (or of odd float values) and trusts the lengths it sums.
UNCHECKED_MASKS = (
    "torch.tensor([[True, False, True, False, False]] * 3)",
    "torch.tensor([[True] * 5, [False] * 5, [True, True, False, False, False]])",
    "torch.tensor([[float('nan'), 0.0, float('-inf'), 1e30, -0.0]] * 3)",
)


@pytest.mark.parametrize("mask", UNCHECKED_MASKS)
def test_unchecked_padding_masks_end_as_plain_torch_does(
    owner_cycle: pristine.Settings, mask: str
) -> None:
    code = PADDED.format(change=f"enc.mask_check = False\nmask = {mask}\n")
    result = _run(code)
    plain = run_plain("import torch\n" + code)
    assert (result.error is None) == (plain.error is None), (result.error, plain.error)
    if result.error is not None:
        assert result.error.kind != "engine-crashed", result.error
    else:
        assert result.tensors["y"].value.shape == (3, 5, 4)
