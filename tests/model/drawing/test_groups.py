"""Module groups (gui.model.drawing.groups and .collapse): which module each node belongs
to, and the graph with collapsed modules folded into boxes.

Real models are explored in this process (the engine's LiveGraph, as ``explore`` does), so
every gradient a group's box or a rerouted edge carries is checked against torch's own,
taken with a hook on the module's output the ordinary way.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import torch
from torch import nn

from gui.model.drawing.collapse import (
    AUTOMATIC,
    BIG_GRAPH_FUNCTIONS,
    READABLE_BOXES,
    GroupChoice,
    box_count,
    collapse,
    default_collapsed,
    depth_collapsed,
    drawn_result,
    draws_whole,
    group_key,
    group_view,
)
from gui.model.drawing.gradient_maps import edge_gradient, node_gradient
from gui.model.drawing.groups import module_tree
from gui.model.drawing.layout import node_lines
from gui.model.drawing.module_paths import MAX_DEPTH, MAX_PATH_CHARS, path_text
from gui.model.engine.live import LiveGraph
from gui.model.engine.live_names import named_sources
from gui.model.engine.run import run_program
from gui.model.export.files import write_export
from gui.model.request import Program, RunRequest
from gui.model.result import Graph, GraphEdge, GraphNode, RunResult


class Block(nn.Module):
    """Two Linear layers with a ReLU between: the repeated unit of a deep model."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(4, 4)
        self.fc2 = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def explored(model: nn.Module, x: torch.Tensor) -> RunResult:
    loss = model(x).pow(2).mean()
    result = LiveGraph(loss, "loss", named_sources(None, model, None)).run(
        RunRequest(Program(code="# explored"))
    )
    assert result.error is None and result.graph is not None
    return result


def key_of(graph: Graph, label: str) -> str:
    return next(n.key for n in graph.nodes if n.label == label)


def consumer_of(graph: Graph, key: str) -> str:
    return next(e.target for e in graph.edges if e.source == key and e.kind == "data")


def mlp() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)), torch.randn(5, 2)


def test_an_mlps_layers_are_modules_and_its_relu_and_loss_lie_outside() -> None:
    model, x = mlp()
    graph = explored(model, x).graph
    assert graph is not None
    tree = module_tree(graph)
    assert set(tree.paths) == {("0",), ("2",)}
    by_name = {n.name: tree.module.get(n.key) for n in graph.nodes if n.kind == "function"}
    assert by_name["ReluBackward0"] is None  # between layer 0 and layer 2: no common module
    assert by_name["MeanBackward0"] is None and by_name["PowBackward0"] is None
    for layer in ("0", "2"):
        members = {graph.node(k).name for k in tree.members((layer,))}
        assert {"AddmmBackward0", "TBackward0", "AccumulateGrad"} <= members
        boxes = [k for k in tree.members((layer,)) if graph.node(k).kind in ("function", "leaf")]
        assert len(boxes) == 4


def test_a_cnns_convolution_and_linear_are_modules() -> None:
    torch.manual_seed(2)
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(32, 3))
    graph = explored(model, torch.randn(2, 1, 6, 6)).graph
    assert graph is not None
    tree = module_tree(graph)
    conv = key_of(graph, "ConvolutionBackward0")
    assert tree.module[conv] == ("0",)
    assert tree.module[key_of(graph, "0.weight")] == ("0",)
    assert tree.module[key_of(graph, "3.bias")] == ("3",)
    grouping = collapse(graph, tree, frozenset({("0",), ("3",)}))
    names = {n.label: n.name for n in grouping.graph.nodes if n.kind == "group"}
    assert names["0"].startswith("Conv-like") and names["3"].startswith("Linear-like")


def test_repeated_blocks_are_nested_modules_marked_alike() -> None:
    torch.manual_seed(3)
    model = nn.Sequential(*(Block() for _ in range(4)))
    x = torch.randn(3, 4, requires_grad=True)  # so block 0 has an input like the others
    graph = explored(model, x).graph
    assert graph is not None
    tree = module_tree(graph)
    blocks = [(str(i),) for i in range(4)]
    assert set(tree.children(())) == set(blocks)
    assert set(tree.children(("1",))) == {("1", "fc1"), ("1", "fc2")}
    assert tree.repeats[("2",)] == tuple(blocks)
    relu = next(k for k in tree.members(("1",)) if graph.node(k).name == "ReluBackward0")
    assert tree.module[relu] == ("1",)  # between fc1 and fc2 of the same block
    grouping = collapse(graph, tree, frozenset(blocks))
    box = grouping.groups[group_key(("2",))].node
    members = [m for m in tree.members(("2",)) if graph.node(m).kind in ("function", "leaf")]
    assert box.name == f"Linear ×2 · {len(members)} nodes · same as 0–3"
    # Four boxes in a chain, x before them, the loss after.
    assert [n.kind for n in grouping.graph.nodes].count("group") == 4


def transformer(norm_first: bool) -> RunResult:
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(
        d_model=8, nhead=2, dim_feedforward=16, batch_first=True, norm_first=norm_first
    )
    model = nn.TransformerEncoder(layer, num_layers=3, enable_nested_tensor=False)
    return explored(model, torch.randn(2, 3, 8))


def test_a_transformers_layers_fold_into_a_chain_whichever_way_they_normalise() -> None:
    # Post-norm: x = norm1(x + attn(x)); pre-norm (GPT's): x = x + attn(norm1(x)). The
    # residual adds, reshapes and dropouts between layers are each layer's own work.
    for norm_first in (False, True):
        result = transformer(norm_first)
        graph = result.graph
        assert graph is not None
        tree = module_tree(graph)
        layers = [("layers", str(i)) for i in range(3)]
        functions = [n for n in graph.nodes if n.kind == "function"]
        stray = [n.name for n in functions if tree.module.get(n.key) == ("layers",)]
        assert stray == [], (norm_first, stray)
        # Only the loss lies outside: pre-norm's last residual add, with the dropout and
        # the reshape before it, is the last layer's, as the layers before have theirs.
        outside = [n for n in functions if n.key not in tree.module]
        assert sorted(n.name for n in outside) == ["MeanBackward0", "PowBackward0"]
        # The last layer as big as the one before (the first also holds the reshapes
        # of the model's input).
        sizes = [len(tree.members(layer)) for layer in layers]
        assert sizes[1] == sizes[2], (norm_first, sizes)
        grouping = collapse(graph, tree, frozenset(layers))
        boxes = [n for n in grouping.graph.nodes if n.kind == "group"]
        assert len(boxes) == 3
        assert all(b.name.startswith("attention · Linear ×") for b in boxes), boxes[0].name
        assert all("LayerNorm ×2" in b.name for b in boxes)
        # The boxes form a chain: each layer's box feeds the next one's, and nothing else
        # between them.
        keys = {group_key(p): i for i, p in enumerate(layers)}
        links = {
            (keys[e.source], keys[e.target])
            for e in grouping.graph.edges
            if e.source in keys and e.target in keys and e.kind == "data"
        }
        assert links == {(0, 1), (1, 2)}


class GptBlock(nn.Module):
    """nanoGPT's block, as its author writes it: own attention and MLP modules, pre-norm."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.c_attn, self.c_proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 2 * width), nn.GELU(), nn.Linear(2 * width, width)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.c_attn(self.ln_1(x)).chunk(3, dim=-1)
        att = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)
        x = x + self.c_proj(att @ v)
        return x + self.mlp(self.ln_2(x))


class Gpt(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte, self.wpe = nn.Embedding(7, 4), nn.Embedding(3, 4)
        self.h = nn.ModuleList(GptBlock(4) for _ in range(3))
        self.ln_f = nn.LayerNorm(4)
        self.lm_head = nn.Linear(4, 7, bias=False)
        self.wte.weight = self.lm_head.weight  # tied, as GPT-2's

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def test_gpt_blocks_fold_into_alike_boxes_with_their_residual_adds() -> None:
    torch.manual_seed(2)
    model = Gpt()
    logits = model(torch.tensor([[1, 2, 3], [4, 5, 6]]))
    loss = nn.functional.cross_entropy(logits.view(-1, 7), torch.tensor([2, 3, 4, 5, 6, 0]))
    result = LiveGraph(loss, "loss", named_sources(None, model, None)).run(
        RunRequest(Program(code="# explored"))
    )
    graph = result.graph
    assert graph is not None
    tree = module_tree(graph)
    blocks = [("h", str(i)) for i in range(3)]
    # Every residual add lies in its block; only the embeddings' sum (before any block)
    # lies in the list of blocks itself.
    in_list = [graph.node(k).name for k, p in tree.module.items() if p == ("h",)]
    assert in_list == ["AddBackward0"]
    adds = [
        k for k, p in tree.module.items() if p in blocks and graph.node(k).name == "AddBackward0"
    ]
    assert len(adds) == 6  # two residual adds per block
    assert tree.repeats[("h", "1")] == tuple(blocks)
    grouping = collapse(graph, tree, frozenset(blocks))
    boxes = [n.name for n in grouping.graph.nodes if n.kind == "group"]
    assert len(boxes) == 3 and all(
        b.startswith("attention · Linear ×4 · LayerNorm ×2") for b in boxes
    )


def test_collapsing_a_parent_hides_its_children_and_expanding_keeps_their_state() -> None:
    torch.manual_seed(3)
    model = nn.Sequential(*(Block() for _ in range(2)))
    graph = explored(model, torch.randn(3, 4)).graph
    assert graph is not None
    tree = module_tree(graph)
    inner = ("1", "fc1")
    both = collapse(graph, tree, frozenset({("1",), inner}))
    assert group_key(("1",)) in both.groups and group_key(inner) not in both.groups
    assert both.hiding(key_of(graph, "1.fc1.weight")) == [("1",), inner]
    expanded = collapse(graph, tree, frozenset({inner}))  # the parent opened, the child not
    assert group_key(inner) in expanded.groups and group_key(("1",)) not in expanded.groups


def test_boundary_gradients_are_torchs_own() -> None:
    model, x = mlp()
    x.requires_grad_()
    outputs: dict[str, torch.Tensor] = {}
    twin = nn.Sequential(*(m for m in model))
    hidden = twin[0](x)
    hidden.register_hook(lambda g: outputs.__setitem__("layer0", g))
    twin[2](twin[1](hidden)).pow(2).mean().backward()
    assert x.grad is not None
    expected_x_grad = x.grad.clone()
    x.grad = None
    for p in model.parameters():
        p.grad = None
    result = explored(model, x)
    graph = result.graph
    assert graph is not None
    grouping = collapse(graph, module_tree(graph), frozenset({("0",)}))
    step = grouping.step(result.steps[0])
    box = grouping.graph.node(group_key(("0",)))
    arriving = node_gradient(box, step, {})
    assert arriving is not None
    assert torch.allclose(torch.tensor(arriving.values), outputs["layer0"], atol=1e-6)
    # The edge from x into the group carries x's gradient, the edge out of it layer 0's.
    into = next(e for e in grouping.graph.edges if e.target == box.key)
    out_of = next(e for e in grouping.graph.edges if e.source == box.key)
    carried_in, carried_out = edge_gradient(into, step), edge_gradient(out_of, step)
    assert carried_in is not None and carried_out is not None
    assert torch.allclose(torch.tensor(carried_in.values), expected_x_grad, atol=1e-6)
    assert torch.allclose(torch.tensor(carried_out.values), outputs["layer0"], atol=1e-6)
    # Every rerouted edge carries what the edge it stands for carried.
    full = result.steps[0]
    for edge in graph.edges:
        if edge.kind == "data" and edge.target not in grouping.hidden:
            drawn = next(
                e
                for e in grouping.graph.edges
                if e.target == edge.target and e.input_index == edge.input_index
            )
            assert edge_gradient(drawn, step) == edge_gradient(edge, full)
    lines = node_lines(box, step.flows[box.key] if step else None, arriving)
    assert lines[0] == "⊞ 0" and lines[1].startswith("Linear-like · 4 nodes")


def test_counts_keys_and_expanding_everything_gives_the_graph_back() -> None:
    model, x = mlp()
    graph = explored(model, x).graph
    assert graph is not None
    tree = module_tree(graph)
    one = collapse(graph, tree, frozenset({("0",)}))
    two = collapse(graph, tree, frozenset({("0",), ("2",)}))
    hidden0 = len(tree.members(("0",)))
    assert len(one.graph.nodes) == len(graph.nodes) - hidden0 + 1
    assert len({one.graph.structure_key, two.graph.structure_key, graph.structure_key}) == 3
    assert all(e.source != e.target for e in two.graph.edges)
    keys = {n.key for n in two.graph.nodes}
    assert all(e.source in keys and e.target in keys for e in two.graph.edges)
    assert collapse(graph, tree, frozenset()).graph is graph
    assert collapse(graph, tree, frozenset({("nope",)})).graph is graph


def test_shared_parameters_leave_the_sharing_function_outside_both_modules() -> None:
    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.enc = nn.Linear(3, 3)
            self.dec = nn.Linear(3, 3)
            self.dec.weight = self.enc.weight

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.dec(torch.tanh(self.enc(x)))

    torch.manual_seed(4)
    graph = explored(Tied(), torch.randn(2, 3)).graph
    assert graph is not None
    tree = module_tree(graph)
    assert tree.module[key_of(graph, "enc.weight")] == ("enc",)
    addmms = [n.key for n in graph.nodes if n.name == "AddmmBackward0"]
    assert sorted(str(tree.module.get(k)) for k in addmms) == ["('enc',)", "None"]
    grouping = collapse(graph, tree, frozenset({("enc",), ("dec",)}))
    assert {n.kind for n in grouping.graph.nodes} >= {"group", "function"}


def test_plain_code_without_module_names_has_no_groups() -> None:
    nodes = (
        GraphNode("0:MulBackward0", "MulBackward0", "y", "function"),
        GraphNode("1:AccumulateGrad", "AccumulateGrad", "x", "leaf", var="x"),
    )
    edges = (GraphEdge("1:AccumulateGrad", "0:MulBackward0", "data", 0),)
    graph = Graph(nodes, edges, "0:MulBackward0", "plain")
    assert module_tree(graph).paths == ()
    assert group_view(graph) is None


def _named_chain(names: list[str], key: str) -> Graph:
    """A chain of multiplications, each by a parameter called ``names[i]``."""
    nodes = [GraphNode("out", "output", "out", "output")]
    edges = []
    previous = None
    for i, name in enumerate(names):
        mul, leaf = f"{i}:MulBackward0", f"{i}:AccumulateGrad"
        nodes += [
            GraphNode(mul, "MulBackward0", "MulBackward0", "function"),
            GraphNode(leaf, "AccumulateGrad", name, "leaf", var=name),
        ]
        edges.append(GraphEdge(leaf, mul, "data", 1))
        if previous is not None:
            edges.append(GraphEdge(mul, previous, "data", 0))
        previous = mul
    edges.append(GraphEdge("0:MulBackward0", "out", "output"))
    return Graph(tuple(nodes), tuple(edges), "0:MulBackward0", key)


def test_hostile_module_names_do_not_break_anything() -> None:
    names = [
        "a..b.weight",
        "." * 10_000 + "w",
        "line\nbreak.x\x00y\x1b[31m.weight",
        "&amp;<b>bold</b>." * 50 + "bias",
        "lone\ud800.surrogate.w",
        "same\ud800.surrogate.w",
    ]
    graph = _named_chain(names, "hostile")
    tree = module_tree(graph)
    assert tree.depth <= MAX_DEPTH
    assert ("a", "") in tree.paths
    grouping = collapse(graph, tree, depth_collapsed(tree, 1))
    for node in grouping.graph.nodes:
        if node.kind == "group":
            assert len(node.label) <= MAX_PATH_CHARS
            assert node.label.isprintable()
            node_lines(node, None, None)
    assert len(path_text(("x" * 500,))) <= MAX_PATH_CHARS


def test_ten_thousand_nodes_finish() -> None:
    names = [f"net.layers.{i // 4}.p{i % 4}" for i in range(5_000)]
    graph = _named_chain(names, "ten-thousand")
    tree = module_tree(graph)
    assert len(tree.children(("net", "layers"))) == 1_250
    grouping = group_view(graph, AUTOMATIC)
    assert grouping is not None
    # Over the size where a graph opens collapsed: the deepest level with few enough boxes.
    assert sum(n.kind == "function" for n in graph.nodes) > BIG_GRAPH_FUNCTIONS
    assert len(grouping.graph.nodes) <= READABLE_BOXES
    assert grouping.collapsed == default_collapsed(graph, tree)
    # Depth 3 (1,250 blocks) is too many boxes; depth 2 folds the layers into one.
    assert box_count(graph, tree, 3) > READABLE_BOXES
    assert grouping.collapsed == {("net", "layers")}
    assert box_count(graph, tree, 2) == len(grouping.graph.nodes)


def test_a_choice_survives_the_same_modules_and_not_others() -> None:
    model, x = mlp()
    graph = explored(model, x).graph
    assert graph is not None
    tree = module_tree(graph)
    choice = GroupChoice(frozenset({("2",)}), tree.paths)
    kept = group_view(graph, choice)
    assert kept is not None and kept.collapsed == {("2",)}
    other = GroupChoice(frozenset({("2",)}), (("elsewhere",),))
    fresh = group_view(graph, other)
    assert fresh is not None and fresh.collapsed == frozenset()  # small: nothing collapsed


def test_a_big_models_export_without_a_window_is_drawn_collapsed(tmp_path: Path) -> None:
    torch.manual_seed(5)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 12, enable_nested_tensor=False)
    result = explored(model, torch.randn(2, 3, 8))
    assert result.graph is not None
    assert sum(n.kind == "function" for n in result.graph.nodes) > BIG_GRAPH_FUNCTIONS
    drawn = drawn_result(result)
    assert drawn is not None and drawn.graph is not None
    boxes = [n for n in drawn.graph.nodes if n.kind == "group"]
    assert len(boxes) == 12 and len(drawn.graph.nodes) <= READABLE_BOXES
    # A post-norm layer's residual add and its attention's transposes of the input are the
    # layer's own work: the layers fold into a chain with only the loss outside.
    outside = {n.name for n in drawn.graph.nodes if n.kind == "function"}
    assert outside == {"PowBackward0", "MeanBackward0"}
    names = {n.label: n.name for n in boxes}
    assert names["layers.7"].endswith("same as layers.1–11")
    assert names["layers.7"].startswith("attention · Linear")  # torch's fused attention
    assert "same" not in names["layers.0"]  # its input needs no gradient: one edge fewer
    svg = write_export(result, "# script\n", tmp_path, drawn=drawn)
    texts = " ".join(t.text or "" for t in ET.fromstring(svg).iter() if t.tag.endswith("text"))
    assert "⊞ layers.5" in texts
    assert "layers.5.linear1.weight" in (tmp_path / "result.json").read_text()


RNN = """
torch.manual_seed(0)
W = torch.randn(3, 3, requires_grad=True)
U = torch.randn(3, 2, requires_grad=True)
x = torch.randn(6, 2)
h = torch.zeros(3)
for t in range(6):
    h = torch.tanh(W @ h + U @ x[t])
loss = h.sum()
"""


def test_an_unrolled_loop_without_names_folds_into_its_steps() -> None:
    result = run_program(RunRequest(Program(code=RNN)))
    graph = result.graph
    assert graph is not None
    tree = module_tree(graph)
    assert tree.loop and tree.children(("loop",)) == [("loop", str(i)) for i in range(5, -1, -1)]
    assert tree.repeats[("loop", "3")] == tuple(("loop", str(i)) for i in range(1, 6))
    for shared in ("W", "U"):  # every step uses them: outside all steps
        assert key_of(graph, shared) not in tree.module
    view = group_view(graph)
    assert view is not None and view.collapsed == frozenset()  # a guess: never imposed
    grouping = collapse(graph, tree, depth_collapsed(tree, 2))
    assert sum(n.kind == "group" for n in grouping.graph.nodes) == 6
    # The gradient arriving at step 2's box is torch's dloss/dh after step 2.
    torch.manual_seed(0)
    w, u = torch.randn(3, 3, requires_grad=True), torch.randn(3, 2, requires_grad=True)
    xs, h = torch.randn(6, 2), torch.zeros(3)
    kept = []
    for t in range(6):
        h = torch.tanh(w @ h + u @ xs[t])
        h.retain_grad()
        kept.append(h)
    h.sum().backward()
    step = grouping.step(result.steps[0])
    for t in (0, 2, 4):
        box = grouping.graph.node(group_key(("loop", str(t))))
        shown = node_gradient(box, step, {})
        assert shown is not None and kept[t].grad is not None
        assert torch.allclose(torch.tensor(shown.values), kept[t].grad, atol=1e-6)


def test_a_graph_known_to_be_drawn_whole_is_drawn_whole() -> None:
    """``draws_whole`` is what lets a big graph's layout start before its module tree: it
    must never say so of a graph the grouping would fold."""
    loop = run_program(RunRequest(Program(code=RNN))).graph
    layers = [nn.Linear(4, 4) for _ in range(BIG_GRAPH_FUNCTIONS)]
    big_model, x = nn.Sequential(*layers), torch.randn(2, 4)
    model = explored(big_model, x).graph
    small = explored(*mlp()).graph
    assert loop is not None and model is not None and small is not None
    tree = module_tree(loop)
    folded = GroupChoice(depth_collapsed(tree, 2), tree.paths)
    for graph, choice, whole in (
        (loop, AUTOMATIC, True),
        (loop, GroupChoice(frozenset(), tree.paths), True),
        (loop, folded, False),  # the steps folded by choice
        (model, AUTOMATIC, False),  # named modules: the automatic choice folds a big one
        (small, AUTOMATIC, False),  # (named, though too small to fold: not known without it)
    ):
        assert draws_whole(graph, choice) is whole
        drawn = group_view(graph, choice)
        if whole:
            assert drawn is None or drawn.graph is graph
    folded_model = group_view(model, AUTOMATIC)
    assert folded_model is not None and folded_model.graph is not model  # it did fold
    assert not draws_whole(None, AUTOMATIC)
