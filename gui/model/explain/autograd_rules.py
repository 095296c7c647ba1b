"""More of torch's autograd messages in plain words: ``torch.autograd.grad``'s complaints, the
optimizer's "non-leaf", inference tensors, ``requires_grad`` on a computed tensor, and
``.backward()`` called on a Python number.

The rows extend :data:`gui.model.explain.torch_rules.TORCH_RULES` (see
:mod:`gui.model.explain.messages` for the order of lookup); the builders read the learner's
own line and program (:mod:`gui.model.explain.source`, :mod:`gui.model.explain.graph_cuts`)
to name their variables. No torch and no Qt.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.custom_functions import (
    custom_grad_count,
    custom_grad_shape,
    gradcheck_precision,
)
from gui.model.explain.grad_switches import flag_receiver
from gui.model.explain.graph_cuts import history
from gui.model.explain.hooked_inplace import hooked_inplace
from gui.model.explain.rule_types import Advice, Found, Rule, rule_table
from gui.model.explain.source import (
    Made,
    assignments,
    attribute_receiver,
    inplace_target,
    leaf_made_late,
    line_names,
    line_tree,
    made_before,
    no_grad_block,
    program_tree,
    segment,
)
from gui.model.explain.written import (
    attribute_made_late,
    inplace_written,
    number_taken,
    rebound_from_itself,
)


def _grad_call(source: str | None) -> tuple[str, list[str], str] | None:
    """``torch.autograd.grad(outputs, inputs, ...)`` on the line: the outputs and each input
    as written, and the call itself."""
    tree = line_tree(source)
    text = (source or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute | ast.Name):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        args = {k.arg: k.value for k in node.keywords}
        outputs = node.args[0] if node.args else args.get("outputs")
        inputs = node.args[1] if len(node.args) > 1 else args.get("inputs")
        if name != "grad" or outputs is None or inputs is None:
            continue
        items = inputs.elts if isinstance(inputs, ast.List | ast.Tuple) else [inputs]
        written = [ast.get_source_segment(text, i) or ast.unparse(i) for i in items]
        call = ast.get_source_segment(text, node) or ast.unparse(node)
        return ast.get_source_segment(text, outputs) or ast.unparse(outputs), written, call
    return None


def _with_keyword(call: str, keyword: str) -> str:
    return f"{call[:-1]}, {keyword})" if call.endswith(")") else call


def _unused_input(f: Found) -> Advice:
    found = _grad_call(f.context.source_line)
    out, inputs, call = found if found else ("loss", ["w"], "torch.autograd.grad(loss, w)")
    index = int(f.group("index") or 0)
    line = (f.context.source_line or "").strip() or call
    unused_kw = "allow_unused=True"
    unused = inputs[index] if index < len(inputs) else None
    which = f"`{unused}`" if unused else "one of the inputs"
    return Advice(
        f"`torch.autograd.grad` computes d`{out}`/d(input) for each input you list, by "
        f"walking `{out}`'s graph back to them. {which} is not in that graph: `{out}` was "
        "not computed from it, so its gradient would be zero everywhere, and torch stops in "
        "case you listed the wrong tensor.",
        f"If that is expected, say so: `{line.replace(call, _with_keyword(call, unused_kw), 1)}` "
        "returns "
        f"None for {which} (add `materialize_grads=True` for zeros); otherwise check that "
        f"`{out}` really uses {which}.",
    )


def _input_no_grad(f: Found) -> Advice:
    found = _grad_call(f.context.source_line)
    out, inputs, _call = found if found else ("loss", ["x"], "")
    leaves = set(f.context.leaves)
    suspects = [i for i in inputs if i in f.context.constants] or [
        i for i in inputs if i not in leaves
    ]
    name = suspects[0] if suspects else (inputs[0] if inputs else "x")
    made = made_before(f.context.program, name, f.line)
    where = f" on line {made.line} (`{made.text}`)" if made is not None else ""
    return Advice(
        f"`torch.autograd.grad` can only differentiate with respect to tensors that require "
        f"grad, because autograd records only their operations. `{name}` was made{where} "
        "without `requires_grad=True`, so it is just data to autograd.",
        f"Ask for its gradient before computing `{out}`: `{name}.requires_grad_()` right after "
        f"`{name}` is made (or create it with `requires_grad=True`).",
    )


def _optimize_non_leaf(f: Found) -> Advice:
    for name in line_names(f.context.source_line):
        late = leaf_made_late(f.context.program, name, f.line)
        if late is not None:
            made, fixed = late
            return Advice(
                "An optimizer updates tensors in place, so it needs leaves: tensors made with "
                f"`requires_grad=True` and not computed further. `{name}` is computed: on line "
                f"{made.line} (`{made.text}`) the leaf is the tensor made with "
                f"`requires_grad=True`, and `{name}` is the result of more arithmetic on it.",
                f"Make `{name}` itself the leaf, asking for gradients after the arithmetic: "
                f"`{fixed}`.",
            )
    late_attribute = attribute_made_late(f.context.program, f.context.source_line)
    if late_attribute is not None:
        name, line, text, fixed = late_attribute
        return Advice(
            "An optimizer updates tensors in place, so it needs leaves: tensors made with "
            f"`requires_grad=True` and not computed further. `{name}` is computed: on line "
            f"{line} (`{text}`) the leaf is the tensor made with `requires_grad=True`, and "
            f"`{name}` holds the result of more arithmetic on it.",
            f"Make it the leaf itself, asking for gradients after the arithmetic: `{fixed}`.",
        )
    rebound = rebound_from_itself(f.context.program, f.context.source_line, f.line)
    if rebound is not None:
        name, line, text, fixed = rebound
        return Advice(
            "An optimizer updates tensors in place, so it needs leaves: tensors made with "
            f"`requires_grad=True` and not computed further. Line {line} (`{text}`) replaced "
            f"`{name}` with a result computed from the leaf it held, so `{name}` is no longer "
            "a leaf (the gradient would go to the old tensor).",
            f"Make the new tensor a leaf: `{fixed}` on line {line}.",
        )
    return Advice(
        "An optimizer updates tensors in place, so it needs leaves: tensors made with "
        "`requires_grad=True` (or `nn.Parameter`s) and not computed further. One of the "
        "tensors on this line was computed from another (`* 0.01`, `.to(device)`, `.cuda()`).",
        "Do the arithmetic or the move first and ask for gradients last: "
        "`w = (torch.randn(3, 1) * 0.01).requires_grad_()`.",
    )


_NUMBER_TYPES = {"float": "a Python number (float)", "int": "a Python number (int)"}


def _backward_on_number(f: Found) -> Advice:
    kind = f.group("kind")
    name = attribute_receiver(f.context.source_line, ("backward",)) or "loss"
    what = _NUMBER_TYPES.get(kind, f"a `{kind}`")
    if kind == "NoneType":
        return Advice(
            f"`{name}` is None, not a tensor: the function that computed it returns nothing "
            "(a missing `return`), or it was never assigned a loss.",
            f"Return the loss from that function (`return loss`), then call `{name}.backward()`.",
        )
    program, made = f.context.program, None
    for statement in [*history(program, name, f.line), *assignments(program, name)]:
        text = statement.text
        if re.search(r"\.item\(\)|\bfloat\(|\.tolist\(\)|np\.|\.numpy\(\)", text):
            made = statement
            break
    source = (
        f" On line {made.line} (`{made.text}`) it is built from numbers taken out of tensors; "
        "a number has no history for backward to follow."
        if made is not None
        else ""
    )
    if made is not None and ".item()" in made.text and "=" in made.text:
        running = " (a running total of tensors; or collect them and `torch.stack` them)"
        fix = (
            f"Drop `.item()` where gradients should flow: `{made.text.replace('.item()', '')}` "
            f"on line {made.line}{running if isinstance(made.node, ast.AugAssign) else ''}; "
            "take `.item()` only to print or log."
        )
        return Advice(f"`{name}` is {what}, not a tensor, so it has no `.backward()`.{source}", fix)
    if made is not None and re.search(r"np\.|\.numpy\(\)", made.text):
        fix = (
            f"Compute `{name}` with torch on the tensors themselves, without `.numpy()`: "
            "`torch.mean(...)`, `**`, `.abs()`, `.sum()` work like NumPy's and are recorded; "
            "keep NumPy for numbers you only print or plot."
        )
    else:
        total = (
            f"`{name} = {name} + batch_loss`" if name != "batch_loss" else "`total = total + loss`"
        )
        fix = (
            f"Keep `{name}` a tensor where gradients should flow: add the loss tensors "
            f"themselves (no `.item()`: {total} works from `{name} = 0`), or stack them: "
            "`torch.stack(losses).sum()`; take `.item()` only to print or log."
        )
    return Advice(f"`{name}` is {what}, not a tensor, so it has no `.backward()`.{source}", fix)


def _made_by_inference_function(
    program: str | None, source: str | None, line: int | None
) -> tuple[str, Made, str, int] | None:
    """``(name, made, function, decorator line)``: a name the line reads that the program
    made by calling its own function decorated with ``@torch.inference_mode()``."""
    tree = program_tree(program)
    if tree is None:
        return None
    decorated = {
        node.name: node.decorator_list[0].lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and node.decorator_list
        and any("inference_mode" in segment(program, d) for d in node.decorator_list)
    }
    for name in line_names(source):
        made = made_before(program, name, line)
        if made is None or made.value is None:
            continue
        for call in ast.walk(made.value):
            func = call.func if isinstance(call, ast.Call) else None
            if isinstance(func, ast.Name) and func.id in decorated:
                return name, made, func.id, decorated[func.id]
    return None


def _made_in_inference_mode(
    program: str | None, source: str | None
) -> tuple[str, int, int, str] | None:
    """``(target, block line, line, statement)``: an attribute or item the program sets
    inside a ``with torch.inference_mode():`` block (``cache.emb = ...``) that the failing
    line reads. Plain names are found through :func:`made_before` first."""
    tree = program_tree(program)
    if tree is None or not source:
        return None
    for block in ast.walk(tree):
        if not isinstance(block, ast.With) or not any(
            "inference_mode" in segment(program, item.context_expr) for item in block.items
        ):
            continue
        for node in (n for stmt in block.body for n in ast.walk(stmt)):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target = node.targets[0]
            if not isinstance(target, ast.Attribute | ast.Subscript):
                continue
            written = segment(program, target)
            if re.search(rf"(?<![\w.]){re.escape(written)}(?![\w(])", source):
                return written, block.lineno, node.lineno, segment(program, node)
    return None


def _many_to_number(f: Found) -> Advice:
    """``float(t)``, ``int(t)`` or ``t.item()`` on a tensor of several numbers."""
    found = number_taken(f.context.source_line)
    count = f.group("count")
    holds = f"{count} numbers" if count else "more than one number"
    if found is None:
        return Advice(
            f"A tensor on this line holds {holds}, and `.item()`, `float()` or `int()` turns "
            "exactly one number into a Python number: torch will not guess which one (or "
            "whether you meant their sum or mean).",
            "Reduce it to one number first: `t.sum().item()` or `t.mean().item()`; take one "
            "element: `t[0].item()`; or get them all as a list: `t.tolist()`.",
        )
    tensor, how = found
    return Advice(
        f"`{tensor}` holds {holds}, and `{how}` turns exactly one number into a Python number: "
        "torch will not guess which one (or whether you meant their sum or mean).",
        f"Reduce it first: `{tensor}.sum().item()` or `{tensor}.mean().item()`; take one "
        f"element: `{tensor}[0].item()`; or get them all: `{tensor}.tolist()`.",
    )


def _inference_tensor(f: Found) -> Advice:
    program = f.context.program
    for name in line_names(f.context.source_line):
        made = made_before(program, name, f.line)
        block = no_grad_block(program, made.line) if made is not None else None
        if made is None or block is None or "inference_mode" not in block[1]:
            continue
        return Advice(
            f"`{name}` was made inside `{block[1]}` (line {block[0]}; line {made.line}: "
            f"`{made.text}`). Inference mode makes tensors that autograd can never record "
            "or save, even later, outside the block, and this line needs to save one for "
            "its backward.",
            f"Compute `{name}` outside the block, or copy it into a normal tensor after the "
            f"block: `{name} = {name}.clone()` (the layers before it still get no gradient); "
            "use `torch.no_grad()` instead when the result is used for training later.",
        )
    decorated = _made_by_inference_function(program, f.context.source_line, f.line)
    if decorated is not None:
        name, made, function, line = decorated
        return Advice(
            f"`{name}` (line {made.line}: `{made.text}`) is made by `{function}`, which is "
            f"decorated with `@torch.inference_mode()` (line {line}): everything it returns is "
            "an inference tensor, which autograd can never record or save, even outside the "
            "function, and this line needs to save one for its backward.",
            f"Copy it into a normal tensor: `{name} = {name}.clone()` after line {made.line}; "
            f"or decorate `{function}` with `@torch.no_grad()` instead when its result is "
            "used for training later.",
        )
    inside = _made_in_inference_mode(program, f.context.source_line)
    if inside is not None:
        name, block_line, made_line, made_text = inside
        return Advice(
            f"`{name}` was made inside `with torch.inference_mode():` (line {block_line}; line "
            f"{made_line}: `{made_text}`). Inference mode makes tensors that autograd can never "
            "record or save, even later, outside the block, and this line needs to save one "
            "for its backward.",
            f"Compute `{name}` outside the block, or copy it into a normal tensor after the "
            f"block: `{name} = {name}.clone()`; use `torch.no_grad()` instead when the result "
            "is used for training later.",
        )
    return Advice(
        "A tensor made inside `torch.inference_mode()` reached code autograd records. "
        "Inference-mode tensors can never be saved for a backward, even outside the block.",
        "Copy it into a normal tensor after the block (`t = t.clone()`), or use "
        "`torch.no_grad()` instead of `torch.inference_mode()` there.",
    )


def _non_leaf_flag(f: Found) -> Advice:
    line = f.context.source_line
    name = (
        attribute_receiver(line, ("requires_grad", "requires_grad_"))
        or flag_receiver(line)  # `b.clone().requires_grad_(False)`: the expression
        or "this tensor"
    )
    turning_on = bool(
        re.search(r"requires_grad\s*=\s*True|requires_grad_\(\s*(True)?\s*\)", line or "")
    )
    # A name as written (`h`, `self.h`), not an expression (`b.clone()`).
    written_name = all(part.isidentifier() for part in name.split("."))
    made = made_before(f.context.program, name, f.line) if name.isidentifier() else None
    where = f" (line {made.line}: `{made.text}`)" if made is not None else ""
    explanation = (
        f"`{name}` is computed from tensors that require grad{where}, so it is not a leaf: "
        "whether it needs gradients follows from what it was computed from, and cannot be "
        "switched by hand."
    )
    if turning_on and not written_name:
        return Advice(
            explanation + " It already takes part in autograd.",
            "Remove the `requires_grad` switch from this line; to read the gradient of "
            f"`{name}` after backward, keep it in a variable and call `.retain_grad()` on it.",
        )
    if turning_on:
        return Advice(
            explanation + " It already takes part in autograd.",
            f"Delete this line; to read `{name}.grad` after backward, call "
            f"`{name}.retain_grad()` instead.",
        )
    copy = f"{name} = {name}.detach()" if written_name else f"{name}.detach()"
    return Advice(
        explanation,
        f"Take a copy without the history: `{copy}` (same numbers, no "
        "gradient flows back through it).",
    )


def _copy_construct(f: Found) -> Advice:
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    source = "t"
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Call)
            and node.args
            and getattr(node.func, "attr", "")
            in (
                "tensor",
                "Tensor",
            )
        ):
            source = ast.get_source_segment(text, node.args[0]) or ast.unparse(node.args[0])
            break
    return Advice(
        f"`torch.tensor(...)` always builds a new tensor from numbers; given a tensor "
        f"(`{source}`), it copies the numbers and drops the history, so the result does "
        "not require grad and no gradient flows back through it.",
        f"Use `{source}` itself, or `{source}.clone()` for a copy that keeps the history "
        f"(`{source}.detach().clone()` for a plain copy without it).",
    )


def _view_inplace(f: Found) -> Advice:
    if f.group("op") == "BackwardHookFunction":  # torch's own view, next to a module hook
        return hooked_inplace(f)
    line = (f.context.source_line or "").strip()
    name = inplace_target(line) or "v"
    made = made_before(f.context.program, name, f.line)
    where = f" (line {made.line}: `{made.text}`)" if made is not None else ""
    written = inplace_written(line, f.context.program, f.line)
    if written is not None and written != name and written.startswith(name) and made:
        # `parts[0].mul_(2)` with `parts = x.unbind(0)`: the view is the item, `parts`
        # the tuple of them (which cannot take an item assignment).
        op = f.group("op") or "that function"
        return Advice(
            f"`{written}` is one of several views that `{op.lower()}` returns: `{name}` is "
            f"made on line {made.line} (`{made.text}`), windows onto the same numbers. "
            "Autograd cannot track an in-place change through such views, so it refuses.",
            f"Copy the pieces first: `{name} = [p.clone() for p in {name}]` before this line "
            "(separate tensors you may change), or write the change out of place and put the "
            "pieces back together with `torch.stack` or `torch.cat`.",
        )
    if f.group("nograd"):
        return Advice(
            f"`{name}`{where} is a view (a window onto another tensor's numbers) made with "
            "gradient tracking off, and this line changes it in place with tracking on. "
            "Autograd cannot tell whether that change should count for the tensor it views, "
            "so it refuses.",
            f"Put the change with the view: both inside `with torch.no_grad():` (the change "
            f"is not tracked), or both outside; or change a copy: `{name} = {name}.clone()` "
            "first.",
        )
    op = f.group("op") or "that function"
    return Advice(
        f"`{name}`{where} is one of several views that `{op.lower()}` returns (windows onto "
        "the same numbers, like `unbind`, `chunk`, `split`). Autograd cannot track an "
        "in-place change through such views, so it refuses.",
        f"Change a copy: `{name} = {name}.clone()` before this line, or write the change out "
        f"of place (`{name} = {name} + ...`) and put the pieces back together with "
        "`torch.stack` or `torch.cat`.",
    )


# Backward nodes of eigen- and singular-vector factorizations: their gradient divides by
# the differences of the eigenvalues (singular values), infinite where two are equal.
_SPECTRAL_NODES = frozenset({"LinalgEighBackward0", "LinalgEigBackward0", "LinalgSvdBackward0"})


def _nan_gradient(f: Found) -> Advice:
    node = f.group("node")
    op = re.sub(r"Backward\d*$", "", node)
    if node in _SPECTRAL_NODES:
        vectors = "singular vectors" if "Svd" in node else "eigenvectors"
        values = "singular values" if "Svd" in node else "eigenvalues"
        return Advice(
            f"Anomaly detection checked every backward step, and the step of `{op}` "
            f"(`{node}`) produced NaN (not a number). The gradient through {vectors} divides "
            f"by the differences between the {values}; where two {values} are equal (an "
            "identity or diagonal matrix with repeated entries, a symmetric matrix with a "
            f"degenerate spectrum) the {vectors} are not unique, so their gradient is "
            "infinite or NaN. torch's docs say so: it is only well defined when the "
            f"{values} are distinct.",
            f"Make the loss depend on the {values} only (their gradient is always finite; "
            "`torch.linalg.eigvalsh` or `svdvals`), or keep the matrix away from repeated "
            f"{values}, e.g. add a small distinct diagonal: `A + 1e-4 * torch.diag(torch."
            "arange(n))`.",
        )
    return Advice(
        f"Anomaly detection checked every backward step, and the step of `{op}` (`{node}`) "
        "produced NaN (not a number). That happens where a derivative is infinite or "
        "undefined at the value it got (`sqrt` or `pow(0.5)` at 0, `log` at 0 or below, a "
        "division by zero), often one step earlier: an infinite gradient times 0 is NaN.",
        f"Find the `{op}` step and the one that feeds it in your code, and keep inputs away "
        "from the bad point, e.g. "
        "`torch.sqrt(x + 1e-8)`, `torch.log(x.clamp(min=1e-8))`; print the forward values "
        "to see where they are 0 or NaN.",
    )


def _hook_no_grad(f: Found) -> Advice:
    name = attribute_receiver(f.context.source_line, ("register_hook",)) or "x"
    return Advice(
        f"A hook on `{name}` would run when a gradient for it is computed, but `{name}` does "
        "not require grad, so none ever will be.",
        f"Make `{name}` take part in autograd first: create it with `requires_grad=True` (or "
        f"call `{name}.requires_grad_()`), or compute it from a tensor that requires grad.",
    )


_UNCALLED_PARAMETERS = re.compile(r"\.parameters\b(?!\s*\()")
_UNCALLED_MODE = re.compile(r"\b(?:torch\.)?(no_grad|enable_grad|inference_mode)\b(?!\s*\()")


def _parameters_not_called(f: Found) -> Advice:
    line = (f.context.source_line or "").strip()
    fixed = _UNCALLED_PARAMETERS.sub(".parameters()", line)
    return Advice(
        "`model.parameters` without brackets is the method itself, not the parameters: the "
        "optimizer tries to go through it like a list and cannot.",
        f"Call it: `{fixed}`.",
    )


def _mode_not_called(f: Found) -> Advice:
    line = (f.context.source_line or "").strip()
    found = _UNCALLED_MODE.search(line)
    mode = found.group(1) if found else "no_grad"
    fixed = _UNCALLED_MODE.sub(lambda m: f"{m.group(0)}()", line, count=1)
    return Advice(
        f"`torch.{mode}` without brackets is the class itself; `with` needs an object made "
        f"from it, `torch.{mode}()`.",
        f"Add the brackets: `{fixed}`.",
    )


_BACKWARD_ON_NUMBER = Rule(
    "backward-on-number",
    _backward_on_number,
    re.compile(r"'(?P<kind>float|int|NoneType|numpy\.\w+)' object has no attribute 'backward'"),
    frozenset({"AttributeError"}),
)

AUTOGRAD_RULES: tuple[Rule, ...] = (
    *rule_table(
        (
            "unused-input",
            r"differentiated Tensors? (?:at index (?P<index>\d+) )?appears to not have been used",
            "",
            _unused_input,
        ),
        (
            "input-no-grad",
            r"One of the differentiated Tensors does not require grad",
            "",
            _input_no_grad,
        ),
        ("optimize-non-leaf", r"can't optimize a non-leaf Tensor", "", _optimize_non_leaf),
        (
            "many-to-number",
            r"only one element tensors can be converted to Python scalars"
            r"|a Tensor with (?P<count>\d+) elements cannot be converted to Scalar",
            "",
            _many_to_number,
        ),
        (
            "inference-tensor",
            r"Inference tensors cannot be saved for backward"
            r"|Inplace update to inference tensor outside InferenceMode",
            "",
            _inference_tensor,
        ),
        (
            "view-inplace",
            r"Output \d+ of (?P<op>\w+) is a view and is being modified inplace"
            r"|(?P<nograd>A view was created in no_grad mode and is being modified inplace)",
            "",
            _view_inplace,
        ),
        (
            "nan-gradient",
            r"Function '(?P<node>\w+)' returned nan values in its \d+\w* output",
            "",
            _nan_gradient,
        ),
        (
            "hook-no-grad",
            r"cannot register a hook on a tensor that doesn't require gradient",
            "",
            _hook_no_grad,
        ),
        (
            "custom-grad-count",
            r"function (?P<fn>\w+) returned an incorrect number of gradients \(expected "
            r"(?P<want>\d+), got (?P<got>\d+)\)",
            "",
            custom_grad_count,
        ),
        (
            "gradcheck-precision",
            r"^Jacobian mismatch for output \d+ with respect to input \d+",
            "GradcheckError",
            gradcheck_precision,
        ),
        (
            "custom-grad-shape",
            r"Function (?P<fn>\w+) returned an invalid gradient at index (?P<index>\d+) - got "
            r"\[(?P<got>[\d, ]*)\] but expected shape compatible with \[(?P<want>[\d, ]*)\]",
            "",
            custom_grad_shape,
        ),
        (
            "non-leaf-requires-grad",
            r"you can only change requires_grad flags of leaf variables",
            "",
            _non_leaf_flag,
        ),
    ),
    _BACKWARD_ON_NUMBER,
    Rule(
        "parameters-not-called",
        _parameters_not_called,
        re.compile(r"'method' object is not iterable"),
        frozenset({"TypeError"}),
        when=lambda ctx: bool(_UNCALLED_PARAMETERS.search(ctx.source_line or "")),
    ),
    Rule(
        "grad-mode-not-called",
        _mode_not_called,
        re.compile(r"object does not support the context manager protocol"),
        frozenset({"TypeError"}),
        when=lambda ctx: bool(_UNCALLED_MODE.search(ctx.source_line or "")),
    ),
)

AUTOGRAD_WARNING_RULES: tuple[Rule, ...] = rule_table(
    (
        "tensor-copy",
        r"To copy construct from a tensor, it is recommended to use sourceTensor",
        "",
        _copy_construct,
    ),
    (
        "gradcheck-precision",
        r"^Input #\d+ requires gradient and is not a double precision floating point",
        "",
        gradcheck_precision,
    ),
)
