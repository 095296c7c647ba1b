"""Which controls a lesson's text names, and so which tab of controls it opens on.

A lesson says "drag the gradient sliders" or "tick y under retain_grad": a class must see
those controls without hunting for them. Session files have no field for it (they are
read strictly, and a lesson stays an ordinary session file); the lesson's own words say
it. :func:`named_controls` finds the phrases below in its title and notes;
:func:`controls_tab` is the tab that holds them. Lessons name controls on one tab only
(a test checks every shipped lesson: each control it names is on screen when it opens).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gui.model.session import Snapshot

Tab = Literal["inputs", "backward"]

# A Python name, as a lesson writes one (x, w, y).
_NAME = r"[A-Za-z_]\w*"


@dataclass(frozen=True)
class Control:
    """One control a lesson names: its tab, what it is, and for whom.

    ``kind`` is ``"sliders"`` (the sliders of leaf ``name``), ``"gradient"`` (the sliders
    of the gradient argument v), ``"retain_graph"``, ``"zero_first"`` (zero ``.grad``
    before each call), ``"retain_grad"`` (keep intermediate ``name``'s ``.grad``) or
    ``"backward_button"``.
    """

    tab: Tab
    kind: str
    name: str | None = None


# (pattern, what it names); group 1 and 2, when present, are leaf or tensor names.
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\bsliders? for ({_NAME})(?:,? (?:and|or) ({_NAME}))?", re.I), "sliders"),
    (re.compile(r"\bgradient (?:sliders?|argument)|\bv = |\bbackward\(v\)", re.I), "gradient"),
    (re.compile(r"\bretain_graph=True"), "retain_graph"),
    (re.compile(r"\bzero(?:ing)? (?:\w+\.)?grad\b", re.I), "zero_first"),
    (re.compile(rf"\b({_NAME})\.retain_grad\(\)"), "retain_grad"),
    (re.compile(r"\b(?i:press(?:ing)?|click(?:ing)?) Backward\b"), "backward_button"),
)
# Words a sentence puts where a name could go ("the sliders for x, and the ...").
_NOT_NAMES = frozenset({"a", "an", "the", "each", "every", "all", "both", "its", "their"})


def named_controls(text: str) -> tuple[Control, ...]:
    """Every control ``text`` names, in the order it first names them (no repeats)."""
    found: dict[Control, int] = {}
    for pattern, kind in _PHRASES:
        for match in pattern.finditer(text):
            names: list[str | None] = [
                g for g in match.groups() if g and g.lower() not in _NOT_NAMES
            ]
            if not names and match.groups():  # "the slider for the ...": no name, no control
                continue
            names = names or [None]
            for name in names:
                tab: Tab = "inputs" if kind == "sliders" else "backward"
                control = Control(tab, kind, name)
                found.setdefault(control, match.start())
    return tuple(sorted(found, key=found.__getitem__))


def lesson_text(snapshot: Snapshot) -> str:
    """The words of the open session that may name controls: title and notes."""
    return "\n".join(t for t in (snapshot.title, snapshot.notes) if t)


def controls_tab(controls: tuple[Control, ...]) -> Tab:
    """The tab that shows the named controls: backward if any is there, else inputs."""
    return "backward" if any(c.tab == "backward" for c in controls) else "inputs"
