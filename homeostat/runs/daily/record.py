"""Record: every decision, the members' heartbeats and the run report on the state branch (never
force-pushed), the review queue to Slack, and the one-line summary."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace

from homeostat.core.config import Config
from homeostat.core.daily.lessons import Lesson
from homeostat.core.kb import KB
from homeostat.core.measure.repeats import repeat_of, served_ids
from homeostat.core.notify import queue_items, review_queue_message
from homeostat.core.safety.secrets import redacted
from homeostat.core.state.branch import (
    Capped,
    Cost,
    DecisionKind,
    DecisionRecord,
    DecisionsFile,
    Failed,
    LessonSource,
    RepeatRecord,
    RepeatsFile,
    RunReport,
    Unread,
    dump_state,
    repeats_path,
    state_branch,
)
from homeostat.errors import HomeostatError
from homeostat.runs.daily.run_state import DailyContext, Decided, RunState


def record_decisions(ctx: DailyContext, decided: list[Decided], run: RunState) -> None:
    """One record per decided lesson; middle-band ones stay in review until a person settles them."""
    now = ctx.now()
    for d in decided:
        run.records[d.lesson.member].append(decision_record(d, now))


def record_repeats(ctx: DailyContext, kb: KB, decided: list[Decided], run: RunState) -> None:
    """A review lesson that duplicated or updated a rule in force when its PR was opened is a repeat;
    whether the rule had been served to the author comes from the heartbeat their sync sent."""
    now = ctx.now()
    beats = {beat.member.lower(): beat for beat in run.heartbeats}
    for d in decided:
        target = d.update.target if d.update is not None else ""
        served = served_ids(beats.get(d.lesson.member.lower()))
        repeat = repeat_of(d.lesson, d.update, kb.rule(target) if target else None, served, now)
        if repeat is not None:
            run.repeats[d.lesson.member].append(repeat)
    found = [r for records in run.repeats.values() for r in records]
    if found:
        after_served = sum(r.served is True for r in found)
        print(
            f"daily: {len(found)} review lesson(s) re-taught a rule already in force "
            f"({after_served} after it was served to the PR's author)",
            file=ctx.out,
        )


def repeat_files(repeats: Mapping[str, Iterable[RepeatRecord]]) -> dict[str, bytes]:
    """`repeats/<member>.json` for each member's repeats in this run (merged into the branch's by hash)."""
    files: dict[str, bytes] = {}
    for member, mine in repeats.items():
        latest = {record.hash: record for record in mine}
        if latest:
            files[repeats_path(member)] = dump_state(
                RepeatsFile(member=member, records=tuple(latest.values()))
            )
    return files


def decision_record(d: Decided, now: dt.datetime) -> DecisionRecord:
    outcome = d.outcome
    in_review = outcome == "review"
    return DecisionRecord(
        hash=d.lesson.key,
        member=d.lesson.member,
        kind=record_kind(d.lesson),
        title=d.lesson.title or d.lesson.target or "(untitled)",
        rule_id=d.rule_id or d.target or None,
        area=d.lesson.area or None,
        source=LessonSource(type=d.lesson.source, url=d.lesson.url or None),
        outcome=outcome,
        state="in-review" if in_review else "settled",
        confidence=d.confidence.total,
        breakdown=d.confidence.as_dict(),
        reason=d.reason,
        pr=d.pr,
        review_opened_at=now if in_review else None,
        settled_at=None if in_review else now,
        at=now,
    )


def record_kind(lesson: Lesson) -> DecisionKind:
    if lesson.from_review and lesson.kind == "new":
        return "review-thread"
    return {
        "new": "new",
        "update": "update",
        "flag": "flag",
        "doc": "review-thread" if lesson.from_review else "new",
    }[lesson.kind]


def run_report(ctx: DailyContext, decided: list[Decided], run: RunState, failed: str | None) -> RunReport:
    """The run's timing, decisions per outcome, the KB's health after it, notices and cost."""
    finished = ctx.now()
    counts = Counter(d.outcome for d in decided)
    kb = ctx.kb_at(ctx.base_tip(run.base)) if not ctx.options.offline else None
    health: dict[str, int] = {}
    if kb is not None:
        health = dict(Counter(f"rules.{r.meta.status}" for r in kb.rules))
        health["documents"] = len(kb.documents)
    stats = ctx.deps.stats
    return RunReport(
        run_id=run.run_id,
        kind="daily",
        started_at=run.started,
        finished_at=finished,
        duration_seconds=max(0.0, (finished - run.started).total_seconds()),
        decided=dict(counts),
        health=health,
        notices=tuple(run.notices),
        capped=Capped(since=run.since) if run.capped else None,
        failed=Failed(since=run.since, reason=failed) if failed else None,
        cost=Cost(usd=round(stats.cost_usd, 6), estimated=stats.estimated),
        unread=Unread(since=run.since, reason=run.unread) if run.unread else None,
    )


def failed_report(ctx: DailyContext, run: RunState, reason: str) -> RunReport:
    """The report of a run stopped by an error or a signal: its window, so the next run reads it
    again (no health counts: the host may be what failed)."""
    finished = ctx.now()
    stats = ctx.deps.stats
    return RunReport(
        run_id=run.run_id,
        kind="daily",
        started_at=run.started,
        finished_at=max(finished, run.started),
        duration_seconds=max(0.0, (finished - run.started).total_seconds()),
        notices=tuple(run.notices),
        capped=Capped(since=run.since) if run.capped else None,
        failed=Failed(since=run.since, reason=reason),
        cost=Cost(usd=round(stats.cost_usd, 6), estimated=stats.estimated),
        unread=Unread(since=run.since, reason=run.unread) if run.unread else None,
    )


def report_file(report: RunReport) -> dict[str, bytes]:
    return {f"runs/{report.started_at.date().isoformat()}.json": dump_state(report)}


def final_checkpoints(ctx: DailyContext, run: RunState) -> dict[str, bytes]:
    """The checkpoint a finished run leaves: answers for lessons still undecided, and the threads to
    draft again; threads given up after too many runs are a notice."""
    checkpoint = ctx.checkpoint
    if checkpoint is None:
        return {}
    decided = run.state.decided_hashes().union(r.hash for records in run.records.values() for r in records)
    files = checkpoint.files(decided=decided, now=ctx.now())
    if checkpoint.given_up:
        urls = ", ".join(t.url for t in checkpoint.given_up)
        run.notice(
            "model-failure",
            f"gave up drafting {len(checkpoint.given_up)} review thread(s) whose model calls failed in "
            f"each of the last runs: {urls}"[:500],
            ctx.out,
        )
    return files


def write_run_state(
    ctx: DailyContext, run: RunState, report: RunReport, checkpoints: Mapping[str, bytes] | None = None
) -> None:
    """Decisions (the latest record per lesson), heartbeats, the report and the run's checkpoints,
    merged into the branch in one commit that also releases the run's claim."""
    files = decision_files(run.records)
    files.update(repeat_files(run.repeats))
    if ctx.claim is not None:
        files.update(ctx.claim.released())
    for heartbeat in run.heartbeats:
        # the served ids were for this run alone: every clone reads the state branch, and an older
        # Homeostat there would refuse a heartbeat with a field it does not know
        files[f"heartbeats/{heartbeat.member}.json"] = dump_state(heartbeat.model_copy(update={"served": ()}))
    files.update(report_file(report))
    files.update(checkpoints or {})
    ctx.publisher.record(files, branch=state_branch(run.base), message=f"homeostat daily {report.run_id}")
    ctx.claim = None  # released: nothing is left for an error after this to hand on


def decision_files(records: Mapping[str, Iterable[DecisionRecord]]) -> dict[str, bytes]:
    """`decisions/<member>.json` for each member's records (the latest per lesson)."""
    files: dict[str, bytes] = {}
    for member, mine in records.items():
        latest = {record.hash: record for record in mine}
        files[f"decisions/{member}.json"] = dump_state(
            DecisionsFile(member=member, records=tuple(latest.values()))
        )
    return files


def notify(ctx: DailyContext, config: Config, run: RunState) -> None:
    """Post the review queue (new reviews, and overdue ones again); a Slack variable that is not
    set is a recorded notice, never silence."""
    if ctx.deps.notifier is None:
        message = (
            ctx.deps.notifier_missing
            or f"{config.notifications.slack_webhook_env} is not set; no Slack notice was posted"
        )
        run.notice("slack-unset", message, ctx.out)
        return
    latest = {record.hash: record for record in run.state.open_records()}
    for records in run.records.values():
        latest.update({record.hash: record for record in records})
    text = review_queue_message(
        queue_items(latest.values()),
        now=ctx.now(),
        opened_since=run.started,
        overdue_days=config.notifications.review_overdue_days,
        reviewers=config.team.reviewers,
    )
    if text is None:
        return
    try:
        ctx.deps.notifier.post(replace(text, text=redacted(text.text)))
    except HomeostatError as exc:
        print(f"notice: the Slack notice was not posted: {exc}", file=ctx.out)


def outcome_counts(decided: list[Decided]) -> str:
    counts = Counter(d.outcome for d in decided)
    return ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items())) or "nothing to decide"


def summary(ctx: DailyContext, decided: list[Decided]) -> None:
    print(f"daily: {outcome_counts(decided)}; {len(ctx.opened)} PR(s) opened", file=ctx.out)
