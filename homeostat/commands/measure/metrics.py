"""`homeostat metrics`: how well the KB is working, from the clone's copy of the state branch (as of
the last fetch: no network call) and this machine's event log. The computation is
`homeostat.core.measure.metrics`, shared with the dashboard.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime

from homeostat.cli_options import add_format_option, add_kb_option
from homeostat.core.measure.metrics import compute_metrics, render_metrics
from homeostat.errors import ConfigError
from homeostat.runs.measure.metrics import accepted_ids, local_events, local_state
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "metrics",
        help="decisions, calibration, review latency, reach, cost, turn usage and the repeat-lesson rate",
        description=(
            "Metrics from the clone's copy of the state branch and the local event log: share merged "
            "without a person, calibration per confidence band, review latency, reach, cost per step, "
            "turns that looked something up and credited it, rules served but never credited, and the "
            "repeat-lesson rate: review lessons that re-taught a rule already in force, per rule."
        ),
    )
    parser.add_argument("--days", type=int, default=30, metavar="N", help="the window (default: 30 days)")
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    if args.days < 1:
        raise ConfigError(f"--days {args.days}: pass at least 1")
    root = workspace.root
    snapshot = local_state(root)
    from homeostat.runs.sync import read_config

    members = [member.handle for member in read_config(root).team.members]
    metrics = compute_metrics(
        snapshot, local_events(root), datetime.now(UTC), args.days, accepted_ids(root), members
    )
    if args.format == "json":
        workspace.out.write(json.dumps(metrics.to_data(), indent=2) + "\n")
    else:
        workspace.out.write(render_metrics(metrics))
    return 0
