"""The lines a unified diff's hunks add and remove (core.unified_diff), as both hosts' readers count
them: from each `@@` header, so a line whose text starts with `++` or `--` is content."""

from __future__ import annotations

import pytest

from homeostat.core.unified_diff import Hunks, patch_lines

PATCH = "@@ -1,3 +1,3 @@\n keep\n---flag\n+++counter\n-old\n+new\n\\ No newline at end of file"


def test_a_patch_gives_its_added_and_removed_lines_without_their_marks() -> None:
    assert patch_lines(PATCH) == (["++counter", "new"], ["--flag", "old"])


@pytest.mark.parametrize(
    ("patch", "added", "removed"),
    [
        ("@@ -0,0 +1 @@\n+++x", ["++x"], []),  # one added line, no count given: 1
        ("@@ -1 +0,0 @@\n---x", [], ["--x"]),
        ("@@ -1,2 +1,2 @@\n same\n-a\n+b\n+after the hunk", ["b"], ["a"]),  # past its counts: not content
        ("@@ -5,0 +6,2 @@ def f():\n+one\n+two\n@@ -9 +11 @@\n-x\n+y", ["one", "two", "y"], ["x"]),
        ("", [], []),
    ],
)
def test_lines_are_counted_from_each_hunk_header(patch: str, added: list[str], removed: list[str]) -> None:
    assert patch_lines(patch) == (added, removed)


def test_a_line_outside_every_hunk_is_the_callers_to_read() -> None:
    hunks, added, removed = Hunks(), [], []
    assert not hunks.read("+++ b/a.py", added, removed)  # a file header before any hunk
    assert hunks.read("@@ -1 +1 @@", added, removed)
    assert hunks.read("+++ b/a.py", added, removed)  # inside the hunk: an added line "++ b/a.py"
    assert (added, removed) == (["++ b/a.py"], [])
