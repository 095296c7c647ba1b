"""Round 4 of attacks on the sandbox, aimed at what changed since round 3.

Grouped by the door each test tries:

1. the window's restricted unpickler (``gui/model/wire.py``): crafted bytes on the pipe,
   played by the test as a child past every wall would write them;
2. the cold first owner and the hand-off of a refused program to a warm process;
3. code of one run that runs again in a later run (finalisers, library caches);
4. what was newly admitted: ``numpy.random.RandomState``, ``time``, ``random``,
   ``functools``, ``typing``;
5. session files: dotted names, scale lock, time limit.

Attacks that crash or exhaust the process they run in go to a subprocess, so the test
runner survives a successful attack.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import multiprocessing
import os
import pickle
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gui.model import wire
from gui.model.engine.run import run_program
from gui.model.engine_process import EngineProcess
from gui.model.request import Program, RunRequest
from gui.model.result import Answer, EngineReady, Explanation, RunResult, failed_result
from gui.model.session import SessionFileError, load_session
from gui.model.session.session import Session

ROOT = Path(__file__).resolve().parents[3]

# -- helpers ------------------------------------------------------------------------------


def run(code: str, time_limit: float = 5.0) -> RunResult:
    """Run ``code`` in this process, as the engine's child would (Python wall only)."""
    return run_program(RunRequest(Program(code=code), time_limit=time_limit))


def printed(result: RunResult) -> list[str]:
    return [line.text for line in result.printed]


class _FakeProcess:
    """Stands in for the engine's child process: alive, and killing it does nothing."""

    def is_alive(self) -> bool:
        return True

    def kill(self) -> None:
        pass

    def join(self, timeout: float | None = None) -> None:
        pass


def _fake_engine(payload: object) -> EngineProcess:
    """An :class:`EngineProcess` whose child is this test: every job is answered with
    ``payload(run_id)`` (bytes written on the pipe as they are)."""
    parent, child = multiprocessing.Pipe()
    engine = EngineProcess()
    engine._conn, engine._process, engine._ready = parent, _FakeProcess(), EngineReady("fork")  # type: ignore[assignment]

    def serve() -> None:
        while True:
            try:
                job = pickle.loads(child.recv_bytes())
            except (EOFError, OSError):
                return
            child.send_bytes(payload(job.run_id))  # type: ignore[operator]

    threading.Thread(target=serve, daemon=True).start()
    return engine


# Runs in a subprocess: the window's side handling ``PAYLOAD`` (a pickle made by the
# test), through a real Session, with 1.5 GiB of address space and a deadline.
WINDOW_SIDE = """
import multiprocessing, pickle, resource, sys, threading, time
sys.path.insert(0, {root!r})
resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))
from gui.model.engine_process import EngineProcess
from gui.model.result import EngineReady
from gui.model.session.layouts import LayoutCache
from gui.model.session.session import Session
payload = sys.stdin.buffer.read()
class FakeProcess:
    def is_alive(self): return True
    def kill(self): pass
    def join(self, timeout=None): pass
parent, child = multiprocessing.Pipe()
engine = EngineProcess()
engine._conn, engine._process, engine._ready = parent, FakeProcess(), EngineReady("fork")
def serve():
    while True:
        job = pickle.loads(child.recv_bytes())
        child.send_bytes(payload)
threading.Thread(target=serve, daemon=True).start()
session = Session(engine.run, layouts=LayoutCache(process=object()))  # no Graphviz
started = time.monotonic()
try:
    session.set_code("x = torch.ones(1, requires_grad=True)\\ny = x * 2\\n")
    outcome = "handled"
except BaseException as exc:
    outcome = type(exc).__name__
print(outcome, round(time.monotonic() - started, 2), session._in_flight, flush=True)
"""


def _window_side(payload: bytes, timeout: float = 8.0) -> tuple[int, str]:
    """The window's side (a Session over an engine whose child sends ``payload``) in a
    subprocess: (exit status, what it printed); -9 when it overran ``timeout``."""
    script = WINDOW_SIDE.format(root=str(ROOT))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=payload,
            capture_output=True,
            timeout=timeout,
            env=env,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return -9, "overran"
    return done.returncode, (done.stdout + done.stderr[-2000:]).decode(errors="replace")


# -- 1. the window's unpickler --------------------------------------------------------------


def test_a_deeply_nested_dict_key_does_not_crash_the_window() -> None:
    """200 KB on the pipe: a dict whose key is a tuple nested 200,000 deep (``TUPLE1``
    repeated). ``SETITEM`` hashes the key while unpickling, and Python 3.11's tuple hash
    recurses in C with no depth check: the window's process dies with SIGSEGV inside
    ``wire.loads`` (every opcode used is plain data, so the restricted unpickler lets it
    through). The window must survive (refuse the message, or say the engine failed)."""
    deep_key = b"K\x01" + b"\x85" * 200_000
    payload = b"\x80\x04}" + deep_key + b"K\x02s."
    status, out = _window_side(payload)
    assert status == 0, f"the window's process ended with status {status}: {out}"


def test_shared_sublists_do_not_blow_up_in_the_window() -> None:
    """Billion laughs: a kilobyte on the pipe whose ``TensorData.values`` is a list of ten
    references to a list of ten references... ten levels deep (10**10 numbers once
    expanded; pickle's memo shares them). The window's GUI thread flattens a leaf's values
    to settle its slider range (``ranges.default_range`` -> ``nested.flatten``): it runs
    until the memory is gone. The window must refuse or bound it promptly."""
    from gui.model.result import TensorData, TensorInfo

    level: object = [1.0] * 10
    for _ in range(9):
        level = [level] * 10
    info = TensorInfo(
        "x", TensorData((10,) * 10, "float32", level), True, True, None, None, False, 1
    )
    result = dataclasses.replace(
        failed_result(Explanation("k", "m", "e", "f")),
        tensors={"x": info},
        leaves=("x",),
        error=None,
    )
    payload = pickle.dumps(Answer(1, result))  # the fake child's first job is number 1
    status, out = _window_side(payload, timeout=5.0)
    assert len(payload) < 2000
    assert status == 0 and out.startswith("handled"), f"status {status}: {out}"
    seconds = float(out.split()[1])
    assert seconds < 2.0, out


def test_an_answer_of_the_wrong_shape_does_not_wedge_the_session() -> None:
    """``Answer(run_id, "nonsense")``: the allowed class built by ``REDUCE`` with an
    argument of the wrong type. ``EngineProcess.run`` returns it as the result;
    ``computed.compute`` reads ``result.warnings`` outside its ``try``, the
    ``AttributeError`` escapes to the dispatcher (which re-raises it on the GUI thread)
    and ``Session._on_computed`` never runs: the session stays "in flight" and the window
    never runs a program again until it is restarted."""
    engine = _fake_engine(lambda run_id: pickle.dumps(Answer(run_id, "nonsense")))  # type: ignore[arg-type]
    session = Session(engine.run)
    with contextlib.suppress(Exception):
        session.set_code("x = torch.ones(1, requires_grad=True)\ny = x * 2\n")
    assert not session._in_flight, "the session waits forever for a run that was answered"


def test_malformed_bytes_are_answered_not_raised() -> None:
    """Bytes the unpickler rejects with something other than the exceptions
    ``EngineProcess.run`` catches: an unknown protocol (``ValueError``), a huge
    ``BINBYTES8`` size (``MemoryError``), invalid UTF-8 (``UnicodeDecodeError``), a
    4,300-digit ``LONG`` (``ValueError``), an unregistered ``EXT1`` code. ``run`` says it
    never raises; each must come back as a result saying the engine failed."""
    payloads = [
        b"\x80\x06N.",
        b"\x80\x04\x8e" + (2**62).to_bytes(8, "little") + b".",
        b"\x80\x04X\x02\x00\x00\x00\xff\xfe.",
        b"L" + b"9" * 5000 + b"L\n.",
        b"\x80\x04\x82\x01.",
    ]
    escaped = []
    for payload in payloads:
        engine = _fake_engine(lambda run_id, p=payload: p)
        try:
            result = engine.run(RunRequest(Program(code="x = 1\n"), time_limit=1.0))
            assert result.error is not None
        except Exception as exc:
            escaped.append(f"{payload[:12]!r}: {type(exc).__name__}")
    assert not escaped, escaped


WIRE_REFUSED = [
    pytest.param(b"cos\nsystem\n(S'true'\ntR.", id="global-os-system"),
    pytest.param(b"(ios\nsystem\nS'true'\n.", id="inst-os-system"),
    pytest.param(b"(cos\nsystem\nS'true'\no.", id="obj-os-system"),
    pytest.param(b"cgui.model.result\nRunResult.__init__.__globals__\n.", id="qualname"),
    pytest.param(b"cgui.model.result\nRunResult.__init__\n.", id="qualname-method"),
    pytest.param(b"cgui.model.result\nfailed_result\n.", id="module-function"),
    pytest.param(b"cgui.model.result\ndataclass\n.", id="imported-name"),
    pytest.param(
        b"\x80\x04\x8c\x10gui.model.result\x8c\x1eRunResult.__init__.__globals__\x93.",
        id="stack-global-dotted",
    ),
    pytest.param(b"\x80\x04\x8c\x08builtins\x8c\x04eval\x93.", id="stack-global-eval"),
    pytest.param(b"c__builtin__\ngetattr\n.", id="builtins-getattr"),
    pytest.param(b"ccopyreg\n_reconstructor\n.", id="copyreg"),
    pytest.param(b"cfunctools\npartial\n.", id="functools-partial"),
    pytest.param(b"Pfoo\n.", id="persid"),
    pytest.param(b"\x80\x04N\x51.", id="binpersid"),
    pytest.param(b"\x80\x04\x82\x01.", id="ext1"),
    pytest.param(b"\x80\x04\x84\xff\xff\xff\x7f.", id="ext4"),
    # REDUCE on an allowed class whose __post_init__ meets the wrong types.
    pytest.param(b"cgui.model.result\nExplanation\n(I1\nI2\nI3\nI4\ntR.", id="post-init"),
    # BUILD with a slot state that sets __class__ on a frozen message.
    pytest.param(
        b"cgui.model.result\nEngineReady\n(S'fork'\ntR(N}S'__class__'\n"
        b"cgui.model.result\nAnswer\nstb.",
        id="build-class",
    ),
    # pickle.loads -> _nested_loads with something that is not bytes.
    pytest.param(b"c_pickle\nloads\n(I1\ntR.", id="nested-loads-int"),
]


@pytest.mark.parametrize("payload", WIRE_REFUSED)
def test_crafted_pickles_build_nothing_but_messages(payload: bytes) -> None:
    """Each crafted pickle either fails to load or loads to plain data/messages; none
    returns a callable or a module's namespace, and none runs anything."""
    try:
        loaded = wire.loads(payload)
    except Exception:
        return
    assert not callable(loaded) and not isinstance(loaded, dict), loaded


def test_nested_loads_stop_at_their_depth() -> None:
    """``pickle.loads(pickle.loads(...))`` six levels deep is refused (each level is
    another unpickler on the stack), and so is a nested pickle that names ``os``."""
    message: bytes = pickle.dumps(EngineReady("fork"))
    for _ in range(6):
        message = b"c_pickle\nloads\n(" + pickle.dumps(message, protocol=4)[2:-1] + b"tR."
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(message)
    inner = b"cos\nsystem\n(S'true'\ntR."
    outer = b"c_pickle\nloads\n(" + pickle.dumps(inner, protocol=4)[2:-1] + b"tR."
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(outer)


def test_the_extension_registry_does_not_widen_what_is_found() -> None:
    """``EXT1`` looks its code up in ``copyreg``'s registry and then asks ``find_class``:
    even with a code registered for ``os.system`` in the window, it stays refused."""
    import copyreg

    copyreg.add_extension("os", "system", 0xE4)
    try:
        with pytest.raises(pickle.UnpicklingError):
            wire.loads(b"\x80\x04\x82\xe4(S'true'\ntR.")
    finally:
        copyreg.remove_extension("os", "system", 0xE4)


def test_a_self_referencing_message_does_not_hang_the_unpickler() -> None:
    """A list that holds itself, and a million references to one memo entry: loading is
    quick (rendering is tested through the Session above)."""
    started = time.monotonic()
    # The engine never sends a cycle: refused (it would expand without end), promptly.
    with pytest.raises(pickle.UnpicklingError):
        wire.loads(b"\x80\x04]\x94h\x00a.")
    many = b"\x80\x04(K\x01\x94" + b"h\x00" * 1_000_000 + b"l."
    assert len(wire.loads(many)) == 1_000_001  # type: ignore[arg-type]
    assert time.monotonic() - started < 2.0


# -- 3 and 4. code of one run in a later run; what was newly admitted ------------------------


def _clear_typing_caches() -> None:
    """Drop what a test left in typing's caches (other tests must not meet it)."""
    import typing

    for clear in typing._cleanups:  # type: ignore[attr-defined]
        clear()


TYPING_CACHE_LEAK = """
import typing
class K:
    def __init__(self):
        self.inherited = 0
    def __call__(self):
        return 0
    def __hash__(self):
        return 7
    def __eq__(self, other):
        if hasattr(other, "inherited") and other is not self:
            other.inherited = self.inherited + 1
        return False
mine = K()
L = typing.Optional[mine]
print('inherited', mine.inherited)
x = torch.ones(1, requires_grad=True)
y = x * mine.inherited
"""


def test_typings_cache_does_not_carry_a_run_into_the_next() -> None:
    """``typing.Optional[obj]`` keeps ``obj`` in typing's ``lru_cache`` (an instance with
    ``__call__`` passes typing's check). A later run's ``Optional[new]`` with the same
    ``__hash__`` makes the cache compare keys: the *previous run's* ``__eq__`` runs, with
    the previous run's namespace, and writes into the new run's object. Each re-run of the
    program (a slider tick in the same owner process) prints, and computes, different
    numbers: 0, 1, 2... (``pristine.capture`` compares settings, not library caches)."""
    try:
        outputs = [run(TYPING_CACHE_LEAK) for _ in range(3)]
    finally:
        _clear_typing_caches()
    assert [printed(r) for r in outputs] == [printed(outputs[0])] * 3


@pytest.mark.slow
def test_typings_cache_does_not_carry_a_run_into_the_next_in_the_engine(
    engine_process: EngineProcess,
) -> None:
    """The same leak through the real engine: two runs of one program in its owner."""
    request = RunRequest(Program(code=TYPING_CACHE_LEAK), time_limit=3.0)
    first = engine_process.run(request)
    second = engine_process.run(request)
    assert first.error is None, first.error
    assert printed(second) == printed(first)
    assert first.output_value == second.output_value


REFUSED_FINALISERS = [
    pytest.param("import weakref\n", id="weakref"),
    pytest.param("import atexit\n", id="atexit"),
    pytest.param("import gc\n", id="gc"),
    pytest.param("import sys\n", id="sys"),
    pytest.param("import torch.utils.weak\n", id="torch-weak"),
    # saved_tensors_hooks itself is allowed now, as a checked stand-in whose stack is put
    # back after each run (test_saved_tensors_round5). register_multi_grad_hook is per
    # tensor (torch's Python over `t.register_hook`), admitted in round 11
    # (test_realcode_round11).
    pytest.param(
        "x = torch.ones(1, requires_grad=True)\n"
        "x.register_post_accumulate_grad_hook(print)\n"
        "h = torch.nn.modules.module.register_module_forward_hook\n",
        id="global-module-hook",
    ),
    pytest.param("import functools\nf = functools.update_wrapper\n", id="update-wrapper"),
    pytest.param("import random\nr = random.SystemRandom()\n", id="system-random"),
    pytest.param("import random\nr = random.Random(1)\ns = r.getstate()\n", id="random-getstate"),
    pytest.param("import time\ntime.tzset()\n", id="tzset"),
    pytest.param(
        "import numpy as np\nr = np.random.RandomState(0)\ns = r.get_state()\n",
        id="randomstate-get-state",
    ),
    pytest.param(
        "import numpy as np\nr = np.random.RandomState(0)\nr.set_state(('MT19937', [0]*624, 0))\n",
        id="randomstate-set-state",
    ),
    pytest.param(
        "import numpy as np\nr = np.random.RandomState(0)\nb = r.bit_generator\n",
        id="randomstate-bit-generator",
    ),
    pytest.param("import numpy as np\nr = np.random.mtrand._rand\n", id="global-randomstate"),
    pytest.param(
        "import numpy as np\nr = np.random.RandomState(0)\nc = r.__reduce__\n",
        id="randomstate-reduce",
    ),
    pytest.param("import numpy as np\nnp.random.set_state(None)\n", id="np-set-state"),
    pytest.param(
        "import numpy as np\nr = np.random.RandomState(0)\nr.seed = print\n",
        id="randomstate-write",
    ),
    pytest.param(
        "from torch.utils.data import DataLoader\n"
        "d = DataLoader([1, 2], num_workers=0, worker_init_fn=print, persistent_workers=True)\n"
        "it = iter(d)\n",
        id="dataloader-persistent",
    ),
]


@pytest.mark.parametrize("code", REFUSED_FINALISERS)
def test_finalisers_state_and_processes_stay_out_of_reach(code: str) -> None:
    """Ways to run code later (``weakref.finalize``, ``atexit``, global hooks), to read or
    set a generator's whole state, or to start workers: each ends the program."""
    result = run(code)
    assert result.error is not None, printed(result)


def test_random_state_methods_compute_and_leave_nothing() -> None:
    """The listed ``RandomState`` methods work on the program's own generator; shuffling a
    list of the program's objects calls only guarded code; ``np.random.seed`` in one run
    does not pick the numbers the next run draws."""
    code = (
        "import numpy as np\nimport random\n"
        "print('global', np.random.rand(), random.random())\n"
        "r = np.random.RandomState(3)\n"
        "print('own', r.rand(), r.randint(0, 10), r.choice([1, 2, 3]))\n"
        "items = [1, 2, 3, 4]\nr.shuffle(items)\nprint('shuffled', items)\n"
        "np.random.seed(666)\nrandom.seed(666)\n"
        "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    )
    first, second = run(code), run(code)
    assert first.error is None, first.error
    assert printed(second) == printed(first)


@pytest.mark.slow
def test_a_generator_closed_in_a_later_run_leaves_no_settings(
    engine_process: EngineProcess,
) -> None:
    """A suspended generator kept alive by a library cache (``typing``'s, through an
    object that holds it) is not collected with its run's namespace: its ``finally`` (set
    the default dtype to float64) would run whenever the cache drops it, in some later run.
    The engine empties those caches at the end of each run and collects before answering;
    whatever still runs after the answer is undone or retires the process."""
    code = (
        "import typing\n"
        "def gen():\n    try:\n        yield 1\n    finally:\n"
        "        torch.set_default_dtype(torch.float64)\n"
        "class Holder:\n    def __init__(self, g):\n        self.g = g\n"
        "    def __call__(self):\n        return 0\n"
        "g = gen()\nnext(g)\nT = typing.Optional[Holder(g)]\n"
        "print('dtype', torch.get_default_dtype())\n"
        "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    )
    request = RunRequest(Program(code=code), time_limit=3.0)
    outputs = [engine_process.run(request) for _ in range(3)]
    assert all(r.error is None for r in outputs), [r.error for r in outputs]
    assert [printed(r) for r in outputs] == [["dtype torch.float32"]] * 3
    assert [printed(r) for r in outputs] == [["dtype torch.float32"]] * 3


# -- 5. session files ---------------------------------------------------------------------

DOTTED = [
    "model.fc1.weight",
    "__class__.__init__",
    "a..b",
    ".".join(["a"] * 5000),
    "x.grad_fn.next_functions",
    "x.__dict__",
    "torch.load",
]


@pytest.mark.parametrize("name", DOTTED)
def test_dotted_names_in_a_session_file_reach_nothing(tmp_path: Path, name: str) -> None:
    """A session file names a dotted path as a leaf's value, the output and a tensor to
    retain: the engine treats names as names, never as attribute paths."""
    session = tmp_path / "lesson.json"
    session.write_text(
        json.dumps(
            {
                "format": "autograd-explorer/1",
                "title": "A lesson",
                "code": "x = torch.ones(2, requires_grad=True)\ny = (x * 3).sum()\n",
                "values": {name: [1.0, 2.0]},
                "output": name,
                "retain_grad": [name],
            }
        )
    )
    try:
        program = load_session(session).program
    except SessionFileError:
        return
    started = time.monotonic()
    result = run_program(RunRequest(program, time_limit=2.0))
    assert time.monotonic() - started < 3.0
    assert all(name != info for info in result.tensors), result.tensors.keys()


@pytest.mark.parametrize(
    "fields",
    [
        {"scale_lock": True, "locked_scale": float("inf")},
        {"scale_lock": True, "locked_scale": -1},
        {"scale_lock": True, "locked_scale": 1e308},
        {"scale_lock": "yes"},
        {"scale_lock": False, "locked_scale": 2.0},
        {"time_limit": 1e9},
    ],
)
def test_scale_lock_and_time_limit_fields_are_checked(tmp_path: Path, fields: dict) -> None:
    """Odd scale-lock values are refused with a sentence, and a session file cannot give
    its program more time than the window's own limit."""
    session = tmp_path / "lesson.json"
    text = json.dumps({"format": "autograd-explorer/1", "title": "t", "code": "x = 1\n", **fields})
    session.write_text(text)
    try:
        document = load_session(session)
    except SessionFileError:
        return
    assert document.locked_scale is None or 0 < document.locked_scale < float("inf")
    assert not hasattr(document, "time_limit") or document.time_limit <= 30


# -- 2. the cold first owner --------------------------------------------------------------


@pytest.mark.slow
def test_the_first_owner_gives_the_same_answer_as_a_warm_one_in_its_time(
    engine_process: EngineProcess,
) -> None:
    """The first program an engine runs goes to a process forked before the allowlist was
    complete; a program refused there runs again, from the start, in a warm process.
    Programs that probe for the optimizers (``hasattr``, ``getattr`` with a default) or
    try to catch the refusal get the same answer in both. But the hand-off gives the
    program its time limit twice: 0.9 s of work and then an optimizer, under a 1 s limit,
    takes over 2 s (cold run, refusal, warm run). The window waits twice the limit plus
    its margin, so such a program is answered (it once outlived the window's margin and
    made it restart torch, whose first owner is cold again).
    A program refused for good is answered once, promptly (no hand-off loop)."""
    fresh = EngineProcess()
    code = (
        "import time\nt = time.monotonic()\nwhile time.monotonic() - t < 0.9:\n    pass\n"
        "print(hasattr(torch.optim, 'SGD'), getattr(torch.optim, 'Adam', None) is None)\n"
        "try:\n    o = torch.optim.SGD\n    print('got')\nexcept Exception as e:\n"
        "    print('caught')\n"
        "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
    )
    try:
        fresh.start()
        fresh._wait_ready()  # the engine is up
        engine = fresh._process
        cold = fresh.run(RunRequest(Program(code=code), time_limit=1.0))
        warm = engine_process.run(RunRequest(Program(code=code), time_limit=1.0))
        assert printed(cold) == printed(warm)
        assert (cold.error is None) == (warm.error is None)
        # The hand-off runs the program again from the start in a warm process: at most
        # twice its limit, once per engine start. The window waits that long, so it never
        # stops the engine over it (stopping it starts another process).
        assert fresh._process is engine and engine is not None and engine.is_alive()
        started = time.monotonic()
        refused = fresh.run(RunRequest(Program(code="import torch.jit\n"), time_limit=2.0))
        assert refused.error is not None and refused.error.kind == "unsafe-code"
        # Answered, not handed off again and again (a loop would never answer: a bound
        # far above the time it takes, so a busy machine does not fail it).
        assert time.monotonic() - started < 20.0
        assert fresh._process is engine
    finally:
        fresh.close()
