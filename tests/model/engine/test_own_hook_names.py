"""A program's own attributes whose names hold "hook" (``def activations_hook``,
``self.hooks = []``) run as in plain torch; torch's hook machinery stays out of reach by the
same names, whether reached on torch's objects, through a program class that inherits a
library class, or with a name computed at run time."""

from __future__ import annotations

import pytest

from gui.model import safety
from tests.corpus.checks import matches, refused

_HOOK_REASON = "it runs your code inside torch's own machinery"


def test_the_catch_all_is_only_for_names_no_other_rule_refuses() -> None:
    assert safety.refused_only_as_hook_name("activations_hook")
    assert safety.refused_only_as_hook_name("hooks")
    assert not safety.refused_only_as_hook_name("register_hook")  # allowed outright
    assert not safety.refused_only_as_hook_name("register_backward_hook")  # named refusal
    assert not safety.refused_only_as_hook_name("_forward_hooks")  # private
    assert not safety.refused_only_as_hook_name("weight")


def test_own_method_and_handle_list_named_hook_match_plain_torch() -> None:
    matches(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)


class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
        self.hooks = []
        self.seen = []

    def save_hook(self, module, inputs, output):
        self.seen.append(output.detach().clone())

    def grad_hook(self, grad):
        self.seen.append(grad * 1.0)

    def attach(self):
        self.hooks.append(self.body[1].register_forward_hook(self.save_hook))

    def forward(self, x):
        h = self.body(x)
        h.register_hook(self.grad_hook)
        return h


probe = Probe()
probe.attach()
out = probe(torch.randn(5, 3))
out.pow(2).sum().backward()
for handle in probe.hooks:
    handle.remove()
probe.hooks = []
hook = getattr(probe, "grad" + "_hook")
again = probe(torch.randn(2, 3))
total = torch.stack([t.sum() for t in probe.seen])
print(len(probe.seen), total, hook is not None)
"""
    )


@pytest.mark.parametrize(
    ("reach", "shown"),
    [
        # A library module's attribute, though the program names its own list `hooks`.
        ("import torch.utils\nclass A:\n    pass\na = A()\na.hooks = 1\nx = torch.utils.hooks\n",
         "torch.utils.hooks"),
        # nn.Module's own state-dict hooks, through the program's subclass.
        ("import torch.nn as nn\nclass M(nn.Module):\n    def my_hook(self):\n        pass\n"
         "m = M()\nf = m.register_state_dict_pre_hook\n",
         "register_state_dict_pre_hook"),
        # The same name, computed at run time.
        ("import torch.nn as nn\nclass M(nn.Module):\n    def my_hook(self):\n        pass\n"
         "m = M()\nf = getattr(m, 'register_load_state_dict_' + 'post_hook')\n",
         "register_load_state_dict_post_hook"),
        # A handle's reference to torch's hooks dict, once the program names an attribute so.
        ("import torch\nclass A:\n    pass\nA.hooks_dict_ref = 1\nt = torch.ones(2, "
         "requires_grad=True)\nh = t.register_hook(lambda g: g)\nr = h.hooks_dict_ref\n",
         "hooks_dict_ref"),
        # A hook-named attribute set on a library layer is not the program's.
        ("import torch.nn as nn\nclass A:\n    pass\nA.my_hook = 1\nlin = nn.Linear(2, 2)\n"
         "lin.my_hook = print\n", "my_hook"),
    ],
)  # fmt: skip
def test_torchs_hook_attributes_stay_refused(reach: str, shown: str) -> None:
    message = refused(reach)
    assert shown in message and _HOOK_REASON in message


def test_a_hook_name_the_program_never_defines_is_refused_before_it_runs() -> None:
    message = refused("import torch\nclass A:\n    pass\nx = torch.utils.hooks\n")
    assert "torch.utils.hooks" in message or "hooks" in message
    assert _HOOK_REASON in message
