"""`homeostat search "…"`: keyword search over the rules and document sections this repo may read.

The same search the MCP `search` tool, `homeostat eval` and the per-message match use: BM25 over the
cached corpus, no model call. Ten hits with snippets by default; rejected decisions appear, labelled,
because knowing what was decided against is context too.
"""

from __future__ import annotations

import argparse

from homeostat.cli_options import add_checkout_option, add_format_option, add_kb_option, at_least, emit_json
from homeostat.core.render.view import render_hits
from homeostat.core.selection.search import DEFAULT_LIMIT, Hit, search_entries, topic_listing
from homeostat.errors import ConfigError
from homeostat.runs.session import open_session
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "search",
        help="keyword search over rules and document sections",
        description="Keyword search (BM25, no model call) over the rules and document sections of this repo.",
    )
    parser.add_argument("query", nargs="*", help="words to search for")
    parser.add_argument(
        "--limit",
        type=at_least(1),
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"hits to show (default {DEFAULT_LIMIT})",
    )
    parser.add_argument("--group", action="store_true", help="one hit per document (and per topic file)")
    parser.add_argument("--topic", metavar="T", help="with --all: every rule of topic T (or <area>/<topic>)")
    parser.add_argument("--all", action="store_true", help="no cutoff (with --topic: list the whole topic)")
    add_format_option(parser)
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )
    add_checkout_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def hit_data(hit: Hit) -> dict[str, object]:
    """A hit with every key present (`topic` empty for a section, `rejected` false for most)."""
    data = hit.to_data()
    return {"topic": "", "rejected": False, **data}


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    query = " ".join(args.query).strip()
    if args.topic and not args.all:
        raise ConfigError(
            "--topic lists a whole topic; pass it with --all (homeostat search --topic T --all)"
        )
    if not query and not args.topic:
        raise ConfigError(
            'search needs words to look for: homeostat search "retry budget" (or --topic T --all)'
        )
    session = open_session(args.kb, args.checkout, args.repo)
    if args.topic:
        hits = topic_listing(session.corpus, args.topic, session.audience)
    else:
        limit = None if args.all else args.limit
        hits = search_entries(session.corpus, query, session.audience, limit=limit, group=args.group)
    if args.format == "json":
        emit_json({"query": query, "topic": args.topic, "hits": [hit_data(h) for h in hits]})
    else:
        workspace.out.write(render_hits(hits, query or args.topic))
    return 0
