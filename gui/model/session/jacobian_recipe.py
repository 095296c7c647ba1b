"""Build J one row at a time: the classic recipe for getting a Jacobian out of ``backward``.

``backward(v)`` adds ``Jᵀv`` to each leaf's ``.grad``. With ``v`` the one-hot vector
``e_k`` and the grads zeroed first, what it adds is row ``k`` of ``J``. Sweeping ``k`` over
every element of the output builds the whole matrix from real backward calls: the recipe
this module animates, one run per row.

The recipe never touches the user's state: while it builds, the session asks the engine
for :func:`row_request` (the user's program with its backward calls replaced by one call,
``v = e_k``, zero grads first) instead of the state's own request. Stopping or finishing
therefore puts back the user's gradient argument and calls exactly as they were: they were
never changed. Pure functions over one frozen :class:`JacobianRecipe`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from gui.model import nested
from gui.model.request import BackwardStep, RunRequest
from gui.model.result import JacobianCheck, RunResult, StepRecord, TensorData
from gui.model.session.state import SessionState
from gui.model.visible_text import visible_controls

# The most rows the recipe builds: the engine's own Jacobian stops at this many output
# elements (gui.model.engine.jacobian.MAX_OUTPUT_ELEMENTS), and at one row per 0.8 s a
# class would already wait over three minutes.
MAX_ROWS = 256
# The most leaf elements, all leaves together (the engine's own cap as well).
MAX_LEAF_ELEMENTS = 4096

RecipeStatus = Literal["building", "done", "failed"]

# The session changes that stop the recipe (or put its finished matrix away): a new
# program, new values, another output or other backward calls make another Jacobian.
STOPPED_BY = frozenset({"code", "values", "output", "steps", "retain_grad", "file"})


@dataclass(frozen=True)
class JacobianRecipe:
    """Where "build J row by row" is: which rows are built, which one is being built.

    ``rows[k]`` maps each leaf to row ``k`` of its Jacobian, as the real backward call
    with ``v = e_k`` left it in ``.grad``. ``row`` is the row asked for last (``v = e_row``);
    ``waiting`` says its run has not come back yet. ``status`` is ``"building"`` until every
    row is in (``"done"``) or a call failed (``"failed"``, ``problem`` says why).
    ``selected_step`` is the backward call the user had chosen to show, put back at the end.
    ``engine`` is the engine's own ``J`` of the last row's call, to compare the rows with
    (``engine_note`` says why there is none).
    """

    output: str | None
    output_shape: tuple[int, ...]
    leaves: tuple[str, ...]
    leaf_shapes: tuple[tuple[int, ...], ...]
    rows: tuple[dict[str, tuple[float, ...]], ...] = ()
    row: int = 0
    waiting: bool = True
    status: RecipeStatus = "building"
    problem: str | None = None
    selected_step: int | None = None
    engine: tuple[JacobianCheck, ...] = ()
    engine_note: str | None = None

    @property
    def row_count(self) -> int:
        """How many rows ``J`` has: one per element of the output."""
        return nested.numel(self.output_shape)

    @property
    def building(self) -> bool:
        return self.status == "building"

    def leaf_shape(self, leaf: str) -> tuple[int, ...]:
        return self.leaf_shapes[self.leaves.index(leaf)]

    def gradient(self) -> object:
        """The gradient argument of the row being built: the one-hot ``e_row``."""
        return nested.one_hot(self.output_shape, self.row)


def cannot_start(result: RunResult | None) -> str | None:
    """Why the recipe cannot run on ``result`` (plain words), or ``None`` when it can."""
    if result is None or result.output_value is None:
        return "there is no output to differentiate yet"
    if result.error is not None and not _failed_in_session_call(result):
        return "the code stops with an error before its output is ready"
    count = result.output_value.numel
    if count == 0:
        return "the output is empty: its Jacobian has no rows"
    if count > MAX_ROWS:
        return f"the output has {count} elements (the recipe builds up to {MAX_ROWS} rows)"
    leaves = _leaf_shapes(result)
    if not leaves:
        return "the program has no named leaf that requires grad"
    if sum(nested.numel(s) for s in leaves.values()) > MAX_LEAF_ELEMENTS:
        return f"the leaves have more than {MAX_LEAF_ELEMENTS} elements in all"
    if "complex" in result.output_value.dtype:
        return "complex outputs are not supported by the recipe"
    return None


def _failed_in_session_call(result: RunResult) -> bool:
    """Whether the error came from the session's backward call (the code itself ran)."""
    last = result.steps[-1] if result.steps else None
    return last is not None and last.source == "session" and last.error is not None


def _leaf_shapes(result: RunResult) -> dict[str, tuple[int, ...]]:
    return {
        name: result.tensors[name].value.shape for name in result.leaves if name in result.tensors
    }


def start(result: RunResult, selected_step: int | None = None) -> JacobianRecipe:
    """The recipe at its first row (``v = e_0``), for the output and leaves of ``result``
    (check :func:`cannot_start` first)."""
    if result.output_value is None:
        raise ValueError("the recipe needs an output")
    shapes = _leaf_shapes(result)
    return JacobianRecipe(
        output=result.output,
        output_shape=result.output_value.shape,
        leaves=tuple(shapes),
        leaf_shapes=tuple(shapes.values()),
        selected_step=selected_step,
    )


def row_request(recipe: JacobianRecipe, state: SessionState, time_limit: float) -> RunRequest:
    """What the engine runs for the recipe's row: the user's program, its backward calls
    replaced by one, ``backward(e_row)`` with every ``.grad`` zeroed first."""
    call = BackwardStep(gradient=recipe.gradient(), zero_grad=True)
    program = state.with_program(steps=(call,)).program
    return RunRequest(program, time_limit=time_limit, zero_grad_after=False)


def advance(recipe: JacobianRecipe) -> JacobianRecipe:
    """The next row asked for, or ``"done"`` once every row is built; unchanged while a
    row's run is still on its way or the recipe has stopped."""
    if recipe.waiting or not recipe.building:
        return recipe
    if len(recipe.rows) >= recipe.row_count:
        return replace(recipe, status="done")
    return replace(recipe, row=len(recipe.rows), waiting=True)


def collect(recipe: JacobianRecipe, result: RunResult) -> JacobianRecipe:
    """The recipe with the row its awaited run made: what the session's backward call added
    to each leaf's ``.grad`` (the grads were zeroed before it, so that is ``Jᵀe_row``).

    A failed call stops the recipe (``"failed"``) with the reason in ``problem``.
    """
    if not recipe.waiting:
        return recipe
    call = _session_call(result)
    if call is None or call.error is not None:
        error = call.error if call is not None else result.error
        reason = "the backward call did not run" if error is None else _first_line(error.message)
        return replace(
            recipe, waiting=False, status="failed", problem=f"row {recipe.row}: {reason}"
        )
    row: dict[str, tuple[float, ...]] = {}
    for leaf, shape in zip(recipe.leaves, recipe.leaf_shapes, strict=True):
        added = _added(call.grads_before.get(leaf), call.grads_after.get(leaf), shape)
        if added is None:
            return replace(
                recipe,
                waiting=False,
                status="failed",
                problem=f"row {recipe.row}: {leaf}.grad has too many numbers to keep",
            )
        row[leaf] = added
    rows = (*recipe.rows[: recipe.row], row)
    return replace(
        recipe, rows=rows, waiting=False, engine=call.jacobians, engine_note=call.jacobian_note
    )


def _session_call(result: RunResult) -> StepRecord | None:
    """The recipe's own backward call: the last one the session made."""
    for step in reversed(result.steps):
        if step.source == "session":
            return step
    return None


def _first_line(text: str) -> str:
    """The first line of a program's own text (an exception's), its controls as escapes."""
    return visible_controls(text.strip().split("\n")[0])


def _added(
    before: TensorData | None, after: TensorData | None, shape: tuple[int, ...]
) -> tuple[float, ...] | None:
    """``after - before`` flattened (a missing ``.grad`` counts as zeros); ``None`` when a
    gradient was kept only as a summary."""
    count = nested.numel(shape)
    values = []
    for data in (before, after):
        if data is None:
            values.append([0.0] * count)
        elif data.values is None:
            return None
        else:
            values.append([float(v) for v in nested.flatten(data.values)])
    old, new = values
    if len(old) != count or len(new) != count:
        return None
    return tuple(b - a for a, b in zip(old, new, strict=True))
