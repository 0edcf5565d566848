"""KB health with recent local usage: what `report`, the MCP `health` tool and the hold list share."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from homeostat.adapters.state.event_log import SqliteEventLog
    from homeostat.core.kb import KB
    from homeostat.core.measure.health import Health
    from homeostat.core.validate import ValidationResult


USAGE_KINDS = ("injection", "doc-injection", "doc-read", "mcp-call", "desire-path")


MAX_DAYS = 3650  # ten years: the event log keeps nothing older, and a date before year 1 does not exist


def usage(root: Path, days: int, log: SqliteEventLog | None = None) -> dict[str, int] | None:
    """Event counts by kind from `.homeostat/events.db`, or None when this machine has no log.
    `log`: one the caller keeps open (the MCP server), else it is opened for this count."""
    from homeostat.adapters.state.event_log import SqliteEventLog, events_path, log_exists

    since = dt.datetime.now(dt.UTC) - dt.timedelta(days=days)
    if log is not None:
        return _counts(log, since)
    path = events_path(root)
    if not log_exists(path):
        return None
    with SqliteEventLog(path) as opened:
        return _counts(opened, since)


def _counts(log: SqliteEventLog, since: dt.datetime) -> dict[str, int]:
    return {kind: log.count(kind, since) for kind in USAGE_KINDS}


class Held(NamedTuple):
    """What the MCP server keeps for the report while the KB's key (and the day) is unchanged."""

    kb: KB
    result: ValidationResult
    health: Health


def hold(kb: KB, result: ValidationResult, today: dt.date) -> Held:
    """The KB's health for `today`: everything of the report but the recent use."""
    from homeostat.core.measure.health import kb_health
    from homeostat.core.validate.structure_checks import CATCH_ALL_TOPICS

    config = kb.require_config()
    health = kb_health(
        kb, today, config.scoring.stale_after_days, CATCH_ALL_TOPICS, len(result.errors), len(result.warnings)
    )
    return Held(kb, result, health)


def health_report(
    root: Path, today: dt.date, days: int, held: Held | None = None, log: SqliteEventLog | None = None
) -> tuple[dict[str, object], str]:
    """`held` and `log`: the KB's health and the event log when the caller keeps them (the MCP
    server, while the KB is unchanged); else the KB is read and validated, and the log opened, now."""
    from homeostat.adapters.kb_files import load_kb_dir
    from homeostat.core.measure.health import render_health
    from homeostat.core.validate import validate_kb

    if held is None:
        kb = load_kb_dir(root)
        kb.require_config()  # a broken homeostat.yaml is said before anything is validated
        held = hold(kb, validate_kb(kb, today), today)
    kb, health = held.kb, held.health
    counts = usage(root, days, log)
    data = health.to_data()
    data["unreadable"] = [str(u) for u in kb.unreadable]
    data["usage"] = {"days": days, **counts} if counts is not None else None
    text = render_health(health, counts, days)
    if kb.unreadable:
        text += f"Unreadable, left out of what agents read: {len(kb.unreadable)} ({kb.unreadable[0]})\n"
    return data, text
