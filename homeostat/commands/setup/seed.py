"""`homeostat seed <checkout>`: one code repo's documents, drafted from its code into the KB checkout.

Run by hand, never on a schedule: it is one of the two commands that read source code. It prints
every file each topic's prompt would hold and the estimated cost, then asks before the first model
call (`--yes` answers for a script; without a terminal it must be given); `--dry-run` stops after
the preview. The documents are written into the KB checkout (`--kb`); review and commit them like any
change, or use `homeostat bootstrap`, which opens the PR itself.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from homeostat.cli_options import add_checkout_option, one_of
from homeostat.cli_seed import add_seed_options, check_cost, emit_seed_json, seed_deps
from homeostat.core.bootstrap.pickers import TOPICS
from homeostat.errors import ConfigError
from homeostat.workspace import Workspace


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


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.adapters.kb_files import write_changed
    from homeostat.runs.bootstrap.seed import run_seed
    from homeostat.runs.bootstrap.targets import target_for

    check_cost(args)
    given = one_of(args, "checkout", "checkout_arg", "the checkout")
    if given is None:
        raise ConfigError("seed needs the code repo's checkout: homeostat seed DIR")
    target = target_for(workspace.config, Path(given), args.repo, args.topic or TOPICS)
    with seed_deps(args, workspace, "seed") as (deps, stats):
        outcome = run_seed(deps, target, workspace.kb.files, dry_run=args.dry_run)
    written = write_changed(workspace.root, outcome.results[0].files) if outcome.results else []
    emit_seed_json(args, deps, outcome, stats, outcome.exit_code, written=written)
    return outcome.exit_code
