"""Round 11's red team: complex numbers where the window expects real ones.

The reader takes complex numbers since complex tensors reach the window (pickle makes
them by calling ``complex``), and a tensor record's values only have to be numbers of its
shape: nothing ties them to the record's dtype. So a compromised engine can answer a
``float32`` leaf whose values are complex, NaN complex, or complex numbers too big to
square. Each answer goes through ``wire.loads`` as the engine's bytes would, then into a
real :class:`Session` and :class:`MainWindow`; every node and step is selected, every tab
raised, the sliders' leaf changed. Nothing may raise.
"""

from __future__ import annotations

import cmath
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication, QTabWidget
from pytestqt.qtbot import QtBot

from gui.model import wire
from gui.model.result import Answer, RunResult, TensorData
from tests.fixtures import forged
from tests.widgets.test_attacks_round10_window import (
    _every_tensor,
    base,
    window_through_everything,
)

__all__ = ["base"]  # the engine's real answer, the fixture the tampering starts from

ODD_NUMBERS = (
    complex(1.0, 2.0),
    complex(math.nan, math.nan),
    complex(1e308, -1e308),
    complex(math.inf, 0.0),
    complex(-0.0, math.nan),
)


def _complex(values: Any, numbers: list[int]) -> Any:
    if isinstance(values, list):
        return [_complex(v, numbers) for v in values]
    numbers[0] += 1
    return ODD_NUMBERS[numbers[0] % len(ODD_NUMBERS)]


def complex_as_real(result: RunResult) -> RunResult:
    """Every tensor's values complex; its dtype still the real one the engine said."""
    counter = [0]
    return _every_tensor(result, lambda t: forged(t, values=_complex(t.values, counter)))


def complex_as_complex(result: RunResult) -> RunResult:
    """Every tensor's values complex and its dtype complex too."""
    counter = [0]

    def change(t: TensorData) -> TensorData:
        return forged(t, values=_complex(t.values, counter), dtype="torch.complex64")

    return _every_tensor(result, change)


HUGE = 10**5000  # past Python's 4,300 digits: str() of it raises ValueError


def huge_numbers(result: RunResult) -> RunResult:
    """Every whole number of the answer (lines, counts, saved values, sizes) past the
    digits Python turns into text."""
    from tests.widgets.test_attacks_round10_window import misnumbered

    base_ = misnumbered(result)
    graph = base_.graph
    assert graph is not None
    nodes = tuple(
        forged(n, saved=tuple(forged(s, value=HUGE) for s in n.saved)) for n in graph.nodes
    )
    return forged(
        base_,
        graph=forged(graph, nodes=nodes),
        steps_left_out=HUGE,
        steps_gap=HUGE,
        printed=tuple(forged(p, line=HUGE, after_step=HUGE) for p in base_.printed),
        tensors={k: forged(v, line=HUGE) for k, v in base_.tensors.items()},
    )


def test_the_reader_takes_the_complex_answers(base: RunResult) -> None:
    for tamper in (complex_as_real, complex_as_complex):
        answer = wire.loads(pickle.dumps(Answer(1, tamper(base))))
        assert type(answer) is Answer and type(answer.result) is RunResult
        values = answer.result.tensors["x"].value.values
        assert isinstance(values, list) and all(type(v) is complex for v in values)
        assert any(cmath.isnan(v) for v in values) or any(cmath.isinf(v) for v in values)


# numpy warns (`inf - inf` in the gradient bars' difference: a real program's overflowing
# gradient does too); a warning, not an error, in the app. Any exception still fails.
@pytest.mark.parametrize("tamper", [complex_as_real, complex_as_complex])
def test_the_window_shows_complex_numbers_where_it_expects_real_ones(
    qtbot: QtBot,
    base: RunResult,
    tamper: Callable[[RunResult], RunResult],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    answer = wire.loads(pickle.dumps(Answer(1, tamper(base))))
    assert type(answer) is Answer and type(answer.result) is RunResult
    show_everything(qtbot, answer.result, tmp_path, monkeypatch)


def test_numbers_too_long_to_print_are_refused_or_shown(
    qtbot: QtBot, base: RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        answer = wire.loads(pickle.dumps(Answer(1, huge_numbers(base))))
    except pickle.UnpicklingError:
        return  # refused by the reader: the window never sees it
    assert type(answer) is Answer and type(answer.result) is RunResult
    show_everything(qtbot, answer.result, tmp_path, monkeypatch)


def show_everything(
    qtbot: QtBot, odd: RunResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Show ``odd`` in a real window: every node and step selected, every tab raised."""
    window = window_through_everything(qtbot, odd, tmp_path, monkeypatch)
    for tabs in window.findChildren(QTabWidget):
        for page in range(tabs.count()):
            tabs.setCurrentIndex(page)
            QApplication.processEvents()
    assert not window.grab().isNull()
