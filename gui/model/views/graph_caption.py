"""What the graph panel says around the picture: the step list, the captions, the empty state.

The boxes and edges themselves come from :mod:`gui.model.drawing` (shared with the SVG
export); this module holds the sentences: which backward step the chooser offers, what the
colours mean, why a step failed, and why there is no graph to draw.
"""

from __future__ import annotations

from gui.model.drawing.paint import Gradients, colour_meaning
from gui.model.result import Explanation
from gui.model.session import Snapshot
from gui.model.session.computed import LAYOUT_PROBLEMS
from gui.model.visible_text import visible_controls

EMPTY_TEXT = "Run a program to see its autograd graph"


def step_labels(snapshot: Snapshot) -> list[str]:
    """The step chooser's entries: "latest step", then one per backward call."""
    steps = () if snapshot.result is None else snapshot.result.steps
    total = 0 if snapshot.result is None else snapshot.result.step_count
    labels = ["latest step"] if steps else ["no backward yet"]
    for step in steps:  # a long loop's result keeps only the first and the last calls
        failed = " (failed)" if step.error is not None else ""
        labels.append(f"step {step.index + 1} of {total}{failed}")
    return labels


def failure_text(snapshot: Snapshot) -> str:
    """Why the shown backward step failed, in one line ("" when it did not)."""
    step = snapshot.shown_step
    if step is None or step.error is None:
        return ""
    # A program's own text (a hook's exception): its controls as escapes (visible_text).
    first_line = step.error.message.splitlines()[0] if step.error.message else ""
    first_line = visible_controls(first_line)
    if len(first_line) > 90:
        first_line = first_line[:87] + "..."
    return f"Backward step {step.index + 1} failed: {first_line}"


def caption_text(snapshot: Snapshot, grads: Gradients, compact: bool) -> str:
    """What the colours and edge labels mean (``compact`` layouts have no edge labels)."""
    step = snapshot.graph_step
    if grads.any:
        text = colour_meaning(step.index + 1 if step is not None else None)
        if step is not None and not compact:
            text += " · edge label: gradient flowing back"
    else:
        text = "No backward yet: boxes are coloured by kind"
    graph = snapshot.graph
    if graph is not None and graph.truncated:
        text += " · graph cut short: too many nodes to walk them all"
    return text


def not_drawn(snapshot: Snapshot) -> Explanation | None:
    """Why the shown result's graph has no picture (too big, Graphviz failed), if it has
    none for a reason: the session adds the reason to the result's warnings."""
    result = snapshot.result
    if result is None or result.graph is None or snapshot.layout is not None:
        return None
    return next((w for w in reversed(result.warnings) if w.kind in LAYOUT_PROBLEMS), None)


def empty_text(snapshot: Snapshot) -> str:
    """What the panel shows instead of a graph: why it is not drawn, a hint, or why the
    program stopped."""
    reason = not_drawn(snapshot)
    if reason is not None:
        return f"{reason.message}\n\n{reason.explanation}"
    if snapshot.error is None:
        return EMPTY_TEXT
    first_line = (snapshot.error.message.splitlines() or [snapshot.error.kind])[0]
    return f"No graph to draw: the program stopped.\n{visible_controls(first_line)}"
