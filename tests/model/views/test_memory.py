"""The memory view against torch's own count of the same saved tensors.

Each program runs twice: in the engine (``run_program``, in this process) and with plain
torch, where ``torch.autograd.graph.saved_tensors_hooks`` sees every tensor the graph saves
(its pack hook records the storage's address and size) and each node's own saved tensors
are read through ``_raw_saved_*.register_hooks``. Totals (distinct storages, counted once),
the number of saved tensors and, per node, which storages it holds and which it shares
must agree.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest
import torch

from gui.model.engine.run import run_program
from gui.model.request import BackwardStep, Program, RunRequest
from gui.model.result import RunResult
from gui.model.session import Session
from gui.model.views.memory import (
    MemoryView,
    human_bytes,
    memory_view,
    node_saved_bytes,
    totals,
)
from gui.model.views.node_details import details_html
from tests.fixtures import CUBE_FUNCTION_CODE

EXP = "x = torch.randn(3, 4, requires_grad=True)\ny = x.exp()\n"
MUL_SUM = (
    "x = torch.randn(3, 4, requires_grad=True)\n"
    "w = torch.randn(3, 4, requires_grad=True)\n"
    "z = (x * w).sum()\n"
)
MLP = (
    "torch.manual_seed(0)\n"
    "model = torch.nn.Sequential(\n"
    "    torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))\n"
    "x = torch.randn(5, 4)\n"
    "target = torch.randn(5, 1)\n"
    "loss = torch.nn.functional.mse_loss(model(x), target)\n"
)
ROW_VIEW = (
    "x = torch.randn(3, 4, requires_grad=True)\n"
    "w = torch.randn(4, requires_grad=True)\n"
    "y = (x[0] * w).sum()\n"
)
TRANSPOSED = (
    "x = torch.randn(3, 4, requires_grad=True)\n"
    "w = torch.randn(3, 2, requires_grad=True)\n"
    "y = (x.t() @ w).sum()\n"
)
SCALAR = "x = torch.randn(3, 4, requires_grad=True)\ny = x[0] * 2\n"
SQUARE = "x = torch.randn(6, requires_grad=True)\ny = (x * x).sum()\n"
PROGRAMS = [EXP, MUL_SUM, MLP, ROW_VIEW, TRANSPOSED, SCALAR, SQUARE]


def run(code: str, steps: tuple[BackwardStep, ...] | None = ()) -> RunResult:
    result = run_program(RunRequest(Program(code="import torch\n" + code, steps=steps)))
    assert result.error is None, result.error
    assert result.graph is not None
    return result


def output_of(code: str) -> dict[str, Any]:
    """The program run with plain torch: its namespace."""
    namespace: dict[str, Any] = {"torch": torch}
    exec(compile(code, "<program>", "exec"), namespace)
    return namespace


def torch_total(code: str) -> tuple[int, int, int]:
    """(bytes of distinct storages, saved tensors, storages) as torch's pack hook sees them."""
    packed: list[tuple[int, int]] = []

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        packed.append((storage.data_ptr(), storage.nbytes()))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        namespace = output_of(code)
    del namespace  # the storages' addresses stay unique while recorded: all were alive
    distinct = dict(packed)
    return sum(distinct.values()), len(packed), len(distinct)


def torch_per_node(code: str, output: str) -> dict[str, list[tuple[str, int, int]]]:
    """Per node key (as the engine names them: breadth-first position and class), each
    saved tensor's (name, storage address, storage bytes), read through torch's own
    hooks on that node's saved tensors."""
    namespace = output_of(code)
    found: dict[str, list[tuple[str, int, int]]] = {}
    keys: dict[int, str] = {}
    queue: deque[Any] = deque([namespace[output].grad_fn])
    keys[id(queue[0])] = f"0:{type(queue[0]).__name__}"
    while queue:
        fn = queue.popleft()
        key = keys[id(fn)]
        for attr in sorted(a for a in dir(fn) if a.startswith("_raw_saved_")):
            raw = getattr(fn, attr)
            if type(raw) is not torch._C._autograd.SavedTensor:
                continue
            name = attr.removeprefix("_raw_saved_")
            seen: list[tuple[int, int]] = []

            def pack(t: torch.Tensor, seen: list[tuple[int, int]] = seen) -> torch.Tensor:
                seen.append((t.untyped_storage().data_ptr(), t.untyped_storage().nbytes()))
                return t

            try:
                raw.register_hooks(pack, lambda t: t)
            except RuntimeError:  # nothing saved under this name (an undefined tensor)
                continue
            found.setdefault(key, []).extend((name, p, n) for p, n in seen)
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in keys:
                keys[id(child)] = f"{len(keys)}:{type(child).__name__}"
                queue.append(child)
    namespace.clear()
    return found


def engine_per_node(view: MemoryView) -> dict[str, list[tuple[str, int, int]]]:
    """Per node, each saved tensor's (name, storage number, storage bytes). A node's own
    hooks see a Python number torch kept by value too (the default hooks never do): here
    with its size, which the view does not count."""
    return {
        row.key: [(p.name, p.storage, p.bytes if p.counted else p.own_bytes) for p in row.saved]
        for row in view.rows
    }


@pytest.mark.parametrize("code", PROGRAMS, ids=["exp", "mul-sum", "mlp", "row", "t", "2", "x*x"])
def test_totals_agree_with_torchs_saved_tensor_hooks(code: str) -> None:
    view = memory_view(run(code).graph)
    total, tensors, storages = torch_total(code)
    assert (view.total_bytes, view.tensor_count, view.storage_count) == (total, tensors, storages)


@pytest.mark.parametrize("code", PROGRAMS, ids=["exp", "mul-sum", "mlp", "row", "t", "2", "x*x"])
def test_each_node_holds_what_torch_saved_for_it(code: str) -> None:
    result = run(code)
    output = code.strip().splitlines()[-1].split(" = ")[0]
    theirs = torch_per_node(code, output)
    ours = engine_per_node(memory_view(result.graph))
    assert ours.keys() == theirs.keys()
    # The same names and bytes per node, and the same storages shared: the engine's
    # storage numbers map one to one onto torch's addresses.
    mapping: dict[int, int] = {}
    for key, saved in theirs.items():
        assert sorted((n, b) for n, _, b in ours[key]) == sorted((n, b) for n, _, b in saved)
        for (_, number, _), (_, address, _) in zip(sorted(ours[key]), sorted(saved), strict=True):
            assert mapping.setdefault(number, address) == address
    assert len(set(mapping.values())) == len(mapping)


def test_exp_saves_its_result_which_is_the_programs_y() -> None:
    view = memory_view(run(EXP).graph)
    (row,) = view.rows
    assert (row.title, row.bytes) == ("ExpBackward0 (y)", 48)
    assert [(p.name, p.bytes, p.marks) for p in row.saved] == [("result", 48, ("y itself",))]
    assert view.program_names == ("y",)


def test_a_row_of_x_keeps_all_of_x_and_is_marked_a_view_of_x() -> None:
    view = memory_view(run(ROW_VIEW).graph)
    (row,) = view.rows
    pieces = {p.name: p for p in row.saved}
    assert (pieces["self"].bytes, pieces["self"].own_bytes) == (48, 16)
    assert pieces["self"].marks == ("view of x",)
    assert pieces["other"].marks == ("w itself",)
    assert view.total_bytes == 48 + 16


def test_a_transpose_is_a_view_of_its_leaf_even_at_full_size() -> None:
    view = memory_view(run(TRANSPOSED).graph)
    pieces = {p.name: p for row in view.rows for p in row.saved}
    assert pieces["self"].marks == ("view of x",)
    assert (pieces["self"].bytes, pieces["self"].own_bytes) == (48, 48)


def test_a_python_number_is_shown_but_not_counted() -> None:
    view = memory_view(run(SCALAR).graph)
    (row,) = view.rows
    (piece,) = row.saved
    assert (piece.name, piece.counted, piece.bytes) == ("other", False, 0)
    assert "kept by value" in piece.marks[0]
    assert view.total_bytes == 0 == torch_total(SCALAR)[0]


def test_shared_storage_is_counted_once() -> None:
    # x * x saves x twice, in one node: 24 bytes, not 48.
    square = memory_view(run(SQUARE).graph)
    assert (square.total_bytes, square.tensor_count, square.shared_bytes) == (24, 2, 24)
    assert square.rows[0].bytes == 24
    # ReLU's result is the next layer's input: one storage, marked on both nodes.
    mlp = memory_view(run(MLP).graph)
    relu = next(r for r in mlp.rows if r.title.startswith("ReluBackward0"))
    addmm = next(r for r in mlp.rows if any(p.storage == relu.saved[0].storage for p in r.saved))
    assert relu.bytes == 5 * 8 * 4
    assert mlp.shared_bytes == relu.bytes
    assert any(m.startswith("shared with AddmmBackward0") for m in relu.saved[0].marks)
    assert any("ReluBackward0" in m for p in addmm.saved for m in p.marks)
    assert sum(r.bytes for r in mlp.rows) == mlp.total_bytes + mlp.shared_bytes


def test_rows_come_biggest_first_on_a_real_model() -> None:
    code = (
        "torch.manual_seed(0)\n"
        "model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(),\n"
        "    torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))\n"
        "x = torch.randn(32, 16)\n"
        "loss = model(x).pow(2).mean()\n"
    )
    view = memory_view(run(code).graph)
    sizes = [r.bytes for r in view.rows]
    assert sizes == sorted(sizes, reverse=True)
    assert view.rows[0].bytes == 64 * 64 * 4 + 32 * 64 * 4  # a 64x64 layer: input and weight
    assert view.total_bytes == torch_total(code)[0]


def held_by_graph(output: torch.Tensor) -> int:
    """Bytes of distinct storages a plain torch graph still holds (its ``_saved_*`` that
    can be read; torch raises for those a backward freed)."""
    storages: dict[int, int] = {}
    queue: deque[Any] = deque([output.grad_fn])
    seen = {id(output.grad_fn)}
    while queue:
        fn = queue.popleft()
        for attr in (a for a in dir(fn) if a.startswith("_saved_")):
            try:
                t = getattr(fn, attr)
            except RuntimeError:  # freed
                continue
            if isinstance(t, torch.Tensor):
                storages[t.untyped_storage().data_ptr()] = t.untyped_storage().nbytes()
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                queue.append(child)
    return sum(storages.values())


def test_before_and_after_backward() -> None:
    plain = output_of(MUL_SUM)
    z = plain["z"]
    view = memory_view(run(MUL_SUM).graph)
    # Before backward() the graph holds both factors.
    assert view.total_bytes == held_by_graph(z) == 96
    # retain_graph=True keeps them all (a second backward works only then)...
    z.backward(retain_graph=True)
    assert view.kept_bytes == held_by_graph(z) == 96
    # ...and backward() frees them all.
    z.backward()
    assert held_by_graph(z) == 0
    assert view.freed_bytes == 96
    # Both factors are the program's own leaves: freeing the graph gives nothing back.
    assert (view.program_bytes, view.released_bytes) == (96, 0)
    assert set(view.program_names) == {"x", "w"}
    # A saved intermediate is given back: exp's result, when nothing else holds it.
    exp = memory_view(run("x = torch.randn(3, 4, requires_grad=True)\ny = x.exp().sum()\n").graph)
    assert (exp.total_bytes, exp.program_bytes, exp.released_bytes) == (48, 0, 48)


def test_status_follows_this_runs_backward_calls() -> None:
    assert "no backward() yet" in memory_view(run(EXP).graph, run(EXP)).status
    kept = run(MUL_SUM + "z.backward(retain_graph=True)\n", steps=None)
    assert "retain_graph=True" in memory_view(kept.graph, kept).status
    freed = run(MUL_SUM + "z.backward()\n", steps=None)
    assert "freed it" in memory_view(freed.graph, freed).status
    lines = totals(memory_view(freed.graph, freed))
    assert [(line.label, line.bytes) for line in lines] == [
        ("Held before backward()", 96),
        ("Freed by backward()", 96),
        ("  of which back to memory", 0),
        ("Kept with retain_graph=True", 96),
        (memory_view(freed.graph, freed).status, None),
    ]
    assert "2 saved tensors in 2 storages" in lines[0].note


def test_node_saved_bytes_counts_distinct_storages() -> None:
    graph = run(SQUARE).graph
    assert graph is not None
    mul = next(n for n in graph.nodes if n.name == "MulBackward0")
    assert node_saved_bytes(mul) == 24
    leaf = next(n for n in graph.nodes if n.kind == "leaf")
    assert node_saved_bytes(leaf) is None


def test_human_bytes() -> None:
    assert [human_bytes(n) for n in (0, 1023, 1536, 3 * 2**20, 5 * 2**30)] == [
        "0 B",
        "1023 B",
        "1.5 KiB",
        "3.0 MiB",
        "5.0 GiB",
    ]


def test_no_graph_and_nothing_saved() -> None:
    assert memory_view(None).rows == ()
    view = memory_view(run("x = torch.randn(3, requires_grad=True)\ny = (x + 1).sum()\n").graph)
    assert view.rows == () and view.total_bytes == 0
    assert [line.label for line in totals(view)] == [view.message]


def test_node_details_show_the_bytes_a_node_saved(session: Session) -> None:
    session.set_code("import torch\n" + SQUARE)
    graph = session.snapshot.graph
    assert graph is not None
    mul = next(n for n in graph.nodes if n.name == "MulBackward0")
    page = details_html(mul, session.snapshot, "Mono")
    assert "saved for backward" in page
    assert "24 B (other 24 B, self 24 B)" in page
    leaf = next(n for n in graph.nodes if n.kind == "leaf")
    assert "saved for backward" not in details_html(leaf, session.snapshot, "Mono")


def test_a_custom_functions_saved_tensors_are_said_to_be_not_counted() -> None:
    result = run_program(RunRequest(Program(code=CUBE_FUNCTION_CODE, steps=())))
    view = memory_view(result.graph, result)
    assert view.unread == ("CubeBackward",)
    assert view.message == "Nothing saved that can be counted here."
    assert [line.label for line in totals(view)][-1] == "Not counted: what CubeBackward saved"


def test_a_weight_every_step_saves_is_shared_and_counted_once() -> None:
    code = (
        "w = torch.randn(4, 4, requires_grad=True)\n"
        "h = torch.randn(1, 4)\n"
        "for _ in range(6):\n"
        "    h = h @ w\n"
        "y = h.sum()\n"
    )
    view = memory_view(run(code).graph)
    marks = [m for row in view.rows for p in row.saved if p.name == "mat2" for m in p.marks]
    assert "w itself" in marks
    assert any(m.startswith("shared with MmBackward0") and m.endswith("and 1 more") for m in marks)
    assert view.total_bytes == torch_total(code)[0]
