"""One colour scale for every view of a result: the graph, the legend, the plots, the SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from gui.model.drawing.colors import KIND_FILL, diverging_color
from gui.model.drawing.layout import MAX_CELLS
from gui.model.drawing.paint import (
    box_fill,
    colour_scale,
    element_cells,
    gradients,
    step_for_graph,
)
from gui.model.drawing.svg import render_svg
from gui.model.engine_process import EngineProcess
from gui.model.result import GraphNode, StepRecord, TensorData
from gui.model.session import Session, load_session
from gui.resources import lesson

SVG = "{http://www.w3.org/2000/svg}"


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
        result.graph,
        step_for_graph(result),
        snapshot.leaf_grads,
        result.steps[-1],
        snapshot.locked_scale,
    )
    assert exported.scale == snapshot.colour_scale
    # Showing the first call instead changes the one scale for every panel at once.
    session.select_step(0)
    first = session.snapshot
    assert first.paint is not None and first.colour_scale == first.paint.scale


# -- one meaning per colour: a cell per element ----------------------------------------------

MIXED = "x = torch.tensor([1., -2., 3.], requires_grad=True)\ny = (x * x).sum()\n"


def test_a_vector_gets_a_cell_per_element_and_its_box_no_single_colour() -> None:
    mixed = grad(2.0, -4.0, 6.0)
    cells = element_cells(mixed, 6.0)
    assert cells is not None and cells.more == 0
    assert cells.colors == tuple(diverging_color(v, 6.0) for v in (2.0, -4.0, 6.0))
    leaf = GraphNode("0:AccumulateGrad", "AccumulateGrad", "x", "leaf", "x", grad(1, 2, 3))
    assert box_fill(leaf, mixed, 6.0) == KIND_FILL["leaf"]  # no one colour says [2, -4, 6]
    single = TensorData((), "float32", -4.0)
    assert box_fill(leaf, single, 6.0) == diverging_color(-4.0, 6.0)
    assert element_cells(single, 6.0) is None  # the fill says it
    many = TensorData((100,), "float32", [float(i) for i in range(100)])
    strip = element_cells(many, 99.0)
    assert strip is not None and len(strip.colors) == MAX_CELLS and strip.more_text == "+36"


def test_the_svg_shows_the_same_cells(engine_process: EngineProcess) -> None:
    session = Session(engine_process.run)
    session.set_code(MIXED)
    snapshot = session.snapshot
    assert snapshot.graph is not None
    svg = render_svg(snapshot.graph, snapshot.graph_step, snapshot.leaf_grads, snapshot.shown_step)
    root = ET.fromstring(svg)
    leaf = next(g for g in root.iter(f"{SVG}g") if "leaf" in (g.get("class") or "").split())
    fills = {el.get("fill") for el in leaf.iter(f"{SVG}polygon")}
    for value in (2.0, -4.0, 6.0):
        assert diverging_color(value, snapshot.colour_scale) in fills
    texts = [el.text for el in root.iter(f"{SVG}text")]
    assert "x.grad [2., -4., 6.]" in texts
    assert any(t and t.startswith("Colour: .grad on leaves (accumulated)") for t in texts)
