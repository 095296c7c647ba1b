"""Command line entry point: the one place that wires the app together.

``autograd-explorer [SESSION.json]`` opens the window (on the welcome lesson by default);
``--screenshot out.png`` renders it offscreen and exits; ``--export DIR`` and ``--report``
run a session without a window. Qt is imported only when a window is shown: the engine's
child process imports this module too, and must not pay for Qt.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from gui.model.request import DEFAULT_TIME_LIMIT_SECONDS

# What start-up needs in address space: the engine's child maps about 650 MiB to import
# torch, the window about as much for Qt and Graphviz (measured under ulimit -v). Below
# this, something fails to load half-way; refusing up front gives one clear line instead.
MIN_ADDRESS_SPACE_BYTES = 1024 * 1024 * 1024
# The command line's exit status when the app cannot work on this machine as it is.
EXIT_CANNOT_RUN = 3


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("give a time between 0 and 3600 seconds")
    return value


def _step_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a step number (1, 2, ...)") from None
    if value < 1:
        raise argparse.ArgumentTypeError("steps are numbered from 1")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="autograd-explorer",
        description="See PyTorch autograd at work: the real graph, live gradients, "
        "the gradient argument.",
    )
    parser.add_argument("session", nargs="?", help="a session file (.json) to open")
    parser.add_argument(
        "--export",
        metavar="DIR",
        help="run the session without a window and write result.json, script.py, the "
        "graph (graph.svg, graph.dot, graph.png) and the plots (plots.png) into DIR",
    )
    parser.add_argument(
        "--report",
        action="store_true",
        help="run the session without a window and print its numbers to the terminal",
    )
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        help="open the window offscreen at 1280x720, wait for the result, save it as PNG, exit",
    )
    parser.add_argument(
        "--step",
        metavar="N",
        type=_step_number,
        help="the lesson at its step N (from 1): the window, --screenshot, --export, --report",
    )
    parser.add_argument(
        "--time-limit",
        metavar="SECONDS",
        type=_positive_seconds,
        default=DEFAULT_TIME_LIMIT_SECONDS,
        help=f"stop the session's code after this long (default {DEFAULT_TIME_LIMIT_SECONDS})",
    )
    return parser


def address_space_problem(limit: int | None = None) -> str | None:
    """Why this process has too little address space to start (``ulimit -v``), or ``None``.

    ``limit`` is the soft ``RLIMIT_AS`` in bytes (read from the system when not given;
    ``None`` where there is no such limit, as on Windows).
    """
    if limit is None:
        try:
            import resource
        except ImportError:  # Windows: no rlimits
            return None
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY:
            return None
        limit = soft
    if limit >= MIN_ADDRESS_SPACE_BYTES:
        return None
    mib = 1024 * 1024
    return (
        f"error: this process may use only {limit // mib} MiB of memory (ulimit -v "
        f"{limit // 1024}); Autograd Explorer needs at least {MIN_ADDRESS_SPACE_BYTES // mib} "
        "MiB to load PyTorch and Qt, so raise the limit (ulimit -v unlimited) and start it again"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    Start-up failures of the machine rather than the session (too little memory for torch,
    Qt or Graphviz to load) end with one line on stderr and :data:`EXIT_CANNOT_RUN`, never a
    traceback.
    """
    args = _parser().parse_args(argv)
    problem = address_space_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_CANNOT_RUN
    try:
        return _run(args)
    except MemoryError:
        print(
            "error: the computer ran out of memory while starting; close other programs or "
            "raise the memory limit (ulimit -v) and start it again",
            file=sys.stderr,
        )
        return EXIT_CANNOT_RUN
    except ImportError as exc:  # a library that cannot be mapped in: memory, or a bad install
        print(
            f"error: a library could not be loaded ({' '.join(str(exc).split())}); with too "
            "little memory (ulimit -v) raise the limit, otherwise reinstall the app",
            file=sys.stderr,
        )
        return EXIT_CANNOT_RUN


def _run(args: argparse.Namespace) -> int:
    if args.export is not None:
        if args.session is None:
            print(
                "error: --export needs a session file: autograd-explorer SESSION.json --export DIR",
                file=sys.stderr,
            )
            return 2
        from gui.headless import export_session

        return export_session(args.session, args.export, time_limit=args.time_limit, step=args.step)
    if args.report:
        from gui.headless import summarize

        return summarize(args.session, time_limit=args.time_limit, step=args.step)
    if args.screenshot is not None:
        # Before Qt loads: a screenshot needs no screen.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # The engine's child first: importing torch and warming it up is the longest part of
    # start-up, and it goes on in the child while Qt and the window load here.
    from gui.model.engine_process import EngineProcess

    engine = EngineProcess()
    engine.start()
    from gui.window_app import run_window

    return run_window(
        args.session,
        screenshot=args.screenshot,
        time_limit=args.time_limit,
        engine=engine,
        step=args.step,
    )
