"""Errors of matrix factorizations in the learner's names: a Cholesky factorization of a
matrix that is not positive-definite (a Gaussian process's kernel matrix without noise on
its diagonal, a covariance built from duplicated points), a solve or inverse of a singular
one. Program text only: no torch, no Qt.
"""

from __future__ import annotations

from gui.model.explain.rule_types import Advice, Found, Rule, rule_table
from gui.model.explain.source import made_before, named_calls, segment

NOT_POSITIVE_DEFINITE = (
    r"\bcholesky\w{0,12}: (?:\(Batch element \d{1,9}\): )?The factorization could not be "
    r"completed because the input is not positive-definite \(the leading minor of order "
    r"(?P<order>\d{1,9}) is not positive-definite\)"
)
_CHOLESKY = frozenset({"cholesky", "cholesky_ex"})


def _the_matrix(f: Found, functions: frozenset[str], default: str) -> tuple[str, str]:
    """The matrix the failing line hands to one of ``functions`` as the program writes it
    (``default`` when none is found), and where it was made, as a clause ("" if unknown)."""
    matrix = default
    for call, _name, text in named_calls(f.context.source_line, functions):
        if call.args:
            matrix = segment(text, call.args[0])
        break
    made = made_before(f.context.program, matrix, f.line) if matrix.isidentifier() else None
    return matrix, "" if made is None else f" (made on line {made.line}: `{made.text}`)"


def _not_positive_definite(f: Found) -> Advice:
    """``torch.linalg.cholesky(K)`` of a ``K`` that is not positive-definite."""
    matrix, story = _the_matrix(f, _CHOLESKY, "K")
    order = f.group("order")
    return Advice(
        "A Cholesky factorization writes a matrix as `L @ L.T` with `L` lower-triangular, "
        "which exists only for a symmetric positive-definite matrix (every eigenvalue above "
        f"0). `{matrix}`{story} is not: its top-left {order}x{order} block is already "
        "singular or has a negative eigenvalue. In a kernel or covariance matrix that comes "
        "from two rows that are (nearly) the same, e.g. the same input twice, or from "
        "rounding pushing a tiny eigenvalue below 0.",
        f"Add a small positive number to the diagonal before factorizing, as Gaussian-process "
        f"code does with its noise variance: `torch.linalg.cholesky({matrix} + 1e-4 * "
        f"torch.eye({matrix}.shape[-1]))` (a learned noise term, `noise * torch.eye(n)`, "
        "keeps it positive-definite while training).",
    )


SINGULAR = (
    r"^(?:torch\.)?linalg\.(?P<fn>solve|inv)\w{0,8}: (?:\(Batch element \d{1,9}\): )?(?:The "
    r"solver failed|The diagonal element \d{1,9} is zero, the (?:inversion|solve) could not be "
    r"completed) because the input matrix is singular"
)
_SOLVERS = frozenset({"solve", "inv", "inverse", "inv_ex", "solve_ex"})


def _singular(f: Found) -> Advice:
    """``torch.linalg.solve(A, b)`` / ``torch.linalg.inv(A)`` of a singular ``A``."""
    matrix, story = _the_matrix(f, _SOLVERS, "A")
    what = "solve a system with" if f.group("fn") == "solve" else "invert"
    return Advice(
        f"torch could not {what} `{matrix}`{story}: it is singular (its determinant is 0), so "
        "some of its columns are a combination of the others and it has no inverse. For a "
        "Gram matrix `X.T @ X` that comes from a feature that is a multiple or a sum of other "
        "features, or from fewer rows (examples) than columns.",
        f"Add a small ridge to the diagonal, `{matrix} + 1e-3 * torch.eye({matrix}.shape[-1])` "
        "(ridge regression), or solve the least-squares problem without forming it: "
        "`torch.linalg.lstsq(X, y).solution` or `torch.linalg.pinv(X) @ y`.",
    )


FACTORIZATION_RULES: tuple[Rule, ...] = rule_table(
    ("not-positive-definite", NOT_POSITIVE_DEFINITE, "", _not_positive_definite),
    ("singular-matrix", SINGULAR, "", _singular),
)
