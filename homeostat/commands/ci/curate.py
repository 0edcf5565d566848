"""`homeostat curate`: draft lessons from merged PRs' review threads, alone, and print them.

The same pipeline as the daily run's first step (`homeostat.runs.curate`), without deciding or writing
anything: it is the way to see what the daily run would draft, and (with `--show-prompts`) exactly what
would be sent to the model. With `--shard I/N` it is one draft job of a sharded daily run
(homeostat.runs.shards), and writes its drafts to the state branch for the merge job. Credentials
come from the CI environment under the names each ecosystem uses; a missing one stops the command
before any call, naming the variable.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.hosts.registry import host_from_env
from homeostat.adapters.state.event_log import run_events
from homeostat.cli_options import add_format_option, add_kb_option, askers_from_args, parse_when
from homeostat.console import note_unreadable
from homeostat.core.asker import RunStats
from homeostat.core.config import Config
from homeostat.core.daily.lessons import Lesson
from homeostat.core.daily.shards import Shard, parse_shard
from homeostat.core.kb import KB
from homeostat.core.state.checkpoints import seal_key
from homeostat.errors import ConfigError, GitError, HomeostatError
from homeostat.runs.curate import CurateResult, kb_repo_ref, review_branch_citations, run_curate
from homeostat.runs.model_pool import ModelPool, Pools
from homeostat.workspace import Workspace

if TYPE_CHECKING:
    from homeostat.runs.shards import ShardRun

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "BITBUCKET_BUILD_NUMBER")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "curate",
        help="draft lessons from merged PRs' review threads (the daily run's first step, alone)",
        description=(
            "Read the PRs merged in the KB's code repos, keep the review threads a team member wrote that "
            "a commit followed, and print the rules (and document patches) the curator drafts from them. "
            "Nothing is written: the daily run decides and files lessons. With --shard I/N it is one draft job "
            "of a sharded daily run: it drafts shard I's repos and writes the drafts to the state branch."
        ),
    )
    add_kb_option(parser)
    parser.add_argument(
        "--since",
        metavar="WHEN",
        help="read PRs merged since this date (YYYY-MM-DD, UTC) or ISO time (default: sources.lookbackHours ago)",
    )
    parser.add_argument(
        "--until", metavar="WHEN", help="read PRs merged before this date or time (default: now)"
    )
    add_format_option(parser)
    parser.add_argument(
        "--show-prompts",
        action="store_true",
        help="print every prompt (after redaction) that would be sent, and send nothing",
    )
    parser.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="spending cap for this run, in US dollars (default: agents.maxCostUsd)",
    )
    parser.add_argument(
        "--show-skipped", action="store_true", help="list every PR and thread skipped, and why"
    )
    parser.add_argument(
        "--shard",
        metavar="I/N",
        help=(
            "one job of a sharded daily run: draft only the repos of shard I of N (stable by repo), over the "
            "window the daily run will read, and write the drafts to the state branch for the merge job "
            "(homeostat daily --merge-shards N)"
        ),
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="write nothing (without --shard, curate never writes)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    _check_flags(args)
    shard = parse_shard(args.shard) if args.shard is not None else None
    root, kb, config = workspace.root, workspace.kb, workspace.config
    note_unreadable([u.row() for u in kb.unreadable])
    now = dt.datetime.now(dt.UTC)
    if shard is not None:
        if args.show_prompts:
            raise ConfigError("--shard drafts and writes; --show-prompts sends nothing: use one of them")
        return _run_shard(args, shard, root, kb, config, now)
    since, until = _window(args, now)
    if not _has_repos(config):
        raise ConfigError(
            "homeostat.yaml lists no code repos to read: add repos[].url (or sources.repos in a KB without "
            "repo folders)"
        )
    stats = RunStats()
    result = _curate(args, root, kb, config, stats, since, until)
    if not result.repos:
        raise ConfigError(
            "every code repo in homeostat.yaml is excluded (repos[].exclude, sources.excludeRepos) or is the "
            "KB repo itself: nothing to read"
        )
    _print_result(args, result, stats)
    return _outcome(result)


def _check_flags(args: argparse.Namespace) -> None:
    """Flags that contradict each other are refused before the KB is read or a model is asked."""
    if args.format == "json" and args.show_prompts:
        raise ConfigError("--show-prompts prints prompts, not lessons: drop --json to see them")
    if args.max_cost is not None and args.max_cost < 0:
        raise ConfigError(
            f"--max-cost {args.max_cost:g} is negative: give a cap in US dollars, e.g. --max-cost 2"
        )


def _window(args: argparse.Namespace, now: dt.datetime) -> tuple[dt.datetime | None, dt.datetime]:
    """The --since/--until window (until defaults to now); an empty one is refused, as it would read
    nothing and say so only as "0 lessons"."""
    since = parse_when(args.since, "--since")
    until = parse_when(args.until, "--until") or now
    if since is not None and since >= until:
        raise ConfigError(
            f"--since {args.since} is not before --until ({until.isoformat()}): widen the window"
        )
    return since, until


def _curate(
    args: argparse.Namespace,
    root: Path,
    kb: KB,
    config: Config,
    stats: RunStats,
    since: dt.datetime | None,
    until: dt.datetime,
) -> CurateResult:
    """One whole curate run over the host, read-only there: the KB checkout's origin names the KB repo
    (left out of what is read) and its review branches' citations (not drafted again)."""
    env = os.environ
    host = host_from_env(config.sources.host, env, read_only=True)
    git = _git(root)
    origin = git.remote_url("origin") if git is not None else None
    with run_events(root, env, show_prompts=args.show_prompts) as sink:
        asker = askers_from_args(args, config, stats, sink=sink, env=env)("curator")
        cited = review_branch_citations(git) if git is not None and origin else set()
        pool = ModelPool(1) if args.show_prompts else Pools(config.agents).for_agent("curator")
        return run_curate(
            host,
            kb,
            asker,
            extra_cited=cited,
            kb_repo=kb_repo_ref(config, origin),
            since=since,
            until=until,
            pool=pool,  # prompts print one after the other
        )


def _print_result(args: argparse.Namespace, result: CurateResult, stats: RunStats) -> None:
    """The run's answer as asked: a count of printed prompts, JSON with the cost, or the tables."""
    if args.show_prompts:
        sys.stderr.write(f"homeostat: printed {result.model_calls} prompt(s); nothing was sent\n")
    elif args.format == "json":
        data = result.to_data()
        data["cost"] = {"usd": round(stats.cost_usd, 6), "estimated": stats.estimated}
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render_result(result, stats, show_skipped=args.show_skipped))


def _run_shard(
    args: argparse.Namespace, shard: Shard, root: Path, kb: KB, config: Config, now: dt.datetime
) -> int:
    """One job of a sharded daily run (homeostat.runs.shards): stopped by SIGTERM as by SIGINT, so a
    cancelled job writes what it paid for."""
    from homeostat.kb_origin import origin_git, origin_host
    from homeostat.runs.shards import draft_shard, unfinished_reason
    from homeostat.runs.stopping import stopped_by_signals

    if args.until is not None:
        raise ConfigError("--shard reads up to now, as the merge job will: drop --until")
    if not _has_repos(config):
        raise ConfigError("homeostat.yaml lists no code repos to read: add repos[].url (or sources.repos)")
    env = os.environ
    git = origin_git(root, config, env)
    host, kb_repo = origin_host(config, git, env)
    stats = RunStats(seal=seal_key(env))
    pools = Pools(config.agents)
    with stopped_by_signals(), run_events(root, env, show_prompts=False) as sink:
        asker_for = askers_from_args(args, config, stats, sink=sink, env=env)
        done = draft_shard(
            shard=shard,
            git=git,
            host=host,
            kb=kb,
            asker=asker_for("curator"),
            stats=stats,
            pool=pools.for_agent("curator"),
            kb_repo=kb_repo,
            now=now,
            since=parse_when(args.since, "--since"),
            write=not args.dry_run,
            # the verdicts are for the merge job: a dry run, which keeps nothing, asks for none
            judge=None if args.dry_run else asker_for("judge"),
            judge_pool=pools.for_agent("judge"),
        )
    result = done.result
    assert result is not None
    _say_shard(args, shard, done, stats)
    reason = unfinished_reason(result)
    if reason:
        raise HomeostatError(
            f"shard {shard} did not finish ({reason}); the merge job leaves its repos for the next run"
        )
    return 0


def _say_shard(args: argparse.Namespace, shard: Shard, done: ShardRun, stats: RunStats) -> None:
    """What a draft job drafted and where it wrote it, as text or as JSON."""
    result = done.result
    assert result is not None
    if args.format == "json":
        data = result.to_data()
        data["cost"] = {"usd": round(stats.cost_usd, 6), "estimated": stats.estimated}
        data["shard"] = {
            "shard": str(shard),
            "slot": done.slot if done.written else None,
            "judged": done.judged,
        }
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(render_result(result, stats, show_skipped=args.show_skipped))
        if not result.repos:
            sys.stdout.write(f"Shard {shard} holds none of the code repos: nothing to draft.\n")
        where = f"wrote {done.slot} on the state branch" if done.written else "wrote nothing (--dry-run)"
        judged = f" (with the judge's verdicts on {done.judged})" if done.judged else ""
        sys.stdout.write(
            f"Shard {shard}: {where}{judged}; homeostat daily --merge-shards {shard.count} decides them.\n"
        )


def _outcome(result: CurateResult) -> int:
    if result.all_calls_failed:
        raise HomeostatError(
            f"every model call failed ({result.failed_calls}), the first with: {result.failures[0]}; "
            "nothing was drafted: rerun later"
        )
    if result.capped:
        sys.stderr.write(f"homeostat: {result.cap_message}; the lessons listed were drafted before it\n")
    return 0


# --- wiring -------------------------------------------------------------------------------------


def _git(root: Path) -> Git | None:
    try:
        git = Git(root)
        git.rev_parse("HEAD")
    except GitError:
        return None
    return git


def _has_repos(config: Config) -> bool:
    return bool(config.repos or config.sources.repos)


# --- output -------------------------------------------------------------------------------------


def render_result(result: CurateResult, stats: RunStats, *, show_skipped: bool = False) -> str:
    lines: list[str] = []
    if result.lessons:
        lines.append(
            _table(["member", "reviewer", "area", "source", "title", "thread"], _rule_rows(result.lessons))
        )
    if result.doc_lessons:
        lines.append(_table(["member", "reviewer", "section", "op", "thread"], _doc_rows(result.doc_lessons)))
    if not result.lessons and not result.doc_lessons:
        lines.append("No lessons drafted.")
    if show_skipped and result.skipped:
        lines.append(_table(["skipped", "why", "url"], [[s.what, s.reason, s.url] for s in result.skipped]))
    lines.append(summary_line(result, stats))
    return "\n\n".join(lines) + "\n"


def summary_line(result: CurateResult, stats: RunStats) -> str:
    window = f"{_stamp(result.since)} to {_stamp(result.until)}"
    cost = f"${stats.cost_usd:.4f}{' estimated' if stats.estimated else ''}"
    return (
        f"Read {window}: {len(result.repos)} repo(s), {result.pulls_listed} PR(s) merged "
        f"({result.pulls_read} read), {result.threads_seen} thread(s) ({result.threads_kept} kept); "
        f"drafted {len(result.lessons)} rule(s) and {len(result.doc_lessons)} document patch(es); "
        f"{result.model_calls} model call(s) ({result.failed_calls} failed, {cost}); "
        f"{result.redactions} secret(s) redacted."
    )


def _stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _rule_rows(lessons: list[Lesson]) -> list[list[str]]:
    """Each lesson's row, its fields as every surface shows them (`core.served`)."""
    from homeostat.core.served import served_line, served_value

    rows = []
    for lesson in lessons:
        area = served_value("name", lesson.area)
        if lesson.topic:
            area += "/" + served_value("name", lesson.topic)
        if lesson.suggested_topic:
            area += f" (new topic {served_value('name', lesson.suggested_topic)}?)"
        rows.append(
            [
                served_value("handle", lesson.member),
                served_value("handle", lesson.originator),
                area,
                lesson.source,
                served_line(lesson.title),
                served_value("url", lesson.url),
            ]
        )
    return rows


def _doc_rows(lessons: list[Lesson]) -> list[list[str]]:
    rows = []
    for lesson in lessons:
        patch = lesson.doc_patch
        section = f"{patch.doc}#{patch.section}" if patch is not None else ""
        rows.append([lesson.member, lesson.originator, section, patch.op if patch else "", lesson.url])
    return rows


def _table(header: list[str], rows: list[list[str]]) -> str:
    cells = [header, *[[" ".join(cell.split()) for cell in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    out = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in cells]
    out.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(out)
