"""Round 6 of attacks on the sandbox: the doors the last widening opened
(``torch.distributions``, ``torch.nn.utils.rnn``, anomaly mode, saved tensors and their
hooks), each tried line by line against torch's own code.

Grouped by the door each test tries:

1. a saved tensor's ``register_hooks`` (torch runs the program's pack in the middle of its
   own call, with its state half set);
2. tensors whose memory layout torch trusts (a sparse tensor's index tensors);
3. anomaly mode's records on a node, which torch's C++ reads back when a backward fails;

Most run in this process (``run_program``, the Python wall only) and do between two runs
what the engine's owner does (collect, put the settings back, collect).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gui.model.engine import pristine
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import RunResult
from tests.model.engine.sandbox_helpers import (
    assert_refused,
    assert_same_as_plain,
    printed,
)


def run(code: str, time_limit: float = 5.0) -> RunResult:
    return run_program(RunRequest(Program(code="import torch\n" + code), time_limit=time_limit))


def run_in_subprocess(code: str) -> dict[str, object]:
    """Run ``code`` like :func:`run`, in a process of its own: an attack that corrupts
    memory ends that process, not the test run. Returns its exit code and what it said."""
    script = (
        "import json, sys\n"
        "from gui.model.engine.run import run_program\n"
        "from gui.model.request import Program, RunRequest\n"
        "if __name__ == '__main__':\n"
        "    r = run_program(RunRequest(Program(code=sys.stdin.read()), time_limit=10.0))\n"
        "    e = r.error\n"
        "    print(json.dumps({'kind': e and e.kind, 'message': e and e.message,\n"
        "                      'printed': [p.text for p in r.printed]}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input="import torch\n" + code,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parents[3],
        check=False,
    )
    lines = done.stdout.strip().splitlines()
    said = json.loads(lines[-1]) if done.returncode == 0 and lines else {}
    return {"returncode": done.returncode, **said}


# -- 1. a saved tensor's register_hooks ---------------------------------------------------

# torch's `SavedVariable::register_hooks` stores the hooks on the node, then calls pack: a
# pack that runs backward through the node makes torch unpack a null pointer (the program's
# unpack was called with no argument) and free the hooks object, into which torch then
# writes the packed value (a use after free); the engine's own graph drawing then failed.
PACK_RUNS_BACKWARD = [
    pytest.param("s.backward()", id="backward"),
    pytest.param("torch.autograd.grad(s, x)", id="grad"),
    pytest.param("s.backward(retain_graph=True)", id="backward-retained"),
]


@pytest.mark.parametrize("call", PACK_RUNS_BACKWARD)
def test_a_pack_hook_cannot_run_backward_through_its_own_node(
    call: str, owner_cycle: pristine.Settings
) -> None:
    code = (
        "x = torch.ones(3, requires_grad=True)\n"
        "y = (x * 2).sin()\n"
        "s = y.sum()\n"
        "node = y.grad_fn\n"
        "raw = node._raw_saved_self\n"
        "def pack(t):\n"
        f"    {call}\n"
        "    return t\n"
        "def unpack(t=None):\n"
        "    return torch.ones(3)\n"
        "raw.register_hooks(pack, unpack)\n"
        "print('registered')\n"
        "z = node._saved_self\n"
    )
    result = run(code)
    assert_refused(result, "pack_hook")
    assert printed(result) == []


def test_register_hooks_still_packs_and_unpacks_as_in_plain_torch() -> None:
    assert_same_as_plain(
        "x = torch.randn(3, requires_grad=True)\n"
        "y = x.pow(2)\n"
        "seen = []\n"
        "def pack(t):\n"
        "    seen.append(('pack', t.requires_grad, tuple(t.shape)))\n"
        "    return t * 1\n"
        "def unpack(t):\n"
        "    seen.append('unpack')\n"
        "    return t\n"
        "y.grad_fn._raw_saved_self.register_hooks(pack, unpack)\n"
        "print(seen)\n"
        "print(y.grad_fn._saved_self)\n"
        "y.sum().backward()\n"
        "print(seen, x.grad)\n"
    )


def test_a_pack_hook_that_changes_its_input_in_place_fails_as_in_torch() -> None:
    result = run(
        "x = torch.randn(3, requires_grad=True)\n"
        "y = x.pow(2)\n"
        "def pack(t):\n"
        "    t.add_(1)\n"
        "    return t\n"
        "y.grad_fn._raw_saved_self.register_hooks(pack, lambda t: t)\n"
        "print('registered')\n"
    )
    assert result.error is not None and result.error.kind != "unsafe-code", result.error
    assert "modifying its input in place" in result.error.message
    assert printed(result) == []


# -- 2. tensors whose memory layout torch trusts ------------------------------------------

# `indices()` hands out the sparse tensor's own index tensor (an alias): changed in place,
# `to_dense()` wrote each value where the index said, past the end of its buffer.
SPARSE_INDEX_WRITES = [
    pytest.param(
        "s = torch.tensor([0., 1., 2.]).to_sparse()\n"
        "s.indices().add_(10**9)\n"
        "return s.to_dense().sum().item()\n",
        id="coo-indices",
    ),
    pytest.param(
        "s = torch.tensor([[0., 1.], [2., 0.]]).to_sparse_csr()\n"
        "s.col_indices().add_(10**9)\n"
        "return s.to_dense().sum().item()\n",
        id="csr-col-indices",
    ),
    pytest.param(
        "s = torch.tensor([[0., 1.], [2., 0.]]).to_sparse_csr()\n"
        "s.crow_indices().add_(10**6)\n"
        "return s.to_dense().sum().item()\n",
        id="csr-crow-indices",
    ),
    pytest.param(
        "s = torch.tensor([0., 1., 2.]).to_sparse()\n"
        "s.sparse_resize_((1,), 1, 0)\n"
        "return s.to_dense().sum().item()\n",
        id="sparse-resize",
    ),
]


@pytest.mark.parametrize("body", SPARSE_INDEX_WRITES)
def test_a_sparse_tensors_indices_cannot_be_changed(body: str) -> None:
    code = "def f():\n" + "".join(f"    {line}\n" for line in body.splitlines()) + "print(f())\n"
    said = run_in_subprocess(code)
    assert said["returncode"] == 0, said
    assert said["kind"] == "unsafe-code", said
    assert said["printed"] == [], said


# -- 3. anomaly mode's records on a node ----------------------------------------------------

# When a backward fails in anomaly mode, torch prints each node's forward traceback and
# walks `metadata["parent_"]`, reading `parent.metadata` and `parent.name()` with borrowed
# references: a program's object there whose `metadata` hands out a fresh dict holding the
# only reference to the next parent had torch read freed objects (a use after free that
# printed on, by luck of the allocator).
ANOMALY_PARENT = (
    "t = torch.ones(2, requires_grad=True)\n"
    "pool = [(t * 2).grad_fn for _ in range(50)]\n"
    "class P:\n"
    "    @property\n"
    "    def metadata(self):\n"
    "        n = pool.pop()\n"
    "        n.metadata['parent_'] = P() if len(pool) > 1 else None\n"
    "        return {'parent_': n, 'traceback_': ['frame\\n']}\n"
    "    def name(self):\n"
    "        return 'P'\n"
    "torch.autograd.set_detect_anomaly(True)\n"
    "x = torch.zeros(1, requires_grad=True)\n"
    "y = torch.sqrt(x)\n"
    "z = y * 0\n"
    "y.grad_fn.metadata['parent_'] = P()\n"
    "print('planted')\n"
    "z.backward()\n"
)


def test_a_nodes_anomaly_records_cannot_be_written(owner_cycle: pristine.Settings) -> None:
    result = run(ANOMALY_PARENT)
    assert_refused(result, "metadata")
    assert printed(result) == []


@pytest.mark.parametrize(
    "reach",
    [
        "(x * 2).grad_fn.metadata",
        "getattr((x * 2).grad_fn, 'metadata')",
        "(x * 2).grad_fn.next_functions[0][0].metadata",
    ],
)
def test_a_nodes_metadata_is_refused_however_reached(reach: str) -> None:
    result = run(f"x = torch.ones(2, requires_grad=True)\nm = {reach}\nprint('reached')\n")
    assert_refused(result, "metadata")
