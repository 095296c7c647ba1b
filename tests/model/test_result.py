"""Result data: explanations and printed text never carry more than the window can lay out."""

from __future__ import annotations

import pickle

from gui.model.result import MAX_TEXT_CHARS, Explanation, bounded_text, left_out


def test_short_text_is_untouched() -> None:
    assert bounded_text("abc") == "abc"
    assert bounded_text("x" * MAX_TEXT_CHARS) == "x" * MAX_TEXT_CHARS


def test_long_text_keeps_start_and_end_and_says_how_much_went() -> None:
    text = "S" + "m" * 1_048_000 + "E" * 100
    cut = bounded_text(text)
    assert len(cut) <= MAX_TEXT_CHARS
    assert cut.startswith("Smmm") and cut.endswith("E" * 100)
    head, marker_and_tail = cut.split("[", 1)
    marker, tail = marker_and_tail.split("]", 1)
    assert marker == f"… {len(text) - len(head) - len(tail):,} characters left out …"
    assert left_out(573, "backward calls") == "… 573 backward calls left out …"


def test_every_explanation_is_bounded_where_it_is_made() -> None:
    huge = "a" * 1_000_000
    made = Explanation("other-error", huge, "because " + huge, "fix " + huge)
    assert all(len(t) <= MAX_TEXT_CHARS for t in (made.message, made.explanation, made.fix))
    assert made.explanation.startswith("because aaa")
    assert pickle.loads(pickle.dumps(made)) == made  # no second cut on the way over
