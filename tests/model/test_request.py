"""What crosses to the engine: a backward call's automatic ``retain_graph``."""

from __future__ import annotations

from gui.model.request import BackwardStep, retains_graph


def test_automatic_keeps_the_graph_while_another_call_follows() -> None:
    calls = (BackwardStep(), BackwardStep(), BackwardStep())
    assert [retains_graph(calls, i) for i in range(3)] == [True, True, None]
    assert retains_graph((BackwardStep(),), 0) is None, "one call: torch's default"


def test_an_explicit_choice_is_passed_as_it_is() -> None:
    calls = (BackwardStep(retain_graph=False), BackwardStep(retain_graph=True))
    assert [retains_graph(calls, i) for i in range(2)] == [False, True]
