"""What counts as unsaved work: when the window marks its title and asks before closing
or opening something else.

- **A user's file** (or an untitled session): anything a save would write differently from
  the file as opened or last saved (code, slider values, ranges, backward calls, options).
  Their values are their work.
- **A lesson**: only its code. A lesson ships with the app and is there to be played with:
  dragging its sliders, pressing Backward, trying the fixes is the demo, not work, and a
  teacher switching lessons in front of a class must not be asked to save any of it. Code
  the user typed is theirs, and is kept: changed code asks.
"""

from __future__ import annotations

from gui.model.session import Snapshot


def has_unsaved_work(snapshot: Snapshot, saved_code: str | None, lesson: bool) -> bool:
    """Whether closing or opening another session would lose work.

    ``saved_code`` is the code as the lesson or file was opened or last saved (``None``:
    not known, the session's own verdict stands); ``lesson``: the session is a shipped
    lesson (see the module docstring).
    """
    if not lesson or saved_code is None:
        return snapshot.modified
    return snapshot.modified and snapshot.code != saved_code
