"""Controls in text from a program or a file are shown as their escapes."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from gui.headless import printable
from gui.model.drawing.module_paths import path_text
from gui.model.visible_text import visible_controls

# Unicode's bidirectional classes of the characters that reorder what follows them, and
# the invisible marks (their class is a letter's: L, R, AL) that turn neutrals around.
BIDI_CONTROLS = ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")
BIDI_MARKS = "\u200e\u200f\u061c"


@given(st.text())
def test_nothing_invisible_or_reordering_is_left(text: str) -> None:
    shown = visible_controls(text)
    for ch in shown:
        if ch in "\t\n":
            continue
        assert unicodedata.category(ch) not in ("Cc", "Zl", "Zp")  # controls, line breaks
        assert unicodedata.bidirectional(ch) not in BIDI_CONTROLS and ch not in BIDI_MARKS


def test_ordinary_text_is_kept_as_it_is() -> None:
    text = "tensor([1., 2.])\n\tgrad=None  é ü 中文 مرحبا"
    assert visible_controls(text) is text
    assert printable("\x1b[2J report") == "\\x1b[2J report"


def test_a_layer_path_loses_its_reordering_controls() -> None:
    assert path_text(("enc\u202eoder", "0")) == "enc oder.0"
