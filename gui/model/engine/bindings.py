"""The program's names for its tensors, and what the session asks of those names.

After every top-level statement the engine calls :meth:`Bindings.update`: tensors newly
bound to a name are remembered (for labelling the graph and choosing the output), a leaf's
value from the session is written in (the override wins over the code), and
``retain_grad`` is applied where asked. Problems with the session's requests become
warnings, never errors: a stale slider value must not stop a program from running.
"""

from __future__ import annotations

import dataclasses
import warnings
from typing import Any

import torch

from gui.model import explain, safety
from gui.model.engine.graph_walk import Naming
from gui.model.engine.node_of import is_leaf, node_of
from gui.model.engine.tensors import tensor_data
from gui.model.result import Explanation, NestedValues, TensorInfo
from gui.model.visible_text import visible_controls

# A module tree is walked this far at most (a program could nest modules without end).
MAX_MODULE_PARAMETERS = 1000


def module_parameters(module: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    """``module.named_parameters()``, in the same order, read from the modules' own
    ``_parameters`` and ``_modules`` dicts without calling any method of theirs.

    A program's module class may define ``_named_members`` or ``named_modules`` (one leading
    underscore is allowed in a class body) and hand anything over as a "parameter"; what
    reaches the result must be a real tensor, so only plain ``Tensor``/``Parameter`` objects
    under ``str`` names count.
    """
    found: list[tuple[str, torch.Tensor]] = []
    seen: set[int] = set()
    stack: list[tuple[str, object]] = [("", module)]
    while stack and len(found) < MAX_MODULE_PARAMETERS:
        prefix, current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        try:
            state = object.__getattribute__(current, "__dict__")
        except AttributeError:
            continue
        own = state.get("_parameters") if type(state) is dict else None
        for name, p in dict.items(own) if type(own) is dict else ():
            if (
                type(name) is str
                and type(p) in (torch.nn.Parameter, torch.Tensor)
                and len(prefix) + len(name) <= safety.MAX_SOURCE_CHARS
            ):
                # `add_module` takes any string: a bidirectional override in a layer's
                # name turned every panel's text showing it around (see visible_text).
                # Bounded as written out: an escape is up to six characters, and 19,990
                # overrides made a 120,000-character label (round 13's slow panels).
                shown = visible_controls(prefix + name)
                if len(shown) <= safety.MAX_SOURCE_CHARS:
                    found.append((shown, p))
        children = state.get("_modules") if type(state) is dict else None
        items = list(dict.items(children)) if type(children) is dict else []
        for name, child in reversed(items):  # depth first, in order, as named_modules
            # A name no program could write (`add_module` of a 90,000-character name, or
            # 400 levels of them) is left unnamed: no label is longer than a program may be.
            if (
                type(name) is str
                and isinstance(child, torch.nn.Module)
                and len(prefix) + len(name) < safety.MAX_SOURCE_CHARS
            ):
                stack.append((f"{prefix}{name}.", child))
    return found[:MAX_MODULE_PARAMETERS]


class Bindings:
    """Names -> tensors of one run, in the order the program bound them."""

    def __init__(
        self,
        namespace: dict[str, Any],
        naming: Naming,
        values: dict[str, NestedValues],
        retain_grad: tuple[str, ...],
    ) -> None:
        self.namespace = namespace
        self.naming = naming
        self.order: list[str] = []  # first bound first
        self.assigned: list[str] = []  # most recently (re)bound last
        self.first_line: dict[str, int] = {}
        self.notes: list[Explanation] = []
        self._pending_values = dict(values)
        self._retain_grad = retain_grad
        self._bound_ids: dict[str, int] = {}
        self._keepalive: list[Any] = []  # ids in ``naming`` must not be reused while we run
        # Parameters of the modules the program binds, by qualified name (``model.fc1.weight``,
        # see :meth:`_update_parameters`).
        self.parameters: dict[str, torch.Tensor] = {}
        self._parameter_ids: set[int] = set()
        # The qualified names the program's modules have now: a name the program no longer
        # has (``model`` rebound to a model without ``weights``) is not shown, as a variable
        # rebound to something else is not.
        self._live_parameters: set[str] = set()

    def tensor(self, name: str) -> torch.Tensor | None:
        value = self.namespace.get(name)
        if isinstance(value, torch.Tensor):
            return value
        if name not in self._live_parameters:
            return None
        return self.parameters.get(name)

    def update(self, line: int) -> None:
        """Record tensors (re)bound by the statement at ``line`` and apply session requests."""
        for name, value in list(self.namespace.items()):
            if not isinstance(value, torch.Tensor) or self._bound_ids.get(name) == id(value):
                continue
            self._bound_ids[name] = id(value)
            self._keepalive.append(value)
            if name not in self.first_line:
                self.order.append(name)
                self.first_line[name] = line
            if name in self.assigned:
                self.assigned.remove(name)
            self.assigned.append(name)
            self.naming.tensors.setdefault(id(value), name)
            node = node_of(value)
            if node is not None:
                self._keepalive.append(node)
                self.naming.outputs.setdefault((id(node), value.output_nr), name)
            if name in self._pending_values:
                self._override(name, value, self._pending_values.pop(name), line)
            if name in self._retain_grad:
                self._retain(name, value, line)
        self._update_parameters(line)

    def _update_parameters(self, line: int) -> None:
        """Name the parameters of every module bound to a name: ``<variable>.<qualified name>``
        (``model.fc1.weight``, ``net.0.bias``; ``fc1.weight`` for ``fc1 = nn.Linear(...)``).

        The name is the variable's followed by the name ``named_parameters()`` gives, so it
        stays the same when the program binds another model, and the session's values apply
        to it like any leaf's. A tensor keeps the first name it got: a parameter also bound
        to a variable (``w = model.weight``) is listed once, under the name seen first.
        """
        live: set[str] = set()
        found: list[tuple[str, torch.Tensor]] = []
        for var, value in list(self.namespace.items()):
            if not isinstance(value, torch.nn.Module) or var.startswith("_"):
                continue
            found += [(f"{var}.{qualified}", p) for qualified, p in module_parameters(value)]
        # A parameter whose first name no longer leads to it (``register_parametrization``
        # moved ``layer.weight`` to ``layer.parametrizations.weight.original``) takes the
        # name it has now, as a variable rebound would.
        now = {name for name, _ in found}
        for name, p in found:
            if self.parameters.get(name) is p:
                live.add(name)
                continue
            first = self.naming.tensors.get(id(p))
            if first is not None and self.parameters.get(first) is p and first not in now:
                del self.parameters[first]
                self._parameter_ids.discard(id(p))
                del self.naming.tensors[id(p)]
            if id(p) in self._parameter_ids or id(p) in self.naming.tensors:
                # Already named (a shared parameter, a submodule bound too): its first
                # name stays shown while the program can still reach it.
                if self.parameters.get(self.naming.tensors.get(id(p), "")) is p:
                    live.add(self.naming.tensors[id(p)])
                continue
            self.parameters[name] = p
            live.add(name)
            self._parameter_ids.add(id(p))
            self._keepalive.append(p)
            self.naming.tensors[id(p)] = name
            if name not in self.first_line:
                self.order.append(name)
                self.first_line[name] = line
            if name in self._pending_values:
                self._override(name, p, self._pending_values.pop(name), line)
        self._live_parameters = live

    def _override(self, name: str, value: torch.Tensor, wanted: NestedValues, line: int) -> None:
        if not is_leaf(value):
            self._note(
                f"values.{name}: {name} is computed from other tensors, so its value "
                "cannot be set; the session's value was ignored.",
                line,
            )
            return
        try:
            new = torch.tensor(wanted, dtype=value.dtype)
        except (TypeError, ValueError, RuntimeError) as exc:
            self._note(f"values.{name}: {exc}; the session's value was ignored.", line)
            return
        if new.shape != value.shape:
            self._note(
                f"values.{name} has shape {list(new.shape)} but the code makes {name} "
                f"with shape {list(value.shape)}; the code's values were used.",
                line,
            )
            return
        with torch.no_grad():
            value.copy_(new)

    def _retain(self, name: str, value: torch.Tensor, line: int) -> None:
        if value.requires_grad and not is_leaf(value):
            value.retain_grad()
        elif not value.requires_grad:
            self._note(
                f"retain_grad: {name} does not require grad, so it has no gradient to keep.", line
            )

    def _note(self, message: str, line: int | None) -> None:
        self.notes.append(
            Explanation(
                kind="session-request-ignored",
                message=message,
                explanation="The session asked for something this program does not allow, "
                "so the program ran without it.",
                fix="Edit the session's values, or the program, so they agree.",
                line=line,
                severity="warning",
            )
        )

    def note_unused_values(self) -> None:
        """Warn about session values for names the program never bound to a tensor."""
        for name in self._pending_values:
            self._note(
                f"values.{name}: the program has no tensor named {name}; the value was ignored.",
                None,
            )
        self._pending_values.clear()

    def leaves(self) -> dict[str, torch.Tensor]:
        """Named leaves that require grad: the tensors backward fills ``.grad`` of."""
        out = {}
        seen: set[int] = set()
        for name in self.order:
            t = self.tensor(name)
            if t is not None and is_leaf(t) and t.requires_grad and id(t) not in seen:
                seen.add(id(t))
                out[name] = t
        return out

    def constants(self) -> tuple[str, ...]:
        """Named float leaves that do not require grad (inputs a fix may point at)."""
        named = ((n, self.tensor(n)) for n in self.order)
        return tuple(
            n
            for n, t in named
            if t is not None and is_leaf(t) and not t.requires_grad and t.is_floating_point()
        )

    def retaining(self) -> list[torch.Tensor]:
        """Named non-leaf tensors that ``retain_grad()``."""
        named = (self.tensor(n) for n in self.order)
        return [t for t in named if t is not None and not is_leaf(t) and t.retains_grad]

    def name_of(self, t: torch.Tensor) -> str | None:
        """The name ``t`` is bound to now (latest binding), else the name it was first given."""
        for name in reversed(self.assigned):
            if self.namespace.get(name) is t:
                return name
        named = self.naming.name_of_tensor(t)
        if named is not None:
            return named
        # Bound inside the statement still running (``loss`` in a loop's body).
        for name, value in self.namespace.items():
            if value is t and not name.startswith("_"):
                return name
        return None

    def grad_owner(self, source_line: str | None) -> str | None:
        """The non-leaf tensor whose ``.grad`` ``source_line`` reads (for a warning's fix)."""
        for name in self.order:
            t = self.tensor(name)
            if source_line and f"{name}.grad" in source_line and t is not None and not is_leaf(t):
                return name
        return None

    def infos(self) -> dict[str, TensorInfo]:
        """Every named tensor as plain data, as it is now."""
        infos = {}
        for name in self.order:
            t = self.tensor(name)
            if t is None:
                continue
            grad, warning = self._grad_of(name, t)
            if warning is not None:
                warning = dataclasses.replace(warning, line=self.first_line.get(name))
            infos[name] = TensorInfo(
                name=name,
                value=tensor_data(t),
                requires_grad=t.requires_grad,
                is_leaf=is_leaf(t),
                grad_fn=None if (node := node_of(t)) is None else type(node).__name__,
                grad=None if grad is None else tensor_data(grad),
                retains_grad=t.retains_grad,
                line=self.first_line.get(name),
                grad_warning=warning,
            )
        return infos

    def _grad_of(
        self, name: str, t: torch.Tensor
    ) -> tuple[torch.Tensor | None, Explanation | None]:
        """``t.grad``, and torch's own warning when reading it on a non-leaf, explained."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            grad = t.grad
        if not caught or is_leaf(t):
            return grad, None
        w = caught[0]
        context = explain.ErrorContext(
            tensor=name, attribute_owner=name, leaves=tuple(self.leaves())
        )
        return grad, explain.explain_warning(w.category.__name__, str(w.message), context=context)
