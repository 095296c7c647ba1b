"""What a loss or a layer was handed that it cannot read, in the learner's names: raw scores
given to ``nn.BCELoss`` (which takes probabilities), whole-number labels of the same shape
as the scores given to ``nn.CrossEntropyLoss`` (read as class probabilities), a recurrent
layer's starting state of the wrong shape or form (a pair for a GRU, one tensor for an
LSTM), token ids that are not whole numbers, and ``nn.KLDivLoss`` left with its default
``reduction='mean'`` (a warning). No torch, no Qt.
"""

from __future__ import annotations

import ast
import dataclasses
import re

from gui.model.explain.layer_setup import LayerCall, layer_calls
from gui.model.explain.rule_types import Advice, ErrorContext, Found, Rule
from gui.model.explain.source import Made, first_call_args, line_tree, made_before, parse_shape

_RECURRENT = frozenset({"LSTM", "GRU", "RNN"})
_EMBEDDINGS = frozenset({"Embedding", "EmbeddingBag"})


def _loss_args(f: Found, default: tuple[str, str]) -> tuple[str, str]:
    return first_call_args(f.context.source_line) or default


def bce_probabilities(f: Found) -> Advice:
    """``all elements of input should be between 0 and 1`` (``nn.BCELoss``)."""
    pred, target = _loss_args(f, ("input", "target"))
    return Advice(
        "Binary cross-entropy (`nn.BCELoss`, `F.binary_cross_entropy`) takes probabilities: "
        f"its first argument, `{pred}`, must hold numbers between 0 and 1, such as a "
        "sigmoid's output, but some of its numbers are outside that range (raw scores, "
        '"logits", straight from a Linear layer).',
        "Give the raw scores to the loss that applies the sigmoid itself (and is more "
        f"accurate for large scores): `nn.BCEWithLogitsLoss()({pred}, {target})`; or "
        f"squash them first: `torch.sigmoid({pred})`.",
    )


def class_target_probabilities(f: Found) -> Advice:
    """``Expected floating point type for target with class probabilities, got Long``."""
    scores, labels = _loss_args(f, ("input", "target"))
    read = (
        f"`{labels}` has the same shape as `{scores}`, so the cross-entropy loss reads it as "
        "class probabilities (one number per class, as floats), not as class indices; "
        f"`{labels}` holds whole numbers ({f.group('got')})."
    )
    encoded = _one_hot_made(f, labels)
    if encoded is not None:
        # `F.one_hot(labels, 3)` is whole numbers of the scores' shape: what the loss wants
        # is the indices it was made from (or, read as probabilities, its float copy).
        return Advice(
            f"{read} `{labels}` is one-hot encoded on line {encoded.line} "
            f"(`{encoded.text}`): a row of 0s with a single 1 per example.",
            "Give the loss the class indices, one whole number per example: "
            f"`{labels}.argmax(dim=1)` (or the labels before one-hot encoding); or, to "
            f"give probabilities on purpose, `{labels}.float()`.",
        )
    return Advice(
        f"{read} Either `{labels}` is one-hot encoded (a row of 0s with a single 1 per "
        f"example), or `{scores}` has one score per example instead of one column of scores "
        "per class.",
        f"One-hot labels: give the class indices, `{labels}.argmax(dim=1)`. A yes/no label "
        f"with one score per example: `nn.BCEWithLogitsLoss()({scores}, {labels}.float())`. "
        f"For class indices, `{scores}` needs a column per class, shape [examples, classes] "
        "(a last layer with one output per class).",
    )


_ONE_HOT_CALLS = frozenset({"one_hot", "eye"})


def _one_hot_made(f: Found, labels: str) -> Made | None:
    """The statement that made ``labels`` (a plain name) with ``one_hot(...)`` or an
    identity matrix's rows (``torch.eye(n)[y]``), before the failing line."""
    if not labels.isidentifier():
        return None
    made = made_before(f.context.program, labels, f.line)
    if made is None or made.value is None:
        return None
    for node in ast.walk(made.value):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _ONE_HOT_CALLS:
                return made
    return None


def rnn_hidden_shape(f: Found) -> Advice:
    """``Expected hidden size (1, 2, 5), got [1, 4, 5]`` and ``For batched 3-D input, hx
    and cx should also be 3-D but got (2-D, 2-D) tensors``."""
    call = layer_calls(f, _RECURRENT)
    layer = f"`{call.layer}`" if call is not None else "the recurrent layer"
    shown = f", `{call.rest[0]}`," if call is not None and call.rest else ""
    if call is not None and call.kind == "LSTM":
        shown = (shown[:-1] or ",") + " (each of its two tensors, h and c),"
    layout = (
        "(layers × directions, batch, hidden size), with the batch second even with "
        "`batch_first=True` (that option changes only the input and the output)"
    )
    want = f.group("want")
    if want:
        got = parse_shape(f.group("got"))
        sizes = parse_shape(want)
        fitted = ""
        if call is not None and call.built is not None and len(sizes) == 3:
            first = any(
                k.arg == "batch_first" and isinstance(k.value, ast.Constant) and k.value.value
                for k in call.built.keywords
            )
            batch = f"{call.argument}.size({0 if first else 1})"
            fitted = (
                f"; to fit every batch (a last, smaller one too), take the batch size from "
                f"the input: `torch.zeros({sizes[0]}, {batch}, {sizes[2]})`"
            )
        both = _both_directions(f, call, sizes, got)
        if both is not None:
            return both
        return Advice(
            f"The starting state of {layer}{shown} must have shape {layout}: "
            f"({want}) for this input, but it has {list(got)}.",
            f"Make it for this batch: `torch.zeros({want})`{fitted}; or leave the state out "
            f"and {layer} starts from zeros of the right shape.",
        )
    return Advice(
        f"The input has a batch dimension (3-D), so the starting state of {layer}"
        f"{shown} must be 3-D too: {layout}. Torch got ({f.group('dims') or '2-D'}) "
        "tensors.",
        "Add the layers dimension in front: `.unsqueeze(0)` on each starting tensor (for one "
        f"layer, one direction), or leave the state out and {layer} starts from zeros.",
    )


def _both_directions(
    f: Found, call: LayerCall | None, want: tuple[int, ...], got: tuple[int, ...]
) -> Advice | None:
    """The state is the final state of a layer built with ``bidirectional=True`` (an
    encoder's, handed to a one-way decoder): twice the layers, both directions."""
    if call is None or not call.rest or len(want) != 3 or len(got) != 3:
        return None
    if got[0] != 2 * want[0] or got[1:] != want[1:]:
        return None
    state = call.rest[0]
    made = made_before(f.context.program, state, f.line) if state.isidentifier() else None
    if made is None:
        return None
    context = dataclasses.replace(f.context, source_line=made.text)
    source = layer_calls(Found(f.exception, f.message, None, context, made.line), _RECURRENT)
    built = source.built if source is not None else None
    if (
        source is None
        or built is None
        or not any(
            k.arg == "bidirectional" and isinstance(k.value, ast.Constant) and k.value.value
            for k in built.keywords
        )
    ):
        return None
    layers, hidden = want[0], want[2]
    return Advice(
        f"`{state}` is the final state of `{source.layer}` (line {made.line}), built with "
        f"`bidirectional=True`: its first dimension holds every layer twice, one forward and "
        f"one backward ({got[0]} = {layers} × 2). `{call.layer}` runs one way and wants "
        f"({', '.join(map(str, want))}) (layers, batch, hidden size).",
        f"Add the two directions: `{state}.view({layers}, 2, -1, {hidden}).sum(dim=1)`; or "
        f"keep the forward one, `{state}[0::2]`; or give `{call.layer}` a hidden size of "
        f"{2 * hidden} and concatenate the directions instead.",
    )


def embedding_ids_dtype(f: Found) -> Advice:
    """``Expected tensor for argument #1 'indices' to have one of the following scalar
    types: Long, Int; but got torch.FloatTensor instead``."""
    call = layer_calls(f, _EMBEDDINGS)
    table = f"`{call.layer}`" if call is not None else "An embedding"
    ids = call.argument if call is not None else _first_argument(f) or "ids"
    fix = f"{call.layer}({ids}.long())" if call is not None else f"{ids}.long()"
    return Advice(
        f"{table} looks its rows up by whole-number ids (dtype Long or Int), but `{ids}` "
        f"holds {f.group('got').replace('Tensor', '')} numbers.",
        f"Convert the ids: `{fix}`, or make them with `dtype=torch.long`.",
    )


def _first_argument(f: Found) -> str | None:
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and node.args:
            return ast.get_source_segment(text, node.args[0]) or ast.unparse(node.args[0])
    return None


BCE_PROBABILITIES = r"all elements of input should be between 0 and 1"
CLASS_TARGET_PROBABILITIES = (
    r"Expected floating point type for target with class probabilities, got (?P<got>\w+)"
)
RNN_HIDDEN_SHAPE = (
    r"Expected hidden(?:\[\d\])? size \((?P<want>[\d, ]+)\), got \[(?P<got>[\d, ]+)\]"
    r"|For batched 3-D input, hx(?: and cx)? should also be 3-D but got \(?(?P<dims>[^)]*?)"
    r"\)? tensors?"
)
EMBEDDING_IDS_DTYPE = (
    r"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
    r"Long, Int; but got torch\.(?P<got>\w+) instead"
)


def _state_call(context: ErrorContext, kinds: frozenset[str]) -> LayerCall | None:
    """The line's call of a recurrent layer of ``kinds`` that is given a starting state."""
    call = layer_calls(Found("", "", None, context, None), kinds)
    return call if call is not None and call.rest else None


def _pair_items(state: str) -> tuple[str, str] | None:
    """``(h0, c0)`` as written: its two items."""
    tree = line_tree(state)
    node = tree.body[0] if isinstance(tree, ast.Module) and tree.body else None
    value = node.value if isinstance(node, ast.Expr) else None
    if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == 2:
        a, b = value.elts
        return ast.unparse(a), ast.unparse(b)
    return None


_SINGLE_STATE = frozenset({"GRU", "RNN"})
_LAYOUT = "(layers × directions, batch, hidden size)"


def _pair_for_single_state(f: Found) -> Advice:
    """``'tuple' object has no attribute 'dim'``: a GRU or RNN given an LSTM's ``(h0, c0)``."""
    call = _state_call(f.context, _SINGLE_STATE)
    assert call is not None  # the rule's `when`
    state = call.rest[0]
    items = _pair_items(state)
    first = items[0] if items is not None else f"{state}[0]"
    cell = f" and `{items[1]}` is not needed" if items is not None else ""
    return Advice(
        f"`{call.layer}` is an `nn.{call.kind}`: its starting state is one tensor of shape "
        f"{_LAYOUT}, but it was given `{state}`, a pair as an `nn.LSTM` takes (a hidden "
        f"state and a cell state); `nn.{call.kind}` has no cell state, and reading the pair "
        "as one tensor fails.",
        f"Give the hidden state alone: `{call.layer}({call.argument}, {first})`{cell}; it "
        f"also returns one tensor, not a pair: `out, h = {call.layer}(...)`.",
    )


def _single_state_for_lstm(f: Found) -> Advice:
    """``index 1 is out of bounds for dimension 0 with size 1``: an LSTM given one tensor
    as its starting state (it reads item 0 as h and item 1 as c)."""
    call = _state_call(f.context, frozenset({"LSTM"}))
    assert call is not None  # the rule's `when`
    state = call.rest[0]
    return Advice(
        f"`{call.layer}` is an `nn.LSTM`: its starting state is a pair `(h0, c0)`, the "
        f"hidden state and the cell state, each of shape {_LAYOUT}. It was given "
        f"`{state}` alone, so it took `{state}[0]` as the hidden state and `{state}[1]` as "
        f"the cell state, and the first dimension of `{state}` (the layers) has no item 1.",
        f"Make a cell state of the same shape and pass the pair: `c0 = "
        f"torch.zeros_like({state})`, then `{call.layer}({call.argument}, ({state}, c0))`; "
        f"or leave the state out and `{call.layer}` starts from zeros.",
    )


def _lstm_given_one_tensor(context: ErrorContext) -> bool:
    call = _state_call(context, frozenset({"LSTM"}))
    return call is not None and _pair_items(call.rest[0]) is None


# A recurrent layer's starting state of the wrong form (a pair for a GRU, one tensor for an
# LSTM): Python's own errors, recognised only on a line that calls such a layer.
RNN_STATE_RULES: tuple[Rule, ...] = (
    Rule(
        "rnn-state-form",
        _pair_for_single_state,
        re.compile(r"^'tuple' object has no attribute 'dim'$"),
        frozenset({"AttributeError"}),
        lambda context: _state_call(context, _SINGLE_STATE) is not None,
    ),
    Rule(
        "rnn-state-form",
        _single_state_for_lstm,
        re.compile(r"^index 1 is out of bounds for dimension 0 with size \d{1,6}$"),
        frozenset({"IndexError"}),
        _lstm_given_one_tensor,
    ),
)


def _kldiv_call(f: Found) -> tuple[str, Made | None]:
    """The KL loss the line calls, as written (``criterion`` or ``F.kl_div``), and the
    statement that made it when it is a name bound to ``nn.KLDivLoss(...)``."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        if isinstance(func, ast.Name):
            made = made_before(f.context.program, func.id, f.line)
            if made is not None and "KLDivLoss" in made.text:
                return func.id, made
        name = func.attr if isinstance(func, ast.Attribute) else ""
        if name in ("kl_div", "KLDivLoss"):
            return ast.get_source_segment(text, func) or name, None
    return "F.kl_div", None


def kldiv_mean(f: Found) -> Advice:
    """``reduction: 'mean' divides the total loss by both the batch size and the support
    size``: ``nn.KLDivLoss()`` with its default reduction."""
    called, made = _kldiv_call(f)
    if made is not None:
        where = f"`{called}` (line {made.line}: `{made.text}`)"
        fix = f'`{called} = nn.KLDivLoss(reduction="batchmean")`'
    else:
        where = f"`{called}`"
        fix = f'`{called}(..., reduction="batchmean")`'
    return Advice(
        f"{where} uses the default `reduction='mean'`: it averages over every number of the "
        "input, examples times classes, so the loss is the KL divergence per example divided "
        "once more by the number of classes (and its gradients are that much smaller). "
        "`'batchmean'` adds up each example's terms and averages over the batch only, which "
        "is the KL divergence as defined (what distillation's `T * T` scaling assumes).",
        f"Ask for it: {fix}; the numbers change by a factor of the number of classes.",
    )


LOSS_WARNING_RULES: tuple[Rule, ...] = (
    Rule(
        "kldiv-mean",
        kldiv_mean,
        re.compile(r"^reduction: 'mean' divides the total loss by both the batch size and"),
    ),
)
