""" "Modified by an inplace operation" when the program changes nothing in place: torch's own
code changed a value its backward saved (``torch.linalg.cond(A, p='fro')`` in torch 2.x: its
``inv`` output is changed inside the function). Plain torch raises the same error; the advice
must not send the learner looking for a ``+=`` that is not there. No torch, no Qt.
"""

from __future__ import annotations

import re

from gui.model.explain.inplace_sites import inplace_sites
from gui.model.explain.rule_types import Advice

# What changes a tensor in place without being one of `inplace_sites`' statements: an
# optimizer's step, `out=`, a custom Function's mark_dirty, `.data`/`set_`, hooks (which
# may do any of these), the old `Variable` API.
_OTHER_CHANGES = re.compile(
    r"\.step\(|\bout\s*=|\bmark_dirty\b|\.data\b|\.set_\(|register_\w*hook|\bVariable\b"
)
_COND = re.compile(r"\blinalg\.cond\(|\bcond\(")


def library_inplace(program: str | None, shape: str, origin: str) -> Advice | None:
    """Advice when no statement of ``program`` changes a tensor in place, else ``None``."""
    if not program or inplace_sites(program) or _OTHER_CHANGES.search(program):
        return None
    fix = (
        "Compute that step with other torch functions (another formula or another option "
        "of the function), and check the same code in plain torch: it raises there too."
    )
    if _COND.search(program):
        fix = (
            "`torch.linalg.cond(A, p)` with `p` 'fro', 1, -1, inf or -inf changes a value its "
            "own backward saved: compute it as "
            "`torch.linalg.matrix_norm(A, p) * torch.linalg.matrix_norm(torch.linalg.inv(A), "
            "p)` (the same number, with a gradient), or use `p=None` (2-norm) when that is "
            "the one you need."
        )
    return Advice(
        f"A tensor{shape}{origin} was saved during the forward pass because a gradient needs "
        "its value, then changed in place. No line of this program changes a tensor in "
        "place (no `+=`, no method ending in `_`, no `inplace=True`, no optimizer step), so "
        "the change happened inside a torch function the program called, in torch's own "
        "code.",
        fix,
    )
