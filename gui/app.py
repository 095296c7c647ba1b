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


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError("give a time between 0 and 3600 seconds")
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
        help="run the session without a window and write result.json, script.py and "
        "graph.svg into DIR",
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
        "--time-limit",
        metavar="SECONDS",
        type=_positive_seconds,
        default=DEFAULT_TIME_LIMIT_SECONDS,
        help=f"stop the session's code after this long (default {DEFAULT_TIME_LIMIT_SECONDS})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    if args.export is not None:
        if args.session is None:
            print(
                "error: --export needs a session file: autograd-explorer SESSION.json --export DIR",
                file=sys.stderr,
            )
            return 2
        from gui.headless import export_session

        return export_session(args.session, args.export, time_limit=args.time_limit)
    if args.report:
        from gui.headless import summarize

        return summarize(args.session, time_limit=args.time_limit)
    if args.screenshot is not None:
        # Before Qt loads: a screenshot needs no screen.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from gui.window_app import run_window

    return run_window(args.session, screenshot=args.screenshot, time_limit=args.time_limit)
