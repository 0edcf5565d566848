"""Settle: review PRs from earlier runs. Merged by a reviewer means merged (and approved by them);
closed means declined, or for a dispute PR, the rule retired. An unclear answer from the host is
never read as closed: the record stays as it was."""

from __future__ import annotations

import datetime as dt
import logging

from homeostat.core.config import Config
from homeostat.core.hosts import CodeHost, PullInfo, PullState, RepoRef
from homeostat.core.state.branch import DecisionRecord, Outcome, StateSnapshot
from homeostat.errors import HomeostatError
from homeostat.runs.daily.run_state import DailyContext, Retirement, RunState

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
            settled, retirement = _merged(config, record, info, now)
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


def _merged(
    config: Config, record: DecisionRecord, info: PullInfo, now: dt.datetime
) -> tuple[DecisionRecord, Retirement | None]:
    """A reviewer's merge: the rule is in force and records who approved it; or, for a flag, the
    rule is disputed (the PR did that) and its dispute PR opens in this run."""
    outcome: Outcome = "disputed" if record.kind == "flag" else "merged"
    settled = record.model_copy(update={"outcome": outcome, "state": "settled", "settled_at": now, "at": now})
    if record.kind == "flag" and record.rule_id and record.pr is not None:
        return settled, Retirement(
            record.rule_id,
            record.member,
            f"flag merged in #{record.pr.number}",
            action="dispute",
            by=info.merged_by or "",
        )
    merger = config.member(info.merged_by or "")
    if not record.rule_id or record.kind == "dispute" or merger is None or record.pr is None:
        return settled, None
    return settled, Retirement(
        record.rule_id,
        record.member,
        f"merged by @{merger.handle} in #{record.pr.number}",
        settled,
        action="approve",
        by=merger.handle,
    )


def _closed(record: DecisionRecord, now: dt.datetime) -> tuple[DecisionRecord, Retirement | None]:
    """A closed review PR declines its lessons; a closed dispute PR retires its rule."""
    outcome: Outcome = "retired" if record.kind == "dispute" else "declined"
    settled = record.model_copy(update={"outcome": outcome, "state": "settled", "settled_at": now, "at": now})
    if record.kind != "dispute" or not record.rule_id or record.pr is None:
        return settled, None
    return settled, Retirement(
        record.rule_id, record.member, f"dispute PR #{record.pr.number} was closed", settled
    )
