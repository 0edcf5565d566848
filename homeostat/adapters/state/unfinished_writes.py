"""The files `init` is about to write, noted before it writes them, so a rerun after a crash knows them.

init writes several files, each atomically but not all at once: a run killed or failed half-way
leaves some of them. Without a note, a rerun could not tell those from files a person wrote or
edited, and would keep them as "yours" (printing a diff against what init now writes). The note
(`.homeostat/init-writing.json`, git-ignored local state of the KB clone) holds each file's hash as
init meant to write it; it is removed once every file is down. A rerun finding it treats a file that
still holds exactly those bytes as unwritten: someone's later edit changes the hash, and is kept.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from homeostat.adapters.kb_files import write_changed
from homeostat.adapters.plain_files import write_atomic
from homeostat.core.text import sha256

NOTE = ".homeostat/init-writing.json"


def _hash(data: bytes) -> str:
    return sha256(data).hexdigest()


def left_unfinished(root: Path) -> frozenset[str]:
    """The files an earlier run that did not finish wrote and nobody changed since."""
    try:
        noted = json.loads((root / NOTE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return frozenset()
    files = noted.get("files") if isinstance(noted, dict) else None
    if not isinstance(files, dict):
        return frozenset()
    left: set[str] = set()
    for path, digest in files.items():
        try:
            data = (root / path).read_bytes()
        except OSError:
            continue
        if _hash(data) == digest:
            left.add(path)
    return frozenset(left)


def write_noted(root: Path, changed: Mapping[str, str]) -> list[str]:
    """`write_changed`, with the note written first and removed once every file is written: a run
    stopped in between (a crash, Ctrl-C, a full disk) leaves the note for the next run to read. A
    run with nothing to write drops an earlier run's note: its files are all settled now."""
    if not changed:
        _forget(root)
        return []
    hashes = {path: _hash(text.encode("utf-8")) for path, text in sorted(changed.items())}
    write_atomic(root / NOTE, json.dumps({"files": hashes}, indent=2) + "\n")
    written = write_changed(root, changed)
    _forget(root)
    return written


def _forget(root: Path) -> None:
    try:
        os.remove(root / NOTE)
    except FileNotFoundError:
        pass
