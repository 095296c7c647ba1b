"""A lesson's notes, prompts and steps as the HTML the window shows: a small Markdown.

Lesson text comes from files anyone can write, so it is never handed to a Markdown or
HTML engine: this module reads the few constructs the format allows (``docs/session-
format.md``, "Notes are Markdown") and escapes everything else, so a tag, a link or an
image shows as the text it is written as. The HTML goes to a ``SafeTextBrowser``, which
loads nothing even if something slipped through.

- a blank line separates paragraphs; a single line break stays a line break;
- lines starting ``- `` or ``* `` make a bullet list;
- ``**bold**``, ``*italic*`` and ```code``` inside a line; ``\\*`` and ``\\``` are literal.

A ``*`` only opens emphasis where a word starts (``2 * x`` and ``x**2`` stay as written).
"""

from __future__ import annotations

import html
import re

from gui.model.session.lesson import LessonPosition

# ``code``, **bold**, *italic*: bold and italic open before a non-space that does not
# follow a letter or digit, and close after a non-space not followed by one.
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|(?<![\w*\\])\*\*(?P<bold>[^\s*](?:[^*\n]*?[^\s*])?)\*\*(?![\w*])"
    r"|(?<![\w*\\])\*(?P<italic>[^\s*](?:[^*\n]*?[^\s*])?)\*(?![\w*])"
)
_ESCAPED = re.compile(r"\\([*`\\])")
_BULLET = re.compile(r"^\s{0,3}[-*]\s+(.*)$")
CODE_STYLE = "font-family:monospace"


def inline_html(text: str) -> str:
    """One line (or paragraph) of lesson text as HTML: emphasis and code, all else escaped."""
    out: list[str] = []
    position = 0
    for match in _INLINE.finditer(text):
        out.append(_plain(text[position : match.start()]))
        if match.group("code") is not None:
            out.append(f'<code style="{CODE_STYLE}">{html.escape(match.group("code"))}</code>')
        elif match.group("bold") is not None:
            out.append(f"<b>{_plain(match.group('bold'))}</b>")
        else:
            out.append(f"<i>{_plain(match.group('italic'))}</i>")
        position = match.end()
    out.append(_plain(text[position:]))
    return "".join(out)


def markdown_html(text: str) -> str:
    """Lesson text (notes, a step's note) as HTML paragraphs and bullet lists."""
    blocks: list[str] = []
    for block in re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
        lines = [line for line in block.split("\n") if line.strip()]
        if not lines:
            continue
        paragraph: list[str] = []
        items: list[str] = []
        for line in lines:
            bullet = _BULLET.match(line)
            if bullet is not None:
                if paragraph:
                    blocks.append(_paragraph(paragraph))
                    paragraph = []
                items.append(bullet.group(1))
            elif items and line.startswith((" ", "\t")):  # a bullet's continued line
                items[-1] += " " + line.strip()
            else:
                if items:
                    blocks.append(_bullets(items))
                    items = []
                paragraph.append(line)
        if paragraph:
            blocks.append(_paragraph(paragraph))
        if items:
            blocks.append(_bullets(items))
    return "".join(blocks)


def prompts_html(prompts: tuple[str, ...], heading: str = "Try this") -> str:
    """A lesson's prompts as a "Try this" heading over bullets (empty: nothing)."""
    if not prompts:
        return ""
    return f"<p><b>{html.escape(heading)}</b></p>{_bullets(list(prompts))}"


def step_html(position: LessonPosition) -> str:
    """A step's note for the step bar (an empty step says so, quietly)."""
    if not position.note:
        return ""
    return markdown_html(position.note)


def _paragraph(lines: list[str]) -> str:
    return "<p>" + "<br>".join(inline_html(line.strip()) for line in lines) + "</p>"


def _bullets(items: list[str]) -> str:
    rows = "".join(f"<li>{inline_html(item.strip())}</li>" for item in items)
    return f'<ul style="margin-top:0; margin-bottom:0">{rows}</ul>'


def _plain(text: str) -> str:
    return html.escape(_ESCAPED.sub(r"\1", text))


def lesson_number(stem: str) -> str:
    """The number a lesson file's name starts with (``"03-chain-rule"``: ``"3"``), or ``""``."""
    digits = re.match(r"\d+", stem)
    return str(int(digits.group())) if digits else ""


def lesson_page(title: str, notes: str | None, prompts: tuple[str, ...], steps: int) -> str:
    """A lesson as the browser shows it: title, explanation, "Try this", its step count."""
    parts = [f"<h2>{html.escape(title)}</h2>"]
    if notes:
        parts.append(markdown_html(notes))
    parts.append(prompts_html(prompts))
    if steps:
        parts.append(
            f"<p><i>{steps} step{'s' if steps != 1 else ''}: advance with → or Alt+→</i></p>"
        )
    return "".join(parts)


def broken_lesson_page(name: str, problem: str) -> str:
    """What the browser shows for a lesson file that cannot be used (its one sentence)."""
    return (
        f"<h2>{html.escape(name)}</h2><p>This lesson cannot be opened:</p>"
        f"<p>{html.escape(problem)}</p>"
    )
