"""A forked child that answers: forked with a pipe (`fork_answering`), it sends one value as a
marshal and leaves (`send_and_leave`), and its parent hears it once it has exited (`answer`).

The cold rebuild forks two helpers (`count_worker`, `parse_worker`) and validate forks its own
(`tasks`); any of them may fail, die or send what does not unmarshal, and its parent then does the
work itself. All fork and read their child the same way, here. A child that outlives the pipes its
parent's other children write to closes its copies of them first (`close_inherited`).
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable
from typing import Any, NoReturn


def fork_answering(child: Callable[[int], object]) -> tuple[int, int]:
    """Fork a child that runs `child(sent)`, `sent` the write end of a new pipe, and leaves without
    returning (`send_and_leave`). Here: the child's pid and the pipe's read end, or (0, -1) when
    the system refuses the fork (the caller then does the work itself)."""
    done, sent = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(done)
        os.close(sent)
        return 0, -1
    if pid == 0:
        os.close(done)
        child(sent)  # never returns
    os.close(sent)
    return pid, done


def send_and_leave(sent: int, value: Callable[[], Any], *, close_others: bool = False) -> NoReturn:
    """In a forked child: send `value()` down pipe `sent` as a marshal and leave at once, without the
    exit handlers and buffered output it shares with its parent: exit 0 once sent, 1 when anything
    failed. `close_others`: first close every other descriptor it inherited (`close_inherited`)."""
    code = 1
    try:
        if close_others:
            close_inherited(sent)
        data = marshal.dumps(value())
        with os.fdopen(sent, "wb") as pipe:
            pipe.write(data)
        code = 0
    finally:
        os._exit(code)


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
