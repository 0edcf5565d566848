"""Recording local usage events (injections, MCP calls, syncs) without making anyone wait.

A session hook records an event on every message, and its caller waits for the hook to exit. So the
hook hands its events to a detached child process, and that child imports this module and the event
log alone: importing the `context` command to reach its recorder cost more CPU than the hook itself.
The event log failing never fails a session.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging
    from pathlib import Path

Scalar = str | int | float | bool | None
Stamped = tuple[str, Mapping[str, Scalar], float]  # kind, fields, seconds since the epoch

_RECORDER = (
    "import sys; from homeostat.adapters.event_recorder import record_payload; "
    "record_payload(sys.stdin.buffer.read())"
)


def log_event(root: Path, kind: str, data: Mapping[str, Scalar]) -> None:
    log_events(root, [(kind, data)])


def log_events(
    root: Path, events: Sequence[tuple[str, Mapping[str, Scalar]]], *, detach: bool = False
) -> None:
    """Record events in the KB clone's event log. With `detach`, a child process records them and
    this one does not wait (the event model and SQLite cost more than a hook's whole answer)."""
    if not events:
        return
    stamped = [(kind, dict(data), time.time()) for kind, data in events]
    if detach and hasattr(os, "posix_spawn"):
        try:
            _spawn_recorder(root, stamped)
            return
        except OSError as exc:
            _log().info("recording events in this process (%s)", exc)
    record_events(root, stamped)


def record_events(root: Path, events: Sequence[Stamped]) -> None:
    try:
        import datetime as dt

        from homeostat.adapters.event_log import SqliteEventLog, events_path
        from homeostat.core.events import Event

        with SqliteEventLog(events_path(root)) as sink:
            for kind, data, at in events:
                sink.record(Event(kind=kind, at=dt.datetime.fromtimestamp(at, dt.UTC), data=dict(data)))
    except Exception as exc:  # noqa: BLE001 - usage logging is best effort by design
        _log().warning(
            "could not record %s events in %s (%s)", len(events), root / ".homeostat/events.db", exc
        )


def record_payload(payload: bytes) -> None:
    """The detached recorder's entry point: `{"root": …, "events": [[kind, data, at], …]}` on stdin."""
    from pathlib import Path

    data = json.loads(payload)
    record_events(Path(data["root"]), [(kind, fields, at) for kind, fields, at in data["events"]])


def _spawn_recorder(root: Path, events: Sequence[Stamped]) -> None:
    payload = json.dumps({"root": str(root.resolve()), "events": events}).encode("utf-8")
    read, write = os.pipe()  # both ends close on exec, so the child holds only its stdin
    actions = [
        (os.POSIX_SPAWN_DUP2, read, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    try:
        os.posix_spawn(
            sys.executable, [sys.executable, "-c", _RECORDER], os.environ, file_actions=actions, setsid=True
        )
    finally:
        os.close(read)
    with os.fdopen(write, "wb") as pipe:
        pipe.write(payload)


def _log() -> logging.Logger:
    """Imported on first use: the warm path of a session hook logs nothing."""
    import logging

    return logging.getLogger("homeostat.events")
