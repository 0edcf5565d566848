"""Running some of validate's work in forked children, beside the rest (`validate_kb`'s runner).

At 10,000 rules the secret scan, the readable-span checks and counting the rules' tokens (on a fresh
checkout) take about 2 s of validate's 4, and none needs anything the other checks make. A child
forked once the files are read (the secret scan reads nothing else) or once the KB is loaded (the
span checks, the counting) has them already: the fork shares this process's memory, nothing is
sent to it, and `gc.freeze` keeps the collector from touching what it shares. It runs its task on
the second core and sends back the task's value, plain data, in one marshal: findings as tuples, or
the token counts with what its copy of `TokenCounts` holds after, so the counts, and the order
tokens.json keeps them in, are the ones one process gives. (Counting in `count_worker`'s child, which
is forked before the KB is read, would send it every rule's text: at 100,000 rules 60 MB, held
with its marshal beside the loaded KB, past validate's 500 MB.)

The token-counting child's rules (`count_worker`): only for a large KB, with a second core and no
other thread (a forked child would inherit the locks they hold). When anything goes wrong on the
child's side (it fails, dies, or sends what does not unmarshal) this process runs the task itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from homeostat.adapters.forked.answer import answer, fork_answering, reaped, send_and_leave
from homeostat.adapters.forked.count_worker import WORKER_MIN_BYTES, may_fork
from homeostat.core.validate import Runner

T = TypeVar("T")


@contextmanager
def tasks_beside(size: int) -> Iterator[Runner | None]:
    """A runner that starts each task in a forked child, for a KB of `size` bytes; None (run every
    task here) where a child would not help. A child still running when the block ends (validate
    failed before it asked for the value) is let go and waited for."""
    if size < WORKER_MIN_BYTES or not may_fork():
        yield None
        return
    children: list[_Child[Any]] = []

    def run_beside(task: Callable[[], T]) -> Callable[[], T]:
        child = _Child(task)
        children.append(child)
        return child.value

    try:
        yield run_beside
    finally:
        for child in children:
            child.close()


class _Child(Generic[T]):
    def __init__(self, task: Callable[[], T]) -> None:
        self.task = task
        self.pid = 0
        self.done = -1
        if not may_fork():  # a thread started since the runner was made
            return
        self.pid, self.done = fork_answering(lambda sent: _child(task, sent))

    def value(self) -> T:
        """The child's value; the task's, run here, when there is no child or it failed."""
        found = self._received()
        return self.task() if found is None else found[0]

    def _received(self) -> tuple[T] | None:
        if self.done < 0:
            return None
        pid, done, self.pid, self.done = self.pid, self.done, 0, -1
        return answer(pid, done)

    def close(self) -> None:
        """Let the child go (with no reader, its write fails and it ends) and wait for it."""
        if self.done >= 0:
            os.close(self.done)
            self.done = -1
        pid, self.pid = self.pid, 0
        reaped(pid)


def _child(task: Callable[[], Any], sent: int) -> None:
    """The forked child: run the task, send its value, and leave at once, without the exit handlers
    and buffered output it shares with its parent. Every other descriptor it inherited is closed
    first: a pipe another child reads to its end must not stay open here."""
    send_and_leave(sent, task, close_others=True)
