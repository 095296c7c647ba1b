"""Python in the code editor: keywords, builtins, strings, numbers and comments coloured
once each, left to right; new lines keep the indent, Shift+Tab takes one level off."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from gui.widgets.code_editor import CodeEditor
from gui.widgets.python_highlighter import (
    BUILTIN_COLOR,
    COMMENT_COLOR,
    KEYWORD_COLOR,
    NUMBER_COLOR,
    STRING_COLOR,
    dedent_width,
    next_line_indent,
)


def test_highlighting_colours_keywords_strings_numbers_and_comments(qtbot: QtBot) -> None:
    editor = CodeEditor()
    qtbot.addWidget(editor)
    # As the code panel shows code that comes from the session (a lesson, a file).
    editor.replace_text("for i in range(3):  # a '#' here\n    s = 'x # y' + 2.5\n", False)
    doc = editor.document()

    def colour_at(line: int, text: str) -> str:
        block = doc.findBlockByNumber(line)
        start = block.text().index(text)
        for fmt in block.layout().formats():
            if fmt.start <= start < fmt.start + fmt.length:
                return fmt.format.foreground().color().name()
        return "plain"

    assert colour_at(0, "for") == KEYWORD_COLOR
    assert colour_at(0, "range") == BUILTIN_COLOR
    assert colour_at(0, "# a") == COMMENT_COLOR
    assert colour_at(0, "i in") == "plain"
    assert colour_at(1, "'x # y'") == STRING_COLOR
    assert colour_at(1, "2.5") == NUMBER_COLOR


def test_indent_rules() -> None:
    assert next_line_indent("for i in range(2):") == "    "
    assert next_line_indent("    a = i") == "    "
    assert next_line_indent("a = 1") == ""
    assert dedent_width("      x") == 4
    assert dedent_width("  x") == 2
