"""`homeostat bootstrap`: seed every repo of homeostat.yaml from its local checkout, one PR per repo.

Each repo's documents are drafted from its code (as `seed` does) and its own Markdown docs imported
without a model, into a PR on `homeostat/bootstrap-<repo>` that a person reviews and merges. The
checkouts are found in `--checkouts` folders (default: the folder the KB checkout sits in). Run by
hand: it previews every file and the cost, asks before the first call (`--yes` in CI), and stops
at the spending cap, listing the topics left for a rerun. A rerun over unchanged sources makes no
call and opens nothing.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from homeostat.cli_options import existing_folder
from homeostat.cli_seed import add_seed_options, check_cost, emit_seed_json, seed_deps
from homeostat.console import note
from homeostat.core.bootstrap.pickers import TOPICS
from homeostat.errors import ConfigError
from homeostat.kb_origin import publisher_for
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bootstrap",
        help="seed every repo from its local checkout and import its docs, one PR per repo",
        description=(
            "Draft every code repo's documents from its local checkout, import its Markdown docs, and open "
            "one PR per repo. Previews every file and the cost, and asks before the first model call."
        ),
    )
    parser.add_argument(
        "--checkouts",
        nargs="+",
        metavar="DIR",
        type=existing_folder,
        help="checkouts, or folders holding them (default: the folder the KB checkout is in)",
    )
    add_seed_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.runs.bootstrap import run_bootstrap
    from homeostat.runs.bootstrap.targets import find_targets

    check_cost(args)
    root, config = workspace.root, workspace.config
    folders = [Path(d) for d in args.checkouts] if args.checkouts else [root.resolve().parent]
    targets, notes = find_targets(config, folders, args.topic or TOPICS, root)
    for line in notes:
        note(line)
    if not targets:
        raise ConfigError(
            f"no checkout of any repo in homeostat.yaml was found in {', '.join(map(str, folders))}: "
            "clone them there or pass --checkouts DIR"
        )
    publisher = None if args.dry_run else publisher_for(root, config)
    with seed_deps(args, workspace, "bootstrap") as (deps, stats):
        outcome = run_bootstrap(deps, targets, workspace.kb.files, publisher, dry_run=args.dry_run)
    code = max(outcome.exit_code, 1 if notes and any("no checkout" in n for n in notes) else 0)
    emit_seed_json(args, deps, outcome, stats, code, prs=outcome.pulls, notes=notes)
    return code
