"""The local event log: SQLite at `.homeostat/events.db`, and a log-only sink for CI.

The database is per machine, git-ignored, and keeps 90 days: older events are pruned every time the
log is opened, so a machine that stops using Homeostat does not keep usage data forever. Events carry
sizes and names only (see `homeostat.core.events`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from contextlib import closing, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType

from homeostat.core.events import Event, EventSink, NullSink, utcnow

RETENTION_DAYS = 90
_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")
EVENTS_DB = Path(".homeostat") / "events.db"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_kind_at ON events (kind, at_ms);
CREATE INDEX IF NOT EXISTS events_at ON events (at_ms);
"""


def events_path(root: Path) -> Path:
    """Where a checkout (or the shared box's working folder) keeps its event log."""
    return root / EVENTS_DB


def _ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


class SqliteEventLog:
    """`record`, `query` and `prune` over one SQLite file; safe for several processes at once."""

    def __init__(
        self, path: Path, *, retention_days: int = RETENTION_DAYS, now: Callable[[], datetime] = utcnow
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.retention = timedelta(days=retention_days)
        self._now = now
        self._db = sqlite3.connect(path, timeout=5.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self.prune()

    def record(self, event: Event) -> None:
        self._db.execute(
            "INSERT INTO events (kind, at_ms, data) VALUES (?, ?, ?)",
            (event.kind, _ms(event.at), json.dumps(event.data, sort_keys=True)),
        )

    def replace(self, event: Event, keys: tuple[str, ...]) -> None:
        """Record `event` in place of any earlier event of its kind with the same values of `keys`
        (a turn's usage, re-read when the transcript has caught up), in one transaction."""
        if not keys or not all(_KEY.match(key) for key in keys):
            raise ValueError(f"replace keys must be field names: {keys!r}")
        where = " AND ".join(f"json_extract(data, '$.{key}') IS ?" for key in keys)
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                f"DELETE FROM events WHERE kind = ? AND {where}",  # noqa: S608 - keys are our own names
                (event.kind, *(event.data.get(key) for key in keys)),
            )
            self.record(event)

    def query(self, kind: str | None = None, since: datetime | None = None) -> list[Event]:
        """Events of `kind` (every kind when None) at or after `since`, oldest first."""
        sql = "SELECT kind, at_ms, data FROM events WHERE at_ms >= ?"
        params: list[object] = [_ms(since) if since is not None else 0]
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        rows = self._db.execute(sql + " ORDER BY at_ms, id", params).fetchall()
        return [
            Event(kind=row[0], at=datetime.fromtimestamp(row[1] / 1000, UTC), data=json.loads(row[2]))
            for row in rows
        ]

    def prune(self) -> int:
        """Delete events older than the retention window; returns how many went."""
        cutoff = _ms(self._now() - self.retention)
        return self._db.execute("DELETE FROM events WHERE at_ms < ?", (cutoff,)).rowcount

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SqliteEventLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


class LoggingSink:
    """CI has no machine to keep a database on: events become one log line each, sizes only."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self.logger = logger or logging.getLogger("homeostat.events")

    def record(self, event: Event) -> None:
        fields = " ".join(f"{name}={value}" for name, value in sorted(event.data.items()))
        self.logger.info("%s %s", event.kind, fields)


_CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "BITBUCKET_BUILD_NUMBER")


def event_sink(root: Path, env: Mapping[str, str] | None = None) -> EventSink:
    """The log lines in CI (its machine is thrown away), else the checkout's `.homeostat/events.db`."""
    variables = os.environ if env is None else env
    if any(variables.get(name) for name in _CI_VARIABLES):
        return LoggingSink()
    return SqliteEventLog(events_path(root))


@contextmanager
def run_events(root: Path, env: Mapping[str, str], *, show_prompts: bool = False) -> Iterator[EventSink]:
    """The sink a run's model calls log to: nothing under --show-prompts (nothing is sent), log
    lines in CI, the checkout's event log on a machine (closed when the run ends)."""
    if show_prompts:
        yield NullSink()
        return
    sink = event_sink(root, env)
    if isinstance(sink, SqliteEventLog):
        with sink:
            yield sink
    else:
        yield sink


def log_summary(path: Path) -> tuple[int, datetime | None, int]:
    """(events, the oldest event's time, bytes on disk) of a log, read-only: nothing is pruned or
    created, so asking about a log never changes it. A missing or unreadable log is (0, None, 0)."""
    if not path.is_file():
        return 0, None, 0
    size = sum(p.stat().st_size for p in path.parent.glob(path.name + "*") if p.is_file())
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)) as db:
            count, oldest = db.execute("SELECT COUNT(*), MIN(at_ms) FROM events").fetchone()
    except sqlite3.Error:
        return 0, None, size
    return int(count), datetime.fromtimestamp(oldest / 1000, UTC) if oldest is not None else None, size
