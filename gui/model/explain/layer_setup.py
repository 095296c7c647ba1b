"""Layers built for other data than they get, in the learner's names: an embedding table
one row short of the largest token id (``index out of range in self``), a recurrent layer
built for another number of features per step (``input.size(-1) must be equal to
input_size``), and attention whose width does not split into its heads (``embed_dim must
be divisible by num_heads``). The layer is named as the line calls it (``word_embeddings``,
``self.lstm``) and its constructor read from where the program built it. No torch, no Qt.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import line_tree, program_tree
from gui.model.tensor_format import format_number

_EMBEDDINGS = frozenset({"Embedding", "EmbeddingBag"})
_RECURRENT = frozenset({"LSTM", "GRU", "RNN"})
_ATTENTION = frozenset({"MultiheadAttention", "TransformerEncoderLayer",
                        "TransformerDecoderLayer", "Transformer"})  # fmt: skip


@dataclass(frozen=True)
class LayerCall:
    """``layer(arg, ...)`` on the line, with the layer's constructor where it was built."""

    layer: str  # as the line calls it: `word_embeddings`, `self.lstm`
    argument: str  # its first argument, as written
    kind: str  # the constructor's class name (`Embedding`), "" when not found
    built: ast.Call | None  # the constructor call
    program: str
    rest: tuple[str, ...] = ()  # its other arguments, as written (an RNN's starting state)


def _written(text: str, node: ast.AST) -> str:
    return " ".join((ast.get_source_segment(text, node) or ast.unparse(node)).split())


def _class_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _constructor(program: str, layer: str) -> ast.Call | None:
    """The last ``layer = nn.X(...)`` (also ``self.layer = ...``) the program writes."""
    tree = program_tree(program)
    found = None
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Call)
            and any(_written(program, t) == layer for t in node.targets)
        ):
            found = node.value
    return found


def layer_calls(f: Found, kinds: frozenset[str]) -> LayerCall | None:
    """The call on the failing line of a layer the program built as one of ``kinds``."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    program = f.context.program or ""
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not node.args:
            continue
        layer = _written(text, node.func)
        built = _constructor(program, layer)
        if built is not None and _class_name(built) in kinds:
            first, *rest = (_written(text, a) for a in node.args)
            return LayerCall(layer, first, _class_name(built), built, program, tuple(rest))
    return None


def _argument(call: ast.Call, program: str, keyword: str, position: int) -> str | None:
    """The constructor's argument ``keyword`` (or at ``position``), as written."""
    for k in call.keywords:
        if k.arg == keyword:
            return _written(program, k.value)
    if len(call.args) > position and not isinstance(call.args[position], ast.Starred):
        return _written(program, call.args[position])
    return None


def _number(program: str, text: str | None) -> int | None:
    """``text`` as a whole number: a literal, or a name the program binds once to one."""
    if text is None:
        return None
    if text.isdigit():
        return int(text)
    tree = program_tree(program)
    values = [
        node.value.value
        for node in (ast.walk(tree) if tree is not None else ())
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == text for t in node.targets)
        and isinstance(node.value, ast.Constant)
    ]
    if len(values) == 1 and type(values[0]) is int:
        return int(values[0])
    return None


def embedding_index(f: Found) -> Advice:
    """``index out of range in self``: an embedding (or ``index_select``) asked for a row
    past its last."""
    call = layer_calls(f, _EMBEDDINGS)
    if call is None or call.built is None:
        return Advice(
            f"An index given to an indexing operation on {f.where} (an embedding lookup, "
            "`index_select`, `gather`...) is past the end of the dimension it picks from: "
            "indices count from 0, so a dimension of size n accepts 0 to n-1.",
            "Print the largest index and the size it indexes (`print(idx.max(), t.shape)`) "
            "and make the indices fit, or the table big enough.",
        )
    rows = _argument(call.built, call.program, "num_embeddings", 0) or "num_embeddings"
    count = _number(call.program, rows)
    if count is None:
        size, last, past = f"`{rows}`", f"`{rows} - 1`", f"`{rows}` or more"
    else:
        shown = str(count) if rows == str(count) else f"`{rows}` = {count}"
        size, last, past = shown, str(count - 1), f"{count} or more"
    return Advice(
        f"`{call.layer}` is an embedding table of {size} rows (built as `nn.{call.kind}("
        f"{rows}, ...)`), so the token ids it looks up must be 0 to {last}; "
        f"`{call.argument}` holds an id of {past} (or a negative one). Ids "
        "numbered from 1, or a padding or unknown-word id added after the vocabulary was "
        "counted, need one row more.",
        f"Print both: `print({call.argument}.max(), {call.layer}.num_embeddings)`; then "
        f"build the table with a row for every id, `nn.{call.kind}({rows} + 1, ...)` when "
        f"the ids count from 1 (or `{call.argument}.max().item() + 1` rows), or renumber "
        "the ids from 0.",
    )


def rnn_input_size(f: Found) -> Advice:
    """``input.size(-1) must be equal to input_size. Expected 10, got 8``."""
    want, got = f.group("want"), f.group("got")
    call = layer_calls(f, _RECURRENT)
    layer = f"`{call.layer}`" if call is not None else "The recurrent layer"
    given = f"`{call.argument}`" if call is not None else "its input"
    kind = call.kind if call is not None else "LSTM"
    return Advice(
        f"{layer} was built with `input_size={want}`: it expects {want} features at each "
        f"time step (the last dimension of its input), but {given} has {got} there.",
        f"Build the layer for what arrives, `nn.{kind}(input_size={got}, ...)`, or give it "
        f"{want} features per step. Check with `print({given.strip('`')}.shape)`: with "
        "`batch_first=True` the input is (batch, steps, features), otherwise (steps, "
        "batch, features).",
    )


def _given(parameter: str, written: str | None, value: int | None) -> str:
    """``d_model`` as the line gave it: `` `d_model` = 30 ``, `` `d_model` (`width`, 30) ``."""
    if written is None:
        return f"`{parameter}`"
    if written == parameter or written == str(value):
        return f"`{parameter}`" + (f" = {value}" if value is not None else "")
    return f"`{parameter}` (`{written}`" + (f", {value})" if value is not None else ")")


def heads_divide(f: Found) -> Advice:
    """``embed_dim must be divisible by num_heads`` (MultiheadAttention, also inside a
    TransformerEncoderLayer)."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    program = f.context.program or ""
    dim_text = heads_text = None
    width, heads_name = "embed_dim", "num_heads"
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and _class_name(node) in _ATTENTION:
            if _class_name(node) != "MultiheadAttention":
                width, heads_name = "d_model", "nhead"  # the transformer layers' names
            dim_text = _argument(node, text, width, 0)
            heads_text = _argument(node, text, heads_name, 1)
            break
    dim, heads = _number(program, dim_text), _number(program, heads_text)
    explanation = (
        f"Multi-head attention splits each vector of width {_given(width, dim_text, dim)} "
        f"into {_given(heads_name, heads_text, heads)} equal slices, one per head, so the "
        "width must be a whole multiple of the number of heads."
    )
    if dim is not None and heads:
        choices = [str(h) for h in range(1, dim + 1) if dim % h == 0][:8]
        return Advice(
            explanation + f" {dim} is not: {dim} / {heads} = {format_number(dim / heads)}.",
            f"Use a number of heads that divides {dim} ({', '.join(choices)}), or a width "
            f"that is a multiple of {heads} (e.g. {heads * max(1, round(dim / heads))}).",
        )
    return Advice(
        explanation,
        "Use a number of heads that divides the width, or a width that is a multiple of "
        f"the number of heads (`{width} % {heads_name} == 0`).",
    )


EMBEDDING_INDEX = r"^index out of range in self"
RNN_INPUT_SIZE = (
    r"input\.size\(-1\) must be equal to input_size\. Expected (?P<want>\d+), "
    r"got (?P<got>\d+)"
)
HEADS_DIVIDE = r"embed_dim must be divisible by num_heads"
