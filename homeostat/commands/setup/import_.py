"""`homeostat import <checkout>`: a code repo's agent rule files, proposed as KB rules in one review PR.

Reads `.cursor/rules/*.mdc`, `.github/instructions/*.instructions.md`, `.github/copilot-instructions.md`,
`AGENTS.md` and `CLAUDE.md` (nested ones too), `.claude/rules/` and `.cursorrules`; splits them into
one-instruction candidate rules with their path scoping kept, and longer prose into document sections;
skips what `homeostat export` wrote; drops duplicates of the KB and of each other; blocks a candidate
holding a secret or risky content, with the finding. No model call. The PR (`homeostat/import-<repo>`)
is found again on a rerun, which proposes only what is new. `--dry-run` prints it all and writes nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
from pathlib import Path

from homeostat.cli_options import (
    add_checkout_option,
    add_format_option,
    add_kb_option,
    emit_json,
    one_of,
)
from homeostat.errors import ConfigError
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="bring a code repo's CLAUDE.md, AGENTS.md, Cursor and Copilot rule files under review",
        description=(
            "Propose the instructions in a code repo's agent rule files as KB rules, each with the path scoping "
            "its file gave it, in one review PR. No model call."
        ),
    )
    parser.add_argument("checkout_arg", nargs="?", metavar="CHECKOUT", help="the code repo's checkout")
    add_checkout_option(parser, "the code repo's checkout (the same as CHECKOUT)", default=None)
    parser.add_argument(
        "--repo", metavar="NAME", help="the repo's name in homeostat.yaml (default: from the checkout)"
    )
    parser.add_argument("--dry-run", action="store_true", help="print what would be proposed; write nothing")
    add_kb_option(parser)
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.adapters.source_reader import SourceReader
    from homeostat.core.kb import load_kb
    from homeostat.kb_origin import publisher_for
    from homeostat.runs.bootstrap.targets import target_for
    from homeostat.runs.imports import BRANCH_PREFIX, plan_import, pr_body, rows, summary
    from homeostat.runs.proposal import open_proposal, publish_proposal

    given = one_of(args, "checkout", "checkout_arg", "the checkout")
    if given is None:
        raise ConfigError("import needs the code repo's checkout: homeostat import DIR")
    root, kb, config = workspace.root, workspace.kb, workspace.config
    checkout = Path(given)
    target = target_for(config, checkout, args.repo)
    reader = SourceReader(checkout)
    now = dt.datetime.now(dt.UTC)
    pull_url = ""
    if args.dry_run:
        result = plan_import(config, kb.files["homeostat.yaml"], kb, target, reader, now)
    else:
        publisher = publisher_for(root, config)
        proposal = open_proposal(publisher, config.sources.base_branch, f"{BRANCH_PREFIX}{target.name}")
        base = load_kb(proposal.files)
        result = plan_import(config, proposal.files["homeostat.yaml"], base, target, reader, now)
        pull = publish_proposal(
            publisher,
            proposal,
            result.changed,
            title=f"Import {target.name}'s agent rule files: {len(rows(result, 'new'))} rules to review",
            body=pr_body(result, now.date()),
            config=config,
            areas=sorted({str(r["area"]) for r in rows(result, "new")}),
        )
        pull_url = pull.url if pull is not None else ""
    text = summary(result, pull_url)
    if args.format == "json":
        emit_json(
            {
                "repo": target.name,
                "dryRun": args.dry_run,
                "files": [f.path for f in result.files],
                "new": rows(result, "new"),
                "duplicates": rows(result, "duplicate"),
                "blocked": rows(result, "blocked"),
                "documents": sorted(p for p in result.changed if "/docs/" in p),
                "skipped": result.skipped,
                "own": result.own,
                "pr": pull_url or None,
                "text": text,
            }
        )
    else:
        print(text, end="")
    return 0
