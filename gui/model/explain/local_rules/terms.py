"""The pieces a local rule is made of: the node's context, one gradient term, the rule.

A :class:`Term` is a formula with named slots (``"{g} · {b}"``) that reads either as
symbols (``g · b``) or with numbers (``[1., 1.] · [4., 5.]``), plus its value evaluated
with numpy (:mod:`.flat`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gui.model.explain.local_rules.flat import Arr, Shape, arr, scalar, sum_to
from gui.model.result import GraphNode, NodeFlow, SavedValue, TensorData
from gui.model.tensor_format import format_number, format_shape, format_short, format_tensor

# Tensors up to this many elements are written out in full, bigger ones summarised.
DETAIL_MAX_ELEMENTS = 12


def num(v: object) -> str:
    """A plain number in a formula: ``2`` rather than ``2.``."""
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e6:
        return str(int(v))
    if isinstance(v, float) and math.isfinite(v):
        return format_short(v)  # an exponent of 2.5 reads "2.5", not format_number's "2.500"
    return format_number(v)


def text(v: object) -> str:
    """A slot's value as text: tensors in full when small, else a summary in ⟨ ⟩ (so its
    ``·`` separators do not read as products)."""
    if isinstance(v, Arr):
        v = TensorData(v.shape, "float64", v.nested())
    if isinstance(v, TensorData):
        written = format_tensor(v, DETAIL_MAX_ELEMENTS)
        small = v.values is not None and v.numel <= DETAIL_MAX_ELEMENTS
        return written if small else f"⟨{written}⟩"
    if v is None:
        return "?"
    return v if isinstance(v, str) else num(v)


SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power(base: str, exponent: float) -> str:
    """``x²``, ``x``, ``1``, ``x^2.5``: how a power of ``base`` reads in a formula."""
    if exponent == 0:
        return "1"
    if exponent == 1:
        return base
    if float(exponent).is_integer():
        return base + str(int(exponent)).translate(_SUPERSCRIPT)
    return f"{base}^{num(exponent)}"


# -- the rule of one function node ---------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One input's gradient: a formula whose ``{slots}`` read as symbols or as numbers."""

    template: str
    slots: Mapping[str, tuple[str, object]]
    value: Arr | None


@dataclass(frozen=True)
class Rule:
    """A node's local rule: its forward expression, a sentence, its partial derivatives
    (one string, or one per input so that inputs needing no gradient can be left out) and
    one gradient term per input (``None`` where the input needs none)."""

    forward: str
    what: str
    partials: str | tuple[str, ...]
    terms: tuple[Term | None, ...]


@dataclass(frozen=True)
class Ctx:
    """One function node with its inputs' symbols and shapes and the step's gradients."""

    node: GraphNode
    flow: NodeFlow | None
    saved: Mapping[str, SavedValue]
    syms: tuple[str, ...]
    needs: tuple[bool, ...]
    shapes: tuple[Shape | None, ...]
    g_sym: str

    def g(self, i: int = 0) -> Arr | None:
        arriving = self.flow.arriving if self.flow is not None else ()
        return arr(arriving[i]) if i < len(arriving) else None

    def tensor(self, name: str | None) -> Arr | None:
        s = self.saved.get(name or "")
        if s is None:
            return None
        return arr(s.tensor) if s.tensor is not None else scalar(s.value)

    def value(self, name: str, default: Any = None) -> Any:
        s = self.saved.get(name)
        return default if s is None or s.value is None else s.value

    def sizes(self) -> Shape | None:
        sizes = self.value("self_sym_sizes")
        return tuple(sizes) if isinstance(sizes, list) else self.shapes[0]

    def term(self, i: int, template: str, value: Arr | None, **slots: object) -> Term | None:
        """Input ``i``'s gradient, or ``None`` when the input needs none (a constant)."""
        if i >= len(self.needs) or not self.needs[i]:
            return None
        all_slots: dict[str, tuple[str, object]] = {"g": (self.g_sym, self.g())}
        for name, slot in slots.items():
            all_slots[name] = slot if isinstance(slot, tuple) else (str(slot), slot)
        shape = self.shapes[i]
        if value is not None and shape is not None and value.shape != shape:
            # Broadcasting in the forward pass means summing in the backward pass.
            value = sum_to(value, shape)
            template += ", summed over the broadcast dims to {to}"
            all_slots["to"] = (format_shape(shape),) * 2
        return Term(template, all_slots, value)
