"""Text that Qt would take for HTML, pointing at a named pipe that counts who opens it.

Qt shows a string that *looks like* HTML (``Qt::mightBeRichText``) as rich text in
tooltips, labels and message boxes, and loads the images it names: ``<img
src="/dev/zero">`` read the device until memory ran out (the app aborted), a named pipe
blocked the window for ever. Tests put ``<img src="PIPE">`` wherever a program or a file
can put text, with ``PIPE`` a named pipe a *separate process* keeps opening for writing:

- whoever opens the pipe for reading gets a few bytes and the end of the file at once, so
  a regression never hangs (a thread of the test process could not do this: Qt holds the
  interpreter's lock while it blocks in ``open``);
- :meth:`PipeTripwire.opens` asks that process how many times something opened the pipe:
  a test asserts 0. The test itself never opens the pipe.

Counting needs no timing: the process counts an open before it writes a byte, and a reader
that read anything (or the end of the file) was served after its open was counted.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

# Opens the pipe for writing, over and over (a thread), counting each open before writing
# to it; answers every line on its standard input with the count so far, and ends when its
# input does (with the test process, even one that crashed).
_WATCHER = r"""
import os, sys, threading
count = 0
lock = threading.Lock()

def serve():
    global count
    while True:
        fd = os.open(sys.argv[1], os.O_WRONLY)
        with lock:
            count += 1
        try:
            os.write(fd, b"tripwire")
        except OSError:
            pass  # the reader went away first
        os.close(fd)

threading.Thread(target=serve, daemon=True).start()
for _ in sys.stdin:
    with lock:
        print(count, flush=True)
"""


class PipeTripwire:
    """A named pipe at ``folder/name`` and the process that counts opens of it."""

    def __init__(self, folder: Path, name: str = "pipe") -> None:
        self.path = folder / name
        os.mkfifo(self.path)
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WATCHER, str(self.path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    @property
    def img(self) -> str:
        """An HTML image tag whose source is the pipe."""
        return f'<img src="{self.path}">'

    def opens(self) -> int:
        """How many times something opened the pipe so far."""
        assert self._process.poll() is None, "the watcher process died"
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        stdin.write("?\n")
        stdin.flush()
        return int(stdout.readline())

    def close(self) -> None:
        self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            if stream is not None:
                stream.close()


# -- showing everything --------------------------------------------------------------------

# Points a hover is tried at, across and down every widget, at most this many apart.
HOVER_GRID_PX = 14


def as_plain_text(text: str) -> str:
    """What a tooltip or a message box given ``text`` shows, as plain text."""
    from PySide6 import QtGui
    from PySide6.QtGui import QTextDocument

    if not QtGui.Qt.mightBeRichText(text):
        return text
    document = QTextDocument()
    document.setHtml(text)  # no layout: nothing named in it is loaded
    return document.toPlainText()


def hover_everything(window: QWidget) -> dict[str, set[str]]:
    """Paint ``window``, then ask every visible widget in it for its tooltip at points all
    over it, as a mouse resting there would (tooltips are made when asked for); returns the
    tooltips shown, as plain text, by the class of the widget that was asked."""
    import shiboken6
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip
    from PySide6.QtWidgets import QWidget as Widget

    shown: dict[str, set[str]] = {}
    QApplication.processEvents()  # pending layouts: a tab just raised places its rows
    window.grab()
    for widget in [window, *window.findChildren(Widget)]:
        # A tooltip is a child of the widget it is for, deleted once hidden: skipped.
        if not shiboken6.isValid(widget) or widget.objectName() == "qtooltip_label":
            continue
        if not widget.isVisible() or widget.width() <= 0 or widget.height() <= 0:
            continue
        xs = range(1, widget.width(), max(HOVER_GRID_PX, widget.width() // 12))
        ys = range(1, widget.height(), max(HOVER_GRID_PX, widget.height() // 40))
        for x in xs:
            for y in ys:
                at = QPoint(x, y)
                event = QHelpEvent(QEvent.Type.ToolTip, at, widget.mapToGlobal(at))
                QApplication.sendEvent(widget, event)
                if QToolTip.isVisible():
                    text = as_plain_text(QToolTip.text())
                    shown.setdefault(type(widget).__name__, set()).add(text)
                    hide_tooltip()
    return shown


def hide_tooltip() -> None:
    """Hide the tooltip now: ``QToolTip.hideText`` only starts a timer, and a tooltip still
    up would be taken for the next widget's."""
    import shiboken6
    from PySide6.QtWidgets import QApplication, QToolTip

    if not QToolTip.isVisible():
        return
    QToolTip.hideText()
    for widget in QApplication.topLevelWidgets():
        if shiboken6.isValid(widget) and widget.objectName() == "qtooltip_label":
            widget.hide()


def showing(tips: dict[str, set[str]], text: str) -> set[str]:
    """The classes of the widgets whose tooltips showed ``text``."""
    return {name for name, texts in tips.items() if any(text in t for t in texts)}


def rich_labels(window: QWidget, text: str) -> list[str]:
    """Labels in ``window`` that show ``text`` as HTML (a format that reads tags)."""
    from PySide6 import QtGui
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    out = []
    for label in window.findChildren(QLabel):
        shown = label.text()
        rich = label.textFormat() == Qt.TextFormat.RichText or (
            label.textFormat() == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(shown)
        )
        if rich and text in shown:
            out.append(shown)
    return out
