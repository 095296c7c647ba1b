"""The session's module groups: collapse, expand, what survives a tick, what a selection
of a hidden node does, and the exported pictures of a collapsed graph."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import torch

from gui.model.drawing.collapse import group_key
from gui.model.drawing.dot_reader import read_dot
from gui.model.engine.run import run_program
from gui.model.session import Session
from gui.model.views.node_details import details_html, selected_node
from tests.fixtures import MLP_CODE, approx

LAYER0 = ("model", "0")
BOX0 = group_key(LAYER0)


def mlp_session() -> Session:
    session = Session(run_program)
    session.set_code(MLP_CODE)
    assert session.snapshot.grouping is not None
    return session


def test_collapse_draws_one_box_with_the_layers_output_gradient() -> None:
    session = mlp_session()
    before = session.snapshot
    assert before.grouping is not None and before.grouping.collapsed == frozenset()
    assert before.drawn_graph is before.graph  # small: nothing collapsed by default
    session.collapse_module(LAYER0)
    snap = session.snapshot
    assert snap.drawn_graph is not None and snap.layout is not None
    assert BOX0 in snap.layout.nodes
    assert snap.graph is before.graph  # node panels keep every node
    # The box shows the gradient arriving at layer 0's output: torch's, via a hook.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    x, target = torch.randn(5, 3), torch.randn(5, 1)
    seen: dict[str, torch.Tensor] = {}
    hidden = model[0](x)
    hidden.register_hook(lambda g: seen.__setitem__("g", g))
    torch.nn.functional.mse_loss(model[2](model[1](hidden)), target).backward()
    paint = snap.drawn_paint
    assert paint is not None and paint.scale == snap.paint.scale  # type: ignore[union-attr]
    shown = paint.nodes[BOX0]
    assert shown is not None and shown.values == approx(seen["g"].tolist(), rel=1e-4, abs=1e-6)


def test_a_tick_keeps_the_choice_and_the_layout() -> None:
    session = mlp_session()
    session.collapse_module(LAYER0)
    layout = session.snapshot.layout
    weight = "model.2.bias"
    session.set_input_values(weight, [0.5])
    snap = session.snapshot
    assert snap.grouping is not None and snap.grouping.collapsed == {LAYER0}
    assert snap.layout is layout  # same structure and collapse set: nothing moves


def test_new_modules_go_back_to_the_automatic_choice() -> None:
    session = mlp_session()
    session.collapse_module(LAYER0)
    session.set_code(MLP_CODE.replace("nn.Linear(3, 4), nn.Tanh(), ", "nn.Linear(3, 4), "))
    snap = session.snapshot
    assert snap.grouping is not None and snap.grouping.collapsed == frozenset()


def test_selecting_a_hidden_node_expands_its_modules() -> None:
    session = mlp_session()
    session.collapse_module(("model",))
    assert session.snapshot.drawn_key("5:AddmmBackward0") == group_key(("model",))
    graph = session.snapshot.graph
    assert graph is not None
    weight = next(n.key for n in graph.nodes if n.label == "model.0.weight")
    session.select_node(weight)
    snap = session.snapshot
    assert snap.selected_node == weight
    assert snap.grouping is not None and snap.grouping.collapsed == frozenset()
    assert snap.layout is not None and weight in snap.layout.nodes


def test_collapsing_the_selected_nodes_module_selects_its_box() -> None:
    session = mlp_session()
    graph = session.snapshot.graph
    assert graph is not None
    weight = next(n.key for n in graph.nodes if n.label == "model.0.weight")
    session.select_node(weight)
    session.collapse_module(LAYER0)
    snap = session.snapshot
    assert snap.selected_node == BOX0
    node = selected_node(snap)
    assert node is not None and node.kind == "group"
    text = details_html(node, snap, "monospace")
    assert "Module model.0" in text and "model.0.weight.grad" in text
    assert node.value is not None and node.value.shape == (5, 4)  # layer 0's output
    assert "value at its output" in text
    session.expand_module(LAYER0)
    assert session.snapshot.selected_node is None


def test_step_through_over_a_collapsed_graph_reveals_each_node() -> None:
    session = mlp_session()
    session.collapse_all_modules()
    assert session.snapshot.grouping is not None
    assert session.snapshot.grouping.collapsed == {LAYER0, ("model", "2")}
    session.start_replay(playing=False)
    visited = []
    for _ in range(12):
        session.step_replay(1)
        snap = session.snapshot
        active = snap.replay_active_node
        if active is not None:
            visited.append(active)
            assert snap.layout is not None and active in snap.layout.nodes
    assert len(set(visited)) >= 8


def test_depth_and_expand_all() -> None:
    session = mlp_session()
    session.collapse_to_depth(1)
    assert session.snapshot.grouping.collapsed == {("model",)}  # type: ignore[union-attr]
    drawn = session.snapshot.drawn_graph
    assert drawn is not None and sum(n.kind == "group" for n in drawn.nodes) == 1
    session.expand_all_modules()
    assert session.snapshot.drawn_graph is session.snapshot.graph


def test_exports_of_a_collapsed_graph_show_the_boxes(tmp_path: Path) -> None:
    session = mlp_session()
    session.collapse_all_modules()
    svg = session.export(tmp_path)
    root = ET.fromstring(svg)
    texts = " ".join(t.text or "" for t in root.iter() if t.tag.endswith("text"))
    assert "⊞ model.0" in texts and "Linear-like · 4 nodes" in texts
    dot = read_dot((tmp_path / "graph.dot").read_text())
    labels = " ".join(str(n.attr.get("label", "")) for n in dot.nodes())
    assert "model.2" in labels
    # The JSON keeps every node.
    assert "model.0.weight" in (tmp_path / "result.json").read_text()
