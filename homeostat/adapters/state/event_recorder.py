"""Recording local usage events (injections, MCP calls, syncs) without making anyone wait.

A session hook records an event on every message and an MCP server on every call, and opening the
SQLite log cost them ~25 ms each time. So a recorder appends one JSON line per event to the journal
beside the log (`.homeostat/events.jsonl`) with a single `O_APPEND` write, and the next process that
opens the log folds the journal in (`adapters.state.event_log`). This module imports nothing but the
standard library's smallest parts, so a hook pays for none of the event model or SQLite. Holding a
shared lock while it writes, and checking that the file it opened is still the journal, lets a
folder rename the journal aside and know no line is still on its way into it. The event log
failing never fails a session.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

    from homeostat.adapters.plain_files import StrPath

Scalar = str | int | float | bool | None
Stamped = tuple[str, Mapping[str, Scalar], float]  # kind, fields, seconds since the epoch

JOURNAL = ".homeostat/events.jsonl"  # beside EVENTS_DB (event_log.journal_path)
_ATTEMPTS = 5  # re-opens when a folder renames the journal between our open and our lock


def log_event(root: StrPath, kind: str, data: Mapping[str, Scalar]) -> None:
    log_events(root, [(kind, data)])


def log_events(
    root: StrPath, events: Sequence[tuple[str, Mapping[str, Scalar]]], replaces: Sequence[str] = ()
) -> None:
    """Record events in the KB clone's event log: appended here, in this process (appending a line
    costs less than starting a process to record for us). `replaces`: field names; each event then
    stands in for any earlier event of its kind with the same values of them (a turn's usage, re-read
    once the transcript has caught up), as the journal is folded."""
    if not events:
        return
    record_events(root, [(kind, dict(data), time.time()) for kind, data in events], replaces)


def record_events(root: StrPath, events: Sequence[Stamped], replaces: Sequence[str] = ()) -> None:
    """Append the events to the journal in one write (several events: several lines, one write)."""
    if not events:
        return
    extra = {"replaces": list(replaces)} if replaces else {}
    payload = "".join(
        json.dumps({"kind": kind, "at": at, "data": dict(data), **extra}, separators=(",", ":")) + "\n"
        for kind, data, at in events
    ).encode("utf-8")
    path = os.path.join(os.fspath(root), JOURNAL)
    try:
        append_to_journal(path, payload)
    except (OSError, TypeError, ValueError) as exc:  # usage logging is best effort by design
        _log().warning("could not record %s events in %s (%s)", len(events), path, exc)


def append_to_journal(path: str, payload: bytes) -> None:
    """One `O_APPEND` write under a shared lock, to the file that is the journal at that moment."""
    import fcntl

    for _ in range(_ATTEMPTS):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except FileNotFoundError:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            opened = os.fstat(fd)
            try:
                current = os.stat(path)
            except FileNotFoundError:
                continue  # renamed aside to be folded: open the new journal
            if (opened.st_dev, opened.st_ino) != (current.st_dev, current.st_ino):
                continue
            written = os.write(fd, payload)
            if written != len(payload):  # a full disk: end the torn line so the next one stands
                os.write(fd, b"\n")
                raise OSError(f"wrote {written} of {len(payload)} bytes")
            return
        finally:
            os.close(fd)
    raise OSError(f"the journal kept moving ({_ATTEMPTS} attempts)")


def _log() -> logging.Logger:
    """Imported on first use: the warm path of a session hook logs nothing."""
    import logging

    return logging.getLogger("homeostat.events")
