"""The local event log: SQLite at `.homeostat/events.db`, and a log-only sink for CI.

The database is per machine, git-ignored, and keeps 90 days: older events are pruned every time the
log is opened, so a machine that stops using Homeostat does not keep usage data forever. Events carry
sizes and names only (see `homeostat.core.events`).

Hooks and the MCP server do not write SQLite on every message (opening it cost ~25 ms): they append
one line to `.homeostat/events.jsonl` (`adapters.state.event_recorder`), and whoever opens the log next
folds the journal in first, so every reader sees every event. Folding is safe when two processes
fold at once or one is killed mid-fold: the journal is renamed aside under a unique name (writers
re-open the new one), and its events and its name go into the database in one transaction, so a
renamed file is either not yet counted (and folded next time) or counted and only deleted.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import secrets
import sqlite3
import time
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
CREATE TABLE IF NOT EXISTS folded (
    name TEXT PRIMARY KEY,
    at_ms INTEGER NOT NULL
);
"""
FOLDING = ".folding"  # a journal renamed aside to be folded: `events.jsonl.<unique>.folding`


def events_path(root: Path) -> Path:
    """Where a checkout (or the shared box's working folder) keeps its event log."""
    return root / EVENTS_DB


def journal_path(db: Path) -> Path:
    """The journal beside a log: `events.jsonl` next to `events.db`."""
    return db.with_suffix(".jsonl")


def log_exists(path: Path) -> bool:
    """Whether this machine keeps a log: the database, or journaled events not yet folded into it."""
    journal = journal_path(path)
    return path.is_file() or journal.is_file() or any(_folding_files(journal))


def _folding_files(journal: Path) -> list[Path]:
    """Journals renamed aside and not yet deleted (listdir: a glob cost every read 0.5 ms)."""
    prefix = journal.name + "."
    try:
        names = os.listdir(journal.parent)
    except OSError:
        return []
    return [journal.parent / n for n in sorted(names) if n.startswith(prefix) and n.endswith(FOLDING)]


def _ms(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


def _use_wal(db: sqlite3.Connection) -> None:
    """Put the database in WAL mode (a no-op once it is). While another process is opening the same
    file SQLite can refuse the switch at once with "database is locked" rather than wait on the busy
    timeout (a racing fold failed so in a whole-suite run), so a refusal is retried for a few seconds."""
    give_up = time.monotonic() + 5.0
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > give_up:
                raise
            time.sleep(0.02)


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
        _use_wal(self._db)
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self.journal = journal_path(path)
        self.fold()
        self.prune()

    def fold(self) -> int:
        """Move the journal's events into the database; returns how many. Rename the journal aside
        (appenders then start a new one), wait for any appender still writing to it, and insert its
        events with its name in one transaction: a name already folded is only deleted."""
        token = f"{os.getpid()}-{time.time_ns()}-{secrets.token_hex(4)}"
        try:
            os.rename(self.journal, self.journal.with_name(f"{self.journal.name}.{token}{FOLDING}"))
        except FileNotFoundError:
            pass
        return sum(self._fold_file(path) for path in _folding_files(self.journal))

    def _fold_file(self, path: Path) -> int:
        try:
            with path.open("rb") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)  # an appender holds LOCK_SH while it writes
                content = handle.read()
        except FileNotFoundError:  # another process folded it meanwhile
            return 0
        events = _journal_events(path, content)
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            done = self._db.execute("SELECT 1 FROM folded WHERE name = ?", (path.name,)).fetchone()
            if done is None:
                for event, keys in events:
                    if keys:
                        self._replace_older(event, keys)
                    else:
                        self.record(event)
                self._db.execute(
                    "INSERT INTO folded (name, at_ms) VALUES (?, ?)", (path.name, _ms(self._now()))
                )
        self._forget(path)
        return 0 if done is not None else len(events)

    def _forget(self, path: Path) -> None:
        """A folded journal goes once its events are committed (its name stays in `folded`)."""
        path.unlink(missing_ok=True)

    def record(self, event: Event) -> None:
        self._db.execute(
            "INSERT INTO events (kind, at_ms, data) VALUES (?, ?, ?)",
            (event.kind, _ms(event.at), json.dumps(event.data, sort_keys=True)),
        )

    def replace(self, event: Event, keys: tuple[str, ...]) -> None:
        """Record `event` in place of any earlier event of its kind with the same values of `keys`
        (a turn's usage, re-read when the transcript has caught up), in one transaction."""
        where, values = _same(event, keys)
        self.fold()  # an earlier event to replace may still be in the journal
        with self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(f"DELETE FROM events WHERE kind = ? AND {where}", values)  # noqa: S608
            self.record(event)

    def _replace_older(self, event: Event, keys: tuple[str, ...]) -> None:
        """A journaled replacement, inside the fold's transaction: it stands in for the events it
        matches unless one of them is later (journals renamed aside fold in name order, not time)."""
        where, values = _same(event, keys)
        later = self._db.execute(
            f"SELECT 1 FROM events WHERE kind = ? AND {where} AND at_ms > ? LIMIT 1",  # noqa: S608
            (*values, _ms(event.at)),
        ).fetchone()
        if later is None:
            self._db.execute(f"DELETE FROM events WHERE kind = ? AND {where}", values)  # noqa: S608
            self.record(event)

    def query(self, kind: str | None = None, since: datetime | None = None) -> list[Event]:
        """Events of `kind` (every kind when None) at or after `since`, oldest first."""
        self.fold()
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

    def count(self, kind: str, since: datetime | None = None) -> int:
        """How many events of `kind` at or after `since` (`len(query(...))` without reading them)."""
        self.fold()
        sql = "SELECT COUNT(*) FROM events WHERE at_ms >= ? AND kind = ?"
        return int(self._db.execute(sql, (_ms(since) if since is not None else 0, kind)).fetchone()[0])

    def prune(self) -> int:
        """Delete events older than the retention window; returns how many went."""
        cutoff = _ms(self._now() - self.retention)
        self._db.execute("DELETE FROM folded WHERE at_ms < ?", (cutoff,))
        return self._db.execute("DELETE FROM events WHERE at_ms < ?", (cutoff,)).rowcount

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> SqliteEventLog:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()


def _same(event: Event, keys: tuple[str, ...]) -> tuple[str, tuple[object, ...]]:
    """The SQL condition (after `kind = ?`) for events of `event`'s kind with its values of `keys`,
    and its parameters, the kind first."""
    _check_keys(keys)
    where = " AND ".join(f"json_extract(data, '$.{key}') IS ?" for key in keys)
    return where, (event.kind, *(event.data.get(key) for key in keys))


def _check_keys(keys: tuple[str, ...]) -> None:
    """Replacement keys are field names (they are written into SQL), and at least one."""
    if not keys or not all(_KEY.match(key) for key in keys):
        raise ValueError(f"replace keys must be field names: {keys!r}")


def _journal_events(path: Path, content: bytes) -> list[tuple[Event, tuple[str, ...]]]:
    """The journal's lines as events, each with the fields it replaces by (none for most); a line
    that is not one (a disk filled mid-write) is skipped with a warning naming the file, never
    failing the reader."""
    events: list[tuple[Event, tuple[str, ...]]] = []
    for number, line in enumerate(content.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            at = datetime.fromtimestamp(item["at"], UTC)
            replaces = item.get("replaces", [])
            if not isinstance(replaces, list):
                raise TypeError(f"replaces is not a list: {replaces!r}")
            keys = tuple(str(key) for key in replaces)
            if keys:
                _check_keys(keys)  # refused here, not inside the fold
            events.append((Event(kind=item["kind"], at=at, data=dict(item["data"])), keys))
        except (ValueError, KeyError, TypeError, OverflowError, OSError) as exc:
            logging.getLogger("homeostat.events").warning(
                "%s:%s: skipped, not an event (%s)", path, number, exc
            )
    return events


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
    """(events, the oldest event's time, bytes on disk) of a log and its journal, read-only: nothing
    is folded, pruned or created, so asking about a log never changes it. A missing or unreadable
    log is (0, None, 0)."""
    journal = journal_path(path)
    journaled = [journal, *_folding_files(journal)]
    pending = [
        event for file in journaled if file.is_file() for event, _ in _journal_events(file, _read(file))
    ]
    count, oldest = len(pending), min((event.at for event in pending), default=None)
    size = sum(_size(file) for file in journaled)
    if not path.is_file():
        return count, oldest, size
    size += sum(_size(p) for p in path.parent.glob(path.name + "*"))
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)) as db:
            stored, first = db.execute("SELECT COUNT(*), MIN(at_ms) FROM events").fetchone()
    except sqlite3.Error:
        return count, oldest, size
    if first is not None:
        at = datetime.fromtimestamp(first / 1000, UTC)
        oldest = at if oldest is None else min(oldest, at)
    return count + int(stored), oldest, size


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _size(path: Path) -> int:
    try:
        return path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0
