"""The kernel's wall around the engine's child: what plain Python behind it can and cannot do.

No test applies the wall to the pytest process. One fresh interpreter (``subprocess``)
imports torch and warms it up, then forks a child through ``multiprocessing`` (the way an
engine process would), which applies :func:`apply_os_wall` and runs every probe below as
plain Python, the app's Python guard nowhere involved, sending each outcome back through
the ``multiprocessing`` Pipe it was given before the wall. The tests read those outcomes,
and check the files the probes tried to change are unchanged.

A test skips only when the platform lacks the layer it is about (the report says which).
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import mmap
import os
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gui.model.os_wall import SYSTEM_READABLE, apply_os_wall

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="the probes run in a forked child"),
]

REPO = Path(__file__).resolve().parents[3]
HEADROOM = 1024**3  # RLIMIT_AS room above what the walled child uses already
CONTENT = "before the wall\n"

Outcome = dict[str, Any]


@dataclasses.dataclass
class Walled:
    """What a probe may use: the paths prepared by the test, and files opened before the wall."""

    spec: dict[str, Any]
    appending: io.TextIOWrapper
    read_write_fd: int

    def path(self, name: str) -> Path:
        return Path(self.spec[name])


# -- probes: each runs behind the wall and returns a JSON-able value or raises --------------


def write_new_file(w: Walled) -> object:
    return (w.path("scratch") / "new.txt").write_text("x")


def create_file_with_os_open(w: Walled) -> object:
    return os.open(w.path("scratch") / "created", os.O_CREAT | os.O_WRONLY, 0o600)


def append_to_file_opened_before(w: Walled) -> object:
    w.appending.write("appended behind the wall\n")
    w.appending.flush()
    return "appended"


def overwrite_file_opened_before(w: Walled) -> object:
    return os.pwrite(w.read_write_fd, b"X", 0)


def truncate_file_opened_before(w: Walled) -> object:
    os.ftruncate(w.read_write_fd, 0)
    return "truncated"


def truncate_by_path(w: Walled) -> object:
    os.truncate(w.path("victim"), 0)
    return "truncated"


def write_through_shared_mmap(w: Walled) -> object:
    with mmap.mmap(w.read_write_fd, 0) as mapped:
        mapped[0:1] = b"X"
        mapped.flush()
    return "written"


def read_file_in_home(w: Walled) -> object:
    return w.path("home_file").read_text()


def list_home(w: Walled) -> object:
    return os.listdir(Path.home())


def read_file_in_temp_dir(w: Walled) -> object:
    return w.path("victim").read_text()


def read_project_file_outside_gui(w: Walled) -> object:
    return (REPO / "pyproject.toml").read_text()[:20]


def symlink(w: Walled) -> object:
    os.symlink(w.path("victim"), w.path("scratch") / "link")
    return "linked"


def rename(w: Walled) -> object:
    os.rename(w.path("victim"), w.path("scratch") / "renamed")
    return "renamed"


def unlink(w: Walled) -> object:
    os.unlink(w.path("victim"))
    return "removed"


def make_directory(w: Walled) -> object:
    os.mkdir(w.path("scratch") / "made")
    return "made"


def chmod(w: Walled) -> object:
    os.chmod(w.path("victim"), 0o777)
    return "changed"


def run_a_program(w: Walled) -> object:
    return subprocess.run(["true"], check=False).returncode


def fork(w: Walled) -> object:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return "forked"


def open_a_socket(w: Walled) -> object:
    with socket.socket():
        return "opened"


def open_a_socketpair(w: Walled) -> object:
    first, second = socket.socketpair()
    first.close()
    second.close()
    return "opened"


def connect_to_listener(w: Walled) -> object:
    with socket.create_connection(("127.0.0.1", w.spec["port"]), timeout=5):
        return "connected"


def signal_the_parent(w: Walled) -> object:
    os.kill(os.getppid(), 0)
    return "signalled"


def raise_the_file_size_limit(w: Walled) -> object:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    return "raised"


def lower_the_open_files_limit(w: Walled) -> object:
    # Allowed to anyone without the wall (raising needs root): shows no limit can be changed.
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
    return "lowered"


def allocate_tensor_over_the_cap(w: Walled) -> object:
    import torch

    return torch.empty(2 * HEADROOM // 4).numel()


def allocate_bytes_over_the_cap(w: Walled) -> object:
    return len(bytearray(2 * HEADROOM))


def autograd_program(w: Walled) -> object:
    import torch
    import torch.nn.functional as F

    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x**3).sum() + F.softplus(x).sum()
    y.backward()
    assert x.grad is not None
    (g,) = torch.autograd.grad((x.sin() * 2).sum(), x)
    w_ = torch.tensor([[0.5, -1.0], [2.0, 0.0]], requires_grad=True)
    loss = F.mse_loss(w_, torch.zeros(2, 2)) + F.relu(w_).sum()
    loss.backward()
    assert w_.grad is not None
    return {"x.grad": x.grad.tolist(), "grad": g.tolist(), "w.grad": w_.grad.tolist()}


def print_a_tensor(w: Walled) -> object:
    import torch

    # The first str() of a tensor imports torch._subclasses.schema_check_mode: a lazy import.
    lazy = "torch._subclasses.schema_check_mode" not in sys.modules
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print(torch.tensor([1.5, 2.0], requires_grad=True) * 2)
    return {"printed": out.getvalue(), "was_lazy": lazy}


def gradcheck(w: Walled) -> object:
    import torch

    # gradcheck's first call imports sympy, a package beside torch, not inside it.
    lazy = "sympy" not in sys.modules
    t = torch.tensor([0.3, 1.2], dtype=torch.float64, requires_grad=True)
    return {"ok": torch.autograd.gradcheck(torch.sin, (t,)), "was_lazy": lazy}


def import_stdlib_modules(w: Walled) -> object:
    lazy = not {"fractions", "json.tool"} & set(sys.modules)
    import fractions
    import json.tool

    return {"value": str(fractions.Fraction(1, 3)), "tool": json.tool.__name__, "was_lazy": lazy}


def import_extension_linking_a_system_library(w: Walled) -> object:
    lazy = "_sqlite3" not in sys.modules
    import sqlite3

    return {"version": sqlite3.sqlite_version, "was_lazy": lazy}


def start_a_thread(w: Walled) -> object:
    found: list[int] = []
    thread = threading.Thread(target=lambda: found.append(sum(range(10))))
    thread.start()
    thread.join()
    return found


def torch_starts_its_threads(w: Walled) -> object:
    import torch

    torch.set_num_threads(2)
    product = torch.ones(256, 256) @ torch.ones(256, 256)
    torch.set_num_threads(1)
    return product[0, 0].item()


def fresh_random_seed(w: Walled) -> object:
    import torch

    return torch.seed() > 0


def allocate_under_the_cap(w: Walled) -> object:
    import torch

    return torch.ones(10**7).sum().item()


def send_a_tensor_through_the_pipe(w: Walled) -> object:
    import torch

    return (torch.arange(3.0) * 2).tolist()


def execv(w: Walled) -> object:
    os.execv("/bin/echo", ["echo", "EXECUTED"])


# Run in this order; execv last, since if it worked it would end the probing.
PROBES: tuple[Callable[[Walled], object], ...] = (
    autograd_program,
    print_a_tensor,
    import_stdlib_modules,  # before gradcheck, whose sympy imports fractions
    gradcheck,
    import_extension_linking_a_system_library,
    start_a_thread,
    torch_starts_its_threads,
    fresh_random_seed,
    allocate_under_the_cap,
    send_a_tensor_through_the_pipe,
    write_new_file,
    create_file_with_os_open,
    append_to_file_opened_before,
    overwrite_file_opened_before,
    truncate_file_opened_before,
    truncate_by_path,
    write_through_shared_mmap,
    read_file_in_home,
    list_home,
    read_file_in_temp_dir,
    read_project_file_outside_gui,
    symlink,
    rename,
    unlink,
    make_directory,
    chmod,
    run_a_program,
    fork,
    open_a_socket,
    open_a_socketpair,
    connect_to_listener,
    signal_the_parent,
    raise_the_file_size_limit,
    lower_the_open_files_limit,
    allocate_tensor_over_the_cap,
    allocate_bytes_over_the_cap,
    execv,
)


def outcome(probe: Callable[[Walled], object], walled: Walled) -> Outcome:
    try:
        return {"ok": True, "value": probe(walled)}
    except BaseException as exc:  # a probe that fails is the point
        return {"ok": False, "error": type(exc).__name__, "errno": getattr(exc, "errno", None)}


# -- the processes: a fresh interpreter that forks the walled child -------------------------


def walled_child(conn: Any, spec: dict[str, Any]) -> None:
    """The forked child: open two files, apply the wall, run every probe, report each."""
    walled = Walled(
        spec=spec,
        appending=open(spec["appended"], "a"),  # noqa: SIM115 (held across the wall)
        read_write_fd=os.open(spec["overwritten"], os.O_RDWR),
    )
    report = apply_os_wall(HEADROOM)
    conn.send(("report", dataclasses.asdict(report)))
    for probe in PROBES:
        conn.send((probe.__name__, outcome(probe, walled)))


def run_walled_child() -> None:
    """Entry point of the fresh interpreter: warm torch up, fork, relay what comes back."""
    import multiprocessing

    import torch

    spec = json.loads(sys.argv[1])
    torch.set_num_threads(1)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe()
    child = context.Process(target=walled_child, args=(sender, spec))
    child.start()
    sender.close()
    messages: dict[str, Any] = {}
    with contextlib.suppress(EOFError):
        while True:
            name, message = receiver.recv()
            messages[name] = message
    child.join()
    messages["exitcode"] = child.exitcode
    print("RESULTS " + json.dumps(messages))


@dataclasses.dataclass
class Run:
    results: dict[str, Any]
    stdout: str
    spec: dict[str, Any]
    accepted_connection: bool

    @property
    def report(self) -> dict[str, Any]:
        return dict(self.results["report"])

    def __getitem__(self, probe: str) -> Outcome:
        assert probe in self.results, f"{probe} sent nothing back; stdout: {self.stdout[-2000:]}"
        return dict(self.results[probe])


def readable_roots() -> list[Path]:
    import numpy

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return [Path(r).resolve() for r in roots] + [Path(numpy.__file__).resolve().parents[1]]


@pytest.fixture(scope="module")
def home_file() -> Iterator[Path | None]:
    """A file of ours in the home directory, outside the Python installation."""
    folder = Path.home() / f".autograd-explorer-os-wall-{uuid.uuid4().hex}"
    try:
        folder.mkdir()
    except OSError:
        yield None
        return
    secret = folder / "secret.txt"
    secret.write_text("in the home directory\n")
    try:
        inside = [r for r in readable_roots() if secret.resolve().is_relative_to(r)]
        yield None if inside else secret
    finally:
        secret.unlink()
        folder.rmdir()


@pytest.fixture(scope="module")
def walled(tmp_path_factory: pytest.TempPathFactory, home_file: Path | None) -> Run:
    folder = tmp_path_factory.mktemp("walled")
    scratch = folder / "scratch"
    scratch.mkdir()
    files = {name: folder / f"{name}.txt" for name in ("appended", "overwritten", "victim")}
    for path in files.values():
        path.write_text(CONTENT)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        spec = {
            **{name: str(path) for name, path in files.items()},
            "scratch": str(scratch),
            "home_file": str(home_file or folder / "no-home-file"),
            "port": listener.getsockname()[1],
        }
        completed = subprocess.run(
            [
                sys.executable,
                "-c",
                "from tests.model.engine.test_os_wall import run_walled_child\nrun_walled_child()",
                json.dumps(spec),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        listener.setblocking(False)
        try:
            listener.accept()[0].close()
            accepted = True
        except BlockingIOError:
            accepted = False
    lines = [ln for ln in completed.stdout.splitlines() if ln.startswith("RESULTS ")]
    assert lines, f"no results; stderr:\n{completed.stderr[-4000:]}"
    results = json.loads(lines[-1].removeprefix("RESULTS "))
    return Run(results, completed.stdout, spec, accepted)


def assert_refused(result: Outcome, *errors: str) -> None:
    assert not result["ok"], f"the wall let this through: {result}"
    assert result["error"] in errors, result


def need_landlock(run: Run) -> None:
    if run.report["landlock_abi"] is None:
        pytest.skip("this kernel offers no Landlock: files stay readable")


def need_seccomp(run: Run) -> None:
    if not run.report["seccomp"]:
        pytest.skip("no seccomp filter on this platform (libseccomp missing?)")


def need_rlimit(run: Run, name: str) -> None:
    if name not in dict(run.report["rlimits"]):
        pytest.skip(f"{name} is not available on this platform")


# -- the report -----------------------------------------------------------------------------


def test_the_report_names_each_layer_and_the_child_ends_normally(walled: Run) -> None:
    report = walled.report
    limits = dict(report["rlimits"])
    assert limits.get("RLIMIT_FSIZE") == 0 and limits.get("RLIMIT_CORE") == 0
    assert limits.get("RLIMIT_AS", HEADROOM) >= HEADROOM
    if sys.platform.startswith("linux"):
        assert report["no_new_privs"]
        missing = " ".join(report["missing"])
        assert (report["landlock_abi"] is None) == ("landlock" in missing)
        assert report["seccomp"] == ("seccomp" not in missing)
    assert report["seconds"] < 1.0  # measured at a few milliseconds
    assert walled.results["exitcode"] == 0


# -- what still works -------------------------------------------------------------------------


def test_an_autograd_program_gives_the_right_numbers(walled: Run) -> None:
    import math

    result = walled["autograd_program"]
    assert result["ok"], result
    value = result["value"]
    xs = [1.0, 2.0, 3.0]
    expected = [3 * x * x + 1 / (1 + math.exp(-x)) for x in xs]
    assert value["x.grad"] == pytest.approx(expected, rel=1e-6)
    assert value["grad"] == pytest.approx([2 * math.cos(x) for x in xs], rel=1e-6)
    # mse_loss, a mean over 4: d/dw = w / 2; relu: 1 where w > 0
    assert value["w.grad"][0] == pytest.approx([0.25 + 1, -0.5])
    assert value["w.grad"][1] == pytest.approx([1.0 + 1, 0.0])


def test_printing_a_tensor_still_imports_what_torch_imports_lazily(walled: Run) -> None:
    result = walled["print_a_tensor"]
    assert result["ok"], result
    assert result["value"]["printed"] == "tensor([3., 4.], grad_fn=<MulBackward0>)\n"


def test_gradcheck_still_imports_sympy_lazily(walled: Run) -> None:
    result = walled["gradcheck"]
    assert result["ok"] and result["value"]["ok"], result


def test_a_stdlib_module_not_imported_before_the_wall_can_be_imported(walled: Run) -> None:
    result = walled["import_stdlib_modules"]
    assert result["ok"], result
    assert result["value"] == {"value": "1/3", "tool": "json.tool", "was_lazy": True}


def test_an_extension_module_can_load_a_system_library(walled: Run) -> None:
    result = walled["import_extension_linking_a_system_library"]
    if not result["ok"] and result["error"] == "ModuleNotFoundError":
        pytest.skip("this Python was built without sqlite3")
    assert result["ok"], result
    assert result["value"]["was_lazy"]


def test_threads_still_start(walled: Run) -> None:
    assert walled["start_a_thread"] == {"ok": True, "value": [45]}
    assert walled["torch_starts_its_threads"] == {"ok": True, "value": 256.0}


def test_torch_can_still_seed_itself(walled: Run) -> None:
    assert walled["fresh_random_seed"] == {"ok": True, "value": True}


def test_the_result_comes_back_through_the_pipe(walled: Run) -> None:
    assert walled["send_a_tensor_through_the_pipe"] == {"ok": True, "value": [0.0, 2.0, 4.0]}


def test_memory_under_the_cap_can_be_used(walled: Run) -> None:
    assert walled["allocate_under_the_cap"] == {"ok": True, "value": 1e7}


# -- what no longer works ---------------------------------------------------------------------


def test_no_file_can_be_created(walled: Run) -> None:
    need_landlock(walled)
    assert_refused(walled["write_new_file"], "PermissionError")
    assert_refused(walled["create_file_with_os_open"], "PermissionError")
    assert_refused(walled["make_directory"], "PermissionError")
    assert_refused(walled["symlink"], "PermissionError")
    assert list(Path(walled.spec["scratch"]).iterdir()) == []


def test_files_opened_before_the_wall_cannot_be_written(walled: Run) -> None:
    need_rlimit(walled, "RLIMIT_FSIZE")
    for probe in ("append_to_file_opened_before", "overwrite_file_opened_before"):
        result = walled[probe]
        assert_refused(result, "OSError")
        assert result["errno"] == 27  # EFBIG
    assert Path(walled.spec["appended"]).read_text() == CONTENT
    assert Path(walled.spec["overwritten"]).read_text() == CONTENT


def test_files_cannot_be_truncated_or_changed_through_mmap(walled: Run) -> None:
    need_seccomp(walled)
    assert_refused(walled["truncate_file_opened_before"], "PermissionError")
    assert_refused(walled["truncate_by_path"], "PermissionError")
    assert_refused(walled["write_through_shared_mmap"], "PermissionError")
    assert Path(walled.spec["overwritten"]).read_text() == CONTENT
    assert Path(walled.spec["victim"]).read_text() == CONTENT


def test_files_cannot_be_renamed_removed_or_chmodded(walled: Run) -> None:
    need_landlock(walled)
    need_seccomp(walled)
    assert_refused(walled["rename"], "PermissionError")
    assert_refused(walled["unlink"], "PermissionError")
    assert_refused(walled["chmod"], "PermissionError")
    victim = Path(walled.spec["victim"])
    assert victim.read_text() == CONTENT
    assert victim.stat().st_mode & 0o777 != 0o777


def test_the_home_directory_cannot_be_read_or_listed(walled: Run, home_file: Path | None) -> None:
    need_landlock(walled)
    if home_file is None:
        pytest.skip("no file of ours could be made in a home outside the Python installation")
    assert_refused(walled["read_file_in_home"], "PermissionError")
    assert_refused(walled["list_home"], "PermissionError")


def test_files_outside_the_installation_cannot_be_read(walled: Run) -> None:
    need_landlock(walled)
    assert_refused(walled["read_file_in_temp_dir"], "PermissionError")
    if not any(REPO.is_relative_to(r) for r in readable_roots()):
        assert_refused(walled["read_project_file_outside_gui"], "PermissionError")


def test_no_program_or_process_can_be_started(walled: Run) -> None:
    need_seccomp(walled)
    assert_refused(walled["run_a_program"], "PermissionError")
    assert_refused(walled["fork"], "PermissionError")
    assert_refused(walled["execv"], "PermissionError")
    assert "EXECUTED" not in walled.stdout


def test_no_socket_can_be_opened(walled: Run) -> None:
    need_seccomp(walled)
    assert_refused(walled["open_a_socket"], "PermissionError")
    assert_refused(walled["open_a_socketpair"], "PermissionError")
    assert_refused(walled["connect_to_listener"], "PermissionError")
    assert not walled.accepted_connection


def test_other_processes_cannot_be_signalled(walled: Run) -> None:
    need_seccomp(walled)
    assert_refused(walled["signal_the_parent"], "PermissionError")


def test_the_limits_cannot_be_changed_again(walled: Run) -> None:
    need_seccomp(walled)
    # resource.setrlimit turns EPERM into ValueError("not allowed to raise maximum limit").
    assert_refused(walled["raise_the_file_size_limit"], "ValueError")
    assert_refused(walled["lower_the_open_files_limit"], "ValueError")


def test_memory_over_the_cap_fails_inside_the_child(walled: Run) -> None:
    need_rlimit(walled, "RLIMIT_AS")
    assert_refused(walled["allocate_tensor_over_the_cap"], "RuntimeError", "MemoryError")
    assert_refused(walled["allocate_bytes_over_the_cap"], "MemoryError")


# -- the few things checked outside the shared child ------------------------------------------


def run_python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


LANDLOCK_ALONE = """
import json, socket, sys
from pathlib import Path
import gui.model.os_wall.landlock as landlock
import gui.model.os_wall.process as process
from gui.model.os_wall import SYSTEM_READABLE
abi, spec = int(sys.argv[1]), json.loads(sys.argv[2])
offered = landlock.landlock_abi(process.libc())
if offered is None or offered < abi:
    print(json.dumps({"offered": offered}))
    sys.exit()
landlock.landlock_abi = lambda libc: abi  # as an older kernel would answer
missing = []
process.set_no_new_privs(missing)
enforced = landlock.apply_landlock(process.readable_paths((), system=SYSTEM_READABLE), missing)
def attempt(action):
    try:
        action()
        return "allowed"
    except OSError as exc:
        return exc.errno
print(json.dumps({
    "offered": offered, "enforced": enforced, "missing": missing,
    "write": attempt(lambda: open(Path(spec["scratch"]) / "new.txt", "w")),
    "read": attempt(lambda: open(spec["victim"]).read()),
    "stdlib": attempt(lambda: __import__("fractions")),
    "connect": attempt(lambda: socket.create_connection(("127.0.0.1", spec["port"]), timeout=5)),
}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Landlock is Linux only")
@pytest.mark.parametrize("abi", [1, 2, 3, 4, 5, 6, 7])
def test_landlock_alone_confines_files_with_every_abi(abi: int, tmp_path: Path) -> None:
    """Each ABI's set of rights, as an older kernel would get it, without seccomp behind."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text(CONTENT)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        spec = {"scratch": str(scratch), "victim": str(victim), "port": listener.getsockname()[1]}
        completed = run_python(LANDLOCK_ALONE, str(abi), json.dumps(spec))
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout)
    if found["offered"] is None or found["offered"] < abi:
        pytest.skip(f"this kernel offers Landlock ABI {found['offered']}, not {abi}")
    assert found["enforced"] == abi and found["missing"] == []
    assert found["write"] == found["read"] == 13  # EACCES: Landlock, not seccomp (EPERM)
    assert found["stdlib"] == "allowed"
    assert found["connect"] == (13 if abi >= 4 else "allowed")
    assert list(scratch.iterdir()) == []


NO_LANDLOCK = """
import json, sys
import gui.model.os_wall as wall
import gui.model.os_wall.landlock as landlock
landlock.landlock_abi = lambda libc: None  # a kernel without Landlock
report = wall.apply_os_wall(None)
try:
    open(sys.argv[1], "w")
    write = "allowed"
except OSError as exc:
    write = exc.errno
print(json.dumps({"abi": report.landlock_abi, "seccomp": report.seccomp,
                  "missing": report.missing, "write": write}))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="seccomp is Linux only")
def test_without_landlock_seccomp_still_refuses_writes(tmp_path: Path) -> None:
    completed = run_python(NO_LANDLOCK, str(tmp_path / "new.txt"))
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout)
    if not found["seccomp"]:
        pytest.skip("no seccomp filter on this platform")
    assert found["abi"] is None
    assert any(m.startswith("landlock:") for m in found["missing"])
    assert found["write"] == 1  # EPERM, from the filter
    assert not (tmp_path / "new.txt").exists()


OTHER_PLATFORM = """
import json, sys
if sys.argv[1] == "win32":
    sys.modules["resource"] = None  # Windows has no resource module
from gui.model.os_wall import apply_os_wall
sys.platform = sys.argv[1]
report = apply_os_wall(10**9)
print(json.dumps({"abi": report.landlock_abi, "seccomp": report.seccomp,
                  "rlimits": dict(report.rlimits), "missing": report.missing}))
"""


@pytest.mark.parametrize("platform", ["darwin", "win32"])
def test_other_platforms_get_what_they_offer_and_a_report_of_the_rest(platform: str) -> None:
    completed = run_python(OTHER_PLATFORM, platform)
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout)
    assert found["abi"] is None and found["seccomp"] is False
    layers = {m.split(":")[0] for m in found["missing"]}
    assert {"landlock", "seccomp"} <= layers
    if platform == "win32":
        assert found["rlimits"] == {} and "rlimits" in layers
    else:
        assert found["rlimits"]["RLIMIT_FSIZE"] == 0 and found["rlimits"]["RLIMIT_CORE"] == 0


@pytest.mark.skipif(
    not (sys.platform.startswith("linux") and os.uname().machine == "x86_64"),
    reason="the x32 system-call numbers exist on x86_64 only",
)
def test_system_calls_of_another_abi_kill_the_process() -> None:
    completed = run_python(
        "import ctypes, sys\n"
        "from gui.model.os_wall import apply_os_wall\n"
        "report = apply_os_wall(None)\n"
        "if not report.seccomp: sys.exit(3)\n"
        "print('walled', flush=True)\n"
        "ctypes.CDLL(None).syscall(0x40000000 | 57)\n"  # fork, by its x32 number
        "print('survived', flush=True)\n"
    )
    if completed.returncode == 3:
        pytest.skip("no seccomp filter on this platform")
    assert completed.stdout == "walled\n"
    assert completed.returncode == -31  # SIGSYS


def test_the_default_read_allowlist_names_why_each_path_is_there() -> None:
    assert all(path.startswith("/") and why for path, why in SYSTEM_READABLE)
    assert not any(Path(path) == Path.home() for path, _why in SYSTEM_READABLE)
