"""A crash loses seconds, not work: the real app, killed with SIGKILL, offers its work back.

Each start is a real ``main.py`` process (offscreen), with the data folder and Qt's settings
in a temporary folder. A small driver stands in for the user: it types into the editor, and
on the second start it answers the restore dialog and reports what the window shows.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gui.model.request import Program
from gui.model.session import Document, save_session
from gui.model.session.autosave import DATA_DIR_VARIABLE

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX"),
]

REPO = Path(__file__).resolve().parents[2]
CODE = "x = torch.tensor([1., 2.], requires_grad=True)\ny = (x * x).sum()\n"
TYPED = "z = y * 3"
START_TIMEOUT = 120.0

# The user, first start: once the window is up, type a line at the end of the program.
TYPIST = """
import sys
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest
import gui.window_app as window_app
from gui.app import main

class Typist(window_app.MainWindow):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        QTimer.singleShot(500, self.type_a_line)

    def type_a_line(self):
        editor = self.editor.editor()
        editor.moveCursor(QTextCursor.MoveOperation.End)
        QTest.keyClicks(editor, sys.argv[2])
        self.editor.flush()
        print("typed", flush=True)

window_app.MainWindow = Typist
sys.exit(main([sys.argv[1]]))
"""

# The user, second start: answer the restore offer, report what the window shows, quit
# (discarding, so the exit is clean).
ANSWERER = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox
import gui.window_app as window_app
from gui.app import main

asked = []

class Answerer(window_app.MainWindow):
    def ask_restore(self, recovered):
        asked.append(recovered.describe())
        return sys.argv[2] == "restore"

    def offer_restore(self, recovered):
        restored = super().offer_restore(recovered)
        QTimer.singleShot(0, lambda: self.report(restored))
        return restored

    def report(self, restored):
        snap = self._session.snapshot
        print(json.dumps({
            "asked": asked, "restored": restored, "code": snap.code, "path": snap.path,
            "title": self.windowHandle().title() if self.windowHandle() else self.windowTitle(),
        }), flush=True)
        self.close()

QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Discard)
window_app.MainWindow = Answerer
sys.exit(main([sys.argv[1]]) if len(sys.argv) > 3 else main([]))
"""


def environment(tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        DATA_DIR_VARIABLE: str(tmp_path / "data"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),  # Qt's settings: never the user's own
    }


def copies(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "data"
    return sorted(folder.glob("autosave-*.json")) if folder.exists() else []


def second_start(tmp_path: Path, answer: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", ANSWERER, "unused", answer],
        cwd=REPO,
        env=environment(tmp_path),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    report: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def crash_after_typing(tmp_path: Path, session_file: Path) -> Path:
    """Start the app on ``session_file``, type a line, wait for the copy, SIGKILL it."""
    app = subprocess.Popen(
        [sys.executable, "-c", TYPIST, str(session_file), TYPED],
        cwd=REPO,
        env=environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        copy = tmp_path / "data" / f"autosave-{app.pid}.json"
        while not (copy.exists() and TYPED in copy.read_text()):
            assert app.poll() is None, app.communicate()
            assert time.monotonic() < deadline, "the edit was never autosaved"
            time.sleep(0.1)
    finally:
        app.send_signal(signal.SIGKILL)
        app.communicate(timeout=30)
    assert app.returncode == -signal.SIGKILL
    return copy


def test_work_typed_before_a_crash_is_offered_and_restored(tmp_path: Path) -> None:
    session_file = tmp_path / "mine.json"
    save_session(Document(Program(code=CODE), title="My session"), session_file)
    copy = crash_after_typing(tmp_path, session_file)
    assert copies(tmp_path) == [copy], "a crash leaves the copy behind"

    report = second_start(tmp_path, "restore")
    assert report["restored"] is True
    asked = report["asked"]
    assert (
        isinstance(asked, list) and len(asked) == 1 and asked[0].startswith("My session (copied ")
    )
    assert report["code"] == CODE + TYPED
    assert report["path"] == str(session_file)
    assert report["title"] == "My session* — Autograd Explorer", "restored work is unsaved"
    assert copies(tmp_path) == [], "the clean exit removed the copy"
    assert session_file.read_text().count(TYPED) == 0, "nothing saved without asking"

    third = second_start(tmp_path, "restore")
    assert third["asked"] == [] and third["restored"] is False, "offered once"


def test_declined_work_is_not_offered_again(tmp_path: Path) -> None:
    session_file = tmp_path / "mine.json"
    save_session(Document(Program(code=CODE)), session_file)
    crash_after_typing(tmp_path, session_file)
    report = second_start(tmp_path, "decline")
    assert report["restored"] is False and len(report["asked"]) == 1  # type: ignore[arg-type]
    assert report["code"] != CODE + TYPED
    assert copies(tmp_path) == []
