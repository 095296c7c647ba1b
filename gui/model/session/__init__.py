"""The document a window edits, and the frozen snapshots its panels render.

The public face of the package (what widgets and the app import):

- :class:`Session`: the window's single source of truth (:mod:`.session`);
- :class:`Snapshot`: what one change looks like, frozen, for the panels (:mod:`.snapshot`);
- :class:`Document`: what a session file holds; :func:`load_session`, :func:`save_session`
  and :class:`SessionFileError` read and write the file format (:mod:`.file_format`);
- :class:`InputRange`, :data:`GRADIENT_RANGE`: slider ranges (:mod:`.ranges`);
- :data:`FixKind`: the one-click fixes (:mod:`.fixes`); :data:`Preset`: the gradient
  presets (:mod:`.steps`).

Inside, one module per job: :mod:`.state` (the frozen state), :mod:`.steps` (what the
backward buttons do), :mod:`.fixes`, :mod:`.ranges`, :mod:`.layouts` (layouts by structure),
:mod:`.dispatch` (where runs happen).
"""

from gui.model.session.dispatch import Dispatcher, ImmediateDispatcher
from gui.model.session.document import Document
from gui.model.session.file_format import SessionFileError, load_session, save_session
from gui.model.session.fixes import FixKind
from gui.model.session.ranges import GRADIENT_RANGE, InputRange
from gui.model.session.session import Session
from gui.model.session.snapshot import Snapshot
from gui.model.session.steps import Preset

__all__ = [
    "GRADIENT_RANGE",
    "Dispatcher",
    "Document",
    "FixKind",
    "ImmediateDispatcher",
    "InputRange",
    "Preset",
    "Session",
    "SessionFileError",
    "Snapshot",
    "load_session",
    "save_session",
]
