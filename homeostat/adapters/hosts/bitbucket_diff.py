"""The lines a change added to each file, read from the raw git-style diff Bitbucket's diff endpoint
answers (`GET /2.0/repositories/{workspace}/{repo}/diff/{spec}`, text/plain).

A review thread's follow-up (`core.hosts.FollowUp`) holds the lines the commits after its comment
added, so the daily run can tell whether those commits used the rule's code. Hunk lengths are
counted from each `@@` header, so an added line whose text starts with `++` is read as content and
never as a file header.
"""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_ESCAPED = re.compile(rb'\\([0-7]{3}|[abtnvfr"\\])')
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


def added_lines(diff: str) -> dict[str, list[str]]:
    """Each file's added lines (without the leading "+"), by its new path, in diff order. A deleted
    file, a binary file and a file only renamed add none."""
    files: dict[str, list[str]] = {}
    current: list[str] | None = None
    old_left = new_left = 0
    for line in diff.split("\n"):
        if old_left > 0 or new_left > 0:
            tag = line[:1]
            if tag == "+":
                new_left -= 1
                if current is not None:
                    current.append(line[1:])
            elif tag == "-":
                old_left -= 1
            elif tag != "\\":  # "\ No newline at end of file" counts for neither side
                old_left, new_left = old_left - 1, new_left - 1
            continue
        if line.startswith("+++ "):
            path = new_path(line[4:])
            current = files.setdefault(path, []) if path else None
            continue
        hunk = _HUNK.match(line)
        if hunk:
            old_left, new_left = (int(size) if size is not None else 1 for size in hunk.groups())
    return files


def new_path(header: str) -> str:
    """The path a `+++` header names ("" for /dev/null): git's C-style quoting undone, the `b/`
    prefix and the tab git adds after a name with a space dropped."""
    name = header.rstrip("\r").removesuffix("\t")
    if name == "/dev/null":
        return ""
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        name = _unquoted(name[1:-1])
    return name.removeprefix("b/")


def _unquoted(body: str) -> str:
    raw = _ESCAPED.sub(_unescape, body.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "replace")


def _unescape(match: re.Match[bytes]) -> bytes:
    code = match.group(1)
    return bytes([int(code, 8) if len(code) == 3 else _ESCAPES[code]])
