"""The bench's results folder: `<condition>.jsonl` per condition, appended one finished run at a time.

Each record is one `write` of one line, flushed and synced before the next task starts, so a kill
loses at most the run in progress; a line a kill cut short is completed with a newline before the
next record, so it can never swallow it. One run at a time holds the folder (a lock file), because
two runs appending to the same files would both run, and both pay for, the same tasks.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from homeostat.core.bench.results import Record, parse_results
from homeostat.errors import ConfigError


@dataclass(frozen=True)
class BenchStore:
    folder: Path

    def path(self, condition: str) -> Path:
        return self.folder / f"{condition}.jsonl"

    def read(self, condition: str) -> tuple[list[Record], int]:
        """The condition's records and how many unreadable lines were skipped ([] when none yet)."""
        try:
            text = self.path(condition).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return [], 0
        return parse_results(text)

    def append(self, condition: str, record: Record) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.path(condition)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            size = os.fstat(fd).st_size
            torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
            line = ("\n" if torn else "") + record.to_line()
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    @contextmanager
    def held(self) -> Iterator[None]:
        """The folder for this run alone; a second run on it is refused at once."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / ".lock", "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise ConfigError(
                    f"another `homeostat bench run` is using {self.folder}: wait for it, or give --out another folder"
                ) from None
            yield
