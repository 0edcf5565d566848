"""What `seed` and `bootstrap` share at the command line: their options, the y/N question before
source code goes to the model, the model's access built on first use, where text goes, the run's
dependencies built from all of these (`seed_deps`), and the JSON answer (`emit_seed_json`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from homeostat.cli_options import (
    add_format_option,
    add_kb_option,
    emit_json,
)
from homeostat.core.asker import Asker, RunStats, resolve_agent, spending_cap
from homeostat.core.bootstrap.pickers import TOPICS
from homeostat.core.bootstrap.plan import RepoPlan
from homeostat.core.config import Config
from homeostat.errors import ConfigError

if TYPE_CHECKING:
    from homeostat.runs.bootstrap.seed import Outcome, SeedDeps
    from homeostat.workspace import Workspace


def add_seed_options(parser: argparse.ArgumentParser) -> None:
    """The options seed and bootstrap share."""
    parser.add_argument(
        "--topic",
        action="append",
        choices=TOPICS,
        metavar="TOPIC",
        help=f"draft only this topic (repeat; default: all of {', '.join(TOPICS)})",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print the files and the cost; send and write nothing"
    )
    parser.add_argument("--yes", action="store_true", help="do not ask before the first model call (for CI)")
    parser.add_argument(
        "--max-cost", type=float, metavar="USD", help="spending cap for this run (default: agents.maxCostUsd)"
    )
    add_kb_option(parser)
    add_format_option(parser)


def confirm_with(args: argparse.Namespace, what: str) -> Callable[[str], bool]:
    """How to ask a person: `--yes` answers; at a terminal, a y/N question; elsewhere it is an error."""

    def confirm(question: str) -> bool:
        if args.yes:
            return True
        if not sys.stdin.isatty():
            raise ConfigError(
                f"{what} sends source code to the model: pass --yes to confirm (or --dry-run to only preview)"
            )
        print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    return confirm


def check_cost(args: argparse.Namespace) -> None:
    if args.max_cost is not None and args.max_cost < 0:
        raise ConfigError(
            f"--max-cost {args.max_cost:g} is negative: give a cap in US dollars, e.g. --max-cost 2"
        )


@contextmanager
def model_access(
    config: Config, root: Path, args: argparse.Namespace
) -> Iterator[tuple[Callable[[], Asker], RunStats]]:
    """The bootstrap agent's Asker, built on first use (a dry run needs no key), and the run's stats."""
    from homeostat.adapters.state.event_log import run_events

    stats = RunStats()
    with run_events(root, os.environ) as sink:
        built: list[Asker] = []

        def asker() -> Asker:
            if not built:
                from homeostat.adapters.models.askers import asker_for

                built.append(asker_for("bootstrap", config, stats, sink=sink, max_cost_usd=args.max_cost))
            return built[0]

        yield asker, stats


@contextmanager
def seed_deps(
    args: argparse.Namespace, workspace: Workspace, what: str
) -> Iterator[tuple[SeedDeps, RunStats]]:
    """What a seed or bootstrap run is given, and the stats its calls add to (their cost is read after
    the run): the KB's config, the bootstrap agent built on first use, the question `what` asks before
    the first call (`confirm_with`), where its text goes (`output`) and its spending cap."""
    from homeostat.runs.bootstrap.seed import SeedDeps

    config = workspace.config
    with model_access(config, workspace.root, args) as (asker, stats):
        yield (
            SeedDeps(
                config=config,
                config_text=workspace.kb.files["homeostat.yaml"],
                asker=asker,
                confirm=confirm_with(args, what),
                out=output(args),
                today=dt.datetime.now(dt.UTC).date(),
                model=resolve_agent("bootstrap", config.agents).model,
                cap=spending_cap(config.agents, args.max_cost),
                err=sys.stderr,
                cost=lambda: stats.cost_usd,
            ),
            stats,
        )


def emit_seed_json(
    args: argparse.Namespace, deps: SeedDeps, outcome: Outcome, stats: RunStats, code: int, **own: object
) -> None:
    """With --format json, the run as one object: its plans, what the command adds (`own`: the files
    seed wrote, the PRs and notes of bootstrap), the cost, the exit code and the text it collected."""
    if args.format != "json":
        return
    emit_json(
        {
            "dryRun": args.dry_run,
            "plans": [plan_json(p) for p in outcome.plans],
            **own,
            "costUsd": round(stats.cost_usd, 6),
            "exitCode": code,
            "text": deps.out.getvalue() if isinstance(deps.out, io.StringIO) else "",
        }
    )


def output(args: argparse.Namespace) -> TextIO:
    """Text goes to stdout; with --format json it is collected for the JSON object's `text`."""
    return io.StringIO() if args.format == "json" else sys.stdout


def plan_json(plan: RepoPlan) -> dict[str, object]:
    return {
        "repo": plan.name,
        "checkout": plan.checkout,
        "topics": [
            {
                "topic": t.topic,
                "document": t.document,
                "files": list(t.files),
                "skipped": t.skipped,
                "inputTokens": t.estimate.input_tokens,
                "costUsd": round(t.estimate.cost_usd, 6),
            }
            for t in plan.topics
        ],
        "docs": [{"path": d.path, "document": d.draft.path, "skipped": d.skipped} for d in plan.docs],
        "neverRead": dict(sorted(plan.never_read.items())),
        "refused": dict(sorted(plan.refused.items())),
        "unreadable": dict(sorted(plan.unreadable.items())),
    }
