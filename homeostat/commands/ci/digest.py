"""`homeostat digest`: the weekly Slack digest of the KB, built without a model.

The KB is the checkout the job runs in; the digest reads its origin's base branch and state branch
(git only, no host API token needed beyond what git pushes with) and posts to the webhook in the
variable `notifications.slackWebhookEnv` names. Inside GitHub Actions it writes its counts as step
outputs and the digest as the job summary.
"""

from __future__ import annotations

import argparse
import sys

from homeostat.cli_options import add_format_option, add_kb_option, emit_json
from homeostat.core.measure import digest as digests
from homeostat.core.render.slack_blocks import block_text
from homeostat.runs.digest import DigestDeps, DigestOptions, DigestResult, events_desire_paths, run_digest
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "digest",
        help="the weekly Slack digest: new and reconfirmed rules, updated sections, the review queue",
        description=(
            "Post the week's digest to Slack: new and reconfirmed rules, rejected decisions, updated "
            "document sections, the review queue (overdue marked), open flags and disputes, guessed "
            "MCP tool names where this machine keeps an event log, and review lessons that re-taught a "
            "rule already in force. Covers the time since the last digest "
            "that reached Slack (recorded on the state branch), or the last 7 days. No model is asked."
        ),
    )
    add_kb_option(parser)
    parser.add_argument(
        "--print", action="store_true", help="print the digest's text; post nothing and record nothing"
    )
    parser.add_argument(
        "--since",
        metavar="DATE",
        help="start the digest at this date (YYYY-MM-DD) or ISO time instead of the last digest",
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.adapters.slack import slack_notifier_from_env
    from homeostat.cli_options import parse_when
    from homeostat.kb_origin import origin_git
    from homeostat.runs.curate import kb_repo_ref

    root, config = workspace.root, workspace.config
    env = workspace.env
    git = origin_git(root, config, env)
    kb_repo = kb_repo_ref(config, git.remote_url("origin"))
    found = "" if args.print else slack_notifier_from_env(config.notifications, env, what="the digest")
    deps = DigestDeps(
        git=git,
        config=config,
        kb_repo=kb_repo,
        out=sys.stderr if args.format == "json" else workspace.out,
        notifier=None if isinstance(found, str) else found,
        notifier_missing=found if isinstance(found, str) else "",
        desire_paths=events_desire_paths(root),
        kb_name=kb_repo.full_name if kb_repo is not None else root.resolve().name,
    )
    result = run_digest(deps, DigestOptions(print_only=args.print, since=parse_when(args.since, "--since")))
    if args.format == "json":
        emit_json(as_json(result))
    elif not args.print and not result.skipped:
        where = "posted to Slack" if result.posted else "not posted"
        print(f"digest: {where}; {digests.summary_line(result.digest)}")
    _ci(result)
    return 0


def as_json(result: DigestResult) -> dict[str, object]:
    digest = result.digest
    return {
        "since": digest.since.isoformat(),
        "until": digest.until.isoformat(),
        "posted": result.posted,
        "recorded": result.recorded,
        "skipped": result.skipped or None,
        "counts": digest.counts,
        "summary": digests.summary_line(digest),
        "text": block_text(result.message.blocks),
        "blocks": [dict(block) for block in result.message.blocks],
        "notices": [{"kind": n.kind, "message": n.message} for n in result.notices],
    }


def _ci(result: DigestResult) -> None:
    """Inside GitHub Actions: the counts as step outputs, the digest (or why none was posted) as the
    job summary."""
    from homeostat.adapters.hosts import github_actions

    if github_actions.in_github_actions():
        github_actions.write_outputs(digests.ci_outputs(result.digest, posted=result.posted))
        summary = digests.digest_markdown(result.digest, result.notices)
        if result.skipped:
            summary = f"## Homeostat digest\n\nNothing posted: {result.skipped}.\n"
        github_actions.append_summary(summary)
        github_actions.write_commands(digests.workflow_commands(result.notices))
