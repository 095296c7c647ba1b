"""What the Jacobian view shows: ``J`` of one backward call as labelled cells, ``v`` beside
it, and ``Jᵀv`` next to what torch's backward added to ``.grad``.

``backward(v)`` never builds ``J``: it computes ``Jᵀv`` directly. The engine computes ``J``
for the call as well (:class:`~gui.model.result.JacobianCheck`), so a learner can see the
matrix the gradient argument multiplies. While "Build J row by row" runs, the matrix shown
is the one the real backward calls built so far (:mod:`gui.model.session.jacobian_recipe`),
rows not built yet left empty (``nan``). Pure: no Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gui.model import nested
from gui.model.drawing.colors import scale_for
from gui.model.result import JacobianCheck, NestedValues, RunResult, StepRecord, TensorData
from gui.model.session import Snapshot
from gui.model.session.jacobian_recipe import JacobianRecipe, cannot_start
from gui.model.tensor_format import format_number, format_tensor
from gui.model.visible_text import visible_controls

# Numbers are printed in the cells up to this many cells; a bigger matrix is a heat map
# whose numbers are read by hovering (a cell with "-14.15" in it is ~6 characters wide).
MAX_NUMBERED_CELLS = 600
# Elements printed in the equation's vectors before "...".
EQUATION_ELEMENTS = 16
NO_RUN = "Nothing has run yet: type a program or open a lesson."
NO_CALL = "No backward call yet: press Backward (Ctrl+B) and the Jacobian behind it shows here."


@dataclass(frozen=True, eq=False)
class JacobianView:
    """One picture of the Jacobian view.

    ``message`` (when set) replaces the matrix: why there is none, in plain words.
    ``matrix`` is ``J`` (output elements x leaf elements, row-major flattening), ``nan`` in
    rows the recipe has not built yet (``built``). ``v`` is the gradient argument in the
    same row order; ``current_row`` the row the recipe is on. ``lines`` are the equation
    and the check, one sentence each; ``check`` says whether the two sides agree.
    """

    message: str | None
    explanation: str
    leaves: tuple[str, ...]
    leaf: str | None
    output: str
    row_labels: tuple[str, ...] = ()
    column_labels: tuple[str, ...] = ()
    matrix: np.ndarray | None = None
    built: tuple[bool, ...] = ()
    v: tuple[float, ...] | None = None
    current_row: int | None = None
    scale: float = 1.0
    v_scale: float = 1.0
    lines: tuple[str, ...] = ()
    check: bool | None = None
    numbered: bool = True

    @property
    def shape(self) -> tuple[int, int]:
        return (0, 0) if self.matrix is None else (self.matrix.shape[0], self.matrix.shape[1])

    def cell_text(self, row: int, column: int) -> str:
        """The number printed in cell ``(row, column)`` (empty in a row not built yet)."""
        if self.matrix is None:
            return ""
        value = float(self.matrix[row, column])
        return "" if not self.built[row] else format_number(value)

    def cell_tip(self, row: int, column: int) -> str:
        """What hovering a cell says: ``∂z[0, 1]/∂x[1, 0] = 12.34``."""
        derivative = f"∂{self.row_labels[row]}/∂{self.column_labels[column]}"
        if self.matrix is None or not self.built[row]:
            return f"{derivative}: row {row} is not built yet"
        return f"{derivative} = {format_number(float(self.matrix[row, column]))}"


def explanation(output: str, leaf: str) -> str:
    """The one line that says what ``J`` is."""
    # Plain _i and _j: Unicode subscripts are too small to tell apart on a projector.
    return f"J[i, j] = ∂{output}_i/∂{leaf}_j: how much {output}_i moves when {leaf}_j does."


def element_labels(name: str, shape: tuple[int, ...]) -> tuple[str, ...]:
    """``z[0, 1]``-style labels for every element of a tensor, row-major (``z`` for a
    scalar), as Python indexes it."""
    return tuple(f"{name}{nested.index_label(shape, i)}" for i in range(nested.numel(shape)))


def jacobian_view(snapshot: Snapshot, leaf: str | None = None) -> JacobianView:
    """The view of the snapshot's shown backward call (or of the recipe being built) for
    ``leaf`` (``None`` or unknown: the graph's selected leaf, else the first)."""
    recipe = snapshot.jacobian_recipe
    if recipe is not None:
        return _recipe_view(snapshot, recipe, leaf)
    result = snapshot.result
    step = snapshot.shown_step
    if result is None:
        return JacobianView(NO_RUN, "", (), None, "")
    if step is None:
        return JacobianView(NO_CALL, "", (), None, "")
    output = step.tensor or "output"
    if not step.jacobians:
        return JacobianView(_no_jacobian(step, result), "", (), None, output)
    leaves = tuple(j.leaf for j in step.jacobians)
    chosen = _chosen_leaf(snapshot, leaves, leaf)
    check = step.jacobians[leaves.index(chosen)]
    matrix = _matrix(check.matrix)
    rows, columns = matrix.shape
    out_shape = _output_shape(step, result, rows)
    leaf_shape = _leaf_shape(result, chosen, columns)
    v = _gradient(step, rows)
    locked = snapshot.locked_scale
    return JacobianView(
        message=None,
        explanation=explanation(output, chosen),
        leaves=leaves,
        leaf=chosen,
        output=output,
        row_labels=element_labels(output, out_shape),
        column_labels=element_labels(chosen, leaf_shape),
        matrix=matrix,
        built=(True,) * rows,
        v=v,
        scale=locked if locked is not None else _scale(matrix),
        v_scale=scale_for(v or ()),
        lines=_equation(step, check, chosen, leaf_shape),
        check=check.matches,
        numbered=rows * columns <= MAX_NUMBERED_CELLS,
    )


def _chosen_leaf(snapshot: Snapshot, leaves: tuple[str, ...], leaf: str | None) -> str:
    if leaf in leaves:
        assert leaf is not None
        return leaf
    selected = snapshot.selected_node
    graph = snapshot.graph
    if selected is not None and graph is not None:
        node = next((n for n in graph.nodes if n.key == selected), None)
        if node is not None and node.kind == "leaf" and node.var in leaves:
            assert node.var is not None
            return node.var
    return leaves[0]


def _matrix(values: NestedValues) -> np.ndarray:
    try:
        matrix = np.array(values, dtype=float)
    except (TypeError, ValueError):
        matrix = np.full((1, 1), math.nan)
    if matrix.ndim != 2:
        matrix = matrix.reshape(1, -1) if matrix.size else np.zeros((1, 0))
    return matrix


def _scale(matrix: np.ndarray) -> float:
    finite = matrix[np.isfinite(matrix)]
    return scale_for(finite.ravel().tolist()) if finite.size else 1.0


def _output_shape(step: StepRecord, result: RunResult, rows: int) -> tuple[int, ...]:
    """The shape of the call's tensor (so rows read ``z[0, 1]``), flat if unknown."""
    candidates: list[tuple[int, ...]] = []
    if step.gradient is not None:
        candidates.append(step.gradient.shape)
    info = result.tensors.get(step.tensor) if step.tensor is not None else None
    if info is not None:
        candidates.append(info.value.shape)
    if step.tensor == result.output and result.output_value is not None:
        candidates.append(result.output_value.shape)
    for shape in candidates:
        if nested.numel(shape) == rows:
            return shape
    return () if rows == 1 else (rows,)


def _leaf_shape(result: RunResult, leaf: str, columns: int) -> tuple[int, ...]:
    info = result.tensors.get(leaf)
    if info is not None and nested.numel(info.value.shape) == columns:
        return info.value.shape
    return () if columns == 1 else (columns,)


def _gradient(step: StepRecord, rows: int) -> tuple[float, ...] | None:
    """``v`` flattened in row order (the implicit ``1`` of a scalar output included)."""
    if step.gradient is None:
        return (1.0,) if rows == 1 else None
    if step.gradient.values is None:
        return None
    flat = [_as_float(x) for x in nested.flatten(step.gradient.values)]
    return tuple(flat) if len(flat) == rows else None


def _as_float(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def vector_text(values: NestedValues, shape: tuple[int, ...]) -> str:
    """A gradient as the equation writes it, shaped like the leaf: ``[[43.40, 0.], ...]``."""
    return format_tensor(TensorData(shape, "float32", values), EQUATION_ELEMENTS)


def _equation(
    step: StepRecord, check: JacobianCheck, leaf: str, shape: tuple[int, ...]
) -> tuple[str, ...]:
    """``x.grad += Jᵀv = [...]``, what torch's backward added, and whether they agree."""
    v = "v" if step.gradient is not None else "v (the implicit 1)"
    computed = f"{leaf}.grad += Jᵀ{v} = {vector_text(check.vjp, shape)}"
    if step.call == "grad":
        verb = "torch.autograd.grad returned"
    else:
        verb = f"torch's backward added to {leaf}.grad"
    if check.contribution is None:
        torch_side = f"{verb}: nothing ({leaf} got no gradient)"
    else:
        torch_side = f"{verb}: {vector_text(check.contribution, shape)}"
    if check.matches:
        verdict = "✓ the same numbers: backward(v) computes Jᵀv without building J"
    else:
        difference = check.max_abs_difference
        size = "" if difference is None else f" by up to {format_number(difference)}"
        verdict = f"✗ they differ{size}"
    return (computed, torch_side, verdict)


def _no_jacobian(step: StepRecord, result: RunResult) -> str:
    """Why the shown call has no Jacobian, in plain words."""
    if step.error is not None:
        first = visible_controls(step.error.message.strip().split("\n")[0])
        hint = ""
        if cannot_start(result) is None:
            hint = " “Build J row by row” still works: it passes its own v, one row at a time."
        return (
            f"This backward call failed, so there is no Jacobian to show. torch said: {first}."
            f"{hint}"
        )
    if step.jacobian_note is not None:
        note = step.jacobian_note
        hint = ""
        if cannot_start(result) is None:
            hint = " “Build J row by row” still works: it only calls backward."
        return f"No Jacobian for this call: {note}.{hint}"
    if step.details_dropped:
        return (
            "This call's details were not kept (a long loop keeps them for its first and "
            "last calls): pick another call in the history plot."
        )
    return "No Jacobian for this call."


def _recipe_view(snapshot: Snapshot, recipe: JacobianRecipe, leaf: str | None) -> JacobianView:
    """The matrix as the recipe's backward calls built it so far."""
    chosen = _chosen_leaf(snapshot, recipe.leaves, leaf)
    output = recipe.output or "output"
    shape = recipe.leaf_shape(chosen)
    rows, columns = recipe.row_count, nested.numel(shape)
    matrix = np.full((rows, columns), math.nan)
    for k, row in enumerate(recipe.rows):
        matrix[k] = row[chosen]
    built = tuple(k < len(recipe.rows) for k in range(rows))
    current = recipe.row if recipe.building else None
    v = tuple(nested.flatten(recipe.gradient())) if recipe.building else None
    locked = snapshot.locked_scale
    lines, check = _recipe_lines(recipe, chosen, shape)
    return JacobianView(
        message=None,
        explanation=explanation(output, chosen),
        leaves=recipe.leaves,
        leaf=chosen,
        output=output,
        row_labels=element_labels(output, recipe.output_shape),
        column_labels=element_labels(chosen, shape),
        matrix=matrix,
        built=built,
        v=v,
        current_row=current,
        scale=locked if locked is not None else _scale(matrix),
        v_scale=1.0,
        lines=lines,
        check=check,
        numbered=rows * columns <= MAX_NUMBERED_CELLS,
    )


def _recipe_lines(
    recipe: JacobianRecipe, leaf: str, shape: tuple[int, ...]
) -> tuple[tuple[str, ...], bool | None]:
    """What the recipe is doing, and at the end whether its rows equal the engine's J."""
    count = recipe.row_count
    if recipe.status == "failed":
        return (f"Stopped: {recipe.problem}",), False
    if recipe.building:
        k = recipe.row
        where = element_labels(recipe.output or "output", recipe.output_shape)[k]
        doing = (
            f"Row {k + 1} of {count}: v = e_{k} (1 at {where}), grads zeroed, one backward call."
        )
        if recipe.waiting or k >= len(recipe.rows):
            return (doing, "Waiting for torch…"), None
        row = recipe.rows[k][leaf]
        grad = vector_text(nested.unflatten(list(row), shape), shape)
        got = f"{leaf}.grad = Jᵀe_{k} = row {k} of J = {grad}"
        return (doing, got), None
    engine = _engine_matrix(recipe, leaf)
    built = np.array([row[leaf] for row in recipe.rows], dtype=float)
    done = f"All {count} rows built, one backward call each; your own v and calls are back."
    if isinstance(engine, str):
        return (done, f"The engine computed no J to compare with: {engine}."), None
    if engine.shape != built.shape:
        return (done, "The engine's J has another shape: the program changed."), False
    difference = float(np.max(np.abs(engine - built))) if built.size else 0.0
    scale = max(1.0, float(np.max(np.abs(engine))) if engine.size else 1.0)
    if difference <= 1e-5 * scale:
        size = format_number(difference)
        return (done, f"✓ the rows built equal the engine's J (largest difference {size})"), True
    return (
        done,
        f"✗ the rows built differ from the engine's J by up to {format_number(difference)}",
    ), False


def _engine_matrix(recipe: JacobianRecipe, leaf: str) -> np.ndarray | str:
    """The engine's own J for ``leaf`` (of the recipe's last call), or why there is none."""
    for check in recipe.engine:
        if check.leaf == leaf:
            return _matrix(check.matrix)
    if recipe.engine_note is not None:
        return recipe.engine_note
    return f"it has none for {leaf}"
