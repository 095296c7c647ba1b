"""Errors and warnings in plain words: what autograd was doing, why it complains, what to change.

Every function returns an :class:`~gui.model.result.Explanation` whose ``message`` is the exact
text torch or Python produced; the explanation and fix are added next to it, never instead of
it. The catalogue of known messages is two rule tables, torch's in :mod:`.torch_rules`
and Python's own in :mod:`.python_rules`; this module looks messages up there and
covers what happens outside torch (code refused before running, code stopped for running away).

No torch and no Qt on purpose: it runs in the GUI process and in the engine process, and the
GUI side must explain a message it received as text without torch. numpy is fine: it is
loaded in both processes anyway (by the model's views in one, by torch in the other).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gui.model.explain.autograd_rules import AUTOGRAD_RULES, AUTOGRAD_WARNING_RULES
from gui.model.explain.factorizations import FACTORIZATION_RULES
from gui.model.explain.loss_inputs import LOSS_WARNING_RULES, RNN_STATE_RULES
from gui.model.explain.pick_and_resample import PICK_AND_RESAMPLE_RULES
from gui.model.explain.python_rules import GRAD_NONE_ARGUMENT, PYTHON_RULES, RUNAWAY_TEXT
from gui.model.explain.rule_types import Advice, ErrorContext, Rule
from gui.model.explain.step_note_rules import STEP_WARNING_RULES
from gui.model.explain.torch_rules import TORCH_RULES, WARNING_RULES
from gui.model.explain.training_rules import TRAINING_RULES, TRAINING_WARNING_RULES
from gui.model.explain.transform_errors import MASK_BROADCAST_RULES, TRANSFORM_RULES
from gui.model.result import Explanation

RUNAWAY_REASONS: frozenset[str] = frozenset(RUNAWAY_TEXT)

# First match wins: torch's messages first, then Python's errors (mostly matched by class alone).
EXCEPTION_RULES: tuple[Rule, ...] = (
    GRAD_NONE_ARGUMENT,
    *TRAINING_RULES,
    *MASK_BROADCAST_RULES,
    *TORCH_RULES,
    *TRANSFORM_RULES,
    *PICK_AND_RESAMPLE_RULES,
    *FACTORIZATION_RULES,
    *RNN_STATE_RULES,
    *AUTOGRAD_RULES,
    *PYTHON_RULES,
)
ALL_WARNING_RULES: tuple[Rule, ...] = (
    *WARNING_RULES,
    *AUTOGRAD_WARNING_RULES,
    *STEP_WARNING_RULES,
    *LOSS_WARNING_RULES,
    *TRAINING_WARNING_RULES,
)

# A shared default instead of a call in the signature (ErrorContext is frozen, so sharing is safe).
_NO_CONTEXT = ErrorContext()

_CHECK_SHAPES = (
    "Read the message; check the shapes and dtypes on that line "
    "(`print(t.shape, t.dtype)` for each tensor it uses)."
)


def _where(line: int | None, context: ErrorContext) -> str:
    place = f"line {line}" if line is not None else "your program"
    if context.source_line and context.source_line.strip():
        place += f" (`{context.source_line.strip()}`)"
    return place


def _lookup(
    rules: Sequence[Rule],
    exception: str,
    message: str,
    context: ErrorContext,
    line: int | None,
) -> tuple[str, Advice] | None:
    """Return the first matching rule's kind and advice, or ``None`` when no rule matches."""
    for rule in rules:
        found = rule.find(exception, message, context, line)
        if found is None:
            continue
        try:
            return rule.kind, rule.build(found)
        except Exception:  # a hint must never take the run down with it
            # A builder only reads optional hints (the source line, shapes); if one of them
            # is odd enough to trip it, the kind is still right and the generic words still
            # true, so keep the kind and fall back to the generic advice below.
            return rule.kind, Advice(
                f"{exception} was raised at {_where(line, context)}.", _CHECK_SHAPES
            )
    return None


def explain_exception(
    exception: str,
    message: str,
    *,
    line: int | None = None,
    column: int | None = None,
    context: ErrorContext = _NO_CONTEXT,
) -> Explanation:
    """Explain an exception raised while the user's program ran.

    Parameters
    ----------
    exception
        The exception's class name, e.g. ``"RuntimeError"`` or ``"NameError"``.
    message
        ``str(exc)`` exactly; it is kept verbatim in the result.
    line, column
        Where in the user's program it happened (1-based line), if known.
    context
        What the engine knew at that point: the tensor's name and shape, the source line...
        Used only to tailor the fix; every field may be missing.

    Returns
    -------
    Explanation
        With a stable ``kind`` from the catalogue (``"non-scalar-backward"``,
        ``"gradient-shape-mismatch"``...) or ``"other-error"`` when the message is unknown.
    """
    hit = _lookup(EXCEPTION_RULES, exception, message, context, line)
    if hit is None:
        hit = (
            "other-error",
            Advice(
                f"{exception} came from torch or Python while running {_where(line, context)}. "
                "The explorer has no plain-words note for this message yet, so it is shown "
                "exactly as raised.",
                _CHECK_SHAPES,
            ),
        )
    kind, advice = hit
    return Explanation(
        kind=kind,
        message=message,
        explanation=advice.explanation,
        fix=advice.fix,
        line=line,
        column=column,
        severity="error",
        exception=exception,
    )


def explain_warning(
    category: str,
    message: str,
    *,
    line: int | None = None,
    context: ErrorContext = _NO_CONTEXT,
) -> Explanation:
    """Explain a warning the user's program triggered (the program kept running).

    Parameters
    ----------
    category
        The warning class name, e.g. ``"UserWarning"``.
    message
        ``str(warning.message)`` exactly; kept verbatim in the result.
    line
        The line of the user's program that triggered it, if known.
    context
        As for :func:`explain_exception`; ``attribute_owner`` names the tensor whose
        ``.grad`` was read for the non-leaf warning.

    Returns
    -------
    Explanation
        ``severity="warning"``; ``kind`` is ``"non-leaf-grad"``, ``"scalar-conversion"`` or
        ``"other-warning"``.
    """
    hit = _lookup(ALL_WARNING_RULES, category, message, context, line)
    if hit is None:
        hit = (
            "other-warning",
            Advice(
                f"torch or Python warned ({category}) while running {_where(line, context)}; "
                "the program kept going, but the result may not be what you expect.",
                "Read the message; it usually names the call to change on that line.",
            ),
        )
    kind, advice = hit
    return Explanation(
        kind=kind,
        message=message,
        explanation=advice.explanation,
        fix=advice.fix,
        line=line,
        severity="warning",
        exception=category,
    )


_WHY_CHECKED = (
    "Programs are checked before they run because a session file can come from anyone "
    "(a shared lesson, a download from the web)"
)


# A refusal naming what replaces the refused function (`allowlist._REPLACED`).
_REPLACEMENT_WORDS = re.compile(
    r"; use `(?P<new>torch\.nn\.utils\.parametrizations\.\w{1,40})` instead\.$"
)
# A refusal about the GPU (`.cuda()`), not about reaching outside the program.
_GPU_WORDS = re.compile(r"\bGPU\b|\bCUDA\b|\.cuda\b|CPU only", re.I)
# `from dataclasses import dataclass` / `import dataclasses` (nanoGPT's config classes).
_DATACLASS_WORDS = re.compile(r"\bdataclass(?:es)?\b")


def explain_refusal(
    message: str,
    construct: str,
    *,
    line: int | None,
    column: int | None,
    kind: str = "unsafe-code",
    while_running: bool = False,
) -> Explanation:
    """Explain why a program was refused: before running, or when it reached the refused
    thing (``while_running``).

    Parameters
    ----------
    message
        The checker's own plain-words reason; kept verbatim in the result.
    construct
        The refused piece of code, e.g. ``"import os"`` or ``"open"`` (may be empty).
    line, column
        Where it is in the program.
    kind
        ``"unsafe-code"`` for something the checker does not allow, ``"syntax-error"`` for a
        program Python cannot read.
    while_running
        The program was stopped when it reached the refused thing (the guard's check), not
        before it ran: the lines before it ran, and their output is shown.

    Returns
    -------
    Explanation
        With the given ``kind``; ``exception`` is ``"SyntaxError"`` for syntax errors.

    Raises
    ------
    ValueError
        If ``kind`` is neither of the two above.
    """
    place = f"line {line}" if line is not None else "the program"
    if column is not None and line is not None:
        place += f", column {column}"
    if kind == "syntax-error":
        explanation = (
            f"Python could not read {place}, so nothing ran. {_WHY_CHECKED}, so every program "
            "is read in full before any of it runs."
        )
        fix = f"Look at {place} and just before it: a missing bracket, colon or quote, or a "
        fix += "wrong indent, is the usual cause."
        exception: str | None = "SyntaxError"
    elif kind == "unsafe-code":
        what = f"`{construct}`" if construct else "this part of the program"
        if not while_running:
            ran = "Nothing ran."
        elif line is not None:
            ran = f"The lines before line {line} ran (their output is shown); it stopped there."
        else:
            ran = "The program ran up to this point (its output is shown) and stopped there."
        if _GPU_WORDS.search(message):
            explanation = (
                f"Autograd Explorer computes on the CPU only: there is no GPU here for {what} "
                f"to move tensors or layers to. {ran}"
            )
            fix = f"Remove {what} from {place}, or pick the device the portable way: "
            fix += "`device = 'cuda' if torch.cuda.is_available() else 'cpu'`."
        elif (replacement := _REPLACEMENT_WORDS.search(message)) is not None:
            explanation = (
                f"{_WHY_CHECKED}, so a program may use what is on a list of tensor maths and "
                f"autograd; {what} is not on it, but its replacement is. {ran}"
            )
            module, _, name = replacement.group("new").rpartition(".")
            if construct.startswith("from "):
                fix = (
                    f"Import it from its new place on {place}: `from {module} import {name}`; "
                    "the calls stay as they are (the layer, and the parameter's name if given)."
                )
            else:
                fix = (
                    f"Call `{module}.{name}(...)` instead on {place}, with the same arguments "
                    "(the layer, and the parameter's name if you gave one)."
                )
        elif _DATACLASS_WORDS.search(construct):
            explanation = (
                f"{_WHY_CHECKED}, so every line of a program is read before it runs; "
                "`@dataclass` writes the class's `__init__` as new code while the program "
                f"runs, code that was never read. {ran}"
            )
            fix = (
                f"Remove {what} from {place} and the `@dataclass` line above the class, and "
                "give the class an `__init__` that takes each field with its default and "
                "sets it: `def __init__(self, block_size=8, n_embd=12): self.block_size = "
                "block_size` (and so on); a call like `Config(n_embd=6)` then works as before."
            )
        else:
            explanation = (
                f"{_WHY_CHECKED}, so a program may use tensor maths, plain Python and print, "
                "never anything that could reach files, the network, other programs or native "
                f"code; {what} is not among what it may use. {ran}"
            )
            fix = f"Remove {what} from {place}; build data with `torch.tensor(...)` and show "
            fix += "values with `print(...)`."
        exception = None
    else:
        raise ValueError(f"unknown refusal kind {kind!r}")
    return Explanation(
        kind=kind,
        message=message,
        explanation=explanation,
        fix=fix,
        line=line,
        column=column,
        severity="error",
        exception=exception,
    )


# What a runaway looks like from the user's side, when Python has a name for it.
_RUNAWAY_EXCEPTION = {"memory": "MemoryError", "recursion": "RecursionError"}


def explain_runaway(
    reason: str,
    *,
    seconds: float | None = None,
    line: int | None = None,
) -> Explanation:
    """Explain why the app stopped a program that ran away.

    Parameters
    ----------
    reason
        ``"time"`` (over the time limit), ``"memory"`` (a tensor too large), ``"recursion"``
        (recursed too deep) or ``"output"`` (printed too much).
    seconds
        The time limit that was exceeded, for ``"time"``.
    line
        The line it was running when stopped, if known.

    Returns
    -------
    Explanation
        ``kind="runaway-code"``; ``message`` is a plain sentence (there is no torch text).

    Raises
    ------
    ValueError
        If ``reason`` is not one of the four above.
    """
    if reason not in RUNAWAY_TEXT:
        raise ValueError(
            f"unknown runaway reason {reason!r}; expected one of {sorted(RUNAWAY_TEXT)}"
        )
    message, explanation, fix = RUNAWAY_TEXT[reason]
    limit = f"{seconds:g} seconds" if seconds is not None else "its time limit"
    return Explanation(
        kind="runaway-code",
        message=message.format(seconds=limit),
        explanation=explanation,
        fix=fix,
        line=line,
        severity="error",
        exception=_RUNAWAY_EXCEPTION.get(reason),
    )


def explain_engine_crash(detail: str) -> Explanation:
    """Explain that the process running the program ended without answering.

    ``detail`` says how it ended (a signal, an exit status); a crash inside a native
    library, or the system killing it for memory, look the same from outside.
    """
    return Explanation(
        kind="engine-crashed",
        message=detail,
        explanation="The process that runs your code stopped without answering: something "
        "inside a library crashed, or the program used more memory than the system allows.",
        fix="Run again; if it keeps happening, simplify the program (smaller tensors, fewer "
        "steps) to find the line that causes it.",
    )
