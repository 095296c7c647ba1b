"""What one autograd node does in the backward pass, with a step's numbers plugged in.

The node details pane explains a node in three layers: what it is, its local derivative
rule in plain math (``∂(a·b)/∂a = b``), and that rule evaluated on the numbers of the shown
backward step (``grad_a = g · b = [1., 1.] · [4., 5.] = [4., 5.]``). Every operand is what
torch recorded (saved tensors, arriving gradients) and every final ``= ...`` is the gradient
torch's own backward sent (``flow.leaving``); the rule is re-evaluated with numpy only to
show the working, and :attr:`NodeDescription.checks` says whether it agrees.

Pure: no torch, no Qt (the GUI process imports it). Modules: :mod:`.flat` (numpy arithmetic
with broadcasting, in float64), :mod:`.terms` (the pieces a rule is made of),
:mod:`.elementwise` and :mod:`.structural` (one rule per op), :mod:`.describe`.
"""

from gui.model.explain.local_rules.describe import (
    FAILED_STEP_TEXT,
    NO_STEP_TEXT,
    GradCheck,
    NodeDescription,
    describe,
)
from gui.model.explain.local_rules.flat import step_contribution
from gui.model.explain.local_rules.terms import DETAIL_MAX_ELEMENTS

__all__ = [
    "DETAIL_MAX_ELEMENTS",
    "FAILED_STEP_TEXT",
    "NO_STEP_TEXT",
    "GradCheck",
    "NodeDescription",
    "describe",
    "step_contribution",
]
