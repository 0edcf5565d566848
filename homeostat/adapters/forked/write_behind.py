"""Writing a rebuilt corpus's cache files after the answer is out, in a detached grandchild.

A cold `context` or session hook at 20,000 rules spends about 0.4 s turning the fresh corpus into
the bytes of its cache files (the whole corpus, the session repo's part, the token counts) and
writing them, and more counting the tokens of the other repos' rules (`counted_first` counts only
the session's part before the answer), and the agent waits for none of it: its answer needs only
the part in memory. So
where the corpus is large and a fork is safe (`count_worker.may_fork`), the writes run in a
grandchild that has left this process's session and holds none of its pipes or terminal: the
caller's answer goes out and its process exits while the files are written.

The grandchild holds an exclusive `flock` on `writing.lock` in the index folder, taken here before
the fork, until every file is written. A process that finds no cached corpus waits for that lock
(`wait_for_writer`) before it rebuilds, so a session started a moment after another finds the
files, and never builds them a second time. The lock goes with the process that holds it, killed
or not; every file is written atomically, so a writer killed mid-way leaves what it had not
written yet to be built again next time, and never half a file.

Where the index folder cannot be written, the writes run here, so their warnings reach the user.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from homeostat.adapters.forked.answer import close_inherited, reaped
from homeostat.adapters.forked.count_worker import may_fork

LOCK_FILE = "writing.lock"
# How long a rebuild waits for another process's writer before it builds the corpus itself: the
# writes take well under a second at 20,000 rules; a writer that takes this long is stuck.
WAIT_SECONDS = 30.0
# Below this many rules and sections the writes take a few milliseconds, less than the fork.
BEHIND_MIN_RECORDS = 1_000


def write_behind(folder: str, writes: Callable[[], None], records: int) -> None:
    """Run `writes` (which writes into `folder`) in a detached grandchild that holds the folder's
    writing lock until it is done; here, where the corpus is small, a fork is unsafe, the folder
    cannot be written or another writer holds the lock (every write is atomic either way)."""
    if records < BEHIND_MIN_RECORDS or not may_fork():
        writes()
        return
    import fcntl

    try:
        os.makedirs(folder, exist_ok=True)
        lock = os.open(os.path.join(folder, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        writes()
        return
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        pid = os.fork()
    except OSError:
        os.close(lock)  # releases the lock, if it was taken
        writes()
        return
    if pid == 0:
        _child(writes, lock)  # never returns
    os.close(lock)  # the grandchild's copy holds the lock now
    reaped(pid)  # the child leaves at once, its grandchild at work


def _child(writes: Callable[[], None], lock: int) -> None:
    """The forked child: start a new session, fork the grandchild that writes, and leave, so no one
    waits for the writer nor kills it with this process's group. The grandchild reads nothing and
    writes to no stream of the caller's (its answer's reader waits for those to close), and leaves
    without the exit handlers it shares with its parent."""
    code = 1
    try:
        os.setsid()
        if os.fork() == 0:
            code = _grandchild(writes, lock)
        else:
            code = 0
    finally:
        os._exit(code)


def _grandchild(writes: Callable[[], None], lock: int) -> int:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    close_inherited(lock)
    writes()
    return 0


def wait_for_writer(folder: str, seconds: float = WAIT_SECONDS) -> bool:
    """Whether another process's writer was at work in `folder` and is done now (then its files are
    there to load); False at once when no writer holds the lock, or after `seconds` of waiting."""
    try:
        import fcntl
    except ImportError:  # no flock, no fork: nothing is ever written behind
        return False
    try:
        lock = os.open(os.path.join(folder, LOCK_FILE), os.O_RDONLY)
    except OSError:
        return False
    try:
        deadline = time.monotonic() + seconds
        waited = False
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return waited
            except BlockingIOError:
                waited = True
            except OSError:
                return False
            if time.monotonic() > deadline:
                return False
            time.sleep(0.01)
    finally:
        os.close(lock)
