"""Round 11's red team, behind both walls: whole numbers too long to print.

Python refuses to turn an int of more than 4,300 digits into text (``str(10**5000)``
raises ``ValueError``), and a pickle carries one in a few kilobytes (``LONG4``). The
reader checks a field's type (``int``), never its size: an answer whose printed line, count
of steps left out, saved value, tensor dimension or whole-number tensor value is
``10**5000`` loads, and the window's first render raised on its GUI thread
(``diagnostics.py``: ``len(str(p.line))``), leaving the other panels unrendered. No
engine sends such a number (torch's are 64-bit, lines and counts are small): the reader
refuses whole numbers past 64 bits wherever they are (``wire_tensors.check_atoms``).
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import Any

import pytest

from gui.model import wire
from gui.model.engine.run import run_program
from gui.model.request import Program, RunRequest
from gui.model.result import Answer, RunResult, TensorData
from tests.fixtures import forged

CODE = (
    "x = torch.tensor([0.5, -0.3], requires_grad=True)\n"
    "n = torch.tensor([3, 4])\n"
    "y = (x.exp() * x ** 2).sum()\n"
    "print(y)\n"
    "y.backward()\n"
)
HUGE = 10**5000


@pytest.fixture(scope="module")
def small() -> RunResult:
    result = run_program(RunRequest(Program(code=CODE), time_limit=60))
    assert result.error is None and result.graph is not None and result.printed
    return result


def printed_line(result: RunResult) -> RunResult:
    return forged(result, printed=tuple(forged(p, line=HUGE) for p in result.printed))


def steps_left_out(result: RunResult) -> RunResult:
    return forged(result, steps_left_out=HUGE)


def saved_value(result: RunResult) -> RunResult:
    graph = result.graph
    assert graph is not None
    nodes = tuple(
        forged(n, saved=tuple(forged(s, value=HUGE, tensor=None) for s in n.saved))
        for n in graph.nodes
    )
    assert any(n.saved for n in nodes)
    return forged(result, graph=forged(graph, nodes=nodes))


def tensor_dimension(result: RunResult) -> RunResult:
    info = result.tensors["x"]
    value = dataclasses.replace(info.value, shape=(HUGE,), values=None)
    return forged(result, tensors={**result.tensors, "x": forged(info, value=value)})


def tensor_value(result: RunResult) -> RunResult:
    info = result.tensors["n"]
    value: TensorData = dataclasses.replace(info.value, values=[HUGE, -HUGE])
    return forged(result, tensors={**result.tensors, "n": forged(info, value=value)})


PLACES = [printed_line, steps_left_out, saved_value, tensor_dimension, tensor_value]


def test_python_cannot_print_such_a_number() -> None:
    with pytest.raises(ValueError, match="4300 digits"):
        str(HUGE)


@pytest.mark.parametrize("place", PLACES, ids=[p.__name__ for p in PLACES])
def test_an_answer_with_a_number_too_long_to_print_is_refused(small: RunResult, place: Any) -> None:
    data = pickle.dumps(Answer(1, place(small)))
    assert len(data) < 20_000  # a few kilobytes
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(data)


def test_numbers_of_64_bits_still_load(small: RunResult) -> None:
    edge = forged(small, steps_left_out=2**63 - 1)
    info = small.tensors["n"]
    edge = forged(
        edge,
        tensors={
            **small.tensors,
            "n": forged(info, value=dataclasses.replace(info.value, values=[2**63 - 1, -(2**63)])),
        },
    )
    answer = wire.loads(pickle.dumps(Answer(1, edge)))
    assert type(answer) is Answer and answer.result.steps_left_out == 2**63 - 1


# Complex numbers (admitted for complex tensors' values) where the window expects real ones.
def summary_mean(result: RunResult) -> RunResult:
    info = result.tensors["x"]
    summary = dataclasses.replace(info.value.summary or _any_summary(), mean=complex(1, 1))
    value = dataclasses.replace(info.value, summary=summary)
    return forged(result, tensors={**result.tensors, "x": forged(info, value=value)})


def _any_summary() -> Any:
    from gui.model.result import TensorSummary

    return TensorSummary(0.0, 1.0, 0.5, 1.0)


def step_value(result: RunResult) -> RunResult:
    return forged(result, step_values=(complex(float("nan"), 1.0),))


def elapsed(result: RunResult) -> RunResult:
    return forged(result, elapsed_seconds=complex(1e308, 1e308))


COMPLEX_PLACES = [summary_mean, step_value, elapsed]


@pytest.mark.parametrize("place", COMPLEX_PLACES, ids=[p.__name__ for p in COMPLEX_PLACES])
def test_a_complex_number_where_a_float_goes_is_refused(small: RunResult, place: Any) -> None:
    # Held: a float field takes float, int or bool, never complex.
    with pytest.raises(pickle.UnpicklingError, match=r"complex|step_values"):
        wire.loads(pickle.dumps(Answer(1, place(small))))


def test_complex_values_of_a_tensor_load_as_numbers(small: RunResult) -> None:
    # Held: a tensor's values may be complex whatever its dtype says; the window shows
    # them by magnitude (tests/widgets/test_attacks_round11_window.py).
    info = small.tensors["x"]
    odd = [complex(float("nan"), float("inf")), complex(1e308, -1e308)]
    value = dataclasses.replace(info.value, values=odd)
    answer = wire.loads(
        pickle.dumps(
            Answer(1, forged(small, tensors={**small.tensors, "x": forged(info, value=value)}))
        )
    )
    assert type(answer) is Answer
    assert [type(v) for v in answer.result.tensors["x"].value.values] == [complex, complex]


# Texts longer than the engine ever sends. Every explanation is cut to MAX_TEXT_CHARS where
# it is made, and each printed chunk too (engine/capture.py); unpickling makes no second
# cut, and the reader checks a str's type only. One unbroken word of 300,000 characters in
# an error message kept the window's explanation layout (diagnostics_tabs.needed_height,
# QTextDocument) past 25 s (3 MB and 20 MB: past 300 s, and 3 MB fits the answers the
# engine sends); 10 MB of printed lines took 45 s to show. Only a compromised
# engine could send them; the reader refuses an Explanation's or a PrintedLine's text past
# MAX_TEXT_CHARS, and any text past wire_tensors.MAX_STR_CHARS.
def long_error_message(result: RunResult) -> RunResult:
    from gui.model.result import Explanation

    error = Explanation(kind="other-error", message="m", explanation="e", fix="f")
    object.__setattr__(error, "message", "b" * 300_000)
    return forged(result, error=error)


def long_printed_text(result: RunResult) -> RunResult:
    return forged(result, printed=tuple(forged(p, text="a\n" * 150_000) for p in result.printed))


LONG_TEXTS = [long_error_message, long_printed_text]


@pytest.mark.parametrize("place", LONG_TEXTS, ids=[p.__name__ for p in LONG_TEXTS])
def test_a_text_longer_than_the_engine_sends_is_refused(small: RunResult, place: Any) -> None:
    from gui.model.result import MAX_TEXT_CHARS

    answer = place(small)
    texts = [answer.error.message] if answer.error else [p.text for p in answer.printed]
    assert max(map(len, texts)) > 100 * MAX_TEXT_CHARS
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(pickle.dumps(Answer(1, answer)))


def test_texts_as_the_engine_bounds_them_still_load(small: RunResult) -> None:
    from gui.model.result import MAX_TEXT_CHARS, Explanation, bounded_text

    error = Explanation(kind="other-error", message="b" * 300_000, explanation="e", fix="f")
    assert len(error.message) <= MAX_TEXT_CHARS
    printed = tuple(forged(p, text=bounded_text("a\n" * 150_000)) for p in small.printed)
    answer = wire.loads(pickle.dumps(Answer(1, forged(small, error=error, printed=printed))))
    assert type(answer) is Answer and answer.result.error == error
