"""`homeostat events`: this machine's event log (`.homeostat/events.db`), newest last.

The log keeps 90 days: opening it deletes older events, so reading it also prunes it. Events hold
names, ids, sizes and counts only (see `homeostat.core.events`).
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime

from homeostat.adapters.state.event_log import RETENTION_DAYS, SqliteEventLog, events_path, log_exists
from homeostat.cli_options import add_format_option, add_kb_option, emit_json
from homeostat.console import note
from homeostat.core.events import format_event, parse_since
from homeostat.errors import ConfigError, KBReadError
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "events",
        help="this machine's event log: injections, MCP calls, syncs, turn usage, model calls",
        description=f"List the local event log, oldest first (it keeps {RETENTION_DAYS} days).",
    )
    parser.add_argument(
        "--kind", metavar="K", help="only events of this kind (injection, sync, turn-usage, …)"
    )
    parser.add_argument("--since", metavar="D", help="only events since an age (24h, 7d) or an ISO date")
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    root = workspace.root
    if not root.is_dir():  # a mistyped --kb is no empty log
        raise KBReadError(f"{root}: no such folder; run events in a KB clone or pass --kb")
    since = None
    if args.since:
        try:
            since = parse_since(args.since, datetime.now(UTC))
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
    path = events_path(root)
    found = []
    if log_exists(path):
        with SqliteEventLog(path) as log:
            found = log.query(args.kind, since)
    if args.format == "json":
        emit_json({"events": [e.as_dict() for e in found]})
    else:
        for event in found:
            workspace.out.write(format_event(event) + "\n")
        if not found:
            note(f"no events in {path}" + (" matching" if args.kind or since else ""))
    return 0
