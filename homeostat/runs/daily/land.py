"""Publish, part 1: one daily PR per member with the merged lessons, reconfirmations, retirements and
approvals, validated whole and squash-merged. A host that refuses the merge leaves the PR open, and
its lessons count as review."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from homeostat.adapters.state.state_store import read_state
from homeostat.core.config import Config
from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.daily.curate import cited_urls
from homeostat.core.kb import KB
from homeostat.core.state.branch import JournalEntry, state_branch
from homeostat.runs.daily.record import decision_record
from homeostat.runs.daily.run_state import DAILY_PREFIX, DailyContext, Decided, Retirement, RunState
from homeostat.runs.publish import SKIP_CI, Change, Published, body

log = logging.getLogger("homeostat.daily")


@dataclass
class DailyEdit:
    """One member's daily change: the edit and what made it into it."""

    edit: KbEdit
    applied: list[Decided]
    retired: list[Retirement] = field(default_factory=list)
    approved: list[Retirement] = field(default_factory=list)
    contested: list[Retirement] = field(default_factory=list)


def drop_overlap(
    ctx: DailyContext, base: str, decided: list[Decided], run: RunState
) -> tuple[list[Decided], str]:
    """Another run (the schedule and a manual run) may have decided some of these since this one
    started: leave those to it, so no lesson lands twice. The base tip to publish on."""
    ctx.fetch(base)
    base_sha = ctx.base_tip(base)
    fresh = read_state(ctx.git, ctx.deps.remote, state_branch(base))
    theirs, ours = fresh.decided_hashes(), run.state.decided_hashes()
    cited = cited_urls(ctx.kb_at(base_sha))
    kept: list[Decided] = []
    for d in decided:
        overlapping = d.lesson.key in theirs and d.lesson.key not in ours
        if overlapping or (d.lesson.from_review and d.lesson.url in cited):
            print(
                f"notice: {d.lesson.title[:60]!r} was decided by an overlapping run; left to it", file=ctx.out
            )
            continue
        kept.append(d)
    return kept, base_sha


def open_daily_prs(
    ctx: DailyContext,
    config: Config,
    base: str,
    base_sha: str,
    decided: list[Decided],
    retirements: list[Retirement],
    run: RunState,
) -> str:
    """Land each member's daily PR in turn, each on the base as the last one left it; the new tip."""
    members = sorted({d.lesson.member for d in decided} | {r.member for r in retirements})
    for member in members:
        mine = [d for d in decided if d.lesson.member == member]
        landing = [d for d in mine if d.verdict in ("merge", "duplicate")]
        my_retirements = [r for r in retirements if r.member == member]
        if landing or my_retirements:
            base_sha = _daily_pr(ctx, base, base_sha, member, mine, landing, my_retirements, run)
    return base_sha


def _daily_pr(
    ctx: DailyContext,
    base: str,
    base_sha: str,
    member: str,
    mine: list[Decided],
    landing: list[Decided],
    retirements: list[Retirement],
    run: RunState,
) -> str:
    today = ctx.today()
    kb = ctx.kb_at(base_sha)
    daily = daily_edit(kb, today, landing, retirements)
    changed = daily.edit.diff(kb.files)
    if not changed or not _validates(ctx, daily.edit.kb(), changed, member, daily.applied):
        return base_sha
    title = f"Homeostat daily: {member} {today.isoformat()}"
    text = daily_body(
        member,
        today,
        base,
        landed=daily.applied,
        reconfirmed=[d for d in daily.applied if d.verdict == "duplicate"],
        retired=daily.retired,
        approved=daily.approved,
        contested=daily.contested,
        decisions=mine,
    )
    branch = ctx.publisher.branch_name(DAILY_PREFIX, member, today.isoformat())
    message = "\n".join(f"- {d.outcome}: {d.lesson.title}" for d in daily.applied) or "retirements"
    entry = JournalEntry(
        kind="daily",
        member=member,
        branch=branch,
        title=title,
        sha="-",
        merge_message=message,
        records=tuple(decision_record(d, ctx.now()) for d in daily.applied),
        settled=tuple(
            r.record for r in (*daily.retired, *daily.approved, *daily.contested) if r.record is not None
        ),
    )
    published = ctx.publisher.open(
        Change(base, base_sha, changed, branch, title, text, f"{title} {SKIP_CI}"),
        before_push=lambda sha: ctx.write_ahead(entry.model_copy(update={"sha": sha}), base_sha),
    )
    ctx.made(published.sha, daily.edit.kb())  # its squash-merge holds the same tree
    return _merge(ctx, base, base_sha, member, published, daily.applied, message, run)


def _merge(
    ctx: DailyContext,
    base: str,
    base_sha: str,
    member: str,
    published: Published,
    applied: list[Decided],
    message: str,
    run: RunState,
) -> str:
    """Squash-merge; the new base tip. A refusal turns the PR's merged lessons into review."""
    number, title = published.pull.number, published.change.title
    merged = ctx.publisher.land(published, f"{title} (#{number})", message)
    if merged.merged:
        for d in applied:
            d.pr = published.ref
        ctx.fetch_base(base)
        return ctx.base_tip(base)
    run.notice(
        "merge-refused",
        f"daily PR #{number} for {member} was not merged ({merged.reason}); it stays open",
        ctx.out,
    )
    for d in applied:
        if d.verdict == "merge":
            d.verdict, d.reason, d.pr = (
                "review",
                f"the host refused the daily merge: {merged.reason}",
                published.ref,
            )
            d.waiting_key = "daily-refused"
    return base_sha


def _validates(
    ctx: DailyContext, kb: KB, changed: dict[str, str], member: str, applied: list[Decided]
) -> bool:
    """The whole KB with the change (`kb`) must validate where it changed; otherwise its lessons go to
    review. The changed sections are checked, with the KB's id index (see FileErrors)."""
    errors = ctx.file_errors().in_kb(kb, changed)
    if not errors:
        return True
    first = errors[0].message
    for d in applied:
        d.verdict, d.reason = "review", "the KB did not validate with it merged: " + first
    print(f"notice: daily PR for {member} did not validate; its lessons go to review", file=ctx.out)
    return False


def daily_edit(
    kb: KB, today: dt.date, landing: Sequence[Decided], retirements: Sequence[Retirement]
) -> DailyEdit:
    edit = KbEdit.of(kb, today)
    daily = DailyEdit(edit, apply_landing(edit, kb, landing))
    for r in retirements:
        try:
            if r.action == "approve":
                edit.approve(r.rule_id, r.by)
                daily.approved.append(r)
            elif r.action == "contest":
                if contest(edit, r):
                    daily.contested.append(r)
            else:
                edit.retire(r.rule_id)
                daily.retired.append(r)
        except ApplyError as exc:
            log.warning("cannot %s %s: %s", r.action, r.rule_id, exc)
    return daily


def contest(edit: KbEdit, retirement: Retirement) -> bool:
    """Flag a rule whose review PR merged with no second person's reading, so it reaches no agent
    until a person settles its dispute PR; whether it changed. The flag is the author's (a flag names
    a member), its reason says whose merge it was. A rule already disputed (a run that stopped after
    flagging it) or retired (a dispute PR that retired it) is left as it is."""
    rule = edit.rule(retirement.rule_id)
    if rule.meta.status in ("disputed", "retired"):
        return False
    edit.flag(retirement.rule_id, retirement.member, retirement.reason)
    return True


def apply_landing(edit: KbEdit, kb: KB, landing: Sequence[Decided]) -> list[Decided]:
    """Apply merged lessons and reconfirmations to one member's daily edit; a rule reconfirmed once."""
    reconfirmed: set[str] = set()
    applied: list[Decided] = []
    for d in landing:
        try:
            if d.lesson.kind == "flag":
                edit.flag(d.target, d.lesson.originator, d.lesson.reason)
                d.rule_id = d.target
            elif d.verdict == "duplicate":
                d.rule_id = d.target
                if d.target in reconfirmed or not d.target or kb.rule(d.target) is None:
                    continue
                edit.reconfirm(d.target, d.lesson.url)
                reconfirmed.add(d.target)
            elif d.is_update and d.update is not None:
                u = d.update
                edit.update(u.target, d.lesson, u.title, u.rule, u.why, approved_by=(d.lesson.originator,))
                d.rule_id = u.target
            else:
                d.rule_id = edit.add_new(d.lesson, approved_by=(d.lesson.originator,))
            applied.append(d)
        except ApplyError as exc:
            d.verdict, d.reason = "decline", str(exc)
    return applied


def daily_body(
    member: str,
    day: dt.date,
    base: str,
    *,
    landed: Sequence[Decided],
    reconfirmed: Sequence[Decided],
    retired: Sequence[Retirement],
    approved: Sequence[Retirement],
    decisions: Sequence[Decided],
    contested: Sequence[Retirement] = (),
) -> str:
    """The daily PR's body: what it lands, and every decision with its score breakdown."""
    return body(
        "daily_pr.md.j2",
        member=member,
        date=day.isoformat(),
        merged=[d for d in landed if d.outcome == "merged"],
        updated=[d for d in landed if d.outcome == "updated"],
        reconfirmed=list(reconfirmed),
        disputed=[d for d in landed if d.outcome == "disputed"],
        retired=[{"rule_id": r.rule_id, "reason": r.reason} for r in retired],
        approved=[{"rule_id": r.rule_id, "reason": r.reason} for r in approved],
        contested=[{"rule_id": r.rule_id, "reason": r.reason} for r in contested],
        decisions=list(decisions),
        state_branch=state_branch(base),
    )
