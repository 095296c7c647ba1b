"""Explore mode's read-only values: each leaf's numbers and .grad, as plain text."""

from __future__ import annotations

from gui.model.result import RunResult, TensorData, TensorInfo
from gui.model.views.live_values import values_text


def info(name: str, shape: tuple[int, ...], values: object, grad: object) -> TensorInfo:
    return TensorInfo(
        name=name,
        value=TensorData(shape, "float32", values),
        requires_grad=True,
        is_leaf=True,
        grad_fn=None,
        grad=None if grad is None else TensorData(shape, "float32", grad),
        retains_grad=False,
        line=None,
    )


def result(*infos: TensorInfo) -> RunResult:
    return RunResult(
        tensors={i.name: i for i in infos},
        leaves=tuple(i.name for i in infos),
        output="loss",
        output_value=None,
        output_grad_fn=None,
        graph=None,
        steps=(),
        printed=(),
        error=None,
        warnings=(),
        seed=0,
    )


def test_small_leaves_in_full_big_ones_as_statistics() -> None:
    big = [[float(i + j) for j in range(4)] for i in range(4)]
    text = values_text(
        result(info("0.bias", (2,), [1.0, -2.0], [0.5, 0.25]), info("0.weight", (4, 4), big, None))
    )
    blocks = text.split("\n\n")
    assert blocks[0].splitlines() == [
        "0.bias   (2,)  float32",
        "  value  [1., -2.]",
        "  .grad  [0.5000, 0.2500]",
    ]
    assert blocks[1].startswith("0.weight   (4, 4)  float32\n  value  min 0.")
    assert "shape" not in blocks[1]  # the heading has it
    assert blocks[1].endswith("  .grad  None")


def test_no_result_and_no_leaves() -> None:
    assert values_text(None) == ""
    assert values_text(result()) == "The graph has no leaf that requires grad."
