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
    made_before,
    named_calls,
    parse_shape,
    segment,
)

# Methods and functions that read an index tensor position by position, as `gather` does.
_PICKERS = frozenset(
    {"gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "take_along_dim"}
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
    call = _call(f.context.source_line, _PICKERS)
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


def _index_dtype(f: Found) -> Advice:
    """``gather(): Expected dtype int32/int64 for index``."""
    name, source, dim, index = _picked(f)
    return Advice(
        f"`{source}.{name}({dim}, {index})` picks entries of `{source}` by position: along "
        f"dimension {dim}, each number of `{index}` says which entry to take. Positions "
        f"are whole numbers, so `{index}`{_made_text(f, index)} must have an integer dtype "
        "(Long, int64, as class labels and actions are), but its dtype is not an integer "
        "one (floating-point numbers, most often, which torch will not round for you).",
        f"Convert it where it is used, `{source}.{name}({dim}, {index}.long())`, or make it "
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
        r"\b(?:gather|scatter\w*)\(\): Expected dtype int[\w/]{0,20} for index",
        "",
        _index_dtype,
    ),
    (
        "gather-index",
        r"^Index tensor must have the same number of dimensions as (?:input|self|src) tensor",
        "",
        _index_dims,
    ),
    ("affine-grid-shape", AFFINE_GRID_SHAPE, "", _affine_grid_shape),
    ("interpolate-dims", INTERPOLATE_SPATIAL, "", _interpolate_dims),
    ("interpolate-dims", INTERPOLATE_MODE, "", _interpolate_dims),
)
