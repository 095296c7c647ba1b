"""Every explanation rule's pattern reads a long message in time proportional to it.

A program's own exception message can be a megabyte (``assert False, 'a' * 10**6``), and
the rules read it before anything cuts it: one pattern that tried a ``\\w+`` run from every
position of a word (quadratic) kept a run busy for minutes (real code round 13). The bound
below is a hang catcher, two orders of magnitude above the linear time, not a speed target.
"""

from __future__ import annotations

import time

import pytest

from gui.model.explain.messages import ALL_WARNING_RULES, EXCEPTION_RULES

LONG = 100_000
MESSAGES = {
    "one-word": "a" * LONG + "END",
    "calls": "a(" * (LONG // 2),
    "spaces": " " * LONG + "x",
    "digits": "1" * LONG,
    "dotted": "a." * (LONG // 2),
    "quoted": "'a' " * (LONG // 4),
    "shapes": "[2, " * (LONG // 4),
}


@pytest.mark.parametrize("message", MESSAGES.values(), ids=MESSAGES.keys())
def test_no_pattern_takes_quadratic_time_on_a_long_message(message: str) -> None:
    for rule in (*EXCEPTION_RULES, *ALL_WARNING_RULES):
        if rule.pattern is None:
            continue
        started = time.process_time()
        rule.pattern.search(message)
        spent = time.process_time() - started
        assert spent < 5.0, f"{rule.kind}: {spent:.1f} s on {len(message):,} characters"
