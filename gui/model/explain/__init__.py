"""Torch's errors and warnings, and each graph node's local rule, in plain words.

Pure Python (no torch, no Qt): the engine's child explains exceptions as they happen, and
the GUI process explains code it refuses and describes nodes for the details pane.

- :mod:`.messages`: the lookup (``explain_exception``, ``explain_refusal``...);
- :mod:`.torch_rules`, :mod:`.autograd_rules`, :mod:`.training_rules`,
  :mod:`.python_rules`: the catalogue of known messages, in the shapes of
  :mod:`.rule_types`; :mod:`.input_builders`: the words for errors about what an
  operation was given (shapes, dtypes, layers, targets);
- :mod:`.source`, :mod:`.operands`, :mod:`.written`: reading the learner's line (shapes,
  literals, the operands of a product, what an in-place change writes) for the advice;
- :mod:`.graph_cuts`, :mod:`.grad_switches`, :mod:`.backward_history`,
  :mod:`.inplace_sites`, :mod:`.dtype_hints`:
  reading the learner's whole program to name the statement behind an autograd error (the
  ``.detach()`` that cut the graph, the earlier backward that freed it, the ``+=`` that
  changed a saved tensor);
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
