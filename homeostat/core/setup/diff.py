"""The patch a person reads when a command will not (or cannot) write a file for them."""

from __future__ import annotations

import difflib


def unified_diff(path: str, before: str | None, after: str) -> str:
    """A `git diff`-style patch from `before` (None: the file is missing) to `after`; "" when equal."""
    old = (before or "").splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    source = f"a/{path}" if before is not None else "/dev/null"
    lines = difflib.unified_diff(old, new, fromfile=source, tofile=f"b/{path}")
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
