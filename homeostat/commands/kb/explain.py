"""`homeostat explain <id>`: where a rule came from, why it scores what it does, who owns it, what it
conflicts with, and (with `--files`) where selection ranks it for those files.

This reads the KB itself rather than the cached corpus, because provenance and flags are not part of
what agents are served.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from homeostat.cli_options import (
    add_checkout_option,
    add_files_option,
    add_format_option,
    add_kb_option,
    emit_json,
)
from homeostat.runs.explain import explain
from homeostat.runs.session import open_session
from homeostat.workspace import Workspace

if TYPE_CHECKING:
    pass


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="a rule's source, score breakdown, owner and conflicts",
        description="Explain one rule: source, score breakdown, owner, conflicts; with --files, its rank.",
    )
    parser.add_argument("id", help="the rule id")
    add_files_option(parser, "also show where selection ranks it for this file")
    add_format_option(parser)
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )
    add_checkout_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.adapters.kb_files import load_kb_dir

    session = open_session(args.kb, args.checkout, args.repo)
    kb = load_kb_dir(session.root)
    result = explain(kb, session, args.id, args.files, Path(args.checkout))
    if args.format == "json":
        emit_json(result.to_data())
    else:
        workspace.out.write(result.text())
    return 0 if result.found else 1
