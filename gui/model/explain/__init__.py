"""Torch's errors and warnings, and each graph node's local rule, in plain words.

Pure Python (no torch, no Qt): the engine's child explains exceptions as they happen, and
the GUI process explains code it refuses and describes nodes for the details pane.

- :mod:`.messages`: the lookup (``explain_exception``, ``explain_refusal``...);
- :mod:`.torch_rules`, :mod:`.python_rules`: the catalogue of known messages;
- :mod:`.source`: reading the learner's line (shapes, literals) for the advice;
- :mod:`.local_rules`: what one backward node computes, with the numbers plugged in.
"""

from gui.model.explain.messages import (
    RUNAWAY_REASONS,
    ErrorContext,
    explain_engine_crash,
    explain_exception,
    explain_refusal,
    explain_runaway,
    explain_warning,
)

__all__ = [
    "RUNAWAY_REASONS",
    "ErrorContext",
    "explain_engine_crash",
    "explain_exception",
    "explain_refusal",
    "explain_runaway",
    "explain_warning",
]
