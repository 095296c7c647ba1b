"""A new program never reaches the process that ran the last one.

That process read its jobs from the window's pipe; a program of it that got past the
Python wall could read the next program's job there and answer it with made-up numbers,
or write a made-up answer ahead of time. So the window sends a job of new code to the
server (``NewProgram``), the server stops the last program's process, writes ``Fresh`` with
the window's nonce, and a fresh process runs the job; the window drops whatever came before
``Fresh``.
"""

from __future__ import annotations

import multiprocessing
import pickle
import sys
import time

import pytest

from gui.model.engine.fork_server import ForkServer
from gui.model.engine_process import EngineProcess
from gui.model.request import Job, NewProgram, Program, RunRequest
from gui.model.result import Answer, EngineReady, Explanation, Fresh, failed_result
from tests.model.engine.fake_owner import FakeOwner

pytestmark = pytest.mark.skipif(
    sys.platform not in ("linux", "darwin"), reason="programs get their own process with fork"
)

A = "x = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * x).sum()\n"
B = "x = torch.tensor([3.0], requires_grad=True)\ny = (x ** 3).sum()\n"


def test_the_server_stops_the_last_programs_process_before_anything_else() -> None:
    fake = FakeOwner(("idle",))
    job = Job(2, RunRequest(Program(code=B)))
    fake.server._broken = None
    fake.server._refork = lambda: None  # type: ignore[method-assign]  # no real spares here
    try:
        fake.server._handle(fake.spare.notes)  # the owner answered its run and is idle
        fake.control.send(NewProgram(job, 12345))
        assert fake.server._on_control()
        assert not fake.alive(), "the last program's process is still running"
        assert fake.server._owner is None
        assert fake.message() == Fresh(12345)
        assert fake.server._handed_back == job  # for the standby (none in this test)
    finally:
        fake.close()


def test_a_broken_sandbox_answers_a_new_program_after_fresh() -> None:
    window, server_end = multiprocessing.Pipe()
    control_read, control = multiprocessing.Pipe(duplex=False)
    server = ForkServer(server_end, control_read)
    server._broken = "no seccomp here"
    control.send(NewProgram(Job(5, RunRequest(Program(code=B))), 7))
    assert server._on_control()
    assert pickle.loads(window.recv_bytes()) == Fresh(7)
    answer = pickle.loads(window.recv_bytes())
    assert isinstance(answer, Answer) and answer.run_id == 5
    assert answer.result.error is not None and "no seccomp here" in answer.result.error.message


class Recorder:
    """The engine's two pipes, as a fake child: what the window sends on each."""

    def __init__(self) -> None:
        self.engine = EngineProcess()
        parent, self.child_conn = multiprocessing.Pipe()
        self.child_control, control = multiprocessing.Pipe(duplex=False)
        self.engine._conn, self.engine._control = parent, control
        self.engine._ready = EngineReady("fork")

    def send(self, code: str) -> None:
        self.engine._next_id += 1
        self.engine._send(Job(self.engine._next_id, RunRequest(Program(code=code))), True)

    def sent(self) -> tuple[list[object], list[object]]:
        on_conn, on_control = [], []
        while self.child_conn.poll(0):
            on_conn.append(pickle.loads(self.child_conn.recv_bytes()))
        while self.child_control.poll(0):
            on_control.append(pickle.loads(self.child_control.recv_bytes()))
        return on_conn, on_control


def test_the_window_sends_only_the_current_programs_jobs_on_the_shared_pipe() -> None:
    pipes = Recorder()
    pipes.send(A)  # the first program: the first process has run nothing yet
    pipes.send(A)  # a slider tick: the same process serves it
    on_conn, on_control = pipes.sent()
    assert [j.run_id for j in on_conn] == [1, 2] and on_control == []  # type: ignore[attr-defined]
    pipes.send(B)
    on_conn, on_control = pipes.sent()
    assert on_conn == []
    (order,) = on_control
    assert isinstance(order, NewProgram) and order.job.request.program.code == B
    assert order.nonce == pipes.engine._fresh


def test_the_window_drops_what_came_before_fresh() -> None:
    """A made-up answer to the next run number, written ahead by the last program's
    process, and a Fresh with a guessed nonce are dropped; the real answer is taken."""
    pipes = Recorder()
    pipes.send(A)
    pipes.sent()
    pipes.send(B)
    (order,) = pipes.sent()[1]
    assert isinstance(order, NewProgram)
    job = order.job
    forged = failed_result(_explanation("forged"))
    real = failed_result(_explanation("real"))
    for message in (Answer(job.run_id, forged), Fresh(order.nonce ^ 1), Fresh(order.nonce)):
        pipes.child_conn.send(message)
    pipes.child_conn.send(Answer(job.run_id, real))
    answer = pipes.engine._answer(job, time.monotonic() + 5)
    assert answer is not None and answer.result.error is not None
    assert answer.result.error.kind == "real"


def _explanation(kind: str) -> Explanation:
    return Explanation(kind, "m", "e", "f")


@pytest.mark.slow
def test_programs_in_turn_give_plain_torch_numbers(engine_process: EngineProcess) -> None:
    """A, B, A again and a tick of it: each new program through the server, each number
    as torch computes it."""
    for code, expected in ((A, [2.0, 4.0]), (B, [27.0]), (A, [2.0, 4.0]), (A, [2.0, 4.0])):
        result = engine_process.run(RunRequest(Program(code=code)))
        assert result.error is None, result.error
        grad = result.tensors["x"].grad
        assert grad is not None and grad.values == expected
