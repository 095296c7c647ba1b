"""One colour scale for every view of a result: the graph, the legend, the plots, the SVG."""

from __future__ import annotations

from gui.model.drawing.paint import colour_scale, gradients, step_for_graph
from gui.model.engine_process import EngineProcess
from gui.model.result import StepRecord, TensorData
from gui.model.session import Session, load_session
from gui.resources import lesson


def grad(*values: float) -> TensorData:
    return TensorData((len(values),), "float32", list(values))


def step(before: TensorData | None, after: TensorData | None) -> StepRecord:
    return StepRecord(
        index=0,
        source="session",
        line=None,
        tensor="y",
        gradient=None,
        retain_graph=False,
        create_graph=False,
        zero_grad=False,
        grads_before={"x": before},
        grads_after={"x": after},
    )


def test_the_scale_covers_what_a_backward_call_added() -> None:
    # .grad went from -5 to 5: the plots draw a bar of +10 for this call.
    assert colour_scale([grad(5.0)], step(grad(-5.0), grad(5.0))) == 10.0
    # A .grad of None before the call counts as zero.
    assert colour_scale([], step(None, grad(3.0, -4.0))) == 4.0


def test_the_scale_covers_every_tensor_and_ignores_what_is_not_finite() -> None:
    assert colour_scale([grad(1.0, -7.0), None, grad(float("inf"))], None) == 7.0
    assert colour_scale([], None) == 1.0


def test_window_and_export_share_one_scale(engine_process: EngineProcess) -> None:
    session = Session(engine_process.run)
    session.load(load_session(lesson("05-gradients-accumulate")))
    snapshot = session.snapshot
    result = snapshot.result
    assert result is not None and result.graph is not None and len(result.steps) >= 2
    paint = snapshot.paint
    assert paint is not None and snapshot.colour_scale == paint.scale
    # The export draws the same picture (the last step's flows, every leaf's .grad).
    exported = gradients(
        result.graph, step_for_graph(result), snapshot.leaf_grads, result.steps[-1]
    )
    assert exported.scale == snapshot.colour_scale
    # Showing the first call instead changes the one scale for every panel at once.
    session.select_step(0)
    first = session.snapshot
    assert first.paint is not None and first.colour_scale == first.paint.scale
