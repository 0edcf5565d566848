"""`homeostat daily`: wire the daily run to the CI environment's host, model and Slack credentials.

Credentials come from the names the ecosystem already uses: `GITHUB_TOKEN` (or
`HOMEOSTAT_GITHUB_TOKEN`) and `GITHUB_API_URL` as the Actions runner sets them; Bitbucket's variables
plus an API token; `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL` as the anthropic SDK reads them; the Slack
webhook from the variable `notifications.slackWebhookEnv` names. The KB is the checkout the job runs in.
`--offline` needs none of them: it decides this clone's own pending lessons with no host and no model.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
from collections import Counter
from collections.abc import Callable, Mapping
from typing import TextIO

from homeostat.adapters.state.event_log import run_events
from homeostat.cli_options import (
    add_format_option,
    add_kb_option,
    askers_from_args,
    check_cost_and_prompts,
    emit_json,
    parse_when,
)
from homeostat.console import note_unreadable
from homeostat.core.asker import Asker, RunStats
from homeostat.core.config import Config
from homeostat.core.daily.lessons import Lesson
from homeostat.core.daily.shards import parse_shard_count
from homeostat.core.hosts import CodeHost, RepoRef
from homeostat.core.kb import KB
from homeostat.core.notify import Notifier
from homeostat.core.render import ci_report
from homeostat.core.render.ci_report import DailyReport, DecisionRow
from homeostat.core.safety.secrets import redacted
from homeostat.core.state.checkpoints import seal_key
from homeostat.errors import ConfigError
from homeostat.kb_origin import origin_git, origin_host
from homeostat.runs.daily import CurateOutcome, DailyDeps, DailyOptions, DailyResult, run_daily
from homeostat.runs.merge_gate import check_wait_from_env
from homeostat.runs.model_pool import ModelPool
from homeostat.runs.stopping import stopped_by_signals
from homeostat.workspace import Workspace

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "BITBUCKET_BUILD_NUMBER")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "daily",
        help="the daily run: decide pending and review-drafted lessons, open and merge PRs",
        description=(
            "Decide every member's pending lessons and the lessons drafted from reviews on their merged PRs; "
            "merge the confident ones in one daily PR per member, open review PRs for the middle band and "
            "dispute PRs for flagged rules, and record the decisions on the state branch."
        ),
    )
    add_kb_option(parser)
    parser.add_argument(
        "--dry-run", action="store_true", help="decide and print the decisions and PR bodies; write nothing"
    )
    parser.add_argument(
        "--since",
        metavar="WHEN",
        help="backfill: read reviews merged since this date (YYYY-MM-DD) or ISO time",
    )
    parser.add_argument(
        "--max-cost", type=float, metavar="USD", help="spending cap for this run (default: agents.maxCostUsd)"
    )
    parser.add_argument(
        "--no-reviews", action="store_true", help="decide pending lessons only; read no reviews"
    )
    parser.add_argument(
        "--show-prompts",
        action="store_true",
        help="print every prompt the run would send; send and write nothing",
    )
    parser.add_argument(
        "--offline",
        action="store_true",
        help="no host, no model: decide this clone's .homeostat/pending lessons against the checkout (implies --dry-run)",
    )
    parser.add_argument(
        "--merge-shards",
        metavar="N",
        help=(
            "the merge job of a sharded run: decide the drafts of the N `homeostat curate --shard i/N` jobs "
            "(recalled, not paid again); a shard that did not finish leaves its repos for the next run"
        ),
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(
    args: argparse.Namespace, workspace: Workspace, *, now: Callable[[], dt.datetime] | None = None
) -> int:
    """`now` is the run's clock (a test's, to run a claim's hour in seconds); the wall clock else."""
    with stopped_by_signals():
        return _run(args, workspace, now)


def _run(args: argparse.Namespace, workspace: Workspace, now: Callable[[], dt.datetime] | None) -> int:
    shards = parse_shard_count(args.merge_shards) if args.merge_shards is not None else None
    if shards is not None and (args.offline or args.no_reviews):
        raise ConfigError("--merge-shards decides the shards' review drafts: drop --offline and --no-reviews")
    root, kb, config = workspace.root, workspace.kb, workspace.config
    note_unreadable([u.row() for u in kb.unreadable])
    check_cost_and_prompts(args, "decisions")
    out: TextIO = io.StringIO() if args.format == "json" else workspace.out
    options = DailyOptions(
        dry_run=args.dry_run or args.offline,
        since=parse_when(args.since, "--since"),
        max_cost=args.max_cost,
        no_reviews=args.no_reviews,
        show_prompts=args.show_prompts,
        offline=args.offline,
        merge_shards=shards,
    )
    env = workspace.env
    stats = RunStats(seal=seal_key(env))
    if args.offline:
        deps = DailyDeps(
            git=None, host=None, kb_repo=None, asker_for=_no_asker, stats=stats, out=out, checkout=root
        )
        return _publish(run_daily(deps, options), options, stats, out)
    git = origin_git(root, config, env)
    host, kb_repo = origin_host(config, git, env)
    with run_events(root, env, show_prompts=args.show_prompts) as sink:
        ask = askers_from_args(args, config, stats, sink=sink, env=env)
        ask("curator")  # a missing key or an unknown model stops the run here, before anything is read
        notifier, missing = _notifier(config, env)
        deps = DailyDeps(
            git=git,
            host=host,
            kb_repo=kb_repo,
            asker_for=ask,
            stats=stats,
            out=out,
            curate=_curate_step(host, kb_repo),
            notifier=notifier,
            notifier_missing=missing,
            kb=kb,
            check_wait=check_wait_from_env(env),
        )
        if now is not None:
            deps.now = now
        return _publish(run_daily(deps, options), options, stats, out)


def _publish(result: DailyResult, options: DailyOptions, stats: RunStats, out: TextIO) -> int:
    """Inside GitHub Actions: step outputs, the job summary and annotations, read off the run's result;
    with --format json, the result as JSON (what the text form printed is its `text`)."""
    from homeostat.adapters.hosts import github_actions

    if isinstance(out, io.StringIO):
        emit_json(daily_data(result, options, out.getvalue()))

    if github_actions.in_github_actions():
        report = ci_report_of(result, options, stats)
        github_actions.write_report(ci_report.daily(report))
    return result.exit_code


def daily_data(result: DailyResult, options: DailyOptions, text: str) -> dict[str, object]:
    return {
        "dryRun": options.dry_run,
        "exitCode": result.exit_code,
        "decisions": [
            {
                "key": d.lesson.key,
                "kind": d.lesson.kind,
                "member": d.lesson.member,
                "title": d.lesson.title,
                "area": d.lesson.area,
                "verdict": d.verdict,
                "outcome": d.outcome,
                "reason": d.reason,
                "target": d.target,
                "ruleId": d.rule_id,
                "pr": d.pr.url if d.pr is not None else None,
            }
            for d in result.decided
            if not d.undecided
        ],
        "prs": [
            {"number": p.number, "url": p.url, "title": p.title, "state": str(p.state)} for p in result.prs
        ],
        "text": text,
    }


def ci_report_of(result: DailyResult, options: DailyOptions, stats: RunStats) -> DailyReport:
    live = [d for d in result.decided if not d.undecided]
    report = result.report
    counts = dict(report.decided) if report is not None else dict(Counter(d.outcome for d in live))
    return DailyReport(
        counts=counts,
        rows=[  # the job summary is public to the repo's readers: nothing said about a lesson leaks
            DecisionRow(
                d.outcome, d.confidence.total, d.lesson.member, redacted(d.lesson.title), redacted(d.reason)
            )
            for d in live
        ],
        pr_urls=[pr.url for pr in result.prs],
        notices=[(n.kind, redacted(n.message)) for n in report.notices] if report is not None else [],
        cost_usd=None if options.offline else stats.cost_usd,
        dry_run=options.dry_run,
        failed=report.failed.reason if report is not None and report.failed else None,
    )


def _no_asker(agent: str) -> Asker:
    raise ConfigError("--offline asks no model")


def _curate_step(host: CodeHost, kb_repo: RepoRef):  # type: ignore[no-untyped-def]
    from homeostat.runs.curate import run_curate

    def step(
        *,
        kb: KB,
        since: dt.datetime,
        until: dt.datetime,
        extra_cited: frozenset[str],
        asker: Asker,
        pool: ModelPool,
        keep: Callable[[RepoRef], bool] | None = None,
    ) -> CurateOutcome:
        result = run_curate(
            host,
            kb,
            asker,
            extra_cited=extra_cited,
            kb_repo=kb_repo,
            since=since,
            until=until,
            pool=pool,
            keep=keep,
        )
        lessons: list[Lesson] = [*result.lessons, *result.doc_lessons]
        return CurateOutcome(
            lessons=tuple(lessons),
            capped=result.capped,
            retry=tuple(result.retry),
            drafted=frozenset(result.drafted_urls),
        )

    return step


def _notifier(config: Config, env: Mapping[str, str]) -> tuple[Notifier | None, str]:
    from homeostat.adapters.slack import slack_notifier_from_env

    found = slack_notifier_from_env(config.notifications, env)
    if isinstance(found, str):
        return None, found
    return found, ""
