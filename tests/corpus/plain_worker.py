"""The corpus's plain side: snippets run by plain torch in a process that never imported
the app's engine.

The engine puts stand-ins on torch's classes for good when it is imported (for example a
Python ``Tensor.__getitem__``, which makes every tensor a sequence to torch's C++), so a
snippet run in the test process is not run by plain torch: a stand-in that changed
behaviour would change both sides alike and the comparison could not see it. This script
is started as its own Python process (``python plain_worker.py``); it imports torch and
numpy, never ``gui``, and forks a fresh copy of itself for every snippet, so each snippet
starts from the state ``python snippet.py`` starts from (seeds, default dtype, grad mode,
print options, "warn once" flags...), whatever ran before it.

Protocol (pickles, each preceded by its length as 8 bytes): the test process writes
``(id, request)`` pairs, a request being ``{"code", "names", "seed", "time_limit"}`` (and
``"urgent"`` to go before the requests waiting); the worker answers each with ``(id,
reply)``, a reply being ``{"printed", "error", "tensors", ...}`` (see :func:`_run_snippet`)
or ``{"crashed": why}``. Numbers travel as Python numbers (``tolist``), so the comparison
stays exact. The worker itself never runs a snippet, so no snippet can end it; it ends
when its input ends (the test session's end).
"""

from __future__ import annotations

import collections
import contextlib
import gc
import importlib
import io
import os
import pickle
import random
import select
import signal
import struct
import sys
import tempfile
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import IO, Any, BinaryIO

import numpy as np
import torch

HEADER = struct.Struct("<Q")


def read_message(stream: IO[bytes]) -> Any:
    """One length-prefixed pickle from ``stream`` (None at the end of the stream)."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    return pickle.loads(stream.read(size))


def write_message(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def _numbers(tensor: torch.Tensor) -> Any:
    try:
        return tensor.detach().tolist()
    except Exception as exc:  # a sparse or meta tensor: no numbers to compare
        return f"<unreadable: {type(exc).__name__}: {exc}>"


def _resolve(namespace: dict[str, Any], name: str) -> Any:
    """``model.fc1.weight`` (a parameter's qualified name) or a plain variable's value."""
    first, *rest = name.split(".")
    value = namespace.get(first)
    for part in rest:
        try:
            value = getattr(value, part, None)
        except Exception:
            return None
    return value


def _describe(value: Any) -> dict[str, Any] | None:
    """A tensor's numbers and its ``.grad``'s (None: not a tensor)."""
    if not isinstance(value, torch.Tensor):
        return None
    grad: Any
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `.grad` of a non-leaf warns
            plain_grad = value.grad
        grad = None if plain_grad is None else _numbers(plain_grad)
        readable = True
    except Exception:
        grad, readable = None, False
    return {
        "values": _numbers(value),
        "grad": grad,
        "grad_readable": readable,
        "dtype": str(value.dtype),
        "shape": tuple(value.shape),
    }


def _names_to_report(namespace: dict[str, Any], names: list[str]) -> list[str]:
    """The names asked for, every top-level tensor and every parameter of a top-level
    layer (``model.0.weight``)."""
    found = list(names)
    for key, value in list(namespace.items()):
        if key.startswith("__"):
            continue
        if isinstance(value, torch.Tensor):
            found.append(key)
        elif isinstance(value, torch.nn.Module):
            with contextlib.suppress(Exception):
                found += [f"{key}.{p}" for p, _ in value.named_parameters()]
    return list(dict.fromkeys(found))


def _run_snippet(request: dict[str, Any]) -> dict[str, Any]:
    """Run the snippet as ``python snippet.py`` would (in a process that ran nothing else)."""
    seed = request["seed"]
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)  # as the engine seeds numpy's global generator
    namespace: dict[str, Any] = {"__name__": "__main__"}
    out = io.StringIO()
    error = None
    try:
        # In a folder of its own: a refused snippet (torch.save, open) really writes here.
        with (
            tempfile.TemporaryDirectory() as folder,
            contextlib.chdir(folder),
            contextlib.redirect_stdout(out),
        ):
            exec(compile(request["code"], "<plain>", "exec"), namespace)
    except Exception as exc:
        line = None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == "<plain>":
                line = frame.lineno
        error = {"type": type(exc).__name__, "message": str(exc), "line": line}
    tensors = {}
    for name in _names_to_report(namespace, request["names"]):
        described = _describe(_resolve(namespace, name))
        if described is not None:
            tensors[name] = described
    return {
        "printed": out.getvalue().splitlines(),
        "error": error,
        "tensors": tensors,
        "engine_imported": any(m.startswith("gui") for m in sys.modules),
        "native_getitem": torch.Tensor.__getitem__ is torch._C.TensorBase.__getitem__,
    }


def _in_child(request: dict[str, Any], answer_fd: int) -> None:
    # The requests' pipe is not the snippet's to read (`input()` reads end of file).
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    try:
        reply = _run_snippet(request)
    except BaseException as exc:  # SystemExit, KeyboardInterrupt from the snippet
        reply = {"crashed": f"{type(exc).__name__}: {exc}"}
    with os.fdopen(answer_fd, "wb") as answer:
        try:
            answer.write(pickle.dumps(reply))
        except Exception as exc:
            answer.write(pickle.dumps({"crashed": f"reply not picklable: {exc}"}))
    os._exit(0)


@dataclass
class _Child:
    """A fork running one snippet, and what it wrote so far."""

    request_id: int
    pid: int
    deadline: float
    time_limit: float
    chunks: list[bytes] = field(default_factory=list)


def _start(request_id: int, request: dict[str, Any]) -> tuple[int, _Child]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        _in_child(request, write_fd)
    os.close(write_fd)
    limit = request["time_limit"]
    return read_fd, _Child(request_id, pid, time.monotonic() + limit, limit)


def _finish(fd: int, child: _Child, timed_out: bool) -> dict[str, Any]:
    """The child's reply, once it closed its end (or ran out of time)."""
    os.close(fd)
    if timed_out:
        os.kill(child.pid, signal.SIGKILL)
    _, status = os.waitpid(child.pid, 0)
    data = b"".join(child.chunks)
    if timed_out:
        return {"crashed": f"timed out after {child.time_limit} s"}
    if not data:
        return {"crashed": f"the snippet's process ended with status {status}"}
    reply: dict[str, Any] = pickle.loads(data)
    return reply


class _Requests:
    """Length-prefixed requests read from a file descriptor without blocking on a part."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.ended = False

    def read(self) -> list[Any]:
        chunk = os.read(self.fd, 1 << 20)
        self.ended = not chunk
        self.buffer += chunk
        found = []
        while len(self.buffer) >= HEADER.size:
            (size,) = HEADER.unpack(self.buffer[: HEADER.size])
            if len(self.buffer) < HEADER.size + size:
                break
            found.append(pickle.loads(self.buffer[HEADER.size : HEADER.size + size]))
            self.buffer = self.buffer[HEADER.size + size :]
        return found


def serve(requests_fd: int, replies: BinaryIO, at_once: int) -> None:
    """Answer ``(id, request)`` pairs with ``(id, reply)`` pairs, running up to
    ``at_once`` snippets at the same time (each in its own fork), in the order asked;
    a request marked ``urgent`` goes before those waiting. Ends when its input ends."""
    requests = _Requests(requests_fd)
    waiting: collections.deque[tuple[int, dict[str, Any]]] = collections.deque()
    running: dict[int, _Child] = {}
    while not requests.ended:
        while waiting and len(running) < at_once:
            fd, child = _start(*waiting.popleft())
            running[fd] = child
        watched = list(running) + ([] if requests.ended else [requests_fd])
        soonest = min((c.deadline for c in running.values()), default=None)
        timeout = None if soonest is None else max(0.0, soonest - time.monotonic())
        ready, _, _ = select.select(watched, [], [], timeout)
        if requests_fd in ready:
            for request_id, request in requests.read():
                if request.get("urgent"):
                    waiting.appendleft((request_id, request))
                else:
                    waiting.append((request_id, request))
        now = time.monotonic()
        for fd, child in list(running.items()):
            if fd in ready:
                chunk = os.read(fd, 1 << 20)
                if chunk:
                    child.chunks.append(chunk)
                    continue
            elif now < child.deadline:
                continue
            del running[fd]
            write_message(replies, (child.request_id, _finish(fd, child, fd not in ready)))
    for fd, child in running.items():  # the test session ended: nobody waits for these
        _finish(fd, child, timed_out=True)


# Modules torch imports on first use (an optimizer's first step imports torch._dynamo,
# about a second): imported once here rather than in every fork. Only imports, no tensor
# operation: the forks start from the state a fresh `import torch` leaves.
WARM_IMPORTS = (
    "torch._dynamo",
    "torch.func",
    "torch.distributions",
    "torch.utils.data",
    "torch.autograd.functional",
    "torch.nn.utils.parametrize",
    "torch.nn.utils.rnn",
)


def main() -> None:
    for module in WARM_IMPORTS:
        importlib.import_module(module)
    # What lives now lives as long as the worker: out of the collector's sight, so a
    # fork's collections do not touch (and copy) every page of torch's objects.
    gc.collect()
    gc.freeze()
    # Replies go out on a private copy of stdout; what torch's C++ or the snippet writes
    # to file descriptor 1 goes to stderr instead of into a reply.
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    at_once = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    serve(sys.stdin.fileno(), replies, at_once)


if __name__ == "__main__":
    main()
