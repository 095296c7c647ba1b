"""Round 14's red team, the export's targets: the user's session file named like one.

An export replaces its own earlier files (re-exporting a result), and round 7 and 12
made sure a pipe or a planted link in a file's place never blocks it or has a link's
target replaced. But a file of one of the export's names may be the user's work:
``autograd-explorer result.json --export .`` (or File > Export into the folder of a
session saved as ``result.json``) replaced the very session it exported with the result
document, silently. Now an export refuses, before it writes anything, to replace a file
that reads as a session file; an earlier export's files are replaced as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gui.model.export.files import write_export
from gui.model.request import Program
from gui.model.session import Document, save_session
from gui.model.session.file_io import EXPORT_FILES, PICTURE_FILES
from tests.big_graphs import result_with


def _export(folder: Path) -> None:
    write_export(result_with(None), "print('hi')\n", folder)


@pytest.mark.parametrize("name", [*EXPORT_FILES, *PICTURE_FILES])
def test_an_export_never_replaces_a_session_file_of_its_names(tmp_path: Path, name: str) -> None:
    session = tmp_path / name
    save_session(Document(Program(code="x = torch.ones(2, requires_grad=True)\n")), session)
    kept = session.read_bytes()
    with pytest.raises(OSError, match="session file"):
        _export(tmp_path)
    assert session.read_bytes() == kept
    # Nothing else was written either: the refusal comes first.
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_an_earlier_export_and_other_files_are_replaced_as_before(tmp_path: Path) -> None:
    _export(tmp_path)
    (tmp_path / "script.py").write_text("my own script, exported before\n")
    _export(tmp_path)  # its own files, and files that are not sessions, are replaced
    assert (tmp_path / "script.py").read_text() == "print('hi')\n"
    assert (tmp_path / "result.json").read_text().startswith("{")
