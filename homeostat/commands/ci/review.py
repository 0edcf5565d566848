"""`homeostat review merge <PR-number|--all>`: rebuild review and dispute PRs on the base and merge them.

The same credentials as `homeostat daily` (`GITHUB_TOKEN` or `HOMEOSTAT_GITHUB_TOKEN`, or Bitbucket's
variables); the KB is the checkout the job runs in, whose origin git pushes the rebuilt branch to.
Inside GitHub Actions it writes step outputs and a job summary. Exit 0 when every PR merged (or was
already merged or closed), 1 when one was left open for a person, 2 for a PR that is not Homeostat's.
"""

from __future__ import annotations

import argparse
import json
import sys

from homeostat.cli_options import add_format_option, add_kb_option, at_least, emit_json
from homeostat.runs.review import (
    ReviewMergeDeps,
    ReviewMergeOptions,
    ReviewMergeResult,
    run_review_merge,
)
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "review",
        help="review merge: rebuild review and dispute PRs on the base, section by section, and merge them",
        description="Work on Homeostat's review and dispute PRs.",
    )
    actions = parser.add_subparsers(dest="action", metavar="<action>", required=True)
    merge = actions.add_parser(
        "merge",
        help="rebuild a review or dispute PR on the current base and merge it",
        description=(
            "Rebuild a review or dispute PR on the current base branch, merging topic files and documents "
            "section by section (two additions to one section are combined; two rewrites are not), push "
            "it, wait until the host shows it as the PR's head, and squash-merge it. Only a PR a team member "
            "who wrote none of its lessons approved at its head is merged. A PR whose same rule changed on "
            "both sides is left open with one comment saying which rule and why."
        ),
    )
    which = merge.add_mutually_exclusive_group(required=True)
    which.add_argument("number", nargs="?", type=at_least(1), metavar="PR", help="the PR's number")
    which.add_argument("--all", action="store_true", help="every open review and dispute PR, oldest first")
    add_kb_option(merge)
    merge.add_argument(
        "--dry-run",
        action="store_true",
        help="check the approval, rebuild and print; push, comment and merge nothing",
    )
    add_format_option(merge)
    merge.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.kb_origin import origin_git, origin_host

    root, config = workspace.root, workspace.config
    env = workspace.env
    git = origin_git(root, config, env)
    host, kb_repo = origin_host(config, git, env)
    deps = ReviewMergeDeps(
        git=git,
        host=host,
        kb_repo=kb_repo,
        config=config,
        out=sys.stderr if args.format == "json" else workspace.out,
    )
    options = ReviewMergeOptions(number=None if args.all else args.number, dry_run=args.dry_run)
    result = run_review_merge(deps, options)
    if args.format == "json":
        emit_json(as_json(result, dry_run=args.dry_run))
    _ci(result, single=not args.all)
    return result.exit_code


def as_json(result: ReviewMergeResult, *, dry_run: bool) -> dict[str, object]:
    return {
        "dryRun": dry_run,
        "merged": result.count("merged"),
        "leftOpen": result.count("left-open") + result.count("failed"),
        "skipped": result.count("skipped"),
        "pulls": [
            {
                "number": o.number,
                "url": o.url,
                "outcome": o.outcome,
                "reason": o.reason,
                "rebuilt": o.rebuilt,
                "mergeSha": o.merge_sha or None,
            }
            for o in result.outcomes
        ],
    }


def ci_outputs(result: ReviewMergeResult, *, single: bool) -> dict[str, str]:
    merged = [o.url for o in result.outcomes if o.outcome == "merged"]
    return {
        "merged": str(len(merged)),
        "left-open": str(result.count("left-open") + result.count("failed")),
        "skipped": str(result.count("skipped")),
        "pr-url": result.outcomes[0].url if single and result.outcomes else "",
        "merged-urls": json.dumps(merged),
    }


def summary(result: ReviewMergeResult) -> str:
    lines = ["## Homeostat review merge", ""]
    if not result.outcomes:
        return "\n".join([*lines, "No open review or dispute PR.", ""])
    lines += ["| PR | Outcome | Why |", "| --- | --- | --- |"]
    for o in result.outcomes:
        why = " ".join(o.reason.replace("|", "\\|").split())
        lines.append(f"| [#{o.number}]({o.url}) | {o.outcome} | {why} |")
    return "\n".join(lines) + "\n"


def _ci(result: ReviewMergeResult, *, single: bool) -> None:
    from homeostat.adapters.hosts import github_actions
    from homeostat.core.render.findings import escape_data

    if not github_actions.in_github_actions():
        return
    github_actions.write_outputs(ci_outputs(result, single=single))
    github_actions.append_summary(summary(result))
    commands = "".join(
        f"::warning title=homeostat review merge::PR #{o.number} {escape_data(o.reason)}\n"
        for o in result.outcomes
        if o.outcome in ("left-open", "failed")
    )
    github_actions.write_commands(commands)
