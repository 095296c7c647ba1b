"""``model.load_state_dict(state)`` with a dict made for another model, in the learner's
names: which names are missing or unexpected (and the prefix that tells them apart, such as
``module.`` from a wrapped model or a submodule's ``fc.``), and which parameters have
other sizes. Every state dict here is the program's own (in memory); the advice is the
same for one read from a file. No torch, no Qt.
"""

from __future__ import annotations

import ast
import re

from gui.model.explain.rule_types import Advice, Found
from gui.model.explain.source import line_tree

_KEYS = re.compile(r'"([^"]+)"')
_SIZE = re.compile(
    r"size mismatch for (?P<name>[\w.]+): copying a param with shape torch\.Size\(\[(?P<saved>"
    r"[\d, ]*)\]\) from checkpoint, the shape in current model is torch\.Size\(\[(?P<own>"
    r"[\d, ]*)\]\)"
)


def _keys(message: str, label: str) -> list[str]:
    for line in message.splitlines():
        if label in line:
            return _KEYS.findall(line.split(label, 1)[1])
    return []


def _call(f: Found) -> tuple[str, str] | None:
    """``(model, state)`` of the line's ``model.load_state_dict(state)``, as written."""
    tree = line_tree(f.context.source_line)
    text = (f.context.source_line or "").strip()
    for node in ast.walk(tree) if tree is not None else ():
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "load_state_dict"
            and node.args
        ):
            model = ast.get_source_segment(text, node.func.value) or ast.unparse(node.func.value)
            state = ast.get_source_segment(text, node.args[0]) or ast.unparse(node.args[0])
            return " ".join(model.split()), " ".join(state.split())
    return None


def _prefix(longer: list[str], shorter: list[str]) -> str | None:
    """The one prefix that turns every name of ``shorter`` into one of ``longer``."""
    if not longer or len(longer) != len(shorter):
        return None
    first = next((k[: -len(s)] for k in longer for s in shorter[:1] if k.endswith("." + s)), None)
    if first and sorted(longer) == sorted(first + s for s in shorter):
        return first
    return None


def _listed(names: list[str], limit: int = 4) -> str:
    shown = ", ".join(f"`{n}`" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def state_dict_mismatch(f: Found) -> Advice:
    """``Error(s) in loading state_dict for Net: Missing key(s) ... Unexpected key(s) ...
    size mismatch for ...``."""
    found = _call(f)
    model, state = found if found is not None else ("model", "state_dict")
    missing = _keys(f.message, "Missing key(s) in state_dict:")
    unexpected = _keys(f.message, "Unexpected key(s) in state_dict:")
    sizes = [m.groupdict() for m in _SIZE.finditer(f.message)]
    if sizes and not missing and not unexpected:
        first = sizes[0]
        return Advice(
            f"`{state}` comes from a model whose layers have other sizes than `{model}`'s: "
            f"`{first['name']}` is [{first['saved']}] in the dict and [{first['own']}] in "
            f"`{model}`" + (f" ({len(sizes) - 1} more like it)" if len(sizes) > 1 else "") + ".",
            f"Build `{model}` with the same sizes as the model that made the dict (its shapes "
            "are in the message), or copy only the entries whose shapes agree.",
        )
    added = _prefix(missing, unexpected)
    if added is not None:
        part = added.rstrip(".")
        return Advice(
            f"`{model}`'s parameter names start with `{added}` ({_listed(missing)}), and "
            f"those in `{state}` do not ({_listed(unexpected)}): it comes from "
            f"`{model}.{part}` alone (or from a model that held that part directly).",
            f"Load it into that part: `{model}.{part}.load_state_dict({state})`.",
        )
    extra = _prefix(unexpected, missing)
    if extra is not None:
        return Advice(
            f"The names in `{state}` start with `{extra}` ({_listed(unexpected)}), which "
            f"`{model}`'s do not ({_listed(missing)}): it comes from a model wrapped in "
            "another (`nn.DataParallel`'s `module.`, a training wrapper's attribute).",
            f"Drop the prefix: `{model}.load_state_dict({{k.removeprefix('{extra}'): v for "
            f"k, v in {state}.items()}})`.",
        )
    told = []
    if missing:
        told.append(f"`{model}` has {_listed(missing)}, which `{state}` lacks")
    if unexpected:
        told.append(f"`{state}` holds {_listed(unexpected)}, which `{model}` has no place for")
    if sizes:
        told.append(f"{len(sizes)} parameters have other sizes")
    return Advice(
        "A state dict maps each parameter's name (its attribute path) to its tensor, and "
        f"`load_state_dict` wants exactly `{model}`'s names: " + "; ".join(told) + ". "
        "It comes from a different model, or the attributes were renamed since.",
        f"Compare the names: `print(list({state}.keys()))` and "
        f"`print(list({model}.state_dict().keys()))`; `strict=False` loads the names that "
        "agree and leaves the others as they are (it still refuses other sizes).",
    )


STATE_DICT_MISMATCH = r"Error\(s\) in loading state_dict for \w+"
