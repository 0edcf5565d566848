"""`homeostat digest`: the weekly Slack message, built from the KB's history and the state branch.

Four steps: fetch the base branch and the state branch; pick the window (`--since`, else from the
end of the last digest that reached Slack, else the last 7 days); build the digest from the KB at
the window's start and now, the decision records and this machine's event log (no model, no host
API); then post it through the notifier and record it on the state branch (`digests/<date>.json`,
never force-pushed). `--print` shows the blocks' text and writes nothing.

A Slack variable that is not set is printed and recorded as a notice (the digest is printed too, so
the week is not lost from the log); a post Slack refuses fails the run and records nothing, so a
rerun covers the same window. A state write the token may not make is a notice: the digest is out.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from homeostat.adapters.git import Git
from homeostat.adapters.kb_files import load_kb_ref
from homeostat.adapters.state_store import read_state, tracking_ref
from homeostat.core.blocks import block_text
from homeostat.core.config import Config
from homeostat.core.digest import Digest, Links, build_digest, digest_message
from homeostat.core.hosts import RepoRef, file_url, pulls_url
from homeostat.core.kb import KB
from homeostat.core.notify import Notifier, SlackMessage
from homeostat.core.state import DigestRecord, Notice, StateSnapshot, digest_path, dump_state, state_branch
from homeostat.errors import HomeostatError, KBReadError
from homeostat.runs.publish import Publisher

WINDOW = dt.timedelta(days=7)


@dataclass(frozen=True)
class DigestOptions:
    print_only: bool = False
    since: dt.datetime | None = None


@dataclass
class DigestDeps:
    git: Git
    config: Config
    kb_repo: RepoRef | None
    out: TextIO
    notifier: Notifier | None = None
    notifier_missing: str = ""  # why there is no notifier: the Slack variable is not set
    desire_paths: Callable[[dt.datetime], list[tuple[str, str]]] = lambda since: []
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
    remote: str = "origin"
    kb_name: str = ""


@dataclass
class DigestResult:
    digest: Digest
    message: SlackMessage
    posted: bool = False
    recorded: bool = False
    notices: list[Notice] = field(default_factory=list)


def run_digest(deps: DigestDeps, options: DigestOptions) -> DigestResult:
    base = deps.config.sources.base_branch
    until = deps.now()
    tip, state = _fetch(deps, base)
    since = window_start(state, options.since, until)
    digest = build_digest(
        kb_name=deps.kb_name,
        then=_kb_at(deps.git, tip, since),
        now=load_kb_ref(deps.git, tip),
        records=state.records(),
        desire_paths=deps.desire_paths(since),
        since=since,
        until=until,
        overdue_days=deps.config.notifications.review_overdue_days,
        links=links_for(deps.kb_repo, base),
    )
    result = DigestResult(digest, digest_message(digest))
    if options.print_only:
        deps.out.write(block_text(result.message.blocks))
        return result
    _post(deps, result)
    _record(deps, base, result)
    return result


def _fetch(deps: DigestDeps, base: str) -> tuple[str, StateSnapshot]:
    """The base branch's tip and the state branch, as they are on the remote now."""
    ref = tracking_ref(deps.remote, base)
    deps.git.unshallow(deps.remote)  # the window's start must be in the history, not cut off
    deps.git.fetch(deps.remote, [f"+refs/heads/{base}:{ref}"])
    tip = deps.git.rev_parse(ref)
    if tip is None:
        raise KBReadError(f"the KB repo has no branch {base!r} on {deps.remote} (sources.baseBranch)")
    return tip, read_state(deps.git, deps.remote, state_branch(base))


def window_start(state: StateSnapshot, since: dt.datetime | None, until: dt.datetime) -> dt.datetime:
    """`--since`, else where the last digest that reached Slack ended, else a week ago."""
    if since is not None:
        return since
    last = state.last_digest()
    return last.until if last is not None else until - WINDOW


def _kb_at(git: Git, tip: str, since: dt.datetime) -> KB | None:
    """The KB as the base branch held it when the window started; None before the KB existed."""
    done = git.run("rev-list", "-1", f"--before={int(since.timestamp())}", tip, check=False)
    commit = done.stdout.decode().strip()
    if done.returncode != 0 or not commit:
        return None
    try:
        return load_kb_ref(git, commit)
    except KBReadError:
        return None


def links_for(repo: RepoRef | None, base: str) -> Links:
    if repo is None:
        return Links()
    return Links(
        file=lambda path: file_url(repo, base, path),
        rules=file_url(repo, base, "knowledge"),
        reviews=pulls_url(repo),
    )


def _post(deps: DigestDeps, result: DigestResult) -> None:
    """Post; with no Slack variable, print the digest and a notice instead. A refused post raises."""
    if deps.notifier is None:
        message = deps.notifier_missing or (
            f"{deps.config.notifications.slack_webhook_env} is not set, so the digest was not posted to Slack"
        )
        result.notices.append(Notice(kind="slack-unset", message=message))
        deps.out.write(block_text(result.message.blocks))
        print(f"notice: {message}", file=deps.out)
        return
    deps.notifier.post(result.message)
    result.posted = True


def _record(deps: DigestDeps, base: str, result: DigestResult) -> None:
    digest = result.digest
    record = DigestRecord(
        run_id=f"{digest.until.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}",
        since=digest.since,
        until=digest.until,
        counts=digest.counts,
        posted=result.posted,
        notices=tuple(result.notices),
    )
    publisher = Publisher(deps.git, None, None, remote=deps.remote, out=deps.out)
    try:
        publisher.record(
            {digest_path(record): dump_state(record)},
            branch=state_branch(base),
            message=f"homeostat digest {record.run_id} [skip ci]",
        )
    except HomeostatError as exc:
        print(f"notice: the digest was not recorded on {state_branch(base)}: {exc}", file=deps.out)
        return
    result.recorded = True


def events_desire_paths(root: Path) -> Callable[[dt.datetime], list[tuple[str, str]]]:
    """Guessed tool names from the checkout's event log, when this machine keeps one."""

    def read(since: dt.datetime) -> list[tuple[str, str]]:
        from homeostat.adapters.event_log import SqliteEventLog, events_path

        path = events_path(root)
        if not path.is_file():
            return []
        with SqliteEventLog(path) as log:
            events = log.query("desire-path", since)
        return [(str(e.data.get("asked") or ""), str(e.data.get("tool") or "")) for e in events]

    return read
