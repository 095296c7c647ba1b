"""Round 7's red team on the exported ``script.py``: a module's parameter names are the
program's own strings (``add_module`` takes any text without a dot), and the script is
meant to be run with plain Python, outside the app's walls. A name must reach the script
as a string literal, never as code."""

from __future__ import annotations

import ast
from xml.etree import ElementTree

import pytest

from gui.model.engine.run import run_program
from gui.model.export.files import graph_dot, graph_svg
from gui.model.export.script import plain_script
from gui.model.request import BackwardStep, Program, RunRequest


def _calls_of(script: str, function: str) -> list[int]:
    """Lines of the script that call ``function`` by its bare name."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(script))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == function
    ]


@pytest.mark.parametrize(
    "name",
    [
        'a", exit(7), "',  # closes the print's "..." literal (the report's gradient lines)
        "a\nexit(7)\n",  # a line of its own
        "a'''\nexit(7)\n'''",
    ],
)
def test_a_parameter_name_is_never_code_in_the_exported_script(name: str) -> None:
    code = (
        "m = torch.nn.Sequential()\n"
        f"m.add_module({name!r}, torch.nn.Linear(1, 1))\n"
        "y = m(torch.ones(1)).sum()\n"
    )
    program = Program(code=code)
    result = run_program(RunRequest(program))
    assert result.error is None and len(result.leaves) == 2
    script = plain_script(program, result)
    # Before: `print("m.a", exit(7), ".weight.grad =", ...)`: running the exported script
    # ran the name (with `getattr(__import__("os"), "system")(...)`, any command).
    assert _calls_of(script, "exit") == []
    labels = [
        node.args[0].value
        for node in ast.walk(ast.parse(script))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]
    assert f"m.{name}.weight.grad =" in labels and f"m.{name}.bias.grad =" in labels


def test_a_parameter_differentiated_by_the_session_is_named_as_a_literal() -> None:
    # The code calls backward on a parameter itself, then a Backward press follows: the
    # script's call is written on the name the engine reports for that tensor.
    name = "a\nexit(9)\n"
    code = (
        "m = torch.nn.Sequential()\n"
        f"m.add_module({name!r}, torch.nn.Linear(1, 1))\n"
        "list(m.parameters())[0].backward(torch.ones(1, 1), retain_graph=True)\n"
    )
    program = Program(code=code, steps=(BackwardStep(gradient=[[1.0]]),))
    result = run_program(RunRequest(program))
    assert result.output == f"m.{name}.weight"
    script = plain_script(program, result)
    assert _calls_of(script, "exit") == []
    assert f"m.get_parameter({name + '.weight'!r}).backward(" in script


# -- graph.dot and graph.svg: names and messages XML cannot hold ------------------------------

CONTROL_NAME = "a\x01\x0c\x1b]b"
SURROGATE_NAME = "a\ud800b\ufffe"


@pytest.mark.parametrize("name", [CONTROL_NAME, SURROGATE_NAME], ids=["controls", "surrogate"])
def test_a_name_xml_cannot_hold_still_makes_a_dot_file_and_an_svg(name: str) -> None:
    code = (
        "m = torch.nn.Sequential()\n"
        f"m.add_module({name!r}, torch.nn.Linear(1, 1))\n"
        "y = m(torch.ones(1)).sum()\n"
    )
    result = run_program(RunRequest(Program(code=code)))
    assert result.error is None
    # Before: a lone surrogate made writing graph.dot raise UnicodeEncodeError (the export
    # stopped half-way); controls made Graphviz refuse the HTML labels and write an SVG that
    # no XML reader (Qt's, for graph.png) could read.
    dot = graph_dot(result)
    dot.encode("utf-8")
    assert not any(ch in dot for ch in name if not ch.isprintable() or "\ud800" <= ch <= "\udfff")
    assert "m.a" in dot and ".weight" in dot
    svg = graph_svg(result)
    root = ElementTree.fromstring(svg.encode("utf-8"))
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert ".weight" in texts


def test_an_error_message_in_a_comment_is_shown_escaped() -> None:
    code = (
        "x = torch.tensor(1.0, requires_grad=True)\n"
        "def h(g):\n"
        "    raise ValueError('\\ud800 and \\x1b]0;title\\x07')\n"
        "x.register_hook(h)\n"
        "y = x * 2\n"
    )
    program = Program(code=code)
    result = run_program(RunRequest(program))
    assert result.steps and result.steps[-1].error is not None
    script = plain_script(program, result)
    script.encode("utf-8")  # before: UnicodeEncodeError, no script.py
    assert "\x1b" not in script and "\x07" not in script
    assert "\\x1b]0;title\\x07" in script
