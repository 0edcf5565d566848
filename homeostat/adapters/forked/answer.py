"""Hearing from a forked child: its answer, a marshal written to a pipe, once it has exited.

The cold rebuild forks two helpers (`count_worker`, `parse_worker`) and validate forks its own
(`forked_tasks`); any of them may fail, die or send what does not unmarshal, and its parent then
does the work itself. All read their child the same way, here. A child that outlives the pipes its
parent's other children write to closes its copies of them first (`close_inherited`).
"""

from __future__ import annotations

import marshal
import os
from typing import Any


def answer(pid: int, done: int) -> tuple[Any] | None:
    """What child `pid` wrote to pipe `done` (read to its end, then closed) as a marshal, in a
    1-tuple (a child may send None); None when it exited with anything but 0, or sent nothing, or
    what does not unmarshal."""
    try:
        with os.fdopen(done, "rb") as pipe:
            data = pipe.read()
    except OSError:
        data = b""
    if reaped(pid) != 0 or not data:
        return None
    try:
        return (marshal.loads(data),)
    except (ValueError, EOFError, TypeError):
        return None


def reaped(pid: int) -> int:
    """The child's exit code, once it has ended; -1 for no child (0)."""
    if not pid:
        return -1
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def close_inherited(keep: int) -> None:
    """In a forked child: close every descriptor above the standard streams but `keep`, so no pipe
    another process reads to its end stays open here (its reader would wait for this child)."""
    os.closerange(3, keep)
    os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
