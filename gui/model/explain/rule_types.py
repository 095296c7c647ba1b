"""The shapes every explanation rule shares: what the engine knew (:class:`ErrorContext`),
a rule's match (:class:`Found`), the words it gives (:class:`Advice`), the rule itself
(:class:`Rule`) and the compact table rows rules are written as. The rule catalogues
(:mod:`.torch_rules`, :mod:`.autograd_rules`, :mod:`.training_rules`,
:mod:`.python_rules`) and their builders all speak these. No torch and no Qt.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from gui.model.explain.backward_history import grad_subject
from gui.model.explain.source import Shape, backward_call, differentiated_text


@dataclass(frozen=True)
class ErrorContext:
    """What the engine knew about the place an error happened; every field is optional."""

    tensor: str | None = None
    tensor_shape: Shape | None = None
    gradient_shape: Shape | None = None
    source_line: str | None = None
    leaves: tuple[str, ...] = ()
    attribute_owner: str | None = None
    # Named float tensors made directly (leaves) that do not require grad: the likely inputs
    # a "does not require grad" error is about.
    constants: tuple[str, ...] = ()
    # The whole program's text, for advice that needs more than the failing line: where a
    # tensor was made, the `with torch.no_grad():` around it, the loop that carries it over.
    program: str | None = None
    # The program's lines of the calls that led to the failing line (a helper function's
    # callers), the innermost caller last; empty at the top level.
    call_lines: tuple[int, ...] = ()
    # Names written as ``name.grad`` on the failing line whose ``.grad`` was None when it
    # failed (read by the engine from that frame).
    none_grads: tuple[str, ...] = ()


@dataclass(frozen=True)
class Found:
    """A rule's match: everything a builder may use."""

    exception: str
    message: str
    match: re.Match[str] | None
    context: ErrorContext
    line: int | None

    def group(self, name: str) -> str:
        """Return a named group of the match ('' when absent), so builders need no None checks."""
        if self.match is None:
            return ""
        return self.match.groupdict().get(name) or ""

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else "this line"


@dataclass(frozen=True)
class Advice:
    explanation: str
    fix: str


@dataclass(frozen=True)
class Rule:
    """One catalogue entry: when it applies and how to explain it."""

    kind: str
    build: Callable[[Found], Advice]
    pattern: re.Pattern[str] | None = None
    exceptions: frozenset[str] = frozenset()  # empty: any class (torch mostly raises RuntimeError)
    when: Callable[[ErrorContext], bool] | None = None

    def find(
        self, exception: str, message: str, context: ErrorContext, line: int | None
    ) -> Found | None:
        """Return a :class:`Found` when this rule applies, else ``None``."""
        if self.exceptions and exception not in self.exceptions:
            return None
        if self.when is not None and not self.when(context):
            return None
        match = None
        if self.pattern is not None:
            match = self.pattern.search(message)
            if match is None:
                return None
        return Found(exception, message, match, context, line)


def rule_table(*rows: tuple[str, str | None, str, Callable[[Found], Advice]]) -> tuple[Rule, ...]:
    """Rules from compact rows: (kind, message regex or None, exception classes or "", builder)."""
    return tuple(
        Rule(kind, build, re.compile(rx, re.I) if rx else None, frozenset(exc.split()))
        for kind, rx, exc, build in rows
    )


def subject(found: Found, default: str = "y") -> str:
    """The differentiated tensor's name: from the context, else the line's ``z.backward``."""
    if found.context.tensor:
        return found.context.tensor
    call = backward_call(found.context.source_line)
    if call is not None and call.receiver:
        return call.receiver
    written = differentiated_text(found.context.source_line)
    return grad_subject(found.context.source_line) or written or default
