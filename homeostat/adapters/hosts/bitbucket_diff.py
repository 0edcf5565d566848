"""The files a change touched and the lines it added to and removed from each, read from the raw
git-style diff Bitbucket's diff endpoint answers (`GET /2.0/repositories/{workspace}/{repo}/diff/{spec}`,
text/plain).

A review thread's follow-up (`core.hosts.FollowUp`) holds the lines the commits after its comment
added and removed, so the daily run can tell whether those commits used the rule's code (or took
out code it forbids); the same diff, limited to the commented files, says which of them changed,
so no diffstat is needed beside it. Hunks are read as GitHub's patches are (`core.unified_diff`):
counted from each `@@` header, so an added line whose text starts with `++` (or a removed one
starting with `--`) is read as content and never as a file header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from homeostat.core.unified_diff import Hunks

_ESCAPED = re.compile(rb'\\([0-7]{3}|[abtnvfr"\\])')
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


@dataclass
class DiffFiles:
    """What a diff says about its files."""

    added: dict[str, list[str]] = field(default_factory=dict)  # new path -> added lines, no "+"
    # the file's path (its old one for a deleted file) -> removed lines, no "-"
    removed: dict[str, list[str]] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)  # every path a `---` or `+++` header names
    # a file section with neither header (a binary file, a mode change, a rename with no edit): which
    # file it touched takes the diffstat to say
    unnamed: bool = False


def read_diff(diff: str) -> DiffFiles:
    """The touched paths and the added and removed lines by file of a git-style diff. A binary file
    and a file only renamed add and remove no lines; a deleted file only removes."""
    found = DiffFiles()
    added: list[str] = []
    removed: list[str] = []
    named = True
    old_path = ""
    hunks = Hunks()
    for line in diff.split("\n"):
        if hunks.read(line, added, removed):
            continue
        if line.startswith("diff --git "):
            found.unnamed, named, old_path = found.unnamed or not named, False, ""
            added, removed = [], []
        elif line.startswith(("--- ", "+++ ")):
            path, named = header_path(line[4:]), True
            found.touched.update((path,) if path else ())
            if line.startswith("--- "):
                old_path = path
            elif path or old_path:
                added = found.added.setdefault(path, []) if path else []
                removed = found.removed.setdefault(path or old_path, [])
    found.unnamed = found.unnamed or not named
    return found


def header_path(header: str) -> str:
    """The path a `---` or `+++` header names ("" for /dev/null): git's C-style quoting undone, the
    `a/` or `b/` prefix and the tab git adds after a name with a space dropped."""
    name = header.rstrip("\r").removesuffix("\t")
    if name == "/dev/null":
        return ""
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        name = _unquoted(name[1:-1])
    return name[2:] if name.startswith(("a/", "b/")) else name


def _unquoted(body: str) -> str:
    raw = _ESCAPED.sub(_unescape, body.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "replace")


def _unescape(match: re.Match[bytes]) -> bytes:
    code = match.group(1)
    return bytes([int(code, 8) if len(code) == 3 else _ESCAPES[code]])
