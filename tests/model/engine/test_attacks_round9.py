"""Round 9's red team: the newest admissions (``copy.deepcopy``, a layer's entries), read
as an attacker who has the source. Each test is an attack that worked before its fix, or
one that held and must keep holding.

1. ``copy.deepcopy(layer, memo)`` left in the program's ``memo`` every object the copier
   made, also the copy's own ``_modules``, ``_parameters``, ``_forward_hooks`` dicts: the
   program wrote a dict under ``__array_interface__`` in ``_modules``, and
   ``np.array(layer)`` then built an array of objects over any address (``id(x)``, or a
   forged object: the Python wall gone).
2. A layer's entries take any name: ``add_module('__deepcopy__', child)`` (also a
   ``ModuleDict`` or ``Sequential`` key) made ``Module.__getattr__`` answer Python's copy
   protocol, and ``nn.TransformerEncoder`` (Python's real ``copy.deepcopy`` in torch's
   ``_get_clones``) called the program's ``forward`` with its memo, which held the copy's
   private dicts: the same forged array followed.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch
from torch import nn

from gui.model.engine import guard, pristine, safe_copy
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from tests.corpus.harness import differences, run_in_engine, run_plain
from tests.model.engine.sandbox_helpers import assert_refused, assert_same_as_plain, printed

# An array of one object read from the 8 bytes of `buf`: whatever address they hold.
FORGED = (
    "import numpy as np\n"
    "buf = np.array([id('secret')], dtype=np.int64)\n"
    "iface = {'data': buf, 'shape': (1,), 'typestr': '|O8', 'version': 3}\n"
)


def test_a_deepcopy_memo_holds_no_dict_of_the_copied_layer(owner_cycle: pristine.Settings) -> None:
    result = run_in_engine(
        FORGED + "import copy\n"
        "m = torch.nn.Linear(1, 1)\n"
        "memo = {}\n"
        "c = copy.deepcopy(m, memo)\n"
        "inner = [v for v in memo.values() if isinstance(v, dict) and '_modules' in v]\n"
        "print(len(inner), c in memo.values())\n"
        "for state in inner:\n"
        "    state['_modules']['__array_interface__'] = iface\n"
        "    print(np.array(c)[0])\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["0 True"]


def test_entries_a_program_wrote_in_a_memo_stay_out_of_a_copy() -> None:
    inner = [1.0]
    outer = [inner, torch.ones(1)]
    memo: dict[int, object] = {id(inner): "planted", id(outer[1]): "planted"}
    copied = safe_copy.deepcopy(outer, memo, lambda value: False)
    assert copied[0] == [1.0] and copied[0] is not inner
    assert torch.equal(copied[1], torch.ones(1))
    assert safe_copy.deepcopy(outer, memo, lambda value: False) is copied  # the value itself
    assert memo[id(outer)] is copied


def test_a_memo_still_serves_a_copy_made_with_it(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "import copy\n"
        "m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh())\n"
        "memo = {}\n"
        "a = copy.deepcopy(m, memo)\n"
        "b = copy.deepcopy(m, memo)\n"
        "print(a is b, a[0].weight is not m[0].weight)\n"
        "print(copy.deepcopy([m[0].weight], {})[0].shape)\n"
    )


CLONED = (
    "grab = []\n"
    "class Spy(torch.nn.Module):\n"
    "    def forward(self, memo):\n"
    "        for v in memo.values():\n"
    "            if isinstance(v, dict) and '_modules' in v and 'in_features' in v:\n"
    "                v['_modules']['__array_interface__'] = iface\n"
    "                grab.append(v)\n"
    "        return torch.nn.Linear(4, 4)\n"
    "class Layer(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.self_attn = torch.nn.MultiheadAttention(4, 2)\n"
    "        self.a = torch.nn.Linear(4, 4)\n"
    "        self.b = torch.nn.Linear(4, 4)\n"
    "    def forward(self, x, src_mask=None, src_key_padding_mask=None, is_causal=False):\n"
    "        return self.a(x)\n"
    "layer = Layer()\n"
)


@pytest.mark.parametrize(
    "attack",
    [
        "layer.b.add_module('__deepcopy__', Spy())\n",
        "layer.b.register_module('__deepcopy__', Spy())\n",
        "layer.b = torch.nn.ModuleDict({'__deepcopy__': Spy()})\n",
        "import collections\n"
        "layer.b = torch.nn.Sequential(collections.OrderedDict([('__deepcopy__', Spy())]))\n",
        "d = torch.nn.ModuleDict()\nd.update({'__deepcopy__': Spy()})\nlayer.b = d\n",
        "layer.b.register_buffer('__array_priority__', torch.ones(1))\n",
        "layer.b.register_parameter('__deepcopy__', torch.nn.Parameter(torch.ones(1)))\n",
    ],
    ids=[
        "add_module",
        "register_module",
        "module-dict",
        "sequential",
        "module-dict-update",
        "buffer",
        "parameter",
    ],
)
def test_a_layer_entry_cannot_take_a_protocol_name(
    owner_cycle: pristine.Settings, attack: str
) -> None:
    result = run_in_engine(
        FORGED
        + CLONED
        + attack
        + "enc = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)\n"
        "print(len(grab))\n"
        "print(np.asarray(enc.layers[0].a)[0])\n"
    )
    assert_refused(result, "layer entry", "two underscores")
    assert printed(result) == []


def test_a_layer_never_answers_a_protocol_name_from_its_entries() -> None:
    # However a dict came to sit among a layer's entries, numpy and copy ask the layer for
    # `__array_interface__`/`__deepcopy__` and must not find it there.
    assert guard.CodeRefusedAtRuntime is not None  # the guard is imported: its patch holds
    layer = nn.Linear(1, 1)
    buf = np.array([id(layer)], dtype=np.int64)
    layer._modules["__array_interface__"] = {  # type: ignore[assignment]
        "data": buf,
        "shape": (1,),
        "typestr": "|O8",
        "version": 3,
    }
    assert np.asarray(layer).dtype == object and np.asarray(layer).shape == ()
    assert not hasattr(layer, "__deepcopy__")
    assert layer.weight is layer._parameters["weight"]


def test_layers_keep_their_ordinary_and_library_names(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "import collections\n"
        "torch.manual_seed(0)\n"
        "m = torch.nn.Sequential(collections.OrderedDict(fc=torch.nn.Linear(2, 2)))\n"
        "m.add_module('act', torch.nn.ReLU())\n"
        "m.register_buffer('scale', torch.ones(2))\n"
        "d = torch.nn.ModuleDict({'enc': torch.nn.Linear(2, 2)})\n"
        "p = torch.nn.FractionalMaxPool2d(2, output_size=2, _random_samples=torch.rand(1, 1, 2))\n"
        "x = torch.randn(1, 1, 4, 4)\n"
        "print(m(torch.ones(2)) * m.scale, d['enc'].weight.shape, p(x).shape)\n"
        "enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(4, 2), 2)\n"
        "print(len(enc.layers))\n"
    )


def test_a_tensor_never_shares_the_memory_of_bytes(owner_cycle: pristine.Settings) -> None:
    # The one-byte `bytes` are one object each for the whole process: written through a
    # tensor over them, every `b'A'` of the process read `b'B'`, in this run and the next.
    result = run_in_engine(
        "t = torch.asarray(b'A', dtype=torch.uint8)\nt[0] = 66\nprint(b'A', t)\n"
    )
    assert result.error is None, result.error
    assert printed(result) == ["b'A' tensor([66], dtype=torch.uint8)"]
    assert bytes([65]) == b"A"
    refused = run_in_engine("t = torch.asarray(b'A', dtype=torch.uint8, copy=False)\n")
    assert_refused(refused, "copy=False")
    assert bytes([65]) == b"A"


def test_asarray_still_shares_what_a_program_may_change(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "import numpy as np\n"
        "a = np.array([1.0, 2.0])\n"
        "t = torch.asarray(a)\n"
        "t[0] = 5.0\n"
        "print(a, torch.asarray([1, 2]), torch.asarray(b'AB', dtype=torch.uint8))\n"
        "print(torch.asarray(np.broadcast_to(np.array([1.0]), (3,))))\n"
    )


TICKED = [
    # Each prints what it would have changed before changing it: a second run (a slider
    # tick, served by the same process) printed the change when it stayed.
    "print(b'A')\nt = torch.asarray(b'A', dtype=torch.uint8)\nt[0] = 66\n",
    FORGED + "import copy\nm = torch.nn.Linear(1, 1)\nmemo = {}\nc = copy.deepcopy(m, memo)\n"
    "print(len(memo))\n"
    "for v in list(memo.values()):\n"
    "    if isinstance(v, dict) and '_modules' in v:\n"
    "        v['_modules']['__array_interface__'] = iface\n"
    "        print(np.array(c)[0])\n",
    FORGED + CLONED + "layer.b.add_module('__deepcopy__', Spy())\n",
]
ORDINARY = (
    "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "y = (x.exp() * x).sum()\ny.backward()\nprint(b'A', y.item())\n"
)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
@pytest.mark.parametrize("hostile", TICKED, ids=["bytes", "memo", "protocol-name"])
def test_a_hostile_program_then_its_next_tick_then_a_lesson(
    engine_process: EngineProcess, hostile: str
) -> None:
    code = "import torch\n" + hostile
    first = engine_process.run(RunRequest(Program(code=code)))
    again = engine_process.run(RunRequest(Program(code=code)))
    assert again.error == first.error
    assert printed(again) == printed(first)
    assert "secret" not in printed(first)
    lesson = engine_process.run(RunRequest(Program(code="import torch\n" + ORDINARY)))
    assert lesson.error is None, lesson.error
    plain = run_plain("import torch\n" + ORDINARY)
    assert differences(lesson, plain) == []
    assert printed(lesson) == plain.printed


# 3. torch's C++ reads a Python list with the length (or the pointer to its items) taken
# once, and calls the program's code for an item it cannot read itself: a sequence's
# `__len__`/`__getitem__`, `__bool__`, `__index__`, `__float__`. That code emptied the list,
# and torch read the freed items (a crash, and objects read from memory the program filled).
EMPTIED = (
    "L = []\ncalls = [0]\n"
    "class S:\n"
    "    def __len__(self):\n"
    "        calls[0] += 1\n"
    "        if calls[0] == {when}:\n"
    "            L.clear()\n"
    "            junk = [[i] for i in range(3000)]\n"
    "        return 1\n"
    "    def __getitem__(self, i):\n"
    "        if i >= 1:\n"
    "            raise IndexError(i)\n"
    "        return {item}\n"
    "L.extend([[{item}], S()] + [[{row}] for i in range(100000)])\n"
)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
@pytest.mark.parametrize(
    ("item", "use"),
    [
        ("1.0", "t = torch.tensor(L, dtype=torch.float64)"),
        ("1.0", "t = torch.tensor(L, dtype=torch.bool)"),
        ("1.0", "t = torch.as_tensor(L, dtype=torch.float64)"),
        ("1.0", "t = torch.asarray(L, dtype=torch.float64)"),
        ("1.0", "t = torch.Tensor(L)"),
        ("1.0", "t = torch.DoubleTensor(L)"),
        ("1", "t = torch.LongTensor(L)"),
        ("1.0", "t = torch.ones(1).new_tensor(L)"),
        ("0", "t = torch.ones(3)[L]"),
        ("0", "t = torch.ones(3)\nt[L] = 5.0"),
        ("0", "t = torch.ones(3)\nt[(L,)] = 5.0"),
    ],
    ids=[
        "tensor",
        "tensor-bool",
        "as_tensor",
        "asarray",
        "Tensor",
        "legacy-double",
        "legacy-long",
        "new_tensor",
        "getitem",
        "setitem",
        "setitem-tuple",
    ],
)
def test_a_list_emptied_while_torch_reads_it_is_never_read_freed(
    engine_process: EngineProcess, item: str, use: str
) -> None:
    for when in (1, 2):  # torch reads some lists twice: emptied at the first or second
        # Rows of numbers of their own, freed with the list (0: a valid index).
        row = {"1.0": "float(i) + 0.25", "1": "i + 1000", "0": "0"}[item]
        emptied = EMPTIED.format(item=item, when=when, row=row)
        code = "import torch\n" + emptied + use + "\nprint(t.shape)\n"
        result = engine_process.run(RunRequest(Program(code=code), time_limit=20))
        # Emptied first, the list is read as it then was (two rows: an index of two
        # sequences can be too many indices, a plain error); never freed memory.
        if result.error is not None:
            assert result.error.kind != "engine-crashed", result.error
            assert "too many indices" in result.error.message, result.error
        elif use.startswith("t = torch.ones(3)\n"):
            assert printed(result) == ["torch.Size([3])"]
        else:
            rows = 2 if when == 1 else 100_002
            assert printed(result) == [f"torch.Size([{rows}, 1])"]


@pytest.mark.slow
@pytest.mark.skipif(sys.platform not in ("linux", "darwin"), reason="forks a process per program")
@pytest.mark.parametrize("name", ["__index__", "__int__", "__float__"])
def test_a_class_cannot_give_torch_a_number_of_its_own(
    engine_process: EngineProcess, name: str
) -> None:
    # torch.zeros(sizes) read a list with its length taken once and called `__index__` for
    # each item; one that shortened the list had torch read past it (run in the engine's
    # process: before the fix, this one crashed).
    code = (
        "import torch\nL = []\nclass E:\n"
        f"    def {name}(self):\n        del L[2:]\n"
        "        junk = [float(i) * 1.5 for i in range(5000)]\n        return 1\n"
        "L.extend([1, E()] + [1] * 60)\nt = torch.zeros(L)\n"
    )
    assert_refused(engine_process.run(RunRequest(Program(code=code))), name)


def test_data_and_indices_still_mean_what_they_meant(owner_cycle: pristine.Settings) -> None:
    assert_same_as_plain(
        "t = torch.arange(12.0).reshape(3, 4)\n"
        "print(t[1], t[1, 2], t[:, 1], t[[0, 2]], t[[0, 2], [1, 3]], t[(0, 1)])\n"
        "print(t[..., None].shape, t[t > 5], t[torch.tensor([0, 2])], t[(slice(None), 1)])\n"
        "t[[0, 1]] = 7.0\nt[0, [1, 2]] = torch.tensor([1.0, 2.0])\n"
        "t[[[0], [1]], [[1], [2]]] = -1.0\nt[2] = torch.tensor([1.0, 2.0, 3.0, 4.0])\n"
        "print(t)\n"
        "class Rows:\n"
        "    def __len__(self):\n        return 2\n"
        "    def __getitem__(self, i):\n"
        "        if i >= 2:\n            raise IndexError(i)\n"
        "        return [float(i), 2.0 * i]\n"
        "print(torch.tensor(Rows()), torch.tensor([Rows(), Rows()]).shape)\n"
        "print(torch.Tensor([[1, 2], [3, 4]]), torch.Tensor(2, 3).shape, torch.FloatTensor([1]))\n"
        "print(torch.tensor(((1, 2), [3, 4])), torch.ones(2).new_tensor([[1.0], [2.0]]))\n"
    )
