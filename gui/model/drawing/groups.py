"""Which module each node of an autograd graph belongs to: the module tree of a model.

A parameter named ``encoder.layers.3.bias`` (the names typed code and ``explore(loss,
model=model)`` give a model's parameters) belongs to module ``encoder.layers.3``. From the
parameters this module places every other box:

- a function that uses parameters directly, or through parameter-only nodes (the
  ``TBackward0`` of a weight), belongs to the longest common module of those parameters;
- a function that uses none (a ReLU, a residual add) lies between modules: it goes where
  the modules around it agree, or into the block whose own work it is (a transformer
  layer's residual adds, pre- or post-norm), or stays outside (the loss after a model):
  :mod:`.between`;
- saved tensors and constants go with the function that owns them.

A graph without module names (plain code) may still be an unrolled loop: its steps
become modules ``loop.0``, ``loop.1``... (:mod:`.loop_steps`).

Everything is a few passes over the nodes in topological order (10,000 nodes: about a
tenth of a second, once per structure). Pure: no Qt, no torch; :mod:`.collapse` turns the
tree into boxes.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass

from gui.model.drawing.between import place_between
from gui.model.drawing.loop_steps import loop_steps
from gui.model.drawing.module_paths import Path, common_path, module_of_name
from gui.model.result import Graph, GraphNode


@dataclass(frozen=True)
class ModuleTree:
    """The modules of one graph's structure and the nodes in each.

    ``module`` maps a node key to the deepest module it belongs to (nodes outside every
    module are absent). ``paths`` holds every module that has members or a descendant with
    members, ancestors included, in first-seen order. ``repeats`` maps a module to the
    siblings with the very same node structure (itself included, in order), for modules
    that have such siblings.
    """

    module: dict[str, Path]
    paths: tuple[Path, ...]
    repeats: dict[Path, tuple[Path, ...]]
    structure_key: str
    # The modules are the steps of an unrolled loop found in the structure of a graph
    # without module names (:mod:`.loop_steps`), not the user's own modules.
    loop: bool = False

    @property
    def depth(self) -> int:
        """How deep the deepest module sits (0: no modules)."""
        return max((len(p) for p in self.paths), default=0)

    def members(self, path: Path) -> list[str]:
        """Every node key in ``path`` or a module inside it."""
        n = len(path)
        return [k for k, p in self.module.items() if p[:n] == path]

    def children(self, path: Path) -> list[Path]:
        """The modules directly inside ``path`` (``()``: the top-level ones)."""
        n = len(path)
        return [p for p in self.paths if len(p) == n + 1 and p[:n] == path]


def _topological(graph: Graph, keys: set[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Data-flow order of the function and leaf nodes (inputs first) and their inputs."""
    inputs: dict[str, list[str]] = {k: [] for k in keys}
    consumers: dict[str, list[str]] = {k: [] for k in keys}
    for edge in graph.edges:
        if edge.kind == "data" and edge.source in keys and edge.target in keys:
            inputs[edge.target].append(edge.source)
            consumers[edge.source].append(edge.target)
    waiting = {k: len(v) for k, v in inputs.items()}
    ready = deque(k for k, n in waiting.items() if n == 0)
    order: list[str] = []
    while ready:
        key = ready.popleft()
        order.append(key)
        for c in consumers[key]:
            waiting[c] -= 1
            if waiting[c] == 0:
                ready.append(c)
    # An autograd graph has no cycles; a malformed one still gets every node once.
    if len(order) < len(keys):
        placed = set(order)
        order += [k for k in keys if k not in placed]
    return order, inputs


def _assign(graph: Graph, order: list[str], inputs: dict[str, list[str]]) -> dict[str, Path]:
    by_key = {n.key: n for n in graph.nodes}
    module: dict[str, Path] = {}
    param_only: set[str] = set()
    for key in order:
        node = by_key[key]
        if node.kind == "leaf":
            path = module_of_name(node.var or node.label)
            if path:
                module[key] = path
                param_only.add(key)
            continue
        touched: Path | None = None
        for source in inputs[key]:
            if source in param_only:
                touched = common_path(touched, module[source])
        if touched:
            module[key] = touched
            # A view or transpose of one parameter (``TBackward0`` of a weight) stands for
            # it; a product of several (a first layer fed by no tensor needing a gradient)
            # is the module's output, which its consumers must not count as a parameter.
            if len(inputs[key]) == 1:
                param_only.add(key)
    place_between(order, inputs, module)
    for node in graph.nodes:
        if node.owner is not None and node.owner in module:
            module[node.key] = module[node.owner]
    return module


def _all_paths(module: dict[str, Path], graph: Graph) -> tuple[Path, ...]:
    seen: dict[Path, None] = {}
    for node in graph.nodes:
        path = module.get(node.key)
        if path is None:
            continue
        for n in range(1, len(path) + 1):
            seen.setdefault(path[:n], None)
    return tuple(seen)


def _signature(graph: Graph, module: dict[str, Path], paths: Iterable[Path]) -> dict[Path, str]:
    """A digest of each module's node structure relative to the module: op classes, inner
    module names and inner edges, by position. Equal digests: the same structure."""
    position: dict[str, int] = {}
    parts: dict[Path, list[str]] = {}
    wanted = set(paths)
    for node in graph.nodes:
        path = module.get(node.key)
        if path is None:
            continue
        for n in range(1, len(path) + 1):
            prefix = path[:n]
            if prefix in wanted:
                entries = parts.setdefault(prefix, [])
                position[f"{node.key}\0{n}"] = len(entries)
                entries.append(f"{node.kind}:{node.name}:{'.'.join(path[n:])}")
    for edge in graph.edges:
        a, b = module.get(edge.source), module.get(edge.target)
        if a is None or b is None:
            continue
        common = common_path(a, b) or ()
        for n in range(1, len(common) + 1):
            prefix = common[:n]
            if prefix in wanted:
                i = position[f"{edge.source}\0{n}"]
                j = position[f"{edge.target}\0{n}"]
                parts[prefix].append(f"{i}>{j}:{edge.kind}:{edge.input_index}")
    return {
        p: hashlib.sha1("\n".join(v).encode("utf-8", "surrogatepass")).hexdigest()
        for p, v in parts.items()
    }


def _repeats(
    graph: Graph, module: dict[str, Path], paths: tuple[Path, ...]
) -> dict[Path, tuple[Path, ...]]:
    by_parent: dict[Path, list[Path]] = {}
    for path in paths:
        by_parent.setdefault(path[:-1], []).append(path)
    candidates = [p for siblings in by_parent.values() if len(siblings) > 1 for p in siblings]
    digests = _signature(graph, module, candidates)
    repeats: dict[Path, tuple[Path, ...]] = {}
    for siblings in by_parent.values():
        alike: dict[str, list[Path]] = {}
        for path in siblings:
            alike.setdefault(digests.get(path, ""), []).append(path)
        for same in alike.values():
            if len(same) > 1:
                same.sort(key=_natural)
                family = tuple(same)  # one tuple shared by all: 2,000 steps, not 2,000 copies
                for path in same:
                    repeats[path] = family
    return repeats


def _natural(path: Path) -> tuple[int, int, str]:
    """Sibling order as people count: ``layers.2`` before ``layers.10``."""
    last = path[-1] if path else ""
    return (0, int(last), "") if last.isdigit() and len(last) < 18 else (1, 0, last)


def module_tree(graph: Graph) -> ModuleTree:
    """The modules of ``graph`` (see the module docstring for the rules); for a graph
    without module names, the steps of an unrolled loop if it is one (``loop``)."""
    keys = {n.key for n in graph.nodes if n.kind in ("function", "leaf")}
    order, inputs = _topological(graph, keys)
    module = _assign(graph, order, inputs)
    loop = not module
    if loop:
        module = dict(loop_steps(graph, inputs, order))
    paths = _all_paths(module, graph)
    repeats = _repeats(graph, module, paths)
    return ModuleTree(module, paths, repeats, graph.structure_key, loop=bool(paths) and loop)


_TREES: OrderedDict[str, ModuleTree] = OrderedDict()
_TREES_KEPT = 8


def cached_module_tree(graph: Graph) -> ModuleTree:
    """:func:`module_tree`, remembered by structure: a slider tick on a big graph costs a
    dictionary lookup (a stray duplicate from two threads is harmless: both are equal)."""
    tree = _TREES.get(graph.structure_key)
    if tree is None:
        tree = module_tree(graph)
        _TREES[graph.structure_key] = tree
        while len(_TREES) > _TREES_KEPT:
            _TREES.popitem(last=False)
    return tree


# What marks a module's kind: backward ops by the start of their class name, and what a
# box calls them. Attention is told by a softmax beside batched products.
_MARKS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("Addmm", "Linear"), "Linear"),
    (("Convolution", "Conv"), "Conv"),
    (("MkldnnRnnLayer", "CudnnRnn", "RnnTanh", "RnnRelu", "Lstm", "Gru"), "RNN"),
    (("Embedding",), "Embedding"),
    (("NativeLayerNorm", "LayerNorm"), "LayerNorm"),
    (("NativeBatchNorm", "CudnnBatchNorm", "BatchNorm"), "BatchNorm"),
)
_ATTENTION = (("Softmax", "SafeSoftmax"), ("Bmm", "Baddbmm", "Matmul", "Mm", "Mul"))
# torch's fused attention (F.scaled_dot_product_attention, nn.MultiheadAttention's fast path).
_FUSED_ATTENTION = (
    "ScaledDotProduct",
    "_ScaledDotProduct",
    "_EfficientAttention",
    "_FlashAttention",
)
# At most this many kinds in one box's summary (the rest is in the box once expanded).
_MAX_MARKS = 3


def op_summary(members: Iterable[GraphNode]) -> str:
    """What a module's box says it does: ``"Linear-like"`` for one matrix product with a
    bias, ``"Conv-like"`` for one convolution; for a block, what it is made of, most
    telling first (``"attention · Linear ×4 · LayerNorm ×2"``); else the most frequent op
    class without its ``Backward0``."""
    names = [n.name for n in members if n.kind == "function"]
    if not names:
        return "parameters"
    counts = {label: 0 for _, label in _MARKS}
    for name in names:
        for starts, label in _MARKS:
            if name.startswith(starts):
                counts[label] += 1
                break
    if not counts["Linear"] and any(n.startswith(("Mm", "Bmm", "Matmul")) for n in names):
        counts["Linear"] = int(any(n.startswith("Add") for n in names))  # a bias added apart
    attention = any(n.startswith(_FUSED_ATTENTION) for n in names) or (
        any(n.startswith(_ATTENTION[0]) for n in names)
        and any(n.startswith(_ATTENTION[1]) for n in names)
    )
    marks = [(label, count) for label, count in counts.items() if count]
    if not attention and len(marks) == 1 and marks[0][1] == 1 and marks[0][0] in ("Linear", "Conv"):
        return f"{marks[0][0]}-like"
    parts = ["attention"] if attention else []
    parts += [label if count == 1 else f"{label} ×{count}" for label, count in marks]
    if parts:
        return " · ".join(parts[:_MAX_MARKS])
    tally: dict[str, int] = {}
    for name in names:
        short = name.removesuffix("Backward0").removesuffix("Backward1")
        tally[short] = tally.get(short, 0) + 1
    return max(tally, key=lambda k: tally[k])
