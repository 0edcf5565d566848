"""Publish, part 2: what waits for a person. One review PR per member for the middle band (and the
retraction patches for document sections citing a rule a closed dispute retired), level with the
base after every daily PR merged; one dispute PR per disputed rule. Reviewers are requested on each;
none is ever merged by the run."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence

from homeostat.core.asker import Question, SpendingCapError, ask_each
from homeostat.core.config import Config
from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.daily.confidence import Confidence
from homeostat.core.daily.dispute import DISPUTE_SYSTEM, DisputeFix, dispute_prompt, usable_fix
from homeostat.core.daily.lessons import Lesson
from homeostat.core.daily.retract import RetractCalls, Rewrite, retract_all
from homeostat.core.kb import KB
from homeostat.core.pending import DocPatchRequest
from homeostat.core.schema import Rule
from homeostat.core.state.branch import DecisionRecord, JournalEntry, LessonSource
from homeostat.core.text import content_hash
from homeostat.errors import HomeostatError
from homeostat.runs.daily.record import decision_record
from homeostat.runs.daily.run_state import (
    DISPUTE_PREFIX,
    REVIEW_PREFIX,
    DailyContext,
    Decided,
    Retirement,
    RunState,
)
from homeostat.runs.publish import Change, body

Listed = dict[str, list[dict[str, str]]]  # member -> citing sections left for a person


# --- retractions ----------------------------------------------------------------------------------


def retractions(
    ctx: DailyContext, kb: KB, config: Config, retirements: list[Retirement], run: RunState
) -> tuple[list[Decided], Listed]:
    """Patches for document sections citing a rule a closed dispute retired; the rest, listed.

    Documents never merge without a person, so the patches go in the member's review PR."""
    decided: list[Decided] = []
    listed: Listed = defaultdict(list)
    calls = RetractCalls(config.agents.curator.retract_calls, "agents.curator.retractCalls")
    asker = ctx.ask("retractor")
    retiring = [
        (retirement, rule)
        for retirement in retirements
        if retirement.action == "retire" and (rule := kb.rule(retirement.rule_id)) is not None
    ]
    every = retract_all(asker, kb, [rule for _, rule in retiring], calls, source="curator", today=ctx.today())
    for (retirement, rule), found in zip(retiring, every, strict=True):
        listed[retirement.member] += [
            {"doc": r.doc, "section": r.section, "rule_id": r.rule_id, "note": r.note} for r in found.listed
        ]
        for rewrite in found.rewrites:
            lesson = _retraction_lesson(ctx, kb, rewrite, retirement)
            decided.append(
                Decided(lesson, Confidence(0, ()), "review", f"retracts the retired rule {rule.id}")
            )
    if any(listed.values()):
        count = sum(len(items) for items in listed.values())
        run.notice(
            "retract-cap",
            f"{count} document section(s) citing a retired rule are listed for a person",
            ctx.out,
        )
    return decided, listed


def _retraction_lesson(ctx: DailyContext, kb: KB, rewrite: Rewrite, retirement: Retirement) -> Lesson:
    citation, patch = rewrite.citation, rewrite.patch
    document = kb.document(citation.doc_id)
    return Lesson(
        key=content_hash("retract", rewrite.rule_id, citation.doc_id, citation.section_id),
        origin="review",
        kind="doc",
        member=retirement.member,
        originator=retirement.member,
        source="deep-dive",
        created=ctx.now(),
        title=f"Retract {rewrite.rule_id} from {citation.doc_id}#{citation.section_id}",
        why=f"{rewrite.rule_id} was retired ({retirement.reason})",
        area=document.meta.area if document else "",
        url=patch.url,
        doc_patch=DocPatchRequest(
            doc=citation.doc_id, section=citation.section_id, op="replace", body=patch.body, note=patch.note
        ),
    )


# --- review PRs -----------------------------------------------------------------------------------


def open_review_prs(
    ctx: DailyContext,
    config: Config,
    base: str,
    base_sha: str,
    decided: list[Decided],
    listed: Mapping[str, list[dict[str, str]]] | None = None,
) -> None:
    """One review PR per member with their middle-band lessons, each on the same base."""
    today = ctx.today()
    for member in sorted({d.lesson.member for d in decided}):
        waiting = [
            d
            for d in decided
            if d.lesson.member == member and d.verdict == "review" and d.pr is None and not d.undecided
        ]
        if waiting:
            _review_pr(ctx, config, base, base_sha, member, today, waiting, (listed or {}).get(member, []))


def _review_pr(
    ctx: DailyContext,
    config: Config,
    base: str,
    base_sha: str,
    member: str,
    today: dt.date,
    waiting: list[Decided],
    listed: list[dict[str, str]],
) -> None:
    kb = ctx.kb_at(base_sha)
    edit = KbEdit.of(kb, today)
    included = apply_review(edit, waiting)
    changed = edit.diff(kb.files)
    if not changed:
        return
    title = f"Homeostat review: {member} {today.isoformat()}"
    text = review_body(member, today, included, listed)
    branch = ctx.publisher.branch_name(REVIEW_PREFIX, member, today.isoformat())
    records = tuple(decision_record(d, ctx.now()) for d in included)
    published = ctx.publisher.open(
        Change(base, base_sha, changed, branch, title, text),
        before_push=lambda sha: ctx.write_ahead(
            JournalEntry(kind="review", member=member, branch=branch, title=title, sha=sha, records=records),
            base_sha,
        ),
    )
    areas = {d.lesson.area for d in included if d.lesson.area} | flagged_areas(kb, included)
    ctx.publisher.request_reviewers(published.pull, config, areas, member, covered_paths(config, included))
    for d in included:
        d.pr = published.ref


def flagged_areas(kb: KB, included: Sequence[Decided]) -> set[str]:
    """The areas of the rules the PR's flags dispute (a flag has no area of its own), so the rule's
    reviewers are asked."""
    rules = (kb.rule(d.target) for d in included if d.lesson.kind == "flag")
    return {rule.area for rule in rules if rule is not None}


def covered_paths(config: Config, included: Sequence[Decided]) -> dict[str, list[str]]:
    """Area → the globs the PR's lessons cover (a lesson with no scope covers its area's paths)."""
    covered: dict[str, list[str]] = {}
    for d in included:
        if not d.lesson.area:
            continue
        area = config.area(d.lesson.area)
        globs = covered.setdefault(d.lesson.area, [])
        globs += [g for g in d.lesson.scope or (area.paths if area else ()) if g not in globs]
    return covered


def review_body(
    member: str, day: dt.date, included: Sequence[Decided], listed: Sequence[dict[str, str]]
) -> str:
    return body(
        "review_pr.md.j2",
        member=member,
        date=day.isoformat(),
        decisions=list(included),
        retractions=list(listed),
    )


def apply_review(edit: KbEdit, waiting: Sequence[Decided]) -> list[Decided]:
    """Apply middle-band lessons to one member's review edit. A flag waiting for a person disputes its
    rule in the PR, so a reviewer's merge lands it as the daily PR would have (the dispute PR follows
    at the next run, `open_dispute_prs`)."""
    included: list[Decided] = []
    for d in waiting:
        try:
            if d.lesson.kind == "doc":
                edit.patch_document(d.lesson)
                d.rule_id = ""
            elif d.is_update and d.update is not None:
                edit.update(d.update.target, d.lesson, d.update.title, d.update.rule, d.update.why)
                d.rule_id = d.update.target
            elif d.lesson.kind == "new":
                d.rule_id = edit.add_new(d.lesson)
            elif d.lesson.kind == "flag":
                edit.flag(d.target, d.lesson.originator, d.lesson.reason)
                d.rule_id = d.target
            else:
                continue
            included.append(d)
        except ApplyError as exc:
            d.verdict, d.reason = "decline", str(exc)
    return included


# --- dispute PRs ----------------------------------------------------------------------------------


def open_dispute_prs(
    ctx: DailyContext,
    config: Config,
    base: str,
    decided: list[Decided],
    run: RunState,
    confirmed: Sequence[Retirement] = (),
) -> None:
    """One dispute PR per rule a flag disputed in this run's daily PR, or in a review PR a reviewer
    merged since the last run (`confirmed`): a drafted fix, or its retirement."""
    flaggers = {r.rule_id: r.member for r in confirmed} | {
        d.target: d.lesson.member
        for d in reversed(decided)
        if d.lesson.kind == "flag" and d.outcome == "disputed" and d.pr is not None
    }
    if not flaggers:
        return
    ctx.fetch(base)
    base_sha = ctx.base_tip(base)
    kb = ctx.kb_at(base_sha)
    rules = [
        rule
        for rule in (kb.rule(rule_id) for rule_id in sorted(flaggers))
        if rule is not None and rule.meta.status == "disputed"
    ]
    questions = [Question(DISPUTE_SYSTEM, dispute_prompt(rule), DisputeFix) for rule in rules]
    for rule, answered in zip(rules, ask_each(ctx.ask("curator"), questions), strict=True):
        rule_id = rule.id
        try:
            fix = usable_fix(answered.get())
        except SpendingCapError:
            run.notice(
                "spending-cap",
                f"spending cap reached: the dispute fix for {rule_id} waits for the next run",
                ctx.out,
            )
            return
        except HomeostatError:
            fix = None
        _dispute_pr(ctx, config, base, base_sha, kb, rule, fix, flaggers[rule_id], run)


def _dispute_hash(run: RunState, rule_id: str, day: str) -> str:
    """`dispute-<rule>-<day>`, or the first free `-N` after it: a rule disputed again the day its
    last dispute PR opened (that PR merged with no second person's reading) gets a record of its own."""
    taken = run.state.decided_hashes()
    base = f"dispute-{rule_id}-{day}"
    candidate, n = base, 2
    while candidate in taken:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


def _dispute_pr(
    ctx: DailyContext,
    config: Config,
    base: str,
    base_sha: str,
    kb: KB,
    rule: Rule,
    fix: DisputeFix | None,
    member: str,
    run: RunState,
) -> None:
    today = ctx.today()
    edit = KbEdit.of(kb, today)
    if fix is not None:
        edit.restore(rule.id, fix.title, fix.rule, fix.why)
    else:
        edit.retire(rule.id)
    changed = edit.diff(kb.files)
    title = f"Homeostat dispute: {rule.id}"
    text = body("dispute_pr.md.j2", rule=rule, flags=rule.meta.open_flags, fix=fix)
    branch = ctx.publisher.branch_name(DISPUTE_PREFIX, rule.id, today.isoformat())
    now = ctx.now()
    record = DecisionRecord(
        hash=_dispute_hash(run, rule.id, today.isoformat()),
        member=member,
        kind="dispute",
        title=rule.title,
        rule_id=rule.id,
        area=rule.area,
        source=LessonSource(type="flag", url=None),
        outcome="review",
        state="in-review",
        confidence=0,
        reason="fix drafted from the flags" if fix else "no fix could be drafted; retires the rule",
        review_opened_at=now,
        at=now,
    )
    published = ctx.publisher.open(
        Change(base, base_sha, changed, branch, title, text),
        before_push=lambda sha: ctx.write_ahead(
            JournalEntry(
                kind="dispute", member=member, branch=branch, title=title, sha=sha, records=(record,)
            ),
            base_sha,
        ),
    )
    ctx.publisher.request_reviewers(published.pull, config, {rule.area}, member, {rule.area: rule.meta.scope})
    run.records[member].append(record.model_copy(update={"pr": published.ref}))
