"""Lesson text as HTML: a small Markdown read by the app itself, everything else escaped."""

from __future__ import annotations

from gui.model.session.lesson import LessonPosition
from gui.model.views.lesson_text import (
    broken_lesson_page,
    inline_html,
    lesson_number,
    lesson_page,
    markdown_html,
    prompts_html,
    step_html,
)

CODE = '<code style="font-family:monospace">'


def test_bold_italic_and_code_in_a_line() -> None:
    assert inline_html("**∂z/∂x = 24x²** and *so* `y.grad`") == (
        f"<b>∂z/∂x = 24x²</b> and <i>so</i> {CODE}y.grad</code>"
    )


def test_stars_in_formulas_stay_as_written() -> None:
    for text in ("2 * x * 3", "x**2 + y**2", "dy/dx_j = 2*x_j and x.grad", "a * b*c"):
        assert inline_html(text) == text.replace("&", "&amp;")
    assert inline_html(r"\*not italic\*") == "*not italic*"
    assert inline_html("`x ** 2 * <b>`") == f"{CODE}x ** 2 * &lt;b&gt;</code>"


def test_html_links_and_images_show_as_text() -> None:
    page = markdown_html('<img src="/dev/zero"> [a](file:///etc/passwd) ![i](x.png) <b>hi</b>')
    assert "<img" not in page and "<b>hi" not in page and "<a" not in page
    assert "&lt;img src=&quot;/dev/zero&quot;&gt;" in page
    assert "[a](file:///etc/passwd)" in page


def test_paragraphs_line_breaks_and_bullets() -> None:
    page = markdown_html("First line\nsecond line\n\n- one\n- **two**\n  continued\n\nAfter")
    assert page == (
        "<p>First line<br>second line</p>"
        '<ul style="margin-top:0; margin-bottom:0"><li>one</li><li><b>two</b> continued</li></ul>'
        "<p>After</p>"
    )
    assert markdown_html("\n\n  \n") == ""


def test_prompts_steps_and_the_browsers_pages() -> None:
    assert prompts_html(()) == ""
    assert prompts_html(("Drag <x>",)).startswith("<p><b>Try this</b></p><ul")
    assert "Drag &lt;x&gt;" in prompts_html(("Drag <x>",))
    assert step_html(LessonPosition(0, 2, None)) == ""
    assert step_html(LessonPosition(0, 2, "**v** = 0.1")) == "<p><b>v</b> = 0.1</p>"
    page = lesson_page("Title <i>", "Notes", ("Try it",), 3)
    assert "<h2>Title &lt;i&gt;</h2>" in page and "Try it" in page and "3 steps" in page
    assert "steps" not in lesson_page("T", None, (), 0)
    assert "&lt;script&gt;" in broken_lesson_page("x.json", "prompts: <script>")
    assert lesson_number("03-chain-rule") == "3" and lesson_number("welcome") == ""
