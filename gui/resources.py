"""The one lookup for files under ``resources/``: unknown names fail loudly.

Plain files only (no .qrc), found next to the package in a source checkout or an editable
install. Importing this module never imports Qt.
"""

from __future__ import annotations

from pathlib import Path

RESOURCES = Path(__file__).resolve().parent.parent / "resources"


class ResourceNotFound(LookupError):
    """A resource name that does not exist (a typo in code, or a broken install)."""


def resource(*parts: str) -> Path:
    """Path of ``resources/<parts...>``; raises :class:`ResourceNotFound` if missing."""
    path = RESOURCES.joinpath(*parts)
    if not path.exists():
        raise ResourceNotFound(f"no resource {'/'.join(parts)!r} under {RESOURCES}")
    return path


def lesson_paths() -> list[Path]:
    """Every lesson session file, in file-name order (names start with a number)."""
    return sorted(resource("lessons").glob("*.json"))


def lesson(name: str) -> Path:
    """The lesson file named ``name`` (with or without ``.json``)."""
    return resource("lessons", name if name.endswith(".json") else f"{name}.json")


DEFAULT_LESSON = "00-welcome"


def default_lesson() -> Path:
    """The lesson a bare ``python main.py`` opens."""
    return lesson(DEFAULT_LESSON)
