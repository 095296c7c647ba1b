"""The engine's note on an optimizer step that had no gradient to use
(:mod:`gui.model.engine.step_notes` warns; plain torch says nothing), in the learner's
names. No torch, no Qt.
"""

from __future__ import annotations

from gui.model.explain.rule_types import Advice, Found, Rule, rule_table
from gui.model.explain.source import attribute_receiver


def _step_without_gradients(f: Found) -> Advice:
    opt = attribute_receiver(f.context.source_line, ("step",)) or "optimizer"
    return Advice(
        f"`{opt}.step()` on {f.where} ran while every parameter of `{opt}` had `.grad` None: "
        "no gradient had reached them (no `backward()` yet, or `zero_grad()` had just set "
        "them to None), so the optimizer skipped them all and no weight changed in this step.",
        f"Step after the backward that computes the gradients: `{opt}.zero_grad()`, then "
        f"`backward()` on the loss, then `{opt}.step()`.",
    )


STEP_WARNING_RULES: tuple[Rule, ...] = rule_table(
    (
        "step-without-gradients",
        r"optimizer\.step\(\) ran while none of its parameters had a gradient",
        "StepWithoutGradients",
        _step_without_gradients,
    ),
)
