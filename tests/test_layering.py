"""The folders are the architecture: who may import what, checked by walking the packages.

Rules (see docs/architecture.md):

- nothing under ``gui/model`` imports Qt;
- only ``gui/model/engine`` imports torch, and nothing outside it imports the engine (the
  GUI process talks to the child through ``gui.model.engine_process``);
- ``gui/model/engine`` imports nothing from ``session``, ``drawing``, ``export`` or outside
  ``gui/model``;
- no import cycles anywhere under ``gui``.

Every ``import`` statement counts, also those inside functions: a lazy import is still a
dependency. The rules are checked on the import graph read from the source with ``ast``, so
a new module is covered the day it is added, and once more at run time in a fresh
interpreter (which also catches a third-party package pulling Qt or torch in).
"""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import gui

GUI_ROOT = Path(gui.__file__).resolve().parent
QT = ("PySide6", "shiboken6", "pyqtgraph", "superqt")
TORCH = ("torch", "torchvision", "functorch")
ENGINE = "gui.model.engine"
ENGINE_MAY_NOT_IMPORT = ("gui.model.session", "gui.model.drawing", "gui.model.export")
# explore(loss) runs the engine's code in the user's own process, where torch is loaded
# already (they built the graph): the one module outside the engine that imports it, lazily.
IN_USER_PROCESS = ("gui.explore_live",)

ImportGraph = Mapping[str, set[str]]


def module_name(path: Path, root: Path = GUI_ROOT) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """Every module ``tree`` imports, resolved to full names (relative imports included).

    ``from a.b import c`` counts as importing ``a.b.c`` when that is a module of ours, else
    ``a.b``: importing a name from a package runs the package, importing a submodule runs it.
    """
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in known else base)
    return found


def import_graph(root: Path = GUI_ROOT) -> dict[str, set[str]]:
    """Module name -> the modules it imports (ours and third-party), for every ``.py``."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    known = set(files)
    graph = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[name] = imported_modules(tree, name, path.name == "__init__.py", known)
    return graph


def within(module: str, package: str | Iterable[str]) -> bool:
    packages = (package,) if isinstance(package, str) else tuple(package)
    return any(module == p or module.startswith(p + ".") for p in packages)


def violations(graph: ImportGraph) -> list[str]:
    """Every broken import rule, one sentence each (empty when the layout is respected)."""
    out = []
    for module, imports in sorted(graph.items()):
        for target in sorted(imports):
            if within(module, "gui.model") and within(target, QT):
                out.append(f"{module} imports Qt ({target}); gui/model never does")
            if module in IN_USER_PROCESS and within(target, (*TORCH, ENGINE)):
                continue
            if within(target, TORCH) and not within(module, ENGINE):
                out.append(f"{module} imports {target}; only {ENGINE} may import torch")
            if within(target, ENGINE) and not within(module, ENGINE):
                out.append(
                    f"{module} imports {target}; only the engine's child process loads the "
                    "engine (talk to it through gui.model.engine_process)"
                )
            engine_reaches_out = within(target, ENGINE_MAY_NOT_IMPORT) or not within(
                target, "gui.model"
            )
            if within(module, ENGINE) and within(target, "gui") and engine_reaches_out:
                out.append(f"{module} imports {target}; the engine may not")
    return out + [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]


def cycles(graph: ImportGraph) -> list[list[str]]:
    """One cycle per strongly connected group of our modules (iterative Tarjan)."""
    ours = {m: sorted(t for t in targets if t in graph and t != m) for m, targets in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[list[str]] = []
    for start in sorted(ours):
        if start in index:
            continue
        work = [(start, iter(ours[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(ours[child])))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return [_one_cycle(ours, group) for group in groups]


def _one_cycle(ours: Mapping[str, list[str]], group: list[str]) -> list[str]:
    """A concrete path through ``group`` that returns to its start, for the message."""
    members = set(group)
    path = [group[0]]
    seen = {group[0]}
    while True:
        step = next(t for t in ours[path[-1]] if t in members)
        if step in seen:
            return [*path[path.index(step) :], step]
        path.append(step)
        seen.add(step)


# -- the rules hold for the app -------------------------------------------------------


def test_the_app_keeps_every_import_rule() -> None:
    graph = import_graph()
    assert "gui.model.engine.run" in graph and "gui.widgets.main_window" in graph
    assert violations(graph) == []


def loaded_after_importing(modules: list[str]) -> list[str]:
    code = (
        f"import sys\nfor m in {modules!r}: __import__(m)\nprint('\\n'.join(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_at_run_time_the_model_loads_no_qt_and_the_gui_process_no_torch() -> None:
    graph = import_graph()
    model = [m for m in graph if within(m, "gui.model") and not within(m, ENGINE)]
    loaded = loaded_after_importing(model)
    assert [m for m in loaded if within(m, QT)] == []
    assert [m for m in loaded if within(m, (*TORCH, ENGINE))] == []


def test_at_run_time_the_window_loads_no_torch() -> None:
    graph = import_graph()
    parent_side = [m for m in graph if not within(m, ENGINE)]
    loaded = loaded_after_importing(parent_side)
    assert "PySide6.QtWidgets" in loaded
    assert [m for m in loaded if within(m, (*TORCH, ENGINE))] == []


# -- the checker finds what it is meant to find ---------------------------------------


@pytest.mark.parametrize(
    ("module", "target", "words"),
    [
        ("gui.model.session.snapshot", "PySide6.QtCore", "imports Qt"),
        ("gui.model.drawing.layout", "pyqtgraph", "imports Qt"),
        ("gui.model.session.session", "torch", "only gui.model.engine may import torch"),
        ("gui.widgets.graph_panel", "torch.autograd", "only gui.model.engine may import torch"),
        ("gui.model.engine_process", "gui.model.engine.worker", "only the engine's child"),
        ("gui.model.engine.run", "gui.model.session.snapshot", "the engine may not"),
        ("gui.model.engine.run", "gui.model.drawing.colors", "the engine may not"),
        ("gui.model.engine.worker", "gui.model.export.files", "the engine may not"),
        ("gui.model.engine.worker", "gui.widgets.main_window", "the engine may not"),
    ],
)
def test_a_broken_rule_is_reported(module: str, target: str, words: str) -> None:
    graph = {m: set(t) for m, t in import_graph().items()}
    graph.setdefault(module, set()).add(target)
    found = violations(graph)
    assert any(module in v and words in v for v in found), found


def test_an_import_cycle_is_reported_with_its_path() -> None:
    graph = {m: set(t) for m, t in import_graph().items()}
    graph["gui.model.result"].add("gui.model.session.snapshot")
    found = [v for v in violations(graph) if v.startswith("import cycle")]
    assert len(found) == 1
    path = found[0].removeprefix("import cycle: ").split(" -> ")
    assert path[0] == path[-1] and "gui.model.result" in path
    assert all(b in graph[a] for a, b in itertools.pairwise(path))


def test_relative_and_lazy_imports_are_read(tmp_path: Path) -> None:
    package = tmp_path / "gui"
    (package / "model" / "engine").mkdir(parents=True)
    for init in (package, package / "model", package / "model" / "engine"):
        (init / "__init__.py").write_text("")
    (package / "model" / "engine" / "run.py").write_text(
        "def later():\n    from ..session import snapshot\n    import torch\n"
    )
    (package / "model" / "session.py").write_text("from .engine import run\n")
    graph = import_graph(package)
    assert graph["gui.model.engine.run"] == {"gui.model.session", "torch"}
    assert graph["gui.model.session"] == {"gui.model.engine.run"}
    found = violations(graph)
    assert any("gui.model.engine.run imports gui.model.session;" in v for v in found)
    assert any(v.startswith("import cycle") for v in found)
