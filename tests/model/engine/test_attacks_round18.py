"""Round 18's red team, the engine: the rule that now lets a program use its own
attributes named ``*hook*`` (commit 5922381: ``safety.refused_only_as_hook_name``,
``guard._program_hook_name``), and code the editor shows otherwise than Python reads it,
read as an attacker who has the source. Each test is an attack that worked before its
fix, or one that held and must keep holding.

1. (Held) The checked saved-tensor hooks: ``torch.autograd.graph.saved_tensors_hooks`` is
   the engine's ``_SavedTensorsHooks``, which wraps the program's pack and unpack
   (``_checked_hooks``: an unpacked tensor must be like the one packed, whole numbers keep
   their values) and keeps the wrapped ones as the *instance* attributes ``pack_hook`` and
   ``unpack_hook``. Replacing ``unpack_hook`` after construction would hand backward an
   unchecked tensor of another size (rounds 13-14: reads and writes past a buffer). The
   new rule allows a hook-named attribute that no class holds, on an object whose class
   is the program's: so everything rests on no program class building on it. Written
   with the program defining its own ``unpack_hook`` (so the static check lets the name
   through): on torch's instance, through a subclass (refused as a base), with
   ``setattr`` and a computed name, and ``save_on_cpu``'s: each refused.
2. (Held) torch's hook attributes through a program's subclass of a library class:
   ``super().register_state_dict_pre_hook``, an optimizer's
   ``profile_hook_step``/``register_step_pre_hook`` (class attributes of ``Optimizer``),
   ``hasattr``/``getattr`` with computed names, a removable handle's ``hooks_dict_ref``
   kept on the program's own object, ``nn.Module``'s global hooks by a name the program
   also gives its own method: refused.
3. (Held) The program's own hook-named attributes on its ``nn.Module`` subclass (a method
   overriding one of ``nn.Module``'s, an instance attribute, a submodule named ``hook``):
   plain torch's numbers. (Not a hole, a gap left to the lead: a ``ParameterDict`` or
   ``ModuleDict`` key the program names ``bias_hook`` is still refused, the dict being
   torch's class, where plain torch runs it.)
4. Code that reads otherwise than it runs with no control character in it:
   a. A form feed after a line's indentation (``    \fx = x * 1000`` as the last line of
      an ``if`` block): Python's tokenizer starts the column again at 0 there, so the line
      runs after the block, whatever its condition; the editor draws a form feed as
      nothing, the line inside the block. Now refused by the code check, naming the line
      (``visible_text.INDENT_RESETS``, ``safety._refuse_reordering_controls``); a form
      feed at a line's start (a page break) or in a string's escape runs.
   b. A name written in a right-to-left script (Python takes Hebrew or Arabic letters
      and Arabic-Indic digits in identifiers): the editor's bidirectional layout draws the
      code around it reordered, ``y = א - 2`` as ``y = 2 - א``, ``y = א - ב`` as
      ``y = ב - א``. Now refused by the code check, naming it as escapes
      (``safety._refuse_right_to_left_names``); strings and comments in those scripts run.
      (Open, not refused: such a string or comment followed by code on its line reorders
      the code next to it too, ``print("שלום", 2)``; homoglyphs, a Cyrillic ``а`` beside a
      Latin ``a``, read alike and are two names.)
5. (Fixed by the lead after the round, in ``guard._write_refusal``) ``a.shape = (2, 2)``
   on a numpy array: the write check asked ``obj in PROGRAM_CLASSES``, hashing the array,
   and the program stopped with a ``TypeError`` ("unhashable type") explained as its own;
   it is refused in the sentence of any write on a library object now.
"""

from __future__ import annotations

import pytest

from tests.corpus.checks import matches, refused
from tests.corpus.harness import run_plain

_HOOK_REASON = "it runs your code inside torch's own machinery"

# The program names its own `pack_hook`/`unpack_hook`, so the static check lets the names
# through and only the guard decides.
OWN_NAMES = (
    "import torch\n"
    "import torch.nn as nn\n"
    "class Own:\n"
    "    def pack_hook(self, t):\n"
    "        return t\n"
    "    def unpack_hook(self, t):\n"
    "        return t\n"
    "w = torch.randn(3, 4, requires_grad=True)\n"
    "shrunk = lambda packed: torch.zeros(1)\n"
)

SAVED_HOOKS = {
    "attribute on torch's instance": (
        "s = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)\n"
        "s.unpack_hook = shrunk\n",
        "unpack_hook",
    ),
    "setattr with a computed name": (
        "s = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)\n"
        "setattr(s, 'unpack' + '_hook', shrunk)\n",
        "unpack_hook",
    ),
    "save_on_cpu's": (
        "s = torch.autograd.graph.save_on_cpu()\ns.unpack_hook = shrunk\n",
        "unpack_hook",
    ),
    "read, to call it": (
        "s = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)\nf = s.pack_hook\n",
        "pack_hook",
    ),
    "deleted": (
        "s = torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t)\n"
        "del s.unpack_hook\n",
        "unpack_hook",
    ),
}


@pytest.mark.parametrize("way", sorted(SAVED_HOOKS))
def test_the_checked_saved_tensor_hooks_cannot_be_replaced(way: str) -> None:
    change, shown = SAVED_HOOKS[way]
    code = (
        OWN_NAMES + change + "with s:\n    y = torch.nn.functional.layer_norm(w, (4,))\n"
        "y.sum().backward()\nprint(w.grad)\n"
    )
    message = refused(code)
    assert shown in message and _HOOK_REASON in message, message


def test_a_program_class_cannot_build_on_the_saved_tensor_hooks() -> None:
    code = OWN_NAMES + (
        "class Mine(torch.autograd.graph.saved_tensors_hooks):\n"
        "    def __init__(self):\n"
        "        super().__init__(lambda t: t, lambda t: t)\n"
        "        self.unpack_hook = shrunk\n"
        "s = Mine()\n"
        "with s:\n    y = torch.nn.functional.layer_norm(w, (4,))\n"
        "y.sum().backward()\n"
    )
    message = refused(code)
    assert "class Mine" in message and "can build on" in message, message


LIBRARY_HOOKS = {
    "super() in a module": (
        "class M(nn.Module):\n"
        "    def register_state_dict_pre_hook(self, f):\n"
        "        return super().register_state_dict_pre_hook(f)\n"
        "M().register_state_dict_pre_hook(print)\n",
        "register_state_dict_pre_hook",
    ),
    "an optimizer subclass's profile hook": (
        "class O(torch.optim.SGD):\n"
        "    def profile_hook_step(self):\n"
        "        pass\n"
        "o = O([w], lr=0.1)\n"
        "f = getattr(torch.optim.SGD, 'profile_' + 'hook_step')\n",
        "profile_hook_step",
    ),
    "an optimizer subclass's step hook": (
        "class O(torch.optim.SGD):\n"
        "    def my_hook(self):\n"
        "        pass\n"
        "o = O([w], lr=0.1)\n"
        "h = o.register_step_pre_hook(print)\n",
        "register_step_pre_hook",
    ),
    "hasattr with a computed name": (
        "class M(nn.Module):\n"
        "    def my_hook(self):\n"
        "        pass\n"
        "print(hasattr(M(), 'register_load_state_dict_' + 'pre_hook'))\n",
        "register_load_state_dict_pre_hook",
    ),
    "a handle kept on the program's object": (
        "class Keep:\n"
        "    def __init__(self, handle):\n"
        "        self.handle = handle\n"
        "        self.hooks_dict_ref = None\n"
        "k = Keep(w.register_hook(lambda g: g))\n"
        "d = k.handle.hooks_dict_ref\n",
        "hooks_dict_ref",
    ),
    "a module-wide hook named as the program's own method": (
        "class A:\n"
        "    def register_module_full_backward_pre_hook(self):\n"
        "        pass\n"
        "torch.nn.modules.module.register_module_full_backward_pre_hook(print)\n",
        "torch.nn.modules",
    ),
}


@pytest.mark.parametrize("way", sorted(LIBRARY_HOOKS))
def test_torchs_hooks_stay_out_of_reach_through_the_programs_classes(way: str) -> None:
    code, shown = LIBRARY_HOOKS[way]
    message = refused(OWN_NAMES + code)
    assert shown in message, message


def test_the_programs_own_hook_names_on_its_module_run_as_plain_torch() -> None:
    matches(
        """\
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.hook = nn.Linear(3, 2)
        self.scale_hook = 2.0
        self.params = nn.ParameterDict({"bias": nn.Parameter(torch.randn(2))})

    def register_state_dict_pre_hook(self, f):
        return "mine"

    def forward(self, x):
        return self.hook(x) * self.scale_hook + self.params["bias"]


net = Net()
x = torch.randn(4, 3, requires_grad=True)
out = net(x).pow(2).sum()
out.backward()
print(net.register_state_dict_pre_hook(None), net.hook.weight.grad, x.grad)
"""
    )


# 4. Code the editor shows otherwise than Python reads it, without a control character.
def test_a_form_fed_line_is_refused_where_python_would_run_it_after_its_block() -> None:
    code = (
        "import torch\n"
        "x = torch.ones(2, requires_grad=True)\n"
        "if x.sum() < 0:\n"
        "    print('never')\n"
        "    \fx = x * 1000\n"
        "print((x * 2).sum())\n"
    )
    plain = run_plain(code)  # shown inside the `if`, run after it
    assert plain.error is None and plain.printed == ["tensor(4000., grad_fn=<SumBackward0>)"]
    assert refused(code) == (
        "Line 5 holds an invisible `\\x0c`, a form feed, which ends the indentation before it "
        "for Python and shows as nothing; delete it (in a string, write it as `\\x0c`)."
    )


@pytest.mark.parametrize(
    "kept",
    [
        "\fx = torch.ones(2)\nprint(x)\n",  # a page break at a line's start reads as written
        "x = torch.ones(2)\n\f\nprint(x * 2)\n",
        "print('a\\fb')\n",
    ],
)
def test_a_form_feed_that_reads_as_written_runs(kept: str) -> None:
    matches("import torch\n" + kept)


RIGHT_TO_LEFT = {
    "a variable": ("y = \u05d0 - 2\n", "\\u05d0"),
    "an argument": ("def f(\u0627\u0628):\n    return \u0627\u0628 - 1\n", "\\u0627\\u0628"),
    "an attribute": ("class A:\n    pass\na = A()\na.\u05d1 = 1\n", "\\u05d1"),
    "a keyword": ("def f(**k):\n    return k\nf(\u05d2=1)\n", "\\u05d2"),
    "a name with Arabic-Indic digits": ("x\u0661 = 1\n", "x\\u0661"),
}


@pytest.mark.parametrize("way", sorted(RIGHT_TO_LEFT))
def test_a_name_written_right_to_left_is_refused(way: str) -> None:
    """``y = א - 2`` shows as ``y = 2 - א`` (see the wire side's test of the editor)."""
    code, shown = RIGHT_TO_LEFT[way]
    assert refused("import torch\n" + code) == (
        f"The name `{shown}` is written right to left: the editor shows the code around it "
        "in another order than Python reads it (`y = a - 2` could show as `y = 2 - a`); use "
        "a name written left to right."
    )


def test_right_to_left_strings_and_comments_run() -> None:
    matches(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)  # \u05e7\u05dc\u05d8\n"
        "label = '\u05d4\u05e4\u05e1\u05d3 \u0627\u0644\u062e\u0633\u0627\u0631\u0629'\n"
        "(x * 3).sum().backward()\n"
        "print(label, x.grad)\n"
    )


# 5. A write on an object that cannot be hashed.
def test_a_write_on_an_unhashable_library_object_is_refused_as_any_other() -> None:
    message = refused("import numpy as np\na = np.zeros(4)\na.shape = (2, 2)\nprint(a)\n")
    assert "only the program's own objects" in message, message
