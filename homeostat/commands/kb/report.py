"""`homeostat report`: KB health, and what this machine's sessions used over recent days.

Counts by status, area, topic and kind; stale rules; open flags; the share of rules in catch-all
topics (drift invisible per rule, PEERS.md lesson 5); documents and sections; and validation's error
and warning counts. With an event log on this machine, the injections, MCP calls and desire paths of
the last `--days`.
"""

from __future__ import annotations

import argparse
import datetime as dt
from typing import TYPE_CHECKING

from homeostat.cli_options import add_format_option, add_kb_option, at_least, emit_json
from homeostat.errors import ConfigError
from homeostat.runs.measure.report import MAX_DAYS, health_report
from homeostat.workspace import Workspace

if TYPE_CHECKING:
    pass


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report", help="KB health", description="KB health and recent local usage."
    )
    parser.add_argument(
        "--days",
        type=at_least(1, MAX_DAYS),
        default=7,
        metavar="N",
        help=f"usage window in days (default 7, at most {MAX_DAYS})",
    )
    parser.add_argument("--today", help="the date to count staleness from, YYYY-MM-DD (default: today, UTC)")
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    try:
        today = dt.date.fromisoformat(args.today) if args.today else dt.datetime.now(dt.UTC).date()
    except ValueError:
        raise ConfigError(f"--today {args.today!r} is not a YYYY-MM-DD date") from None
    data, text = health_report(workspace.root, today, args.days)
    if args.format == "json":
        emit_json(data)
    else:
        workspace.out.write(text)
    return 0
