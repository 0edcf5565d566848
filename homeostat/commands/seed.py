"""`homeostat seed <checkout>`: one code repo's documents, drafted from its code into the KB checkout.

Run by hand, never on a schedule: it is one of the two commands that read source code. It prints
every file each topic's prompt would hold and the estimated cost, then asks before the first model
call (`--yes` answers for a script; without a terminal it must be given); `--dry-run` stops after
the preview. The documents are written into the KB checkout (`--kb`); review and commit them like any
change, or use `homeostat bootstrap`, which opens the PR itself.
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
from typing import TextIO

from homeostat.cli_options import (
    add_checkout_option,
    add_format_option,
    add_kb_option,
    emit_json,
    kb_dir,
    one_of,
)
from homeostat.core.asker import Asker, RunStats, resolve_agent, spending_cap
from homeostat.core.bootstrap.pickers import TOPICS
from homeostat.core.bootstrap.plan import RepoPlan
from homeostat.core.config import Config
from homeostat.errors import ConfigError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "seed",
        help="draft one code repo's documents from its code (by hand; previews and asks first)",
        description=(
            "Draft one code repo's documents (architecture, conventions, cross-repo, data, infrastructure) "
            "from its checkout into the KB checkout. Previews every file and the cost, and asks first."
        ),
    )
    parser.add_argument("checkout_arg", nargs="?", metavar="CHECKOUT", help="the code repo's checkout")
    add_seed_options(parser)
    add_checkout_option(parser, "the code repo's checkout (the same as CHECKOUT)", default=None)
    parser.add_argument(
        "--repo", metavar="NAME", help="the repo's name in homeostat.yaml (default: from the checkout)"
    )
    parser.set_defaults(run=run)


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
    from homeostat.adapters.event_log import run_events

    stats = RunStats()
    with run_events(root, os.environ) as sink:
        built: list[Asker] = []

        def asker() -> Asker:
            if not built:
                from homeostat.adapters.askers import asker_for

                built.append(asker_for("bootstrap", config, stats, sink=sink, max_cost_usd=args.max_cost))
            return built[0]

        yield asker, stats


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


def run(args: argparse.Namespace) -> int:
    from homeostat.adapters.kb_files import load_kb_dir, write_changed
    from homeostat.runs.bootstrap import SeedDeps, run_seed
    from homeostat.runs.bootstrap.targets import target_for

    check_cost(args)
    given = one_of(args, "checkout", "checkout_arg", "the checkout")
    if given is None:
        raise ConfigError("seed needs the code repo's checkout: homeostat seed DIR")
    root = Path(kb_dir(args.kb))
    kb = load_kb_dir(root)
    config = kb.require_config()
    target = target_for(config, Path(given), args.repo, args.topic or TOPICS)
    out = output(args)
    with model_access(config, root, args) as (asker, stats):
        deps = SeedDeps(
            config=config,
            config_text=kb.files["homeostat.yaml"],
            asker=asker,
            confirm=confirm_with(args, "seed"),
            out=out,
            today=dt.datetime.now(dt.UTC).date(),
            model=resolve_agent("bootstrap", config.agents).model,
            cap=spending_cap(config.agents, args.max_cost),
            err=sys.stderr,
            cost=lambda: stats.cost_usd,
        )
        outcome = run_seed(deps, target, kb.files, dry_run=args.dry_run)
    written = write_changed(root, outcome.results[0].files) if outcome.results else []
    if args.format == "json":
        emit_json(
            {
                "dryRun": args.dry_run,
                "plans": [plan_json(p) for p in outcome.plans],
                "written": written,
                "costUsd": round(stats.cost_usd, 6),
                "exitCode": outcome.exit_code,
                "text": out.getvalue() if isinstance(out, io.StringIO) else "",
            }
        )
    return outcome.exit_code
