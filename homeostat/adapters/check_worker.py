"""Running some of validate's checks in a forked child, beside the others (`validate_kb`'s runner).

At 10,000 rules the secret scan and the readable-span checks take about 1.3 s of validate's 3, and
neither needs anything the other checks make: a child forked once the KB is loaded has it already
(the fork shares its memory; `gc.freeze` keeps the collector from touching it), runs them on the
second core and sends back only their findings, a few plain tuples, in one marshal. validate sorts
and de-duplicates every finding at its end, so where a check ran changes nothing in its output.

The same rules as the token-counting child (`count_worker`): only for a large KB, with a second core
and no other thread (a forked child would inherit the locks they hold). When anything goes wrong on
the child's side (it fails, dies, or sends what does not unmarshal) this process runs the checks
itself.
"""

from __future__ import annotations

import marshal
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from homeostat.adapters.count_worker import WORKER_MIN_BYTES, may_fork
from homeostat.core.findings import Finding

Check = Callable[[], list[Finding]]


@contextmanager
def checks_beside(size: int) -> Iterator[Callable[[Check], Check] | None]:
    """A runner for `validate_kb` that starts a check in a forked child, for a KB of `size` bytes;
    None (run every check here) where a child would not help. A child still running when the block
    ends (validate failed before it asked for the findings) is let go and waited for."""
    if size < WORKER_MIN_BYTES or not may_fork():
        yield None
        return
    children: list[_Child] = []

    def run_beside(check: Check) -> Check:
        child = _Child(check)
        children.append(child)
        return child.findings

    try:
        yield run_beside
    finally:
        for child in children:
            child.close()


class _Child:
    def __init__(self, check: Check) -> None:
        self.check = check
        self.pid = 0
        self.done = -1
        if not may_fork():  # a thread started since the runner was made
            return
        self.done, sent = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:
            os.close(self.done)
            os.close(sent)
            self.done = -1
            return
        if self.pid == 0:
            os.close(self.done)
            _child(check, sent)  # never returns
        os.close(sent)

    def findings(self) -> list[Finding]:
        """The child's findings; the check's, run here, when there is no child or it failed."""
        found = self._received()
        return self.check() if found is None else found

    def _received(self) -> list[Finding] | None:
        if self.done < 0:
            return None
        try:
            with os.fdopen(self.done, "rb") as pipe:
                self.done = -1
                data = pipe.read()
        except OSError:
            data = b""
        if self._reaped() != 0 or not data:
            return None
        try:
            return [Finding(*row) for row in marshal.loads(data)]
        except (ValueError, EOFError, TypeError):
            return None

    def _reaped(self) -> int:
        pid, self.pid = self.pid, 0
        if not pid:
            return -1
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

    def close(self) -> None:
        """Let the child go (with no reader, its write fails and it ends) and wait for it."""
        if self.done >= 0:
            os.close(self.done)
            self.done = -1
        self._reaped()


def _child(check: Check, sent: int) -> None:
    """The forked child: run the check, send its findings, and leave at once, without the exit
    handlers and buffered output it shares with its parent. Every other descriptor it inherited is
    closed first: a pipe another child reads to its end (`count_worker`'s) must not stay open here."""
    code = 1
    try:
        os.closerange(3, sent)
        os.closerange(sent + 1, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
        rows = [(f.file, f.line, f.severity, f.check, f.message) for f in check()]
        with os.fdopen(sent, "wb") as pipe:
            pipe.write(marshal.dumps(rows))
        code = 0
    finally:
        os._exit(code)
