"""The model layer never loads Qt; the parent-side modules never load torch."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import gui.model

QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph", "superqt")
ALL_MODEL_MODULES = sorted(m.name for m in pkgutil.iter_modules(gui.model.__path__, "gui.model."))
# What the GUI process imports to talk to the engine: these must not need torch, so the window
# starts without paying for it and a broken torch install still shows a clear error.
PARENT_SIDE = (
    "gui.model.runner",
    "gui.model.safety",
    "gui.model.explain",
    "gui.model.session_file",
    "gui.model.codegen",
    "gui.model.jsonio",
    "gui.model.layout",
    "gui.model.svg_export",
    "gui.model.export",
    "gui.model.session",
    "gui.model.snapshot",
    "gui.model.nested",
    "gui.model.graph_paint",
    "gui.model.local_rules",
    "gui.resources",
)


def loaded_after_importing(
    modules: tuple[str, ...] | list[str], prefixes: tuple[str, ...]
) -> list[str]:
    code = (
        "import sys\n"
        f"for m in {list(modules)!r}: __import__(m)\n"
        f"print('\\n'.join(sorted(n for n in sys.modules if n.split('.')[0] in {prefixes!r})))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_model_never_imports_qt() -> None:
    assert "gui.model.engine" in ALL_MODEL_MODULES
    assert loaded_after_importing(ALL_MODEL_MODULES, QT_MODULES) == []


def test_parent_side_model_does_not_import_torch() -> None:
    assert loaded_after_importing(PARENT_SIDE, ("torch", "numpy")) == []
