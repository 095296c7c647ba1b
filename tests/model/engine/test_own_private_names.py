"""A program's layer keeps settings under one-underscore names (``self._embedding_dim``)
as in plain torch; torch's own ``_names`` on the same layer (its parameter and hook dicts,
the engine's markers) stay out of reach, read or written, by name or computed."""

from __future__ import annotations

import pytest
import torch

from gui.model.engine.private_names import _names_used_by
from tests.corpus.checks import matches, refused
from tests.corpus.harness import SNIPPETS

_LAYER = """\
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self._hidden = 3
        self._proj = nn.Linear(2, self._hidden)
        self._scale = torch.tensor(0.5)

    def forward(self, x):
        return self._proj(x) * self._scale

"""


def test_torchs_own_names_are_harvested_from_its_code() -> None:
    names = _names_used_by(torch.nn.Module)
    assert names is not None
    # Set through a string (`super().__setattr__("_parameters", {})`), read as attributes,
    # class attributes and annotations.
    assert {"_parameters", "_modules", "_forward_hooks", "_call_impl", "_version"} <= names
    assert "_embedding_dim" not in names
    assert _names_used_by(torch._C._FunctionBase) is None  # written in C: unknown


def test_the_vq_vae_notebook_runs_as_in_plain_torch() -> None:
    matches(SNIPPETS.joinpath("637_vq_vae_private_attributes.py").read_text())


def test_a_layer_and_its_subclass_keep_underscore_settings() -> None:
    matches(
        _LAYER
        + """\
class Deeper(Net):
    def __init__(self):
        super().__init__()
        self._extra = nn.Linear(self._hidden, 1)

    def forward(self, x):
        return self._extra(super().forward(x))


torch.manual_seed(0)
net = Deeper()
x = torch.randn(4, 2)
loss = net(x).pow(2).mean()
loss.backward()
Deeper._label = "deeper"
del net._extra
print(getattr(net, "_hid" + "den"), Deeper._label, hasattr(net, "_extra"))
"""
    )


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("net = Net()\nd = net._parameters\n", "_parameters"),
        ("net = Net()\nd = getattr(net, '_forward' + '_hooks')\n", "_forward_hooks"),
        ("net = Net()\nnet._modules = {}\n", "_modules"),
        ("net = Net()\nf = net._call_impl\n", "_call_impl"),
        ("Net._version = 7\n", "_version"),
        ("Net._ae_names_guarded = False\n", "_ae_names_guarded"),
        ("net = Net()\nnet._ae_anything = 1\n", "_ae_anything"),
        # A library layer the program did not write.
        ("lin = nn.Linear(2, 2)\nlin._note = 1\n", "_note"),
        # A custom Function builds on a class written in C: its names are unknown.
        ("class Twice(torch.autograd.Function):\n    pass\nTwice._note = 1\n", "_note"),
    ],
)
def test_torchs_underscore_names_stay_refused(line: str, shown: str) -> None:
    message = refused(_LAYER + line)
    assert shown in message and "underscore" in message
