"""Errors of the operations that pick entries by position or resample an image grid, in the
learner's names: ``gather`` given positions that are not whole numbers or that lack the
input's dimensions (a DQN's actions), ``F.affine_grid`` given matrices of the wrong shape
(a Spatial Transformer's ``theta``), and ``F.interpolate`` given a map without its channel
dimension (a Grad-CAM heat map). Program text only: no torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.rule_types import Advice, Found, Rule, rule_table
from gui.model.explain.source import (
    TORCH_SIZE,
    line_tree,
    made_before,
    named_calls,
    parse_shape,
    segment,
)

# Methods and functions that read an index tensor position by position, as `gather` does.
_PICKERS = frozenset(
    {"gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "take_along_dim"}
)
# The `index_*` family reads its index the same way: `out.index_add_(dim, index, source)`.
_INDEXERS = frozenset(
    {
        "index_select", "index_add", "index_add_", "index_copy", "index_copy_", "index_fill",
        "index_fill_", "index_reduce", "index_reduce_",
    }
)  # fmt: skip
# Those that put numbers at the positions rather than take them from there.
_WRITERS = frozenset(
    n for n in _PICKERS | _INDEXERS if not n.startswith(("gather", "take", "index_select"))
)


@dataclass(frozen=True)
class _Call:
    """One call on the failing line: its input, its arguments and keywords, as written."""

    name: str
    receiver: str | None  # `q.gather(...)`: `q`; `torch.gather(q, ...)`: None
    args: tuple[str, ...]
    keywords: dict[str, str]

    def argument(self, position: int, keyword: str) -> str | None:
        if keyword in self.keywords:
            return self.keywords[keyword]
        return self.args[position] if len(self.args) > position else None


def _call(source: str | None, names: frozenset[str]) -> _Call | None:
    """The first call of one of ``names`` on the line (a method or a module's function)."""
    for node, name, text in named_calls(source, names):
        func = node.func
        receiver = None
        if isinstance(func, ast.Attribute):
            owner = segment(text, func.value)
            if owner not in ("torch", "F", "nn.functional", "torch.nn.functional"):
                receiver = owner
        return _Call(
            name,
            receiver,
            tuple(segment(text, a) for a in node.args),
            {k.arg: segment(text, k.value) for k in node.keywords if k.arg is not None},
        )
    return None


def _picked(f: Found) -> tuple[str, str, str, str]:
    """``(call name, input, dim, index)`` of the line's ``gather``-like call, as written."""
    call = _call(f.context.source_line, _PICKERS | _INDEXERS)
    if call is None:
        return "gather", "input", "dim", "index"
    if call.receiver is None:  # `torch.gather(input, dim, index)`
        source = call.argument(0, "input") or "input"
        return (
            call.name,
            source,
            call.argument(1, "dim") or "dim",
            call.argument(2, "index") or "index",
        )
    return (
        call.name,
        call.receiver,
        call.argument(0, "dim") or "dim",
        call.argument(1, "index") or "index",
    )


def _made_text(f: Found, name: str) -> str:
    """`` (made on line 9: `...`)`` for a plain name the program binds before the line."""
    if not name.isidentifier():
        return ""
    made = made_before(f.context.program, name, f.line)
    return "" if made is None else f" (made on line {made.line}: `{made.text}`)"


def _rest(f: Found) -> str:
    """``, messages`` for the arguments after the index (``index_add_(0, col, messages)``),
    so a fix that rewrites the call keeps them; ``""`` for ``gather``'s two."""
    call = _call(f.context.source_line, _PICKERS | _INDEXERS)
    if call is None:
        return ""
    skip = 3 if call.receiver is None else 2
    rest = [
        *call.args[skip:],
        *(f"{k}={v}" for k, v in call.keywords.items() if k not in ("dim", "index", "input")),
    ]
    return "".join(f", {a}" for a in rest)


def _index_dtype(f: Found) -> Advice:
    """``gather(): Expected dtype int32/int64 for index``."""
    name, source, dim, index = _picked(f)
    does = f"picks entries of `{source}` by position: along dimension {dim}, each number "
    does += f"of `{index}` says which entry to take"
    if name in _WRITERS:
        does = f"writes into `{source}` by position: along dimension {dim}, each number of "
        does += f"`{index}` says which entry to write (or add) to"
    return Advice(
        f"`{source}.{name}({dim}, {index})` {does}. Positions "
        f"are whole numbers, so `{index}`{_made_text(f, index)} must have an integer dtype "
        "(Long, int64, as class labels and actions are), but its dtype is not an integer "
        "one (floating-point numbers, most often, which torch will not round for you).",
        f"Convert it where it is used, `{source}.{name}({dim}, {index}.long(){_rest(f)})`, "
        "or make it "
        "whole numbers where it is built (`torch.tensor(..., dtype=torch.long)`, or "
        "`.long()` when the actions or labels are stored).",
    )


def _index_dims(f: Found) -> Advice:
    """``Index tensor must have the same number of dimensions as input tensor``."""
    name, source, dim, index = _picked(f)
    where = dim if dim.lstrip("-").isdigit() else "1"
    return Advice(
        f"`{source}.{name}({dim}, {index})` walks `{source}` and `{index}` together, "
        f"position by position: for each position of `{index}` it takes the entry of "
        f"`{source}` at the same position, except along dimension {dim}, where it takes "
        f"the one `{index}` names. So `{index}`{_made_text(f, index)} must have as many "
        f"dimensions as `{source}`; a list of one position per row (a 1-D tensor of "
        "actions or labels) has one dimension too few.",
        f"Give each row's position its own column: `{source}.{name}({dim}, "
        f"{index}.unsqueeze({where}))`, and `.squeeze({where})` the result if you want one "
        "number per row back.",
    )


def _subscript(source: str | None) -> tuple[str, str] | None:
    """``(tensor, index)`` of the line's first ``tensor[index]`` whose index is a
    computed value (a name, an attribute, a call), not a number or a slice."""
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Subscript) and isinstance(
            node.slice, ast.Name | ast.Attribute | ast.Call | ast.BinOp
        ):
            return segment(text, node.value), segment(text, node.slice)
    return None


def _float_index(f: Found) -> Advice:
    """``tensors used as indices must be long, int, byte or bool tensors``."""
    found = _subscript(f.context.source_line)
    source, index = found if found is not None else ("x", "index")
    made = made_before(f.context.program, index, f.line) if index.isidentifier() else None
    story = "" if made is None else f" (made on line {made.line}: `{made.text}`)"
    fix = f"Index with whole numbers: `{source}[{index}.long()]`"
    if made is not None and "randint(" in made.text and ".float()" in made.text:
        fix += (
            f"; or keep `{index}` as `torch.randint` makes it (Long already, without "
            f"`.float()`) and convert a copy only where a float is needed (`{index}.float()`)."
        )
    else:
        fix += f"; or make `{index}` whole numbers where it is built (`dtype=torch.long`)."
    return Advice(
        f"`{source}[{index}]` takes the entries of `{source}` at the positions `{index}` "
        f"holds. Positions are whole numbers, so a tensor used as an index must have an "
        f"integer dtype (Long or int; or bool, as a mask), but `{index}`{story} holds "
        "floating-point numbers, which torch will not round for you.",
        fix,
    )


INDEX_ADD_SIZE = (
    r"\b(?P<op>index_\w{1,12})\(\): Number of indices \((?P<n>\d+)\) should be equal to "
    r"source\.size\(dim\):? \((?P<size>\d+)\), for dim: (?P<dim>-?\d+)"
)


def _index_add_size(f: Found) -> Advice:
    """``out.index_add_(dim, index, source)`` with ``source`` not one slice per index."""
    call = _call(f.context.source_line, _INDEXERS)
    n, size, dim = f.group("n"), f.group("size"), f.group("dim")
    op = f.group("op")
    out, index, values = "out", "index", "source"
    if call is not None:
        if call.receiver is None:
            out = call.argument(0, "input") or out
            index = call.argument(2, "index") or index
            values = call.argument(3, "source") or values
        else:
            out = call.receiver
            index = call.argument(1, "index") or index
            values = call.argument(2, "source") or values
    explanation = (
        f"`{out}.{op}({dim}, {index}, {values})` adds slice number i of `{values}` along "
        f"dimension {dim} into `{out}` at position `{index}[i]`: so `{values}` needs one "
        f"slice along dimension {dim} per entry of `{index}`. `{index}` has {n} entries, but "
        f"`{values}` has {size} along dimension {dim}."
    )
    if dim != "0":
        fix = (
            f"When each row of `{values}` belongs to one entry of `{index}` (a message per "
            f"edge), add along dimension 0: `{out}.{op}(0, {index}, {values})`, which puts "
            f"row i of `{values}` into row `{index}[i]` of `{out}`."
        )
    else:
        fix = (
            f"Make `{values}` from the same entries as `{index}` (one row per entry, e.g. "
            f"`x[src]` for the edges `src -> {index}`); print `{index}.shape` and "
            f"`{values}.shape` to compare."
        )
    return Advice(explanation, fix)


AFFINE_GRID_SHAPE = (
    r"Expected a batch of (?P<d>[23])D affine matrices of shape Nx(?P<rows>\d)x(?P<cols>\d) "
    r"for size " + TORCH_SIZE.format("size") + r"\. Got " + TORCH_SIZE.format("got")
)


def _affine_grid_shape(f: Found) -> Advice:
    """``F.affine_grid(theta, size)`` with ``theta`` not of shape ``(N, 2, 3)``."""
    call = _call(f.context.source_line, frozenset({"affine_grid"}))
    theta = (call.argument(0, "theta") if call else None) or "theta"
    size_text = (call.argument(1, "size") if call else None) or "size"
    rows, cols = int(f.group("rows")), int(f.group("cols"))
    size, got = parse_shape(f.group("size")), parse_shape(f.group("got"))
    batch = size[0] if size else 1
    want = (batch, rows, cols)
    per_image = rows * cols
    made = made_before(f.context.program, theta, f.line) if theta.isidentifier() else None
    story = ""
    if made is not None and ("view(" in made.text or "reshape(" in made.text):
        story = f" It was given that shape on line {made.line} (`{made.text}`)."
    coordinates = "x and y" if rows == 2 else "x, y and z"
    explanation = (
        f"`F.affine_grid` makes one sampling grid per image from one {rows}x{cols} matrix per "
        f"image ({rows} rows, one per output coordinate, {coordinates}; {cols} columns, "
        f"{'two' if rows == 2 else 'three'} weights and a shift). For `{size_text}`, "
        f"{list(size)}, that is {batch} image{'s' if batch != 1 else ''}, so `{theta}` must "
        f"have shape {list(want)}, but it has {list(got)}.{story}"
    )
    if len(got) == 3 and got[1] * got[2] == per_image:
        fix = (
            f"Arrange the {per_image} numbers of each image as {rows} rows of {cols}: "
            f"`{theta}.view(-1, {rows}, {cols})` (a transposed copy would mix them up)."
        )
    else:
        fix = (
            f"Make `{theta}` {rows}x{cols} per image: the layer that predicts it should "
            f"output {per_image} numbers per image, reshaped with "
            f"`.view(-1, {rows}, {cols})`."
        )
    return Advice(explanation, fix)


INTERPOLATE_SPATIAL = (
    r"Input and output must have the same number of spatial dimensions, but got input with "
    r"spatial dimensions of \[(?P<spatial>[\d, ]*)\] and output size of \((?P<out>[\d, ]*)\)"
)
INTERPOLATE_MODE = r"Got (?P<got>\d)D input, but (?P<mode>\w+) mode needs (?P<need>\d)D input"


def _interpolate_input(f: Found) -> str:
    call = _call(f.context.source_line, frozenset({"interpolate", "upsample"}))
    return (call.argument(0, "input") if call else None) or "input"


def _resized_by(given: int, want: int, name: str, mode: str) -> tuple[str, str]:
    """What to say when the input has ``given`` dimensions and the resize needs ``want``."""
    if given == want - 1:
        return (
            f"`{name}` has lost a dimension, usually its channels (a sum or a mean over "
            "them without `keepdim=True`, or an index like `[0]`).",
            f"Add a channel dimension of 1 for the resize and drop it after: "
            f"`F.interpolate({name}.unsqueeze(1), ...).squeeze(1)`, or keep it where it "
            "was reduced (`.sum(dim=1, keepdim=True)`).",
        )
    if given < want:
        return (
            f"`{name}` has {want - given} dimensions fewer than that.",
            f"Give `{name}` its batch and channel dimensions, `{name}[None, None]` for one "
            "image of one channel.",
        )
    if mode:
        return (
            f"`{name}` has more dimensions than mode `{mode}` resizes.",
            "Pick the mode for its dimensions (`linear` for 3, `bilinear` or `bicubic` "
            f"for 4, `trilinear` for 5), or drop the extra dimension of `{name}`.",
        )
    return (
        "The size asks for fewer spatial dimensions than the input has.",
        "Give `size` one number per spatial dimension of the input (two for an image).",
    )


def _interpolate_dims(f: Found) -> Advice:
    """``F.interpolate`` of a tensor without its batch and channel dimensions."""
    name = _interpolate_input(f)
    if f.group("mode"):
        given, want = int(f.group("got")), int(f.group("need"))
        asked = f"mode `{f.group('mode')}` resizes {want - 2} spatial dimensions"
    else:
        spatial = parse_shape(f.group("spatial"))
        out = parse_shape(f.group("out"))
        given, want = len(spatial) + 2, len(out) + 2
        asked = f"the size {tuple(out)} has {len(out)} spatial dimensions"
    why, fix = _resized_by(given, want, name, f.group("mode"))
    return Advice(
        "`F.interpolate` reads its input as (batch, channels, then the spatial dimensions it "
        f"resizes): `{name}` has {given} dimensions, so it reads {given - 2} spatial "
        f"one{'s' if given - 2 != 1 else ''}; {asked}, so the input needs {want} "
        f"dimensions. {why}",
        fix,
    )


PICK_AND_RESAMPLE_RULES: tuple[Rule, ...] = rule_table(
    (
        "gather-index",
        r"\b(?:gather|scatter\w{0,12}|index_\w{1,12})\(\): "
        r"Expected dtype int[\w/ ]{0,24} for index",
        "",
        _index_dtype,
    ),
    (
        "gather-index",
        r"^Index tensor must have the same number of dimensions as (?:input|self|src) tensor",
        "",
        _index_dims,
    ),
    (
        "index-dtype",
        r"^tensors used as indices must be long, int, byte or bool tensors",
        "IndexError",
        _float_index,
    ),
    ("index-add-size", INDEX_ADD_SIZE, "", _index_add_size),
    ("affine-grid-shape", AFFINE_GRID_SHAPE, "", _affine_grid_shape),
    ("interpolate-dims", INTERPOLATE_SPATIAL, "", _interpolate_dims),
    ("interpolate-dims", INTERPOLATE_MODE, "", _interpolate_dims),
)
