"""`homeostat docs`: the documents this repo may read, by id, with their section ids."""

from __future__ import annotations

import argparse

from homeostat.cli_options import add_checkout_option, add_format_option, add_kb_option, emit_json
from homeostat.core.render.view import render_docs
from homeostat.runs.session import open_session
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "docs", help="list documents and their sections", description="List the documents this repo may read."
    )
    add_format_option(parser)
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )
    add_checkout_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    session = open_session(args.kb, args.checkout, args.repo)
    corpus, audience = session.corpus, session.audience
    if args.format == "json":
        docs: dict[str, dict[str, object]] = {}
        for s in corpus.sections:
            if audience.sees(s.area, corpus):
                doc = docs.setdefault(
                    s.doc_id, {"id": s.doc_id, "title": s.doc_title, "area": s.area, "sections": []}
                )
                doc["sections"].append({"id": s.id, "heading": s.heading})  # type: ignore[attr-defined]
        emit_json({"documents": list(docs.values())})
    else:
        workspace.out.write(render_docs(corpus, audience))
    return 0
