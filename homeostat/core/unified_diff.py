"""The lines a unified diff's hunks add and remove, counted from each hunk's `@@` header.

Both hosts hand over unified diffs: GitHub a compare file's `patch` (its hunks, no file header) and
Bitbucket a whole git-style diff (`core.hosts.FollowUp` is read from them). Inside a hunk every line
is content, however it starts: an added line whose text is `++x` arrives as `+++x`, a removed
`--x` as `---x`, and only the header's line counts tell them from a file header. One reader, so the
two hosts count the same lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


@dataclass
class Hunks:
    """Reads a diff a line at a time, keeping how many old and new lines the current hunk has left."""

    old_left: int = 0
    new_left: int = 0

    def read(self, line: str, added: list[str], removed: list[str]) -> bool:
        """Take `line` as a hunk's header or content (an added line to `added`, a removed one to
        `removed`, without its "+" or "-"); False for a line outside every hunk, such as a file
        header, which is the caller's to read."""
        if self.old_left > 0 or self.new_left > 0:
            self._content(line, added, removed)
            return True
        if hunk := _HUNK.match(line):
            self.old_left, self.new_left = (int(size) if size is not None else 1 for size in hunk.groups())
            return True
        return False

    def _content(self, line: str, added: list[str], removed: list[str]) -> None:
        tag = line[:1]
        if tag == "+":
            added.append(line[1:])
            self.new_left -= 1
        elif tag == "-":
            removed.append(line[1:])
            self.old_left -= 1
        elif tag != "\\":  # "\ No newline at end of file" counts for neither side
            self.old_left -= 1
            self.new_left -= 1


def patch_lines(patch: str) -> tuple[list[str], list[str]]:
    """The lines a patch of hunks (no file header) adds and removes, in order."""
    hunks = Hunks()
    added: list[str] = []
    removed: list[str] = []
    for line in patch.split("\n"):
        hunks.read(line, added, removed)
    return added, removed
