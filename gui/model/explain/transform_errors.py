"""Errors of torch.func's transforms, attention masks and sequence losses in the learner's
names: ``torch.func.grad`` of a function that returns more than one number, ``.item()``
inside ``vmap``, a ``MultiheadAttention`` mask of the wrong dtype or shape, and
``cross_entropy`` given ``(batch, seq, classes)`` logits as language-model code writes
them. Program text only: no torch, no Qt.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from gui.model.explain.rule_types import Advice, ErrorContext, Found, Rule, rule_table
from gui.model.explain.source import (
    line_tree,
    made_before,
    named_calls,
    parse_shape,
    segment,
    shape_text,
)

FUNC_GRAD_NON_SCALAR = (
    r"^(?P<api>grad_and_value|grad)\(f\)\(\*args\): Expected f\(\*args\) to return a scalar "
    r"Tensor, got tensor with (?P<dims>\d{1,3}) dims"
)
VMAP_ITEM = r"^vmap: It looks like you're calling \.item\(\) on a Tensor"
VMAP_CONTROL_FLOW = (
    r"^vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
    r"flow"
)
MASK_DTYPE = r"^only bool and floating types of (?P<mask>attn_mask|key_padding_mask) are supported"
KEY_PADDING_SHAPE = (
    r"^Expected key_padded_mask\.shape\[(?P<dim>[01])\] to be (?P<want>\d{1,9}), but got "
    r"(?P<got>\d{1,9})"
)
ATTN_MASK_SHAPE = (
    r"^The shape of the (?P<dims>[23])D attn_mask is torch\.Size\(\[(?P<got>[\d, ]{0,60})\]\), "
    r"but should be \((?P<want>[\d, ]{0,60})\)"
)
SEQUENCE_TARGET_SIZE = (
    r"^Expected target size \[(?P<want>[\d, ]{1,60})\], got \[(?P<got>[\d, ]{1,60})\]"
)

_GRAD_TRANSFORMS = frozenset({"grad", "grad_and_value"})
_VMAP = frozenset({"vmap"})


def _transformed_function(f: Found, names: frozenset[str]) -> str | None:
    """The function handed to ``grad(f)`` / ``vmap(f)`` somewhere in the program, as written
    on the failing line or, failing that, on the line of the call that led there."""
    for call, _name, text in named_calls(f.context.source_line, names):
        if call.args:
            return segment(text, call.args[0])
    program = (f.context.program or "").splitlines()
    for line in reversed(f.context.call_lines):
        if 0 < line <= len(program):
            for call, _name, text in named_calls(program[line - 1], names):
                if call.args:
                    return segment(text, call.args[0])
    return None


def _func_grad_non_scalar(f: Found) -> Advice:
    fn = _transformed_function(f, _GRAD_TRANSFORMS) or "f"
    # torch words it as `grad_and_value` for `grad` too: name the transform as written.
    written = [name for _call, name, _text in named_calls(f.context.source_line, _GRAD_TRANSFORMS)]
    api = written[0] if written else f.group("api")
    dims = f.group("dims")
    return Advice(
        f"`{api}({fn})` differentiates a function that returns one number (a 0-d tensor, like a "
        f"loss), as `backward()` does; `{fn}` returned a tensor with {dims} dimension"
        f"{'' if dims == '1' else 's'}, so there is no single gradient to give: each of its "
        "elements has a gradient of its own.",
        f"Make `{fn}` return one number, e.g. `return (...).sum()` (for a function applied "
        "element by element, the gradient of the sum is each element's own derivative); for "
        f"the whole Jacobian use `torch.func.jacrev({fn})`, or `vmap({api}({fn}))` over inputs "
        "that are single numbers.",
    )


def _item_receiver(source: str | None) -> str | None:
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("item", "tolist")
        ):
            return segment(text, node.func.value)
    return None


def _vmap_item(f: Found) -> Advice:
    fn = _transformed_function(f, _VMAP)
    inside = f"`{fn}`" if fn else "the function"
    what = _item_receiver(f.context.source_line)
    call = f"`{what}.item()`" if what else "`.item()`"
    kept = f"`{what}`" if what else "the tensor"
    return Advice(
        f"`vmap` runs {inside} once for a whole batch: inside it every tensor stands for all "
        f"the batch's values at once, so {call} on {f.where} has no single Python number to "
        "give and vmap stops.",
        f"Keep {kept} a tensor: drop `.item()` and use it in tensor operations (`v / v.norm()` "
        "broadcasts per example); convert to a number only outside the vmapped function.",
    )


def _vmap_control_flow(f: Found) -> Advice:
    fn = _transformed_function(f, _VMAP)
    inside = f"`{fn}`" if fn else "the function"
    return Advice(
        f"`vmap` runs {inside} once for a whole batch, so a tensor there holds all the "
        f"batch's values at once; an `if` or `while` on it ({f.where}) would need one True or "
        "False, but each example may want a different branch.",
        "Compute both branches and pick per element with `torch.where(condition, a, b)`, or "
        "loop over the examples without vmap.",
    )


def _keyword(source: str | None, key: str) -> str | None:
    """The argument given as ``key=...`` on the line, as written."""
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == key:
                    return segment(text, keyword.value)
    return None


def _mask_dtype(f: Found) -> Advice:
    key = f.group("mask")
    mask = _keyword(f.context.source_line, key) or key
    made = made_before(f.context.program, mask, f.line) if mask.isidentifier() else None
    story = "" if made is None else f" (made on line {made.line}: `{made.text}`)"
    return Advice(
        f"`nn.MultiheadAttention` (and the Transformer layers built on it) takes `{key}` either "
        "as booleans, where True means 'may not attend to this position', or as floats added "
        f"to the attention scores (0 to keep, `-inf` to block). `{mask}`{story} holds whole "
        "numbers (an integer dtype), which it reads as neither.",
        f"Make it boolean: `{key}={mask}.bool()` (its 1s become True, blocked); or a float "
        f"mask with `-inf` where it is 1: `{mask}.float().masked_fill({mask}.bool(), "
        "float('-inf'))`.",
    )


def _key_padding_shape(f: Found) -> Advice:
    mask = _keyword(f.context.source_line, "key_padding_mask") or "key_padding_mask"
    want, got = f.group("want"), f.group("got")
    return Advice(
        f"`key_padding_mask` marks the padded keys of each sequence, so it is shaped (batch, "
        f"source length): here its first dimension should be the batch, {want}, but `{mask}` "
        f"has {got} there. Its shape does not change with `batch_first`: with the default "
        "`batch_first=False` the inputs are (length, batch, features) but this mask is still "
        "(batch, length).",
        f"Give it the batch first: `key_padding_mask={mask}.T` if it was built (length, batch); "
        f"print `{mask}.shape` next to the inputs' shapes to check.",
    )


def _attn_mask_shape(f: Found) -> Advice:
    mask = _keyword(f.context.source_line, "attn_mask") or "attn_mask"
    got, want = parse_shape(f.group("got")), parse_shape(f.group("want"))
    if f.group("dims") == "2":
        form = (
            "A 2-D `attn_mask` is (target length, source length): one row per query position, "
            "one column per key, shared by the whole batch"
        )
        fix = "For padding of each sequence use `key_padding_mask` (batch, source length) instead."
    else:
        form = (
            "A 3-D `attn_mask` is (batch * num_heads, target length, source length): one mask "
            "per example and head"
        )
        fix = "Repeat a per-example mask for each head: `mask.repeat_interleave(num_heads, dim=0)`."
    return Advice(
        f"{form}. It should be {shape_text(want)} here, but `{mask}` is {shape_text(got)}.",
        f"Build `{mask}` with shape {shape_text(want)}. {fix}",
    )


def _sequence_target_size(f: Found) -> Advice:
    want, got = parse_shape(f.group("want")), parse_shape(f.group("got"))
    args: tuple[str, str] | None = None
    for call, _name, text in named_calls(
        f.context.source_line, ("cross_entropy", "nll_loss", "criterion", "loss_fn")
    ):
        if len(call.args) >= 2:
            args = (segment(text, call.args[0]), segment(text, call.args[1]))
            break
    logits, target = args or ("logits", "targets")
    if len(want) == len(got) == 2 and want[0] == got[0]:
        shapes = (
            f"`{logits}` is ({got[0]}, {got[1]}, {want[1]}): batch, positions, classes, as a "
            f"language model returns them, so it reads the {got[1]} positions as the classes "
            f"and the {want[1]} classes as positions"
        )
    else:
        shapes = f"`{logits}` has its classes in another dimension than dimension 1"
    return Advice(
        "`cross_entropy` (and `nll_loss`) read the classes from dimension 1 of their input: for "
        "an input (N, C, d1, ...) the target must be (N, d1, ...). "
        f"{shapes}, and expects `{target}` of shape {shape_text(want)}; `{target}` is "
        f"{shape_text(got)}.",
        f"Flatten the positions into the batch: `cross_entropy({logits}.flatten(0, 1), "
        f"{target}.flatten())` (or move the classes to dimension 1: "
        f"`{logits}.transpose(1, 2)`).",
    )


TRANSFORM_RULES: tuple[Rule, ...] = rule_table(
    ("func-grad-non-scalar", FUNC_GRAD_NON_SCALAR, "", _func_grad_non_scalar),
    ("vmap-item", VMAP_ITEM, "", _vmap_item),
    ("vmap-control-flow", VMAP_CONTROL_FLOW, "", _vmap_control_flow),
    ("mask-dtype", MASK_DTYPE, "", _mask_dtype),
    ("mask-shape", KEY_PADDING_SHAPE, "", _key_padding_shape),
    ("mask-shape", ATTN_MASK_SHAPE, "", _attn_mask_shape),
    ("class-target-shape", SEQUENCE_TARGET_SIZE, "", _sequence_target_size),
)


# torch's broadcasting message (as :mod:`.torch_rules` reads it), on a line that applies a
# mask: said of the mask and what it masks.
_BROADCAST = (
    r"size of tensor a \((?P<a>\d{1,9})\) must match the size of tensor b \((?P<b>\d{1,9})\) "
    r"at non-singleton dimension (?P<dim>\d{1,3})"
)


def _masked_fill_broadcast(f: Found) -> Advice:
    """``scores.masked_fill(mask, -inf)`` with a mask that does not broadcast to ``scores``
    (a causal mask made for ``context_length`` used on a shorter batch)."""
    scores, mask = "scores", "mask"
    for call, _name, text in named_calls(f.context.source_line, ("masked_fill", "masked_fill_")):
        if isinstance(call.func, ast.Attribute) and call.args:
            scores, mask = segment(text, call.func.value), segment(text, call.args[0])
            break
    a, b, dim = f.group("a"), f.group("b"), f.group("dim")
    return Advice(
        f"`masked_fill` spreads the mask `{mask}` over `{scores}`, so the mask must broadcast "
        f"to `{scores}`'s shape; lined up from the right, dimension {dim} has size {a} in "
        f"one and {b} in the other. A mask made once for the longest input (a causal mask "
        "of `context_length` rows and columns) is bigger than a batch of fewer tokens.",
        f"Cut the mask to this batch's length: `{mask}[:n, :n]` with `n = {scores}.shape[-1]` "
        "(Raschka's `self.mask.bool()[:num_tokens, :num_tokens]`), or build it for the "
        "current length; print both shapes to check "
        f"(`print({mask}.shape, {scores}.shape)`).",
    )


def _sdpa_mask_broadcast(f: Found) -> Advice:
    """``F.scaled_dot_product_attention(q, k, v, attn_mask=padding)`` with a mask shaped
    (batch, keys) that lines up against (queries, keys) instead."""
    mask = _keyword(f.context.source_line, "attn_mask") or "attn_mask"
    a, b, dim = f.group("a"), f.group("b"), f.group("dim")
    return Advice(
        "`scaled_dot_product_attention` adds (or applies) `attn_mask` to the attention "
        "weights, shaped (batch, heads, queries, keys), so the mask must broadcast to that "
        f"shape, lined up from the right; `{mask}` does not: dimension {dim} has size {a} on "
        f"one side and {b} on the other. A padding mask (batch, keys) lines its batch up "
        "against the queries.",
        f"Give a per-sequence mask its own batch dimension and size-1 heads and queries: "
        f"`attn_mask={mask}[:, None, None, :]` (shape (batch, 1, 1, keys)); a causal mask "
        "is (queries, keys).",
    )


def _on_line(word: str) -> Callable[[ErrorContext], bool]:
    return lambda context: word in (context.source_line or "")


# Before torch_rules' general "shape-mismatch" (same kind, the mask's words).
MASK_BROADCAST_RULES: tuple[Rule, ...] = (
    Rule(
        "shape-mismatch",
        _masked_fill_broadcast,
        re.compile(_BROADCAST),
        when=_on_line("masked_fill"),
    ),
    Rule(
        "shape-mismatch",
        _sdpa_mask_broadcast,
        re.compile(_BROADCAST),
        when=_on_line("scaled_dot_product_attention"),
    ),
)
