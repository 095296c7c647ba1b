"""Python for the code editor: syntax colouring tuned for PyTorch snippets, and indenting.

One combined regular expression scans each line left to right, so a ``#`` inside a string
or a keyword inside a comment is never coloured twice. Triple-quoted strings that span
lines carry over through the block state, as Qt's highlighter examples do.
"""

from __future__ import annotations

import builtins
import keyword
import re

from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

# Dark enough to read on a washed-out projector, and none of them the red/orange/blue of the
# gradient scale or of the error and warning underlines.
INDENT = "    "

KEYWORD_COLOR = "#5b2a86"
BUILTIN_COLOR = "#1f5f8b"
NUMBER_COLOR = "#0b6e4f"
STRING_COLOR = "#7a5200"
COMMENT_COLOR = "#6a6a6a"
TORCH_COLOR = "#2f6f6f"

# Names a PyTorch program leans on: shown in a quiet colour so the user's own variables
# stand out. ``T`` and ``F`` are the usual aliases in tutorials.
TORCH_NAMES = frozenset({"torch", "tensor", "Tensor", "Variable", "nn", "F", "T", "autograd"})
BUILTIN_NAMES = frozenset(
    name for name in dir(builtins) if not name.startswith("_") and name not in keyword.kwlist
)
KEYWORDS = frozenset(keyword.kwlist)

_TOKEN = re.compile(
    r"(?P<comment>\#.*)"
    r"|(?P<string>(?:[rRbBuUfF]{1,2})?(?:'''|\"\"\"|'(?:\\.|[^'\\])*'?|\"(?:\\.|[^\"\\])*\"?))"
    r"|(?P<number>(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[jJ]?)"
    r"|(?P<word>[A-Za-z_]\w*)"
)
_TRIPLE_STATES = {"'''": 1, '"""': 2}
_STATE_DELIMITERS = {state: delim for delim, state in _TRIPLE_STATES.items()}


def next_line_indent(line_before_cursor: str) -> str:
    """The indent a new line gets: the same as this line's, one level more after a colon."""
    indent = line_before_cursor[: len(line_before_cursor) - len(line_before_cursor.lstrip(" "))]
    return indent + INDENT if line_before_cursor.rstrip().endswith(":") else indent


def dedent_width(line: str) -> int:
    """How many leading spaces Shift+Tab removes from ``line`` (one level at most)."""
    return min(len(INDENT), len(line) - len(line.lstrip(" ")))


def _format(color: str, bold: bool = False, italic: bool = False) -> QTextCharFormat:
    fmt = QTextCharFormat()
    fmt.setForeground(QColor(color))
    if bold:
        fmt.setFontWeight(QFont.Weight.Bold)
    fmt.setFontItalic(italic)
    return fmt


class PythonHighlighter(QSyntaxHighlighter):
    """Colours keywords, builtins, numbers, strings, comments and PyTorch names."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._keyword = _format(KEYWORD_COLOR, bold=True)
        self._builtin = _format(BUILTIN_COLOR)
        self._number = _format(NUMBER_COLOR)
        self._string = _format(STRING_COLOR)
        self._comment = _format(COMMENT_COLOR, italic=True)
        self._torch = _format(TORCH_COLOR)

    def highlightBlock(self, text: str) -> None:
        self.setCurrentBlockState(0)
        start = self._continue_triple_string(text)
        if start < 0:
            return
        pos = start
        while (match := _TOKEN.search(text, pos)) is not None:
            kind = match.lastgroup
            begin, pos = match.span()
            if kind == "string":
                pos = self._highlight_string(text, match)
                if pos < 0:
                    return
            elif kind == "comment":
                self.setFormat(begin, pos - begin, self._comment)
            elif kind == "number":
                self.setFormat(begin, pos - begin, self._number)
            else:
                fmt = self._word_format(match.group())
                if fmt is not None:
                    self.setFormat(begin, pos - begin, fmt)

    def _word_format(self, word: str) -> QTextCharFormat | None:
        if word in KEYWORDS:
            return self._keyword
        if word in TORCH_NAMES:
            return self._torch
        if word in BUILTIN_NAMES:
            return self._builtin
        return None

    def _continue_triple_string(self, text: str) -> int:
        """Colour the rest of a string opened on an earlier line; where scanning resumes
        (-1 when the string runs past this line too)."""
        state = self.previousBlockState()
        delimiter = _STATE_DELIMITERS.get(state)
        if delimiter is None:
            return 0
        close = text.find(delimiter)
        if close < 0:
            self.setFormat(0, len(text), self._string)
            self.setCurrentBlockState(state)
            return -1
        end = close + len(delimiter)
        self.setFormat(0, end, self._string)
        return end

    def _highlight_string(self, text: str, match: re.Match[str]) -> int:
        """Colour one string token; where scanning resumes (-1: a triple-quoted string
        left open, continued on the next line)."""
        begin, end = match.span()
        delimiter = match.group().lstrip("rRbBuUfF")
        if delimiter not in _TRIPLE_STATES:
            self.setFormat(begin, end - begin, self._string)
            return end
        close = text.find(delimiter, end)
        if close < 0:
            self.setFormat(begin, len(text) - begin, self._string)
            self.setCurrentBlockState(_TRIPLE_STATES[delimiter])
            return -1
        end = close + len(delimiter)
        self.setFormat(begin, end - begin, self._string)
        return end
