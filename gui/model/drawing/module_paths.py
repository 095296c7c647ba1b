"""Module paths: ``("encoder", "layers", "3")`` for the module ``encoder.layers.3`` that a
parameter named ``encoder.layers.3.bias`` belongs to, and what the groups do with them.
Pure: no Qt, no torch."""

from __future__ import annotations

import re

Path = tuple[str, ...]

# Module paths deeper than this are cut here: a hostile name with 10,000 dots would
# otherwise make a menu entry and a comparison per level. No real model nests this deep.
MAX_DEPTH = 16
# Longest module path text a box or a menu shows (the rest is elided in the middle).
MAX_PATH_CHARS = 60
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)  # controls, and the bidirectional ones that reorder a label (see visible_text)


def module_of_name(name: str | None) -> Path | None:
    """The module a parameter called ``name`` belongs to: ``("model", "0")`` for
    ``"model.0.weight"``; ``None`` for a name without a dot (a plain variable)."""
    if not name or "." not in name:
        return None
    parts = tuple(name.split("."))[:-1]
    return parts[:MAX_DEPTH] if parts else None


def common_path(a: Path | None, b: Path | None) -> Path | None:
    """The longest common prefix of two module paths (``None`` stands for "unknown" and
    gives way to the other)."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return a[:n]


def path_text(path: Path) -> str:
    """A module path as the user wrote it (``model.0``), on one line (``add_module`` takes
    any string: control characters and line breaks become spaces), elided in the middle
    when long."""
    text = _CONTROL.sub(" ", ".".join(path))
    if len(text) <= MAX_PATH_CHARS:
        return text
    half = (MAX_PATH_CHARS - 1) // 2
    return f"{text[:half]}…{text[-half:]}"
