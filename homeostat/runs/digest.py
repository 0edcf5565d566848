"""`homeostat digest`: the weekly Slack message, built from the KB's history and the state branch.

Four steps: fetch the base branch and the state branch; pick the window (`--since`, else from the
end of the last digest that reached Slack, else the last 7 days); build the digest from the KB at
the window's start and now, the decision records and this machine's event log (no model, no host
API); then post it through the notifier and record it on the state branch (`digests/<date>.json`,
never force-pushed). `--print` shows the blocks' text and writes nothing.

Once a week, whatever reruns: a run finds the digests recorded in the last six days (under a week,
so a scheduled run that started late never skips the next one) and posts nothing when one reached
Slack or was being posted. Each post is recorded `sending` first and settled after, so a run killed
mid-post leaves a record its rerun sees (it says the digest may not have reached Slack; the next
week's digest covers those days again, as the window starts at the last digest known posted). Two
runs at once both record, read the state again, and only the first posts. `--since` always posts.

A Slack variable that is not set is printed and recorded as a notice (the digest is printed too, so
the week is not lost from the log); a post Slack refuses fails the run and is recorded as not
posted, so a rerun posts the same window. A state write the token may not make is a notice: the
digest is posted all the same.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import load_kb_ref
from homeostat.adapters.state.state_store import read_state, tracking_ref
from homeostat.core.config import Config
from homeostat.core.hosts import RepoRef, file_url, pulls_url
from homeostat.core.kb import KB
from homeostat.core.measure.digest import Digest, Links, build_digest, digest_message
from homeostat.core.notify import Notifier, NotifyError, SlackMessage
from homeostat.core.render.slack_blocks import block_text
from homeostat.core.state.branch import (
    DigestRecord,
    Notice,
    StateSnapshot,
    digest_path,
    dump_state,
    state_branch,
)
from homeostat.errors import HomeostatError, KBReadError
from homeostat.runs.publish import Publisher

WINDOW = dt.timedelta(days=7)
RERUN_GAP = dt.timedelta(days=6)  # a digest posted more recently than this makes a rerun post nothing
DIGEST_COMMIT = "homeostat digest "  # the state commit's subject: this, the run id, [skip ci]


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
    skipped: str = ""  # why nothing was posted: this week's digest already was


def run_digest(deps: DigestDeps, options: DigestOptions) -> DigestResult:
    base = deps.config.sources.base_branch
    until = deps.now()
    tip, state = _fetch(deps, base)
    since = window_start(state, options.since, until)
    digest = build_digest(
        kb_name=deps.kb_name,
        then=_kb_at(deps.git, tip, since),
        now=load_kb_ref(deps.git, tip),
        records=state.open_records(),  # the review queue: open records are never archived
        desire_paths=deps.desire_paths(since),
        since=since,
        until=until,
        overdue_days=deps.config.notifications.review_overdue_days,
        links=links_for(deps.kb_repo, base),
        repeats=state.repeat_records(),
    )
    result = DigestResult(digest, digest_message(digest))
    if options.print_only:
        deps.out.write(block_text(result.message.blocks))
        return result
    earlier = None if options.since is not None else first_claim(state, until)
    if earlier is not None:
        _skip(deps, result, earlier)
    elif deps.notifier is None:
        _print_instead(deps, result)
        result.recorded = _record(deps, base, _settled(result))
    else:
        _post_once(deps, base, result, deps.notifier, raced=options.since is None)
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
    """`--since`, else where the last digest that reached Slack ended, else a week ago; earlier when
    a run after that stopped while posting (its days may not have reached Slack)."""
    if since is not None:
        return since
    last = state.last_digest()
    start = last.until if last is not None else until - WINDOW
    stopped = [
        r.since for r in state.digests.values() if r.sending and (last is None or r.until > last.until)
    ]
    return min([start, *stopped])


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


def first_claim(state: StateSnapshot, now: dt.datetime) -> DigestRecord | None:
    """The first digest of the last six days that reached Slack or was being posted, if any."""
    claimed = state.digests_claimed_after(now - RERUN_GAP)
    return claimed[0] if claimed else None


def _skip(deps: DigestDeps, result: DigestResult, earlier: DigestRecord, *, raced: bool = False) -> None:
    """This week's digest was posted, or is being posted, or was when its run stopped: post nothing."""
    when = f"{earlier.since:%Y-%m-%d %H:%M} to {earlier.until:%Y-%m-%d %H:%M} UTC"
    if raced:
        result.skipped = f"another run ({earlier.run_id}) recorded this week's digest ({when}) first"
        result.notices.append(Notice(kind="digest-already-posted", message=result.skipped))
    elif earlier.posted:
        result.skipped = f"this week's digest ({when}) was already posted to Slack"
    else:
        result.skipped = f"this week's digest ({when}) was being posted by run {earlier.run_id}"
        message = (
            f"the digest run {earlier.run_id} was posting {when} and never recorded that it reached Slack "
            f"(it stopped, or is still running), so it may not have; next week's digest covers those "
            f"days too, or `homeostat digest --since {earlier.since:%Y-%m-%d}` posts them now"
        )
        result.notices.append(Notice(kind="digest-unconfirmed", message=message))
        print(f"notice: {message}", file=deps.out)
    print(f"digest: {result.skipped}; nothing posted (`--since DATE` posts another)", file=deps.out)


def _print_instead(deps: DigestDeps, result: DigestResult) -> None:
    """No Slack variable: the digest goes to the log, with a notice saying it was not posted."""
    message = deps.notifier_missing or (
        f"{deps.config.notifications.slack_webhook_env} is not set, so the digest was not posted to Slack"
    )
    result.notices.append(Notice(kind="slack-unset", message=message))
    deps.out.write(block_text(result.message.blocks))
    print(f"notice: {message}", file=deps.out)


def _post_once(deps: DigestDeps, base: str, result: DigestResult, notifier: Notifier, *, raced: bool) -> None:
    """Record the post as `sending`, post, then settle the record; a refused post is recorded as not
    posted and raised. When another run recorded this week's digest first, this one posts nothing."""
    sending = _settled(result).model_copy(update={"sending": True})
    if _record(deps, base, sending) and raced:
        first = _first_recorded(deps, base, result.digest.until)
        if first is not None and first.run_id != sending.run_id:
            _skip(deps, result, first, raced=True)
            result.recorded = _record(deps, base, _settled(result, sending.run_id))
            return
    try:
        notifier.post(result.message)
    except NotifyError as exc:
        result.notices.append(Notice(kind="slack-failed", message=str(exc)))
        _record(deps, base, _settled(result, sending.run_id))
        raise
    result.posted = True
    result.recorded = _record(deps, base, _settled(result, sending.run_id))


def _first_recorded(deps: DigestDeps, base: str, now: dt.datetime) -> DigestRecord | None:
    """Of this week's claimed digests, the one whose record reached the state branch first: the
    branch is one line of commits, so every racing run reads the same order."""
    state = read_state(deps.git, deps.remote, state_branch(base))
    claimed = {record.run_id: record for record in state.digests_claimed_after(now - RERUN_GAP)}
    if state.commit is None or not claimed:
        return None
    log = deps.git.run("log", "--reverse", "--format=%s", state.commit, "--", "digests", check=False)
    for subject in log.stdout.decode().splitlines():
        run_id = subject.removeprefix(DIGEST_COMMIT).split(" ")[0]
        if subject.startswith(DIGEST_COMMIT) and run_id in claimed:
            return claimed[run_id]
    return first_claim(state, now)


def _settled(result: DigestResult, run_id: str = "") -> DigestRecord:
    digest = result.digest
    return DigestRecord(
        run_id=run_id or f"{digest.until.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}",
        since=digest.since,
        until=digest.until,
        counts=digest.counts,
        posted=result.posted,
        notices=tuple(result.notices),
    )


def _record(deps: DigestDeps, base: str, record: DigestRecord) -> bool:
    """Merge the record into the state branch; a write the token may not make is a notice."""
    publisher = Publisher(deps.git, None, None, remote=deps.remote, out=deps.out)
    try:
        publisher.record(
            {digest_path(record): dump_state(record)},
            branch=state_branch(base),
            message=f"{DIGEST_COMMIT}{record.run_id} [skip ci]",
        )
    except HomeostatError as exc:
        print(f"notice: the digest was not recorded on {state_branch(base)}: {exc}", file=deps.out)
        return False
    return True


def events_desire_paths(root: Path) -> Callable[[dt.datetime], list[tuple[str, str]]]:
    """Guessed tool names from the checkout's event log, when this machine keeps one."""

    def read(since: dt.datetime) -> list[tuple[str, str]]:
        from homeostat.adapters.state.event_log import SqliteEventLog, events_path, log_exists

        path = events_path(root)
        if not log_exists(path):
            return []
        with SqliteEventLog(path) as log:
            events = log.query("desire-path", since)
        return [(str(e.data.get("asked") or ""), str(e.data.get("tool") or "")) for e in events]

    return read
