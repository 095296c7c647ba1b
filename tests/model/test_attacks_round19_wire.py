"""Round 19's red team, the wire side: round 18's limits on what a message may make the
window build (``wire._made_bytes``, ``MAX_UNREAD_MEMORY``, ``MAX_OPCODES``, sets refused)
against real answers, which must still be read.

1. (Held) A real engine answer for the biggest graph the engine sends (a chain of 20,000
   functions, drawn as 10,000 boxes, every box's values) is read whole and equal to what
   the engine made: its estimate stays under ``MAX_UNREAD_MEMORY`` (no opcode-by-opcode
   read), and checked opcode by opcode anyway it is under ``MAX_OPCODES`` and holds no
   set. No answer is bigger than ``budget.MAX_RESULT_BYTES`` (3 MB), fewer opcodes than
   ``MAX_OPCODES`` can fill: the opcode limit cannot refuse a real answer.
"""

from __future__ import annotations

import pickle

from gui.model import wire
from gui.model.engine import budget
from tests.corpus.harness import run_in_engine

CHAIN = """\
import torch
x = torch.linspace(-1, 1, 12, requires_grad=True)
y = x
for i in range(10000):
    y = (y * 1.0001).sin() + 0.001
loss = y.sum()
loss.backward()
"""


def test_a_real_answer_for_the_biggest_graph_is_read_whole() -> None:
    result = budget.bounded(run_in_engine(CHAIN))
    assert result.error is None and result.graph is not None
    data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(data) <= budget.MAX_RESULT_BYTES
    assert wire._made_bytes(data) <= wire.MAX_UNREAD_MEMORY
    wire.check_shape(data)  # what a bigger estimate would run first: no refusal
    read = wire.loads(data)
    assert read == result
    assert len(read.graph.nodes) == len(result.graph.nodes) >= 10_000


def test_no_answer_within_the_budget_has_more_opcodes_than_the_limit() -> None:
    assert budget.MAX_RESULT_BYTES < wire.MAX_OPCODES  # an opcode is at least one byte
