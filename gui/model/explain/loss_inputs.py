"""What a loss or a layer was handed that it cannot read, in the learner's names: raw scores
given to ``nn.BCELoss`` (which takes probabilities), whole-number labels of the same shape
as the scores given to ``nn.CrossEntropyLoss`` (read as class probabilities), a recurrent
layer's starting state of the wrong shape, and token ids that are not whole numbers. No
torch, no Qt.
"""

from __future__ import annotations

import ast

from gui.model.explain.layer_setup import layer_calls
from gui.model.explain.rule_types import Advice, Found
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
