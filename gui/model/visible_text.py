"""Text from a program or a file, made to read as it is written.

A program decides what it prints and what its exceptions say. Unicode's bidirectional
controls reorder the rest of a line on screen ("Trojan Source"): ``print("\\u202e...")``
made the printed output panel show a line other than the one printed, with the app's own
"← inside backward call 1" mark turned around after it. C0 and C1 controls (a bell, an
escape, a lone carriage return) and Unicode's line and paragraph separators are invisible
or break lines where none was printed. Each of them is shown as its Python escape
(``\\u202e``), as a learner would write it, and tabs and newlines are kept.
"""

from __future__ import annotations

import re

# Unicode's embeddings, overrides and isolates: what reorders the text after them. Code
# holding one raw is refused (`safety`, a session file's `file_format`): the editor would
# show it in another order than Python reads it ("Trojan Source").
REORDERING_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")
# What Qt's editor shows as a line break where Python reads none: Unicode's line and
# paragraph separators (and the two noncharacters Qt keeps for its own frames). A session
# file's `# scale it\u2028x = x * 1000` showed a line of code that never ran, and the
# editor hands each back as "\n" (QTextDocument.toPlainText): the user's first edit
# anywhere made it run. Code holding one raw is refused as the reordering controls are.
EDITOR_LINE_BREAKS = re.compile("[\u2028\u2029\ufdd0\ufdd1]")
# A form feed after a line's indentation: Python's tokenizer starts the line's column
# again at 0 there, the editor shows it as nothing. A session file's `if False:` block
# ending in `    \fx = x * 1000` showed a line inside the block that Python runs after
# it, every time (red team, round 18). Refused as the reordering controls are. (A form
# feed at a line's start, as the standard library's page breaks, reads as written.)
INDENT_RESETS = re.compile("^[ \t\f]*[ \t]\f", re.MULTILINE)
_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
    "\ufdd0\ufdd1]"  # (Qt's text views break lines at these too: see EDITOR_LINE_BREAKS)
)


def visible_controls(text: str) -> str:
    """``text`` with every control character but tab and newline written as its escape."""
    if _HIDDEN.search(text) is None:
        return text
    return _HIDDEN.sub(lambda m: m.group().encode("unicode_escape").decode(), text)
