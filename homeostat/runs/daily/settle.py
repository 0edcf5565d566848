"""Settle: review PRs from earlier runs. Merged with a second person's reading means merged (and
approved by them); closed means declined, or for a dispute PR, the rule retired. An unclear answer
from the host is never read as closed: the record stays as it was.

The host's merge button is no reading: a member (or an agent holding their token) can merge their own
review PR. So a merged PR counts as reviewed only when a team member who wrote none of its lessons
approved it at the head it merged, or merged it themselves (`approval_verdict`, the rule `homeostat
review merge` merges by). Otherwise, on a team with someone else to ask, its rules are disputed: the
daily PR flags them (a disputed rule reaches no agent) and a dispute PR asks a second person."""

from __future__ import annotations

import datetime as dt
import logging

from homeostat.core.config import Config
from homeostat.core.hosts import Approval, CodeHost, PullInfo, PullState, RepoRef, same_commit
from homeostat.core.review_approval import Verdict, approval_verdict
from homeostat.core.state.branch import DecisionRecord, Outcome, StateSnapshot
from homeostat.errors import HomeostatError
from homeostat.runs.daily.run_state import DailyContext, Retirement, RunState
from homeostat.runs.review import rebuilt_from

log = logging.getLogger("homeostat.daily")


def settle(ctx: DailyContext, config: Config, snapshot: StateSnapshot, run: RunState) -> list[Retirement]:
    """Settle every in-review record whose PR a person merged or closed; what the KB must change."""
    retirements: list[Retirement] = []
    host, repo = ctx.deps.host, ctx.deps.kb_repo
    if host is None or repo is None:
        return retirements
    now = ctx.now()
    waiting = [r for r in snapshot.open_records() if r.state == "in-review" and r.pr is not None]
    # one request per review PR, however many lessons wait in it; none for a PR the list of open ones
    # shows (a few pages), so a large team's run asks only about the PRs settled since the last run
    answers: dict[int, PullInfo | None] = dict.fromkeys(_still_open(host, repo) if waiting else set())
    verdicts: dict[int, Verdict | None] = {}  # one request for the approvals of each merged PR
    for record in waiting:
        assert record.pr is not None
        if record.pr.number not in answers:
            try:
                answers[record.pr.number] = host.get_pull(repo, record.pr.number)
            except HomeostatError as exc:
                log.warning("PR %s: unclear answer (%s); left as it was", record.pr.number, exc)
                answers[record.pr.number] = None
        info = answers[record.pr.number]
        if info is None:  # still open, or the host did not answer clearly: left as it was
            continue
        if info.state is PullState.OPEN:
            continue
        if info.state is PullState.MERGED:
            if info.number not in verdicts:
                verdicts[info.number] = _verdict(ctx, config, run.base, info, _authors(waiting, info.number))
            verdict = verdicts[info.number]
            if verdict is None:  # the approvals were unclear: never read as approved; asked again next run
                continue
            settled, retirement = _merged(config, record, info, verdict, now)
            _say_unread(ctx, record, settled, verdict)
        else:
            settled, retirement = _closed(record, now)
        if retirement is not None:
            retirements.append(retirement)
        run.records[record.member].append(settled)
    return retirements


def _still_open(host: CodeHost, repo: RepoRef) -> set[int]:
    """Homeostat's open PRs on the KB repo; none when the host cannot list them (each is then asked)."""
    try:
        return {pull.number for pull in host.list_open_pulls(repo, "homeostat/")}
    except HomeostatError as exc:
        log.warning("could not list the open PRs (%s); asking about each review PR", exc)
        return set()


def _say_unread(ctx: DailyContext, record: DecisionRecord, settled: DecisionRecord, verdict: Verdict) -> None:
    """The run's output names each lesson merged with no second person's reading, and what became of it."""
    if verdict.approver is None and record.kind != "flag":
        print(f"notice: {record.title[:60]!r} {settled.reason}", file=ctx.out)


def _authors(waiting: list[DecisionRecord], number: int) -> set[str]:
    """The members whose lessons (or flags, for a dispute PR) the PR holds: its records in review."""
    return {r.member for r in waiting if r.pr is not None and r.pr.number == number}


def _verdict(
    ctx: DailyContext, config: Config, base: str, info: PullInfo, authors: set[str]
) -> Verdict | None:
    """Whether a team member who wrote none of the PR's lessons approved it at the head it merged (or
    at the head review merge rebuilt it from), or merged it; None when the host did not answer
    clearly (the records are left as they were)."""
    host, repo = ctx.deps.host, ctx.deps.kb_repo
    assert host is not None and repo is not None
    try:
        approvals = host.pull_approvals(repo, info.number)
        verdict = _judged(config, info, approvals, authors, info.head_sha)
        if verdict.approver is not None or not any(_other_commit(a, info.head_sha) for a in approvals):
            return verdict
        source = _rebuilt_from(ctx, base, info)
    except HomeostatError as exc:
        log.warning("PR %s: unclear answer about its approvals (%s); left as it was", info.number, exc)
        return None
    rebuilt = _judged(config, info, approvals, authors, source) if source else verdict
    if source is None or rebuilt.approver is None:
        return verdict
    return Verdict(rebuilt.approver, f"{rebuilt.reason} at {source[:12]}, rebuilt by review merge")


def _judged(
    config: Config, info: PullInfo, approvals: list[Approval], authors: set[str], head: str
) -> Verdict:
    return approval_verdict(
        approvals,
        authors,
        head,
        lambda login: config.member(login) is not None,
        opener=info.author,
        merger=info.merged_by or "",
    )


def _other_commit(approval: Approval, head: str) -> bool:
    return approval.commit is not None and not same_commit(approval.commit, head)


def _rebuilt_from(ctx: DailyContext, base: str, info: PullInfo) -> str | None:
    """The head review merge rebuilt the merged PR from (`rebuilt_from`), read from the host's
    `refs/pull/<n>/head` (GitHub keeps it after the branch is gone); None when it is no such rebuild."""
    git, remote = ctx.git, ctx.deps.remote
    local = f"refs/homeostat/settle/pull-{info.number}"
    try:
        if not git.fetch(remote, [f"+refs/pull/{info.number}/head:{local}"]):
            return None
        merged = git.rev_parse(local)
        if merged is None or not same_commit(merged, info.head_sha):
            return None
        git.unshallow(remote)  # the merge base must be in the history
        ctx.fetch_base(base)
        return rebuilt_from(git, merged, ctx.base_tip(base))
    finally:
        git.run("update-ref", "-d", local, check=False)


def _merged(
    config: Config, record: DecisionRecord, info: PullInfo, verdict: Verdict, now: dt.datetime
) -> tuple[DecisionRecord, Retirement | None]:
    """A reviewer's merge: the rule is in force and records who approved it; or, for a flag, the
    rule is disputed (the PR did that) and its dispute PR opens in this run. A merge nobody else
    read (`verdict.approver` None) disputes its rule, unless nobody else could have read it."""
    if record.kind == "flag" and record.rule_id and record.pr is not None:
        return _settled(record, "disputed", now), Retirement(
            record.rule_id,
            record.member,
            f"flag merged in #{record.pr.number}",
            action="dispute",
            by=info.merged_by or "",
        )
    if verdict.approver is None:
        return _unread(config, record, info, verdict, now)
    settled = _settled(record, "merged", now)
    approver = config.member(verdict.approver)
    if not record.rule_id or record.kind == "dispute" or approver is None or record.pr is None:
        return settled, None
    return settled, Retirement(
        record.rule_id,
        record.member,
        _merged_by(info, approver.handle),
        settled,
        action="approve",
        by=approver.handle,
    )


def _unread(
    config: Config, record: DecisionRecord, info: PullInfo, verdict: Verdict, now: dt.datetime
) -> tuple[DecisionRecord, Retirement | None]:
    """A merge no second person read. Its rule is disputed, so a second person decides it in a
    dispute PR (merging keeps the rule, closing retires it), and nobody is recorded as its approver.
    A one-member team has nobody else to ask: merged as before, and the record says so. A document
    section has no rule to dispute: merged, and the record says so."""
    merger = config.member(info.merged_by or "")
    by = f"merged by @{info.merged_by}" if info.merged_by else "merged"
    number = record.pr.number if record.pr is not None else info.number
    if len(config.team.members) < 2:
        reason = f"{by} in #{number} with no second person: the team has one member"
        settled = _settled(record, "merged", now, reason)
        if not record.rule_id or record.kind == "dispute" or merger is None:
            return settled, None
        return settled, Retirement(
            record.rule_id, record.member, reason, settled, action="approve", by=merger.handle
        )
    reason = f"{by} in #{number} with {verdict.reason}"
    if not record.rule_id:
        return _settled(record, "merged", now, f"{reason}; a document section, so nothing is disputed"), None
    settled = _settled(record, "disputed", now, reason)
    return settled, Retirement(record.rule_id, record.member, reason, settled, action="contest")


def _merged_by(info: PullInfo, approver: str) -> str:
    """Who merged the PR and, when someone else, who approved it."""
    number = info.number
    if info.merged_by and info.merged_by.lower() == approver.lower():
        return f"merged by @{approver} in #{number}"
    by = f"merged by @{info.merged_by}" if info.merged_by else "merged"
    return f"{by} in #{number}, approved by @{approver}"


def _settled(record: DecisionRecord, outcome: Outcome, now: dt.datetime, reason: str = "") -> DecisionRecord:
    update: dict[str, object] = {"outcome": outcome, "state": "settled", "settled_at": now, "at": now}
    if reason:
        update["reason"] = reason
    return record.model_copy(update=update)


def _closed(record: DecisionRecord, now: dt.datetime) -> tuple[DecisionRecord, Retirement | None]:
    """A closed review PR declines its lessons; a closed dispute PR retires its rule."""
    settled = _settled(record, "retired" if record.kind == "dispute" else "declined", now)
    if record.kind != "dispute" or not record.rule_id or record.pr is None:
        return settled, None
    return settled, Retirement(
        record.rule_id, record.member, f"dispute PR #{record.pr.number} was closed", settled
    )
