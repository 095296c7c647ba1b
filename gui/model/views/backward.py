"""What the backward panel says: the note on ``v``, the calls so far, the tensors to choose.

``z.backward(v, retain_graph=..., create_graph=...)`` as controls needs a few sentences and
lists computed from the snapshot: what the learner should know about ``v`` right now, how
many backward calls explain the current ``.grad``, which tensors can be differentiated, and
which intermediates can keep their ``.grad``.
"""

from __future__ import annotations

from typing import NamedTuple

from gui.model import nested
from gui.model.request import BackwardStep
from gui.model.result import FULL_VALUES_LIMIT, Explanation, RunResult
from gui.model.session import GRADIENT_RANGE, FixKind, InputRange, Snapshot
from gui.model.session.fixes import failed_call, planned_code_fix
from gui.model.tensor_format import format_number, format_shape, format_tensor

# The one slider of a scalar output's backward() until the learner moves it: short enough
# to be read whole beside the slider (row labels are elided past 14 characters' width).
IMPLICIT_LABEL = "v (implicit 1)"
# The one-click fixes' button texts; ``{out}`` is the output's name.
FIX_TEXT: dict[FixKind, str] = {
    "sum": "Use {out}.sum()",
    "mean": "Use {out}.mean()",
    "ones_like": "gradient = torch.ones_like({out})",
    "retain_graph": "Keep the graph (retain_graph=True)",
}
# What the retain_graph box means, for each value of the last call's retain_graph.
RETAIN_NOTES: dict[bool | None, str] = {
    None: "Automatic: kept while another call follows, so each Backward adds up. Untick to "
    "free it after this call, as torch does by default: the next call then fails.",
    True: "Kept after this call (you ticked it).",
    False: "Freed after this call (you unticked it): pressing Backward again shows torch's error.",
}


class Shown(NamedTuple):
    """Everything of a snapshot the backward panel shows something of.

    A slider tick on the inputs changes only the leaf values, which the panel does not
    show: with :meth:`same_as` it can skip the tick's first snapshot outright. Results and
    explanations are compared by identity (they are frozen, and comparing them field by
    field would cost more than drawing them again).
    """

    result: RunResult | None
    error: Explanation | None
    warnings: tuple[Explanation, ...]
    code: str
    output: str | None
    steps: tuple[BackwardStep, ...] | None
    retain_grad: tuple[str, ...]
    zero_after: bool
    one_off_zero: int | None
    gradient_range: InputRange | None
    live: bool
    stale: bool
    # "Build J row by row" is on: the row being built (its run calls backward(e_row)).
    recipe_row: int | None = None

    def same_as(self, other: Shown | None) -> bool:
        return (
            other is not None
            and self.result is other.result
            and self.error is other.error
            and self[2:] == other[2:]
        )


def shown(snapshot: Snapshot) -> Shown:
    """What of ``snapshot`` the backward panel shows (everything but the leaf values and
    the selection); ``stale`` counts only while live is off (the status says so)."""
    state = snapshot.state
    program = state.program
    live = snapshot.live
    return Shown(
        snapshot.result,
        snapshot.error,
        snapshot.warnings,
        program.code,
        program.output,
        program.steps,
        program.retain_grad,
        state.zero_after,
        state.one_off_zero,
        snapshot.ranges.get(GRADIENT_RANGE),
        live,
        snapshot.stale and not live,
        _recipe_row(snapshot),
    )


def _recipe_row(snapshot: Snapshot) -> int | None:
    recipe = snapshot.jacobian_recipe
    return recipe.row if recipe is not None and recipe.building else None


def recipe_note(snapshot: Snapshot) -> str:
    """While "Build J row by row" runs, what the engine really calls instead of the
    panel's own ``v`` (empty when the recipe is not building)."""
    recipe = snapshot.jacobian_recipe
    if recipe is None or not recipe.building:
        return ""
    out = recipe.output or "the output"
    index = nested.index_label(recipe.output_shape, recipe.row)
    return (
        f"Building J row by row: this run zeroes every .grad and calls "
        f"{out}.backward(e_{recipe.row}), a 1 at {out}{index} and 0 elsewhere "
        f"(row {recipe.row + 1} of {recipe.row_count}). Your v below is kept and comes "
        "back when the recipe stops."
    )


def result_facts(result: RunResult | None) -> tuple[object, ...] | None:
    """What the backward panel shows of ``result``, as comparable data; ``None`` when it
    must be drawn from the result itself (there is an error: the fixes read much of it).

    A slider tick brings a new result whose numbers changed but rarely anything the panel
    shows: equal facts mean it can keep what it shows. Every field of a result that the
    functions of this module read (and the panel, through them) must be here.
    """
    if result is None:
        return ()
    if result.error is not None:
        return None
    tensors = tuple(
        (
            name,
            info.value.shape,
            info.is_leaf,
            info.grad_fn is not None,
            # An intermediate's .grad is shown beside its retain_grad box.
            info.grad if not info.is_leaf and info.grad_fn is not None else None,
        )
        for name, info in result.tensors.items()
    )
    steps = tuple(
        (
            s.index,
            s.source,
            s.line,
            s.tensor,
            s.zero_grad,
            s.error is None,
            s.call,
            # What torch.autograd.grad returned is shown (returned_note).
            tuple(s.returned.items()) if s.call == "grad" else (),
        )
        for s in result.steps
    )
    values = result.step_values
    return (
        result.output,
        None if result.output_value is None else result.output_value.shape,
        result.output_source,
        tensors,
        steps,
        result.steps_left_out,
        result.steps_gap,
        # The loop's first and last loss are shown from this many calls on (loss_note).
        values if len(values) >= LOOP_CALLS else len(values),
        result.step_values_left_out,
    )


# A fix button shows at most this many characters (a long call would widen the panel);
# its tooltip has the whole text.
FIX_TEXT_CHARS = 48


def fix_tooltip(snapshot: Snapshot, kind: FixKind) -> str:
    """What a fix does, in full: the rewritten call for the code's own backward
    (``"Line 3: y.sum().backward()"``), else what it does to the session's call."""
    fix = planned_code_fix(snapshot.error, snapshot.result, snapshot.program, kind)
    if fix is not None:
        return f"Line {fix.line}: {' '.join(fix.after.split())}"
    out = (snapshot.result.output if snapshot.result else None) or "output"
    return FIX_TEXT[kind].format(out=out)


def fix_text(snapshot: Snapshot, kind: FixKind) -> str:
    """A fix button's text: :func:`fix_tooltip`, cut to :data:`FIX_TEXT_CHARS`."""
    text = fix_tooltip(snapshot, kind)
    return text if len(text) <= FIX_TEXT_CHARS else text[: FIX_TEXT_CHARS - 1] + "…"


def retain_graph_note(snapshot: Snapshot) -> str:
    """What the retain_graph box does for the last call now."""
    return RETAIN_NOTES[snapshot.current_step.retain_graph]


def gradient_note(snapshot: Snapshot, shape: tuple[int, ...] | None) -> str:
    """What the learner should know about ``v`` (of ``shape``) right now (empty: nothing)."""
    building = recipe_note(snapshot)
    if building:
        return building
    result = snapshot.result
    out_shape = snapshot.output_shape
    if result is None:
        return "Run the code to see what backward differentiates."
    if out_shape is None:
        return "Nothing to differentiate: no tensor in the code has a grad_fn."
    out = result.output or "the output"
    failed = failed_call(snapshot.error, result)
    if failed is not None and failed.source == "code" and "sum" in snapshot.fixes:
        return (
            f"Your code's backward (line {failed.line}) gives no gradient, and {out} has "
            f"shape {format_shape(out_shape)}: torch needs one for a non-scalar output. "
            "A fix below rewrites that line."
        )
    unasked = snapshot.program.steps is None and result.no_added_backward is not None
    if unasked and snapshot.current_step.gradient is None and nested.numel(out_shape) != 1:
        return (
            f"No backward call runs. To press Backward on {out} (shape "
            f"{format_shape(out_shape)}), give v first: torch needs one for a non-scalar output."
        )
    if snapshot.current_step.gradient is None and nested.numel(out_shape) != 1:
        return (
            "No gradient given: torch needs one for a non-scalar output "
            f"({out} has shape {format_shape(out_shape)})."
        )
    if shape is not None and shape != out_shape:
        return (
            f"v has shape {format_shape(shape)} but {out} has {format_shape(out_shape)}: "
            "torch needs them equal. A preset below starts over with the right shape."
        )
    if shape is not None and nested.numel(shape) > FULL_VALUES_LIMIT:
        return "Too many elements to edit one by one: use the presets."
    return ""


def output_note(snapshot: Snapshot) -> str:
    """Which tensor is differentiated and who calls ``backward`` on it (the one rule of
    docs/session-format.md, "How a session runs"); empty before a result."""
    result = snapshot.result
    nothing = "No tensor has a grad_fn: there is nothing to differentiate, so no backward runs."
    if any(w.kind == "no-output" for w in snapshot.warnings):
        return nothing  # (the picture, if any, is the last one that had a graph)
    if result is None:
        return ""
    out = result.output
    if result.output_source is None:
        return "" if result.error is not None else nothing
    shown = out if out is not None else "an unnamed tensor"
    if result.output_source == "code":
        why = f"{shown}: your code calls backward on it"
    elif result.output_source == "session":
        why = f"{shown}: chosen here"
    else:
        why = f"{shown}: the last tensor your code assigns that has a grad_fn"
    code_calls = any(s.source == "code" for s in result.steps)
    if snapshot.program.steps is None and not code_calls and result.no_added_backward:
        return (
            f"{why}. Your code uses forward-mode AD (make_dual) and calls no backward: the "
            "app adds none (Backward adds one)."
        )
    if snapshot.program.steps is None and not code_calls:
        call = f"{out}.backward()" if out is not None else "backward()"
        return f"{why}. Your code does not call backward: the app adds {call}."
    if snapshot.program.steps is None:
        return f"{why}. The app adds no backward call."
    return f"{why}. The app calls backward on it as set below."


# From this many backward calls on a single number, the panel says how it went (a loop).
LOOP_CALLS = 10


def loss_note(result: RunResult | None) -> str:
    """``"loss 0.92 → 0.0013 over 3,000 calls"`` for a loop's history (empty: none)."""
    if result is None:
        return ""
    values = [v for v in result.step_values if v is not None]
    if len(values) < LOOP_CALLS:
        return ""
    names = {result.steps[0].tensor, result.steps[-1].tensor} if result.steps else {None}
    name = names.pop() if len(names) == 1 else None
    name = name or "the value of each call"
    return (
        f"{name}: {format_number(values[0])} at the first call, "
        f"{format_number(values[-1])} at the last "
        f"({len(result.step_values) + result.step_values_left_out:,} calls)"
    )


def status_text(snapshot: Snapshot) -> str:
    """``"Backward calls: 2 (accumulating)"`` and what else explains the current ``.grad``."""
    result = snapshot.result
    steps = () if result is None else result.steps
    count = 0 if result is None else result.step_count
    text = f"Backward calls: {count:,}"
    if result is not None and result.steps_left_out:
        text += (
            f" ({len(steps):,} kept: the first {result.steps_gap:,} and the last "
            f"{len(steps) - result.steps_gap:,}; {result.steps_left_out:,} left out)"
        )
    if len(steps) > 1:
        adding = any(not s.zero_grad for s in steps[1:])
        text += " (accumulating)" if adding else " (grads zeroed before each)"
    if snapshot.zero_after:
        text += ", then .grad zeroed"
    if steps and steps[-1].error is not None:
        which = f" (call {steps[-1].index + 1})" if steps[-1].index else ""
        text += f"\nThe last call{which} failed: see the error."
    lines = sorted({s.line for s in steps if s.source == "code" and s.line is not None})
    if snapshot.code_calls_backward and not snapshot.steps:
        where = ", ".join(str(n) for n in lines)
        text += f"\nYour code calls backward itself (line{'s' if len(lines) > 1 else ''} {where})."
    if not snapshot.live and snapshot.stale:
        text += "\nNot run since the last change: live is off."
    returned = returned_note(result)
    if returned:
        text += f"\n{returned}"
    loss = loss_note(result)
    if loss:
        text += f"\n{loss}"
    return text


def returned_note(result: RunResult | None) -> str:
    """What the last ``torch.autograd.grad`` call returned (it adds nothing to ``.grad``)."""
    if result is None:
        return ""
    for step in reversed(result.steps):
        if step.call == "grad" and step.error is None:
            where = f" (line {step.line})" if step.line is not None else ""
            got = "; ".join(f"{n}: {format_tensor(g)}" for n, g in step.returned.items())
            return f"torch.autograd.grad{where} returned {got} (it adds nothing to .grad)"
    return ""


def output_choices(result: RunResult | None) -> list[tuple[str | None, str]]:
    """The tensors backward can be called on, as (name, text); ``None`` is "automatic"."""
    if result is None:
        return [(None, "automatic")]
    auto = result.output
    auto_text = "automatic"
    if auto is not None and result.output_value is not None:
        auto_text = f"automatic: {auto}  {format_shape(result.output_value.shape)}"
    items: list[tuple[str | None, str]] = [(None, auto_text)]
    for name, info in result.tensors.items():
        items.append((name, f"{name}  {format_shape(info.value.shape)}"))
    return items


def intermediates(result: RunResult | None) -> list[str]:
    """The named tensors that are neither leaves nor constants: those retain_grad can keep."""
    if result is None:
        return []
    return [n for n, t in result.tensors.items() if not t.is_leaf and t.grad_fn is not None]
