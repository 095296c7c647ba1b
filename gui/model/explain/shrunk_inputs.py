"""Inputs a layer cannot take, in the learner's names: an image shrunk by the layers before
it until a convolution's kernel or a pooling window no longer fits ("Kernel size can't be
greater than actual input size", "Output size is too small"), and a NumPy array or a list
given where torch wants a tensor ("must be Tensor, not numpy.ndarray"), such as the pair a
recurrent layer returns. No torch, no Qt.
"""

from __future__ import annotations

import ast
import dataclasses

from gui.model.explain.layer_setup import layer_calls
from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import line_tree, made_before


def _outer_call(f: Found, innermost: bool = False) -> tuple[str, str] | None:
    """``(callee, first argument)`` of the line's outermost call with an argument, or of
    the innermost one given a value (``self.body(x)`` in ``self.head(self.body(x).flatten(1))``:
    the model whose layers run first)."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    found = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and node.args and not isinstance(node.args[0], ast.Constant):
            callee = ast.get_source_segment(text, node.func) or ast.unparse(node.func)
            first = ast.get_source_segment(text, node.args[0]) or ast.unparse(node.args[0])
            found = " ".join(callee.split()), " ".join(first.split())
            if not innermost:
                return found
    return found


_SHAPES_FIX = (
    "Print the shape after each layer to see where it gets too small (for an "
    "`nn.Sequential`: {start}`for layer in {model}: x = layer(x); "
    "print(layer, x.shape)`); then give the "
    "convolutions `padding` (`padding=1` keeps a 3x3 convolution's size), use fewer "
    "pooling layers, or use larger inputs."
)


def _shapes_fix(call: tuple[str, str] | None) -> str:
    model, given = call if call is not None else ("model", "inputs")
    start = "" if given == "x" else f"`x = {given}`, then "
    return _SHAPES_FIX.format(model=model, start=start)


def kernel_too_big(f: Found) -> Advice:
    """``Calculated padded input size per channel: (1 x 1). Kernel size: (3 x 3). Kernel
    size can't be greater than actual input size``."""
    call = _outer_call(f, innermost=True)
    given = f"`{call[1]}`" if call is not None else "the input"
    return Advice(
        f"A convolution in this call slides a {f.group('kernel')} kernel over each channel, "
        f"but what reaches it is only {f.group('size')} (with its padding): {given} is that "
        "small, or the layers before this one shrank it (every unpadded convolution takes "
        "kernel size - 1 off the height and width, every pooling layer divides them) until "
        "the kernel no longer fits.",
        _shapes_fix(call),
    )


def pool_too_small(f: Found) -> Advice:
    """``Given input size: (4x1x1). Calculated output size: (4x0x0). Output size is too
    small`` (pooling, or a convolution)."""
    call = _outer_call(f, innermost=True)
    given = f"`{call[1]}`" if call is not None else "the input"
    return Advice(
        f"A layer in this call (a pooling or convolution layer) gets {f.group('given')} "
        f"(channels x height x width) and would produce {f.group('out')}: nothing is left. "
        f"{given[0].upper() + given[1:]} is that small, or the layers before this one shrank "
        "it (each pooling divides the height and width, each unpadded convolution takes "
        "kernel size - 1 off them) until there is no room for another window.",
        _shapes_fix(call),
    )


def _named_argument(f: Found) -> tuple[str, str] | None:
    """``(callee, argument)`` of the line's call of the message's function (``allclose``
    in ``print(torch.allclose(dW, W.grad))``) at the message's position or keyword; ``None``
    when the line does not call it by that name (a layer's ``linear()`` inside ``model(x)``)."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    function, arg = f.group("function"), f.group("arg")
    position = int(f.group("position") or 0)
    for node in ast.walk(tree) if tree is not None else ():
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name != function:
            continue
        given = next((k.value for k in node.keywords if k.arg == arg), None)
        if given is None and 1 <= position <= len(node.args):
            given = node.args[position - 1]
        if given is None or isinstance(given, ast.Starred):
            return None
        callee = ast.get_source_segment(text, func) or ast.unparse(func)
        written = ast.get_source_segment(text, given) or ast.unparse(given)
        return " ".join(callee.split()), " ".join(written.split())
    return None


def tensor_expected(f: Found) -> Advice:
    """``linear(): argument 'input' (position 1) must be Tensor, not numpy.ndarray``."""
    got = f.group("got")
    call = _named_argument(f) or _outer_call(f)
    value = f"`{call[1]}`" if call is not None else "the value"
    convert = call[1] if call is not None else "x"
    if got.startswith("numpy"):
        what, fix = (
            "a NumPy array",
            f"`torch.from_numpy({convert}).float()` (or `torch.tensor({convert}, "
            "dtype=torch.float32)`)",
        )
    elif got == "tuple" and (returned := _recurrent_result(f, convert)) is not None:
        function = f.group("function")
        what, fix = returned
        return Advice(
            f"`{function}()` (called by this line) computes with one tensor, and its argument "
            f"`{f.group('arg')}` got a tuple: {value}, {what}.",
            fix,
        )
    elif got in ("list", "tuple"):
        what, fix = f"a Python {got}", f"`torch.tensor({convert}, dtype=torch.float32)`"
    elif got == "NoneType":
        function = f.group("function")
        return Advice(
            f"`{function}()` (called by this line) computes with tensors only, and its "
            f"argument `{f.group('arg')}` got None: {value} holds no value.",
            f"Find where {value} should have become a tensor: a function that ends without "
            "`return` gives None, and so does `.grad` before a backward reaches it.",
        )
    else:
        what, fix = f"a `{got}`", f"`torch.tensor({convert})`"
    function = f.group("function")
    return Advice(
        f"`{function}()` (called by this line) computes with tensors only, and its argument "
        f"`{f.group('arg')}` got {what}: {value}.",
        f"Convert it to a tensor first: {fix}, then pass that.",
    )


_RECURRENT = frozenset({"LSTM", "GRU", "RNN"})


def _recurrent_result(f: Found, name: str) -> tuple[str, str] | None:
    """What ``name`` holds when it was bound from a recurrent layer's call (its whole result,
    ``(output, h_n)``, or an LSTM's ``(h_n, c_n)``), with the fix; ``None`` otherwise."""
    made = made_before(f.context.program, name, f.line) if name.isidentifier() else None
    if made is None or not isinstance(made.node, ast.Assign) or len(made.node.targets) != 1:
        return None
    context = dataclasses.replace(f.context, source_line=made.text)
    call = layer_calls(Found(f.exception, f.message, None, context, made.line), _RECURRENT)
    if call is None:
        return None
    layer, target = call.layer, made.node.targets[0]
    state = "(h_n, c_n)" if call.kind == "LSTM" else "h_n"
    pair = f"(output, {state})"
    if isinstance(target, ast.Name):
        return (
            f"the pair `{pair}` that `{layer}` (an `nn.{call.kind}`) returns, bound on line "
            f"{made.line}",
            f"Unpack it: `output, {state} = {layer}(...)`, then pass the outputs "
            "(`output[:, -1]`, the last step, with `batch_first=True`) or the last layer's "
            "final hidden state (`h_n[-1]`).",
        )
    items = target.elts if isinstance(target, ast.Tuple | ast.List) else []
    second = items[1] if len(items) == 2 else None
    if call.kind == "LSTM" and isinstance(second, ast.Name) and second.id == name:
        return (
            f"the pair `(h_n, c_n)` of final hidden and cell states that `{layer}` (an "
            f"`nn.LSTM`) returns second, bound on line {made.line}",
            f"Take the last layer's final hidden state, shape (batch, hidden size): "
            f"`{name}[0][-1]`; or unpack it where it is made: `output, (h_n, c_n) = "
            f"{layer}(...)`, then use `h_n[-1]`.",
        )
    return None


KERNEL_TOO_BIG = (
    r"Calculated padded input size per channel: \((?P<size>[\d x]+)\)\. Kernel size: "
    r"\((?P<kernel>[\d x]+)\)\. Kernel size can't be greater than actual input size"
)
POOL_TOO_SMALL = (
    r"Given input size: \((?P<given>[\dx]+)\)\. Calculated output size: \((?P<out>[\dx]+)\)\. "
    r"Output size is too small"
)
TENSOR_EXPECTED = (
    r"\b(?P<function>\w+)\(\): argument '(?P<arg>\w+)' \(position (?P<position>\d+)\) must be "
    r"Tensor, "
    r"not (?P<got>[\w.]+)"
)
