"""Dragging a slider on a big graph: ticks read the nodes in view, letting go reads all.

Runs go through the engine in-process (``run_program``); a recording ``run`` keeps every
request the session made. Expected numbers come from a whole run and from plain torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from gui.model.drawing.collapse import group_key
from gui.model.engine.run import run_program
from gui.model.request import RunRequest
from gui.model.result import RunResult
from gui.model.session import Session, drag_detail
from tests.fixtures import HeldDispatcher

STEPS = 30  # two function nodes and a constant each: about 90 nodes
CODE = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\nh = x\n"
    f"for i in range({STEPS}):\n    h = torch.sin(h) * 1.01\nout = h.sum()\n"
)


class Runs:
    """``run_program``, keeping each request."""

    def __init__(self) -> None:
        self.requests: list[RunRequest] = []

    def __call__(self, request: RunRequest) -> RunResult:
        self.requests.append(request)
        return run_program(request)


@pytest.fixture(autouse=True)
def small_graphs_count_as_big(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drag_detail, "DETAIL_FROM_NODES", 20)


def _session() -> tuple[Session, Runs]:
    runs = Runs()
    session = Session(runs)
    session.set_code(CODE)
    return session, runs


def _plain_values(x: list[float]) -> dict[str, list[float]]:
    """Each sin node's forward value, by step, in plain torch."""
    t = torch.tensor(x, requires_grad=True)
    h, values = t, {}
    for i in range(STEPS):
        s = torch.sin(h)
        values[f"sin{i}"] = s.tolist()
        h = s * 1.01
    h.sum().backward()
    assert t.grad is not None
    values["grad"] = t.grad.tolist()
    return values


def _keys(session: Session, name: str) -> list[str]:
    graph = session.snapshot.graph
    assert graph is not None
    return [n.key for n in graph.nodes if n.name == name]


def test_ticks_while_dragging_read_the_nodes_in_view_and_letting_go_reads_all() -> None:
    session, runs = _session()
    sines = _keys(session, "SinBackward0")  # breadth-first from the output: last sin first
    in_view = frozenset(sines[:3])
    session.set_on_screen(in_view)
    session.set_dragging(True)
    session.set_input("x", 0, 1.25)
    detail = runs.requests[-1].detail
    assert detail is not None and set(detail.nodes) == in_view
    # Named by the order the run makes them too: only their forward values are copied.
    graph = session.snapshot.graph
    assert graph is not None
    assert detail.made == tuple(sorted(n.made for n in graph.nodes if n.key in in_view))
    assert len(detail.made) == 3 and None not in detail.made
    snapshot = session.snapshot
    assert not snapshot.stale and snapshot.graph is not None and not snapshot.graph.partial
    plain = _plain_values([1.25, -0.3])
    assert snapshot.leaf_grads["x"].values == plain["grad"]
    nodes = {n.key: n for n in snapshot.graph.nodes}
    # The last sin is read at the new value; the first keeps the value read before.
    assert nodes[sines[0]].value.values == plain[f"sin{STEPS - 1}"]
    assert nodes[sines[-1]].value.values == _plain_values([0.5, -0.3])["sin0"]
    # Letting go: one whole run, every node at the new value.
    session.set_dragging(False)
    assert runs.requests[-1].detail is None
    nodes = {n.key: n for n in session.snapshot.graph.nodes}
    assert nodes[sines[-1]].value.values == plain["sin0"]
    assert not session.snapshot.stale


def test_the_view_moving_while_dragging_asks_for_what_comes_into_view() -> None:
    session, runs = _session()
    sines = _keys(session, "SinBackward0")
    session.set_on_screen(frozenset(sines[:2]))
    session.set_dragging(True)
    session.set_input("x", 1, 0.75)
    count = len(runs.requests)
    session.set_on_screen(frozenset(sines[:1]))  # already read: nothing to run
    assert len(runs.requests) == count
    session.set_on_screen(frozenset(sines[-2:]))  # not read at this value yet
    assert len(runs.requests) == count + 1
    assert set(runs.requests[-1].detail.nodes) == set(sines[-2:])
    nodes = {n.key: n for n in session.snapshot.graph.nodes}
    assert nodes[sines[-1]].value.values == _plain_values([0.5, 0.75])["sin0"]


def test_the_selected_node_is_always_read() -> None:
    session, runs = _session()
    sines = _keys(session, "SinBackward0")
    session.select_node(sines[10])
    session.set_on_screen(frozenset())
    session.set_dragging(True)
    session.set_input("x", 0, -0.5)
    assert runs.requests[-1].detail is not None
    assert sines[10] in runs.requests[-1].detail.nodes


def test_small_graphs_new_code_and_unknown_views_are_read_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session, runs = _session()
    session.set_dragging(True)
    session.set_input("x", 0, 0.2)
    assert runs.requests[-1].detail is None  # the view is not known yet
    session.set_on_screen(frozenset(_keys(session, "SinBackward0")[:2]))
    session.set_code(CODE.replace("1.01", "1.02"))
    assert runs.requests[-1].detail is None  # new code: a new structure most likely
    monkeypatch.setattr(drag_detail, "DETAIL_FROM_NODES", 10_000)
    session.set_input("x", 0, 0.3)
    assert runs.requests[-1].detail is None  # a small graph


def test_a_partial_answer_that_does_not_fit_is_run_again_whole() -> None:
    session, runs = _session()
    shown = session.snapshot.result
    assert shown is not None and shown.graph is not None

    def lying_run(request: RunRequest) -> RunResult:
        runs.requests.append(request)
        result = run_program(request)
        if request.detail is not None and result.graph is not None:
            # A partial graph naming a node the graph on screen does not have.
            node = result.graph.nodes[0]
            odd = type(node)(**{**vars(node), "key": "999:Nothing"})
            graph = type(result.graph)(
                (odd,), (), result.graph.root, result.graph.structure_key, partial=True
            )
            result = type(result)(**{**vars(result), "graph": graph})
        return result

    session._run = lying_run  # the engine's answer, as a broken engine could give it
    session.set_on_screen(frozenset(_keys(session, "SinBackward0")[:2]))
    session.set_dragging(True)
    session.set_input("x", 0, 0.9)
    assert [r.detail is None for r in runs.requests[-2:]] == [False, True]
    graph = session.snapshot.graph
    assert graph is not None and not graph.partial and len(graph.nodes) == len(shown.graph.nodes)
    assert session.snapshot.leaf_grads["x"].values == _plain_values([0.9, -0.3])["grad"]


def test_a_run_in_flight_when_letting_go_is_followed_by_a_whole_one() -> None:
    held = HeldDispatcher()
    runs = Runs()
    session = Session(runs, dispatcher=held)
    session.set_code(CODE)
    held.finish_all()
    session.set_on_screen(frozenset(_keys(session, "SinBackward0")[:2]))
    session.set_dragging(True)
    session.set_input("x", 0, 0.1)
    session.set_dragging(False)  # the tick's run has not come back
    held.finish_all()
    assert runs.requests[-1].detail is None
    assert runs.requests[-1].program.values["x"][0] == 0.1
    snapshot = session.snapshot
    assert not snapshot.stale and not snapshot.running
    nodes = {n.key: n for n in snapshot.graph.nodes}
    assert (
        nodes[_keys(session, "SinBackward0")[-1]].value.values == _plain_values([0.1, -0.3])["sin0"]
    )


def test_no_export_of_older_numbers_mid_drag(tmp_path: Path) -> None:
    session, _ = _session()
    session.set_on_screen(frozenset(_keys(session, "SinBackward0")[:2]))
    session.set_dragging(True)
    session.set_input("x", 0, 0.4)
    with pytest.raises(ValueError, match="let go"):
        session.export(tmp_path / "out")
    assert not (tmp_path / "out").exists()
    session.set_dragging(False)
    session.export(tmp_path / "out")
    document = json.loads((tmp_path / "out" / "result.json").read_text())
    assert document["leaves"]["x"]["grad"] == _plain_values([0.4, -0.3])["grad"]


def test_a_collapsed_modules_box_in_view_or_selected_reads_its_members() -> None:
    runs = Runs()
    session = Session(runs)
    session.set_code(
        "import torch.nn as nn\ntorch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(),"
        " nn.Linear(4, 1))\nx = torch.tensor([[0.5, -1.0, 2.0]], requires_grad=True)\n"
        "loss = model(x).pow(2).sum()\n"
    )
    session.collapse_module(("model", "2"))
    grouping = session.snapshot.grouping
    assert grouping is not None
    box = group_key(("model", "2"))
    members = set(grouping.groups[box].members)
    assert members
    session.set_on_screen(frozenset({box}))
    session.set_dragging(True)
    session.set_input("x", 0, 0.25)
    detail = runs.requests[-1].detail
    assert detail is not None and box not in detail.nodes
    assert members <= set(detail.nodes)
    session.set_on_screen(frozenset())
    session.select_node(box)
    session.set_input("x", 0, 0.3)
    detail = runs.requests[-1].detail
    assert detail is not None and members <= set(detail.nodes)
    session.set_dragging(False)
    whole = run_program(RunRequest(session.snapshot.state.program))
    assert whole.graph is not None and session.snapshot.graph is not None
    assert session.snapshot.graph.nodes == whole.graph.nodes


def test_with_live_off_letting_go_runs_nothing() -> None:
    session, runs = _session()
    session.set_live(False)
    count = len(runs.requests)
    session.set_on_screen(frozenset(_keys(session, "SinBackward0")[:2]))
    session.set_dragging(True)
    session.set_input("x", 0, 0.6)
    session.set_dragging(False)
    assert len(runs.requests) == count and session.snapshot.stale
    session.run_now()
    assert runs.requests[-1].detail is None and not session.snapshot.stale


def test_letting_go_after_a_whole_read_runs_nothing_more() -> None:
    session, runs = _session()
    session.set_dragging(True)  # the view is not known: ticks read every node
    session.set_input("x", 0, 0.6)
    count = len(runs.requests)
    session.set_dragging(False)
    assert len(runs.requests) == count
