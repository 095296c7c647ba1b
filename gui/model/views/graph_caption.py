"""What the graph panel says around the picture: the step list, the captions, the empty state.

The boxes and edges themselves come from :mod:`gui.model.drawing` (shared with the SVG
export); this module holds the sentences: which backward step the chooser offers, what the
colours mean, why a step failed, and why there is no graph to draw.
"""

from __future__ import annotations

from gui.model.drawing.paint import Gradients
from gui.model.session import Snapshot

EMPTY_TEXT = "Run a program to see its autograd graph"


def step_labels(snapshot: Snapshot) -> list[str]:
    """The step chooser's entries: "latest step", then one per backward call."""
    steps = () if snapshot.result is None else snapshot.result.steps
    labels = ["latest step"] if steps else ["no backward yet"]
    for step in steps:
        failed = " (failed)" if step.error is not None else ""
        labels.append(f"step {step.index + 1} of {len(steps)}{failed}")
    return labels


def failure_text(snapshot: Snapshot) -> str:
    """Why the shown backward step failed, in one line ("" when it did not)."""
    step = snapshot.shown_step
    if step is None or step.error is None:
        return ""
    first_line = step.error.message.splitlines()[0] if step.error.message else ""
    if len(first_line) > 90:
        first_line = first_line[:87] + "..."
    return f"Backward step {step.index + 1} failed: {first_line}"


def caption_text(snapshot: Snapshot, grads: Gradients, compact: bool) -> str:
    """What the colours and edge labels mean (``compact`` layouts have no edge labels)."""
    step = snapshot.graph_step
    if grads.any:
        where = f" (step {step.index + 1})" if step is not None else ""
        text = f"box colour: gradient arriving{where}"
        if step is not None and not compact:
            text += " · edge label: gradient flowing back"
    else:
        text = "No backward yet: boxes are coloured by kind"
    graph = snapshot.graph
    if graph is not None and graph.truncated:
        text += " · graph cut short: too many nodes to walk them all"
    return text


def empty_text(snapshot: Snapshot) -> str:
    """What the panel shows instead of a graph: a hint, or why the program stopped."""
    if snapshot.error is None:
        return EMPTY_TEXT
    first_line = (snapshot.error.message.splitlines() or [snapshot.error.kind])[0]
    return f"No graph to draw: the program stopped.\n{first_line}"
