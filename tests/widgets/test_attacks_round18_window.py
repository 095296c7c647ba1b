"""Round 18's red team, the window side: a program's module groups nested as deep as a
name can be.

1. (Held) A model whose layers sit 1,000 modules deep (``cur.a = nn.Module()`` in a
   loop, 200 ``Linear`` layers at the bottom: 2,000-character parameter names, under the
   engine's bound on a name's length): a graph of more than 300 functions opens collapsed
   at the deepest level that leaves few boxes, found by counting the boxes at every depth
   of the module tree (``collapse._default``: each count walks every node and every
   module path), so a tree 1,000 deep would be counted 1,000 times over paths 1,000 long.
   The tree stops at ``module_paths.MAX_DEPTH`` (16) levels, so the first picture takes
   about the time a shallow model's does (checked by the bound, not by a timing), and the
   gradients are plain torch's.
"""

from __future__ import annotations

import pytest
import torch
from pytestqt.qtbot import QtBot

from gui.model.drawing import collapse, groups
from gui.model.drawing.module_paths import MAX_DEPTH
from gui.model.session import Session
from gui.widgets.graph_panel import GraphPanel
from tests.fixtures import show_panel

LAYERS = 200


def deep_model(depth: int) -> str:
    return (
        "import torch\nimport torch.nn as nn\n"
        "torch.manual_seed(0)\n"
        "root = nn.Module()\ncur = root\n"
        f"for i in range({depth}):\n    nxt = nn.Module()\n    cur.a = nxt\n    cur = nxt\n"
        f"for i in range({LAYERS}):\n    cur.add_module(f'l{{i}}', nn.Linear(2, 2))\n"
        "x = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "h = x\n"
        "for layer in cur.children():\n    h = torch.tanh(layer(h))\n"
        "out = h.sum()\nout.backward()\n"
    )


def plain_x_grad() -> list[float]:
    torch.manual_seed(0)
    layers = [torch.nn.Linear(2, 2) for _ in range(LAYERS)]
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    h = x
    for layer in layers:
        h = torch.tanh(layer(h))
    h.sum().backward()
    assert x.grad is not None
    return x.grad.tolist()


@pytest.fixture
def panel(qtbot: QtBot, session: Session) -> GraphPanel:
    return show_panel(qtbot, GraphPanel(session), 900, 600)


def test_modules_nested_a_thousand_deep_open_with_their_tree_cut_at_max_depth(
    qtbot: QtBot, panel: GraphPanel, session: Session
) -> None:
    for depth in (2, 1000):
        session.set_code(deep_model(depth))
        qtbot.wait(1)
        panel.view().grab()
        graph = session.snapshot.graph
        assert session.snapshot.error is None and graph is not None
        functions = sum(n.kind == "function" for n in graph.nodes)
        assert functions > collapse.BIG_GRAPH_FUNCTIONS
        tree = groups.cached_module_tree(graph)
        # The tree stops at MAX_DEPTH, so collapsing counts its boxes at 16 depths over
        # paths of 16 names at most (a bound, not a timing: the machine is shared).
        assert tree.depth == min(depth + 2, MAX_DEPTH)
        assert all(len(path) <= MAX_DEPTH for path in tree.paths)
        got = session.snapshot.leaf_grads["x"]
        assert got is not None and got.values == pytest.approx(plain_x_grad(), rel=1e-5)
