"""Counting a corpus build's tokens in a second process, beside the build (`build_corpus`'s counter).

A cold build at 20,000 rules spends about 0.25 s loading the tokenizer and 0.5 s counting 40,000
texts, and nothing else in the build needs either: only the counts, at its end. So a forked child
loads the tokenizer while this process parses the KB, waits for the texts (`ToCount`), and counts
them with its copy of the build's `TokenCounts` (`count_texts`: the same calls in the same order)
while this process builds the index. Where part of the KB is parsed in another child
(`parse_worker`), the rules read here come first in the build's order, and their texts are sent
`ahead` as soon as they are read: counted while this process waits for the other child's rows.
It sends back the counts and what its `TokenCounts` holds after, in one marshal: the same
numbers, looked up in the same order, and the same integers shared where one process would share
them (the cached corpus is a marshal, which writes an object held twice once, so that sharing is
part of its bytes). tests/core/selection/test_corpus_build.py holds the two equal.

One process does it all where a second cannot help or is not safe: a small KB, one core, no `fork`,
or threads running (a forked child would inherit the locks they hold). When anything goes wrong on
the child's side (it fails, dies, or sends what does not unmarshal) this process counts the texts
itself, with its own `TokenCounts`, which the child never touched.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from homeostat.adapters.forked.answer import answer, reaped
from homeostat.core.cost.token_counts import TokenCounts
from homeostat.core.selection.build import ToCount, count_texts
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from queue import SimpleQueue
    from typing import BinaryIO

# Below this much KB text (about 400 rules) the tokenizer loads and the texts count in less time
# than a second process saves: the build counts them itself, as before.
WORKER_MIN_BYTES = 250_000


def kb_bytes(root: Path, enough: int = WORKER_MIN_BYTES) -> int:
    """The size of the files under the KB's `knowledge/`, counted until it reaches `enough`: known
    before the KB is read, so the child is forked before the loader's modules are imported (a third
    of a second the child spends loading the tokenizer meanwhile)."""
    total = 0
    folders = [os.path.join(root, "knowledge")]
    while folders and total < enough:
        try:
            entries = list(os.scandir(folders.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                elif entry.is_file(follow_symlinks=False):  # what the loader reads
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def may_fork() -> bool:
    """Whether a forked child can run beside this process: a second core, and no other thread."""
    if not hasattr(os, "fork") or _cores() < 2:
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


@contextmanager
def count_worker(counts: TokenCounts, size: int) -> Iterator[Worker | None]:
    """A counter for `build_corpus` (a `TextCounter`) that counts in a forked child, for a KB of
    `size` bytes (`kb_bytes`); None (count in this process) where a child would not help. The child
    is started here, so it loads the tokenizer while the caller reads the KB; it is gone when the
    block ends."""
    if size < WORKER_MIN_BYTES or not may_fork():
        yield None
        return
    worker = Worker(counts)
    try:
        yield worker if worker.pid else None
    finally:
        worker.close()


class Worker:
    """The counting child's end of the pipes. Called with a build's texts (`ToCount`), it sends
    them and gives the function that waits for their counts. The rules' texts the caller knows
    before the rest (`ahead`) are counted while the rest are still being gathered."""

    def __init__(self, counts: TokenCounts) -> None:
        self.counts = counts
        self.head: list[tuple[str, str]] = []
        self.pid = 0
        todo_read, self.todo = os.pipe()
        self.done, done_write = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:
            for fd in (todo_read, self.todo, self.done, done_write):
                os.close(fd)
            self.todo = self.done = -1
            return
        if self.pid == 0:
            os.close(self.todo)
            os.close(self.done)
            _child(counts, todo_read, done_write)  # never returns
        os.close(todo_read)
        os.close(done_write)

    def ahead(self, rules: list[tuple[str, str]]) -> None:
        """Send the first rules' texts (`ToCount.rules`' head), to be counted before the rest are
        sent. Their counts come with the rest's, in the same order, and only when the texts the
        build counts begin with these (else this process counts them all itself)."""
        if self.todo < 0 or self.head or not rules:
            return
        self.head = rules
        self._send(marshal.dumps(rules))

    def __call__(self, todo: ToCount) -> Callable[[], list[int]]:
        """Send the texts to count (those not sent `ahead`); the function returned waits for their
        counts."""
        n = len(self.head)
        if n and todo.rules[:n] != self.head:  # not the head the child counted: it must not answer
            self.close()
        elif self.todo >= 0:
            self._send(marshal.dumps(tuple(todo._replace(rules=todo.rules[n:]))))
            self._close_todo()
        return lambda: self._wait(todo)

    def _send(self, data: bytes) -> None:
        """One frame: its length, then its marshal. The child is gone when this fails: `_wait`
        counts here."""
        try:
            os.write(self.todo, len(data).to_bytes(8, "big"))
            view = memoryview(data)
            while view:
                view = view[os.write(self.todo, view) :]
        except OSError:
            self.close()

    def _close_todo(self) -> None:
        if self.todo >= 0:
            os.close(self.todo)
            self.todo = -1

    def _wait(self, todo: ToCount) -> list[int]:
        found = self._received()
        if found is None:
            return count_texts(todo, self.counts)
        counted, used, known, tally = found
        self.counts.used, self.counts.known, self.counts.counted = used, known, tally
        return counted

    def _received(self) -> tuple[list[int], dict[str, int], dict[str, int], int] | None:
        pid, done, self.pid, self.done = self.pid, self.done, 0, -1
        sent = answer(pid, done) if done >= 0 else None
        found = None if sent is None else sent[0]
        return found if isinstance(found, tuple) and len(found) == 4 else None

    def close(self) -> None:
        """Let the child go and wait for it, if not done yet: its pipe closed before the last frame,
        it leaves without an answer (and `_wait` counts here)."""
        self._close_todo()
        if self.done >= 0:
            os.close(self.done)
            self.done = -1
        pid, self.pid = self.pid, 0
        reaped(pid)


def _child(counts: TokenCounts, todo_read: int, done_write: int) -> None:
    """The forked child: load the tokenizer (when nothing is known, every text will need it), read
    the texts (the rules' head first, when sent `ahead`: counted as soon as it comes), count them,
    send the counts and the `TokenCounts` after, and leave at once, without the exit handlers and
    buffered output it shares with its parent. Its pipe closed before the last frame, it leaves
    with no answer. A thread reads the pipe while the head is counted: a parent blocked writing the
    rest would not be building its index meanwhile."""
    code = 1
    try:
        import threading
        from queue import SimpleQueue

        if not counts.known:
            from homeostat.core.cost.tiktoken_count import _encoding

            _encoding()
        frames: SimpleQueue[bytes | None] = SimpleQueue()
        threading.Thread(target=_read_frames, args=(todo_read, frames), daemon=True).start()
        counted: list[int] = []
        while (frame := frames.get()) is not None:
            value = marshal.loads(frame)
            if type(value) is list:  # a head of the rules, sent ahead
                counted += count_texts(ToCount(value, [], [], []), counts)
                continue
            counted += count_texts(ToCount(*value), counts)
            sent = marshal.dumps((counted, counts.used, counts.known, counts.counted))
            with os.fdopen(done_write, "wb") as pipe:
                pipe.write(sent)
            code = 0
            break
    finally:
        os._exit(code)


def _read_frames(todo_read: int, frames: SimpleQueue[bytes | None]) -> None:
    with os.fdopen(todo_read, "rb") as pipe:
        while (frame := _frame(pipe)) is not None:
            frames.put(frame)
    frames.put(None)


def _frame(pipe: BinaryIO) -> bytes | None:
    """The next frame `Worker._send` wrote; None at the end of the pipe (or within a frame)."""
    head = pipe.read(8)
    if len(head) < 8:
        return None
    size = int.from_bytes(head, "big")
    data = pipe.read(size)
    return data if len(data) == size else None
