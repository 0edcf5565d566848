"""`homeostat read <doc>#<section> | <doc> | <area>/<topic>#<rule> | <rule-id>`: one thing, in full.

A whole document prints each section once, with its source. A name that matches nothing is an
ordinary answer (with a hint to search), not a failure of the tool; the exit code is 1 so a script
can tell.
"""

from __future__ import annotations

import argparse

from homeostat.adapters.state.event_recorder import log_event
from homeostat.cli_options import add_checkout_option, add_format_option, add_kb_option, emit_json
from homeostat.core.render.read import found_data, render_found
from homeostat.runs.session import open_session
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read one document section or a whole document",
        description="Read a document section (<area>/<doc>#<section>), a whole document, a rule "
        "(<area>/<topic>#<id> or its id) or a whole topic (<area>/<topic>).",
    )
    parser.add_argument("target", help="what to read, e.g. billing/api/overview#errors")
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )
    add_checkout_option(parser)
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.core.selection.search import lookup

    session = open_session(args.kb, args.checkout, args.repo)
    found = lookup(session.corpus, args.target, session.audience)
    if args.format == "json":
        emit_json(found_data(args.target, found))
    else:
        workspace.out.write(render_found(found))
    if found.sections:
        log_event(
            session.root,
            "doc-read",
            {
                "source": "cli",
                "sections": len(found.sections),
                "ids": ",".join(s.key for s in found.sections),
            },
        )
    return 1 if found.empty else 0
