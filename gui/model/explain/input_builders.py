"""Builders for torch's errors about what an operation was given: shapes that do not
broadcast or multiply, dtypes that differ, a Linear or Conv layer that does not fit its
input, loss targets of the wrong kind, size or range, a dimension out of range, a view
that does not fit, a tensor of many numbers used as a condition, an optimizer given no
parameters. Each names the learner's own tensors and layers (read from their line and
program: :mod:`.operands`, :mod:`.source`) and gives one fix that runs. The rows that
use them are in :data:`.torch_rules.TORCH_RULES`. No torch and no Qt.
"""

from __future__ import annotations

import ast
import re

import numpy as np

from gui.model.explain.dtype_hints import float32_statement
from gui.model.explain.operands import (
    batch_merging_reshapes,
    conv_layers,
    dtype_words,
    elementwise_operands,
    from_numpy_calls,
    layer_call,
    linear_layers,
    product_dtypes,
    product_operands,
)
from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import (
    TORCH_SIZE,
    assignments,
    condition_text,
    first_call_args,
    line_names,
    line_tree,
    list_attributes,
    made_before,
    numel,
    operand,
    parse_shape,
    shape_text,
    tensor_attributes,
    tensor_operand,
)
from gui.model.explain.written import (
    view_receiver,
)


def broadcast(f: Found) -> Advice:
    a, b, dim = f.group("a"), f.group("b"), f.group("dim")
    sides = elementwise_operands(f.context.source_line)
    here = f"Here dimension {dim} has size {a} on one side and {b} on the other."
    printed = "print(t.shape)"
    if sides is not None:
        # torch's "tensor a" and "tensor b" are the left and right operands, in order.
        here = (
            f"Here dimension {dim} (counted as torch lines them up) has size {a} in `{sides[0]}` "
            f"and {b} in `{sides[1]}`."
        )
        printed = f"print({sides[0]}.shape, {sides[1]}.shape)"
    return Advice(
        "Elementwise operations line the two shapes up from the right; in each dimension the "
        f"sizes must be equal, or one of them 1 (then it is repeated: broadcasting). {here}",
        f"Print the shapes used on this line (`{printed}`) and make dimension "
        f"{dim} agree: slice or reshape one tensor, or add a size-1 dimension with "
        "`t.unsqueeze(...)` so it can broadcast.",
    )


def matmul(f: Found) -> Advice:
    r1, c1, r2, c2 = (int(f.group(k)) for k in ("r1", "c1", "r2", "c2"))
    line = (f.context.source_line or "").strip()
    named = product_operands(line)
    if named is None and layer_call(line) is not None:
        return _linear_shapes(f, r1, c1, r2, c2)
    a, b = named or ("A", "B")
    product = f"{a} @ {b}"
    whole = product in line and line.count(product) == 1

    def written(new: str) -> str:
        return line.replace(product, new) if whole else new

    if named is None and c1 == c2:
        # No one product on the line (`x @ W1 @ W2`, a function call): no names to guess.
        fix = (
            f"Transpose the second side with `.T`: ({r1}x{c1}) @ ({c2}x{r2}) fits; print the "
            "shapes of the tensors on this line to see which one it is."
        )
    elif named is None:
        fix = (
            f"Make the inner sizes agree ({c1} vs {r2}): transpose or reshape one side; "
            "print the shapes of the tensors on this line first."
        )
    elif c1 == c2:
        fix = f"Transpose the second: `{written(f'{a} @ {b}.T')}` is ({r1}x{c1}) @ ({c2}x{r2})."
    elif r1 == r2:
        fix = f"Transpose the first: `{written(f'{a}.T @ {b}')}` is ({c1}x{r1}) @ ({r2}x{c2})."
    else:
        fix = f"Reshape one side so the inner sizes agree ({c1} vs {r2}); print both shapes first."
    # mat1 is the first side as a matrix (a batch of them is flattened into rows), mat2 the
    # second: the program's own names, when the line shows one product.
    sides = (
        f"Here `{a}` enters as a {r1}x{c1} matrix and `{b}` as a {r2}x{c2} matrix. "
        if named
        else ""
    )
    return Advice(
        f"{sides}A matrix product ({r1}x{c1}) @ ({r2}x{c2}) pairs each row of the first with "
        f"each column of the second, so the first's columns ({c1}) must equal the second's "
        f"rows ({r2}).",
        fix,
    )


def _linear_shapes(f: Found, r1: int, c1: int, r2: int, c2: int) -> Advice:
    """A layer call failed inside: a Linear layer made for ``r2`` input features (its weight,
    transposed, is ``r2 x c2``) received rows of ``c1`` numbers."""
    made = linear_layers(f.context.program, r2, c2)
    known = made[0].target if len(made) == 1 else None
    call = layer_call(f.context.source_line, prefer=known)
    assert call is not None
    layer = "a Linear layer"
    if len(made) == 1:
        bound = f" (`{made[0].target}`)" if made[0].target else ""
        layer = f"`{made[0].text}`{bound} on line {made[0].line}"
    return Advice(
        f"Inside `{call.layer}({call.argument})`, {layer} is made for {r2} input features "
        f"(`in_features={r2}`, {c2} outputs), but what reached it has {c1} numbers in each "
        f"row ({r1} rows of {c1}). A Linear layer multiplies each row by its weight, so the "
        "row's length must equal its in_features.",
        f"Make that layer take what arrives: `nn.Linear({c1}, {c2})` (in_features is the size "
        f"of the last dimension reaching it; print `{call.argument}.shape` and the shapes "
        "between the layers), or reshape the input to rows of "
        f"{r2}.",
    )


_DTYPE_WORDS = re.compile(r"\b(float|double|half|bfloat16|long|int|short|byte|bool)\b", re.I)


_FROM_NUMPY = re.compile(r"from_numpy|\bnp\.|numpy|float64|double")


def _from_numpy(f: Found, text: str, line: int) -> bool:
    """Whether the statement makes float64 data from NumPy, itself or through a name it reads
    (``batch = torch.tensor(arr)`` after ``arr = np.random.randn(...)``)."""
    if _FROM_NUMPY.search(text):
        return True
    for name in line_names(text.split("=", 1)[-1]):
        source = made_before(f.context.program, name, line - 1)
        if source is not None and _FROM_NUMPY.search(source.text):
            return True
    return False


def dtype(f: Found) -> Advice:
    found = list(dict.fromkeys(w.capitalize() for w in _DTYPE_WORDS.findall(f.message)))
    names = f" ({' and '.join(found)})" if len(found) >= 2 else ""
    fix = (
        "Convert one side so they match, usually to float32: `t.float()` (or create it with "
        "`dtype=torch.float32`)."
    )
    if re.search(r"Found dtype Long but expected Float", f.message) and first_call_args(
        f.context.source_line
    ):
        pred, y = _loss_args(f)
        fix = (
            f"This loss compares probabilities with targets as floats (0. and 1.): "
            f"`{_call_with(f, pred, f'{y}.float()')}`."
        )
    elif "Double" in found:
        for name in line_names(f.context.source_line):
            made = made_before(f.context.program, name, f.line)
            if made is None or made.value is None or not _from_numpy(f, made.text, made.line):
                continue
            if ".double()" in made.text:
                fix = (
                    f"`{name}` was made float64 with `.double()` on line {made.line}: drop it "
                    f"(`{made.text.replace('.double()', '', 1)}`), or convert the other side "
                    "with `.double()` too."
                )
                break
            value = operand(f.context.program, made.value)
            fix = (
                f"Convert `{name}` to float32 where it is made, line {made.line}: "
                f"`{float32_statement(made, value)}` (NumPy arrays are float64 unless told "
                "otherwise)."
            )
            break
    sides, fix = _product_sides(f, fix)
    return Advice(
        f"Both operands of this operation must have the same dtype, but they differ{names}. "
        f"{sides}torch's default is Float (float32); Double (float64) usually comes from NumPy "
        "arrays, `torch.from_numpy` or `dtype=torch.float64`.",
        fix,
    )


_WHOLE_NUMBERS = frozenset({"Long", "Int", "Short", "Byte", "Char", "Bool"})


def _product_sides(f: Found, fix: str) -> tuple[str, str]:
    """Name the two sides of a matrix product whose dtypes differ (``mat1``/``m1`` first):
    ``a @ b`` on the line, or a layer's input and its weights; and, for float64 data that
    reaches a layer, the fix where it comes from ``torch.from_numpy``."""
    line = f.context.source_line
    operands = product_operands(line)
    dtypes = product_dtypes(f.message, product=operands is not None)
    if dtypes is None:
        return "", fix
    first, second = dtypes
    if operands is not None:
        a, b = operands
        return (
            f"`{a}` is {dtype_words(first)} and `{b}` is {dtype_words(second)}. ",
            fix,
        )
    call = layer_call(line)
    # The first layer a value reaches on the line fails first when the input is the odd one
    # out; a weight that is odd may belong to any layer of the line.
    if call is None or (call.calls > 1 and first == "Float"):
        return "", fix
    sides = (
        f"`{call.argument}` is {dtype_words(first)} but the weights of `{call.layer}` are "
        f"{dtype_words(second)}. "
    )
    if "where it is made" in fix or "was made float64" in fix:
        return sides, fix
    if first in _WHOLE_NUMBERS:
        return sides, (
            f"A layer computes with fractions: `{call.layer}({call.argument}.float())`; if "
            f"`{call.argument}` holds token or class ids, look them up with `nn.Embedding` "
            "instead."
        )
    if first == "Double" and second == "Float":
        made = list(dict.fromkeys(text for _, text in from_numpy_calls(f.context.program)))
        where = ""
        if len(made) == 1:
            lines = [n for n, text in from_numpy_calls(f.context.program) if text == made[0]]
            where = f" (line {lines[0]}: `{made[0]}.float()`)"
        fix = (
            f"Convert the data to float32 where it is made{where}, or on this line: "
            f"`{call.layer}({call.argument}.float())`."
        )
    elif first == "Float" and second == "Double":
        fix = (
            f"Give the layer float32 weights: `{call.layer}.float()` (or drop the `.double()` "
            f"that made them float64), or the input float64: `{call.argument}.double()`."
        )
    return sides, fix


def ambiguous_bool(f: Found) -> Advice:
    cond = condition_text(f.context.source_line)
    what = f"`{cond}`" if cond else "the condition"
    pick = (
        f"`torch.where({cond}, a, b)` (a where it holds, b elsewhere)"
        if cond
        else "`torch.where(condition, a, b)`"
    )
    ask = f"`({cond}).any()` or `({cond}).all()`" if cond else "`.any()` or `.all()`"
    return Advice(
        f"Python's `if`/`while`/`and`/`or` need one True or False, but {what} is a tensor "
        "with one True/False per element, and Python will not guess whether you mean "
        "'any of them' or 'all of them'.",
        f"To decide element by element, compute both results and pick with {pick}; to ask "
        f"about the whole tensor, write {ask}.",
    )


def _loss_args(f: Found) -> tuple[str, str]:
    """The predictions and the targets as the loss call on the line names them."""
    return first_call_args(f.context.source_line) or ("output", "target")


def class_target_dtype(f: Found) -> Advice:
    pred, y = _loss_args(f)
    return Advice(
        "`CrossEntropyLoss` and `NLLLoss` take targets as class indices, one whole number "
        f"per example (dtype Long: 0, 1, 2...), but `{y}` holds floats. (Targets of the "
        f"same shape as `{pred}` would be read as class probabilities instead.)",
        f"Pass the classes as integers: `{_call_with(f, pred, f'{y}.long()')}`, or make "
        f"`{y}` with `dtype=torch.long`.",
    )


def _call_with(f: Found, pred: str, y: str) -> str:
    """The line's loss call with its two arguments replaced (or a generic call)."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and len(node.args) >= 2:
                func = ast.get_source_segment(text, node.func) or ast.unparse(node.func)
                return f"{func}({pred}, {y})"
    return f"criterion({pred}, {y})"


def class_target_shape(f: Found) -> Advice:
    pred, y = _loss_args(f)
    return Advice(
        "`CrossEntropyLoss` (and `F.cross_entropy`, `NLLLoss`) want the targets as a 1-d "
        f"tensor of class indices, one per example, shape [N]; `{y}` has more dimensions: "
        "a column of shape [N, 1] (labels taken from a table), or one-hot rows [N, C].",
        f"For a column of labels drop the extra dimension: "
        f"`{_call_with(f, pred, f'{y}.squeeze(1)')}`; for one-hot rows take the index of the "
        f"1 in each row: `{y}.argmax(dim=1)`.",
    )


def class_target_range(f: Found) -> Advice:
    pred, y = _loss_args(f)
    t = f.group("target")
    if int(t) < 0:
        return Advice(
            f"`{y}` holds class indices, which count from 0, and it has {t}: a class index "
            "is never negative.",
            f"Map every label in `{y}` to 0 to C-1 before calling the loss (C: the number of "
            "classes).",
        )
    return Advice(
        f"`{y}` holds class indices, and a class index must be 0 to C-1, where C is the "
        f"number of scores per example in `{pred}` (its last dimension). {t} is past the "
        f"end, so `{pred}` has at most {t} classes.",
        f"If your labels count from 1, shift them: `{_call_with(f, pred, f'{y} - 1')}`; "
        f"otherwise give the last layer one output per class (at least {int(t) + 1} here).",
    )


def softmax_dim(f: Found) -> Advice:
    fn = f.group("fn") or "softmax"
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    written = None
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name == fn and not any(k.arg == "dim" for k in node.keywords):
            call = ast.get_source_segment(text, node)
            if call and call.endswith(")"):
                written = f"{call[:-1]}, dim=-1)"
            break
    fix = (
        f"Say which dimension: `{written}` (the last one: each row sums to 1)"
        if written
        else f"Pass `dim=`: `F.{fn}(x, dim=-1)`, or `nn.Softmax(dim=1)` in a model"
    )
    return Advice(
        f"`{fn}` makes numbers along one dimension sum to 1, and no `dim=` was given, so torch "
        "guessed it (dimension 0 for 1-d and 3-d tensors, 1 otherwise). For a batch the "
        "guess can normalise across examples instead of across classes, silently.",
        fix + "; the numbers stay the same when the guess was right.",
    )


def volatile(f: Found) -> Advice:
    return Advice(
        "`Variable(..., volatile=True)` is how PyTorch 0.3 turned gradients off for inference; "
        "it does nothing today, so this tensor is treated like any other.",
        "Drop `volatile=True` (and `Variable`: tensors do it all now) and put the lines that "
        "need no gradients under `with torch.no_grad():`.",
    )


def conv_channels(f: Found) -> Advice:
    weight, given = parse_shape(f.group("weight")), parse_shape(f.group("input"))
    want, got = int(f.group("want")), int(f.group("got"))
    x = tensor_operand(f.context.source_line) or "x"
    layer = (
        f"The layer was built for {want} input channels (weight {shape_text(weight)}: "
        "out channels, in channels, kernel height, kernel width)"
    )
    if len(given) == 4 and given[-1] == want:
        return Advice(
            f"{layer}, and convolutions read images as [batch, channels, height, width]. "
            f"The input has shape {shape_text(given)}: channels last, as images come from "
            "NumPy, PIL or matplotlib, so torch took the height as the channels.",
            f"Move the channels to the front: `{x}.permute(0, 3, 1, 2)` (shape "
            f"[{given[0]}, {given[3]}, {given[1]}, {given[2]}]).",
        )
    made = conv_layers(f.context.program, want, int(weight[0]) if weight else -1)
    if len(made) == 1:
        bound = f" (`{made[0].target}`)" if made[0].target else ""
        layer = (
            f"`{made[0].text}`{bound} on line {made[0].line} was built for {want} input "
            f"channels (weight {shape_text(weight)}: out channels, in channels, kernel height, "
            "kernel width)"
        )
    call = layer_call(f.context.source_line)
    # The line's input is what reached the layer only if the line calls one layer.
    first = call is None or call.calls == 1
    other = f", or give `{x}` {want} channels" if first else ""
    return Advice(
        f"{layer}, but the input has {got} channels (shape {shape_text(given)}, read as "
        "[batch, channels, height, width]).",
        f"Make them agree: build the layer with `in_channels={got}` (the previous layer's "
        f"`out_channels`){other}.",
    )


def conv_input_dims(f: Found) -> Advice:
    op = f.group("op")
    size = parse_shape(f.group("size"))
    x = tensor_operand(f.context.source_line) or "x"
    small, big = int(f.group("small")), int(f.group("big"))
    if len(size) == small - 1:
        fix = (
            f"Add the missing dimension: `{x}.unsqueeze(0)` (one channel: shape "
            f"[1, {', '.join(map(str, size))}]); for a batch of such images, "
            f"`{x}.unsqueeze(1)`."
        )
    else:
        fix = f"Reshape `{x}` to [batch, channels, ...] with {big} dimensions; print its shape."
    return Advice(
        f"`{op}` takes {big} dimensions (batch, channels, then the image's) or {small} for a "
        f"single example (channels first); `{x}` has {len(size)}: {shape_text(size)}.",
        fix,
    )


def dim_range(f: Found) -> Advice:
    hi, got = int(f.group("hi")), f.group("got")
    dims = hi + 1
    x = tensor_operand(f.context.source_line) or "the tensor"
    named = f"`{x}`" if x != "the tensor" else x
    numbered = (
        "dimension 0 (or -1)"
        if dims == 1
        else f"numbered 0 to {hi} (or -1 to -{dims} from the end)"
    )
    return Advice(
        f"{named} has {dims} dimension{'s' if dims != 1 else ''}: {numbered}, so dimension "
        f"{got} does not exist. Code written for a batch "
        "(dim=1: one row per example) fails on a single example that has no batch dimension.",
        f"Use `dim=-1` (the last dimension, whatever the count), or give {named} its batch "
        f"dimension: `{x if x != 'the tensor' else 't'}.unsqueeze(0)`.",
    )


def view_stride(f: Found) -> Advice:
    line = (f.context.source_line or "").strip()
    found = view_receiver(line)
    if found is None:
        x = tensor_operand(line, ("view",)) or "t"
        fixed = line.replace(".view(", ".reshape(") if ".view(" in line else f"{x}.reshape(...)"
        contiguous = f"{x}.contiguous().view(...)"
    else:
        x, arguments = found
        fixed = line.replace(f"{x}.view(", f"{x}.reshape(", 1)
        contiguous = f"{x}.contiguous().view({arguments})"
    # The line shows the reorder (`batch.transpose(1, 2).view(...)`), or it happened where
    # the tensor was made: say only what is sure.
    if re.search(r"\.(t|transpose|permute|swapaxes|movedim)\(|\.(T|mT)\b", x):
        why = f"`{x}` reorders the dimensions without moving the numbers"
    else:
        why = (
            f"the numbers of `{x}` are not stored in that order (it is, or was made from, a "
            "transposed, permuted, expanded or sliced tensor)"
        )
    return Advice(
        f"`.view()` only relabels the numbers in memory, so it needs them stored in order; {why}.",
        f"Use `.reshape`, which copies when it has to: `{fixed}`; or `{contiguous}`.",
    )


def view_size(f: Found) -> Advice:
    shape_words, size = f.group("shape"), int(f.group("size"))
    asked = [int(v) for v in shape_words.replace(" ", "").split(",") if v]
    known = numel(tuple(v for v in asked if v != -1))
    x = tensor_operand(f.context.source_line, ("view", "reshape")) or "x"
    if -1 in asked and known:
        what = f"`-1` means 'whatever is left', so {size} must divide by {known}, and it does not"
    else:
        what = f"[{shape_words}] holds {known} numbers"
    return Advice(
        f"`{x}` holds {size} numbers, and the new shape must hold exactly as many: {what}. "
        "Before a Linear layer this usually means the flattened size is not what the layer "
        "was built for.",
        f"Keep one row per example and let torch count the rest: `{x}.view({x}.size(0), -1)` "
        f"(or `torch.flatten({x}, 1)`), print that shape, and build the next `nn.Linear` with "
        "its last number as `in_features`.",
    )


def batch_size(f: Found) -> Advice:
    pred, y = _loss_args(f)
    given, target = f.group("given"), f.group("target")
    if _flattened_scores_only(f, pred, y):
        # Karpathy's `logits.view(B * T, C)` with `targets` left (B, T): torch's "target
        # batch_size" is the targets' first dimension, not their number of labels.
        return Advice(
            f"The loss pairs each row of `{pred}` ({given} rows) with the label in the same "
            f"row of `{y}`, which has {target} rows (its first dimension). `{pred}` is reshaped "
            f"to rows of scores, but `{y}` is not: when it holds a label per position "
            "(a language model's targets of shape (B, T)), its rows are not one label each.",
            f"Flatten the labels the same way: `{y}.view(-1)` (or `{y}.reshape(-1)`), so "
            f"there is one label per row of `{pred}`.",
        )
    merged = batch_merging_reshapes(f.context.program)
    if len(merged) == 1:
        line, text, tensor, fixed = merged[0]
        return Advice(
            f"The loss pairs each row of `{pred}` ({given} rows) with the label(s) in the same "
            f"row of `{y}`, which has {target} rows (its first dimension). Line {line} "
            f"(`{text}`) reshapes `{tensor}` with `-1` first: "
            "torch fills the batch dimension with whatever is left, so when the other sizes "
            "do not match one example, examples are merged or split and the counts stop "
            "agreeing.",
            f"Keep the batch size and let torch count the rest: `{fixed}` on line {line}, "
            "and set the next Linear's `in_features` to the size it prints.",
        )
    return Advice(
        f"The loss pairs each row of `{pred}` ({given} rows) with the label(s) in the same "
        f"row of `{y}`, which has {target} rows (its first dimension). A reshape such as "
        "`x.view(-1, n)` with the wrong n before the model's Linear layers merges or splits "
        "examples, so the counts stop agreeing.",
        "Reshape with the batch size kept: `x.view(x.size(0), -1)` (or `torch.flatten(x, 1)`), "
        "and set the next Linear's `in_features` to the printed size.",
    )


_RESHAPES = re.compile(r"\.(?:view|reshape|flatten)\(|\bflatten\(")
# Rows of one position each: `view(B * T, C)`, `view(-1, logits.size(-1))` (not `view(-1, 2)`,
# which as likely splits examples).
_POSITION_ROWS = re.compile(r"\.(?:view|reshape)\([^()]*(?:\*|\bsize\(-1\)|\bshape\[-1\])")


def _flattened_scores_only(f: Found, pred: str, y: str) -> bool:
    """``pred`` is reshaped (on the failing line or where it is made) and ``y`` is not, and
    the reshape makes rows of one position each (``view(B * T, C)``): a language model's
    scores flattened without its targets."""
    given, target = int(f.group("given") or 0), int(f.group("target") or 0)
    if not (given > target > 0 and given % target == 0) or not y.isidentifier():
        return False

    def reshaped(name: str, how: re.Pattern[str]) -> bool:
        if how.search(name):
            return True
        if not name.isidentifier():
            return False
        return any(how.search(m.text) for m in assignments(f.context.program, name))

    return reshaped(pred, _POSITION_ROWS) and not reshaped(y, _RESHAPES)


def empty_parameters(f: Found) -> Advice:
    lists = list_attributes(f.context.program)
    if lists:
        attr, line, text = lists[0]
        holder = "ModuleDict" if "{" in text.split("=", 1)[1] else "ModuleList"
        return Advice(
            f"`{attr}` (line {line}) is a plain Python "
            f"{'dict' if holder == 'ModuleDict' else 'list'}: nn.Module registers a layer only "
            "when it is an attribute itself or inside nn.ModuleList/nn.ModuleDict/"
            "nn.Sequential, so `parameters()` finds nothing to optimize.",
            f"Wrap it: `{attr} = nn.{holder}(...)` around the same layers.",
        )
    raw = tensor_attributes(f.context.program)
    if raw:
        attr, line, text, value = raw[0]
        plain = re.sub(r",?\s*requires_grad\s*=\s*True", "", value)
        return Advice(
            f"`{attr}` (line {line}: `{text}`) is a plain tensor: nn.Module registers a "
            "tensor as a parameter only when it is wrapped in `nn.Parameter`, so "
            "`parameters()` finds nothing to optimize (`requires_grad=True` alone does not "
            "register it).",
            f"Wrap it: `{attr} = nn.Parameter({plain})` (a Parameter requires grad by "
            "itself), and the same for every such tensor.",
        )
    return Advice(
        "The optimizer was given no parameters: the model's `parameters()` found none. Layers "
        "count only as attributes (`self.fc = nn.Linear(...)`) or inside nn.ModuleList/"
        "nn.Sequential, and raw tensors only when wrapped in `nn.Parameter`.",
        "Register the layers that way (and call `super().__init__()` first), then pass "
        "`model.parameters()`.",
    )


TARGET_PAIR = (
    rf"[Tt]arget size \({TORCH_SIZE.format('target')}\).*?input size "
    rf"\({TORCH_SIZE.format('input')}\)"
)


def target_size(f: Found) -> Advice:
    target, given = parse_shape(f.group("target")), parse_shape(f.group("input"))
    args = first_call_args(f.context.source_line)
    pred, y = args if args is not None else ("output", "target")
    if given[:-1] == target and given[-1:] == (1,):
        fix = (
            f"Give them the same shape: `{y}.unsqueeze(1)` (shape {shape_text(given)}) or "
            f"`{pred}.squeeze(1)` (shape {shape_text(target)}) in that call."
        )
    elif target[:-1] == given and target[-1:] == (1,):
        fix = (
            f"Give them the same shape: `{y}.squeeze(1)` (shape {shape_text(given)}) or "
            f"`{pred}.unsqueeze(1)` (shape {shape_text(target)}) in that call."
        )
    else:
        fix = f"Reshape one of them so both are {shape_text(given)}: print both shapes first."
    try:
        both: str | None = shape_text(tuple(np.broadcast_shapes(given, target)))
    except ValueError:
        both = None  # they do not broadcast: the loss stops right after this warning
    if f.exception.endswith("Warning") and both is not None:
        result = (
            f"The loss broadcasts them against each other (to {both}: every prediction "
            "paired with every target), so it runs, but its value and gradients are wrong."
        )
    elif f.exception.endswith("Warning"):
        result = (
            "They do not even broadcast against each other, so the loss stops right after "
            "this warning with an error about the sizes."
        )
    else:
        result = "This loss compares them element by element, so it stops."
    one_extra = (given[:-1] == target and given[-1:] == (1,)) or (
        target[:-1] == given and target[-1:] == (1,)
    )
    alike = (
        "the same numbers of values, but one has an extra dimension of size 1"
        if one_extra
        else "shapes that differ"
    )
    return Advice(
        f"The loss got predictions `{pred}` of shape {shape_text(given)} and targets `{y}` of "
        f"shape {shape_text(target)}: {alike}. {result}",
        fix,
    )
