"""`write_atomic`, the one temp-file-and-rename writer the KB files, pending lessons, token counts and
the session hook's caches share: a reader never sees part of a file, and a failed write leaves the old
file and no temporary file behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from homeostat.adapters.kb_files import write_changed
from homeostat.adapters.plain_files import read_text, write_atomic


def test_writes_text_as_utf8_and_makes_the_folder(tmp_path: Path) -> None:
    target = tmp_path / "new" / "folder" / "errors.md"
    write_atomic(target, "Grüße\n")
    assert target.read_bytes() == "Grüße\n".encode()
    assert read_text(target) == "Grüße\n"
    assert os.listdir(target.parent) == ["errors.md"]


def test_a_failed_rename_keeps_the_old_file_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    # a folder where the file should go: the temporary file is written, the rename over it fails
    blocked = tmp_path / "errors.md"
    (blocked / "inside").mkdir(parents=True)
    with pytest.raises(OSError):
        write_atomic(blocked, "new text\n")
    assert sorted(os.listdir(tmp_path)) == ["errors.md"]
    assert os.listdir(blocked) == ["inside"]


def test_write_changed_leaves_only_the_files_it_wrote(tmp_path: Path) -> None:
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "same.md").write_text("unchanged\n", encoding="utf-8")
    written = write_changed(
        tmp_path, {"knowledge/same.md": "unchanged\n", "knowledge/payments/errors.md": "# Errors\n"}
    )
    assert written == ["knowledge/payments/errors.md"]
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
        "knowledge",
        "knowledge/payments",
        "knowledge/payments/errors.md",
        "knowledge/same.md",
    ]


def test_a_bare_file_name_is_written_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `init` in the KB's own folder writes `homeostat.yaml`, whose folder is "" (no makedirs takes it)
    monkeypatch.chdir(tmp_path)
    write_atomic("homeostat.yaml", "version: 1\n")
    assert (tmp_path / "homeostat.yaml").read_text(encoding="utf-8") == "version: 1\n"
    assert os.listdir(tmp_path) == ["homeostat.yaml"]
