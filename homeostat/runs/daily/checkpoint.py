"""Checkpoint: what a daily run has paid for, written to the state branch as it goes.

Every usable model answer (a draft, a document check, a consolidation, each judge verdict) is kept in
the run's answer memory (homeostat.core.state.checkpoints), and written to `checkpoints/daily/all.json`
with the claim's renewal every `FLUSH_SECONDS` while the run waits for answers, so a run stopped at
any point (a signal, a job timeout, a lost runner, a host or model error) leaves its answers for
the next run, which recalls them instead of paying again: at most the calls still in flight, or
answered since the last write, are asked twice.

The run's last write (a finished run's state, or a failed run's report) carries the file too: a
finished run keeps only the answers for lessons not decided yet (and none older than
`KEEP_ANSWERS`), so the file stays small; a failed one keeps them all. Its `retry` list holds the
review threads whose draft failed past its retries, which the next run reads back far enough to
draft again (`RETRY_ATTEMPTS` runs, then they are given up with a notice).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from homeostat.core.state.checkpoints import (
    AnswerMemory,
    CheckpointFile,
    RetryThread,
    checkpoint_bytes,
    checkpoint_path,
    read_checkpoints,
    retry_list,
    still_needed,
)

FLUSH_SECONDS = 30.0
KEEP_ANSWERS = dt.timedelta(days=7)
SLOT = "all"


class Checkpoint:
    """The run's answer memory and retry list, from every slot on the state branch at its start."""

    def __init__(self, files: Mapping[str, bytes], run_id: str, seal: bytes | None = None) -> None:
        found = read_checkpoints(files, "daily")
        self.slots = [checkpoint_path("daily", file.slot) for file in found]
        # a shard's mark stays when its answers move here: a merge job run again after a failure uses it
        self.marks = {checkpoint_path("daily", file.slot): file.shard for file in found}
        self.memory = AnswerMemory((answer for file in found for answer in file.answers), seal=seal)
        self.earlier_retry: list[RetryThread] = _merged_retry(t for file in found for t in file.retry)
        self.failed: list[RetryThread] = []
        self.done: set[str] = set()  # threads drafted this run
        self.given_up: list[RetryThread] = []
        self.run_id = run_id
        self._written = time.monotonic()

    def oldest_retry(self) -> dt.datetime | None:
        """When the earliest PR with a thread to try again merged: the window reaches back to it."""
        return min((t.merged_at for t in self.earlier_retry), default=None)

    def due(self) -> bool:
        return self.memory.fresh > 0 and time.monotonic() - self._written >= FLUSH_SECONDS

    def files(
        self, *, decided: AbstractSet[str] = frozenset(), now: dt.datetime | None = None
    ) -> dict[str, bytes]:
        """This run's slot (and every other slot it read, emptied: their answers are in this one).

        With `now` (a finished run), answers for decided work and old ones are dropped, and the retry
        list is settled; without it, everything is kept for the next run."""
        answers = tuple(self.memory.answers())
        retry = [*self.earlier_retry, *self.failed]
        if now is not None:
            answers = still_needed(answers, decided, now, KEEP_ANSWERS)
            retry, self.given_up = retry_list(self.earlier_retry, self.failed, frozenset(self.done))
        else:
            retry = _merged_retry(retry)
        mine = checkpoint_path("daily", SLOT)
        written = {
            path: checkpoint_bytes(CheckpointFile(kind="daily", slot=_slot(path), shard=self.marks.get(path)))
            for path in self.slots
        }
        written[mine] = checkpoint_bytes(
            CheckpointFile(kind="daily", slot=SLOT, run_id=self.run_id, answers=answers, retry=tuple(retry))
        )
        return written

    def written(self) -> None:
        self.memory.mark_written()
        self._written = time.monotonic()


def _slot(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".json")


def _merged_retry(threads: Iterable[RetryThread]) -> list[RetryThread]:
    """One entry per thread (the most attempts), oldest PR first."""
    best: dict[str, RetryThread] = {}
    for thread in threads:
        known = best.get(thread.url)
        if known is None or thread.attempts > known.attempts:
            best[thread.url] = thread
    return sorted(best.values(), key=lambda t: (t.merged_at, t.url))
