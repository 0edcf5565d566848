"""Decide: every collected lesson gets a verdict (merge, review, decline, duplicate) in three passes.

1. consolidate: a new lesson that repeats or refines a rule (or one waiting in review) becomes a
   duplicate or an update of it; one consolidator call each, at most `consolidateCalls` a run.
2. score: the lesson as it would land is applied to a scratch copy and validated (`validate_draft`),
   scored for confidence and decided by the thresholds.
3. judge: a review-drafted rule that would merge with no person is checked by the judge first.

The spending cap stops a pass where it is reached: those lessons are left undecided (no record).

The consolidator's and the judge's calls go through the run's pool, several at once; each pass
applies the answers in the lessons' order, so it decides exactly what one call at a time would have.
The judge's call cap depends on earlier verdicts (a pass is one call, a failure three): a gate
(`JudgeBudget`) starts a judge only once it is sure the lesson is within the cap. Each lesson's calls
are charged to what its draft set aside (homeostat.core.cost.spending).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Protocol

from pydantic import ValidationError

from homeostat.core.asker import Answered, Asker, SpendingCapError
from homeostat.core.config import Config
from homeostat.core.cost.spending import working_on
from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.daily.confidence import Confidence, score_confidence
from homeostat.core.daily.consolidate import (
    Candidate,
    Consolidation,
    OverlapIndex,
    candidate_from_rule,
    consolidate,
    fallback,
    merge_candidates,
)
from homeostat.core.daily.decide import Checks, Decision, decide
from homeostat.core.daily.enactment import code_terms
from homeostat.core.daily.field_checks import field_problems
from homeostat.core.daily.flag_cap import cap_flags, flags_merged_before
from homeostat.core.daily.judge import JUDGE_CONFIRMATIONS, JudgeBudget, Verdict, judge
from homeostat.core.daily.lessons import Lesson
from homeostat.core.daily.trust import quote_inline, trust_problems
from homeostat.core.findings import Finding
from homeostat.core.kb import KB
from homeostat.core.safety.language import ENGLISH, Foreign, foreign_sentences, usual_language
from homeostat.core.safety.subject_hits import SubjectHit
from homeostat.core.safety.subjects import subjects
from homeostat.core.schema import Rule
from homeostat.core.similarity import same_lesson
from homeostat.core.validate import NEVER_FORGIVEN
from homeostat.core.validate.content_checks import allowed_domains
from homeostat.core.validate.files import FileErrors
from homeostat.errors import HomeostatError
from homeostat.runs.daily.run_state import DailyContext, Decided, RunState
from homeostat.runs.model_pool import Gate, ModelPool


class Scoring(Protocol):
    """What scoring reads of a run (a DailyContext, or a draft job judging ahead, homeostat.runs.shards)."""

    def today(self) -> dt.date: ...

    def file_errors(self) -> FileErrors: ...


@dataclass(frozen=True)
class Draft:
    """A lesson after consolidation: what it would change, and what the checks found so far."""

    lesson: Lesson
    checks: Checks
    consolidation: Consolidation | None
    target: str


@dataclass(frozen=True)
class Scored:
    lesson: Lesson  # as it would land (an update carries the rewritten rule)
    consolidation: Consolidation | None
    target: str
    confidence: Confidence
    decision: Decision


@dataclass
class _Budget:
    """One agent's model calls in this run: its cap, the calls made, the drafts that went without."""

    cap: int
    used: int = 0
    skipped: int = 0

    @property
    def left(self) -> int:
        return self.cap - self.used


def decide_all(
    ctx: DailyContext, kb: KB, config: Config, lessons: list[Lesson], waiting: list[Candidate], run: RunState
) -> list[Decided]:
    consolidator, judge_asker = ctx.ask("consolidator"), ctx.ask("judge")
    drafts, capped_keys = consolidate_all(ctx, kb, config, lessons, waiting, run, consolidator)
    scored = capped_flags(score_all(ctx, kb, config, lessons, drafts), config, run, kb)
    decided = judge_all(ctx, kb, config, scored, run, judge_asker)
    for lesson in lessons:
        if lesson.key in capped_keys:
            decided.append(Decided(lesson, Confidence(0, ()), "review", "spending cap", undecided=True))
    return decided


# --- 1. consolidate ---------------------------------------------------------------------------------


def consolidate_all(
    ctx: DailyContext,
    kb: KB,
    config: Config,
    lessons: list[Lesson],
    waiting: list[Candidate],
    run: RunState,
    consolidator: Asker,
) -> tuple[list[Draft], set[str]]:
    """Each lesson's draft; the keys left undecided because the spending cap was reached."""
    pool = OverlapIndex(  # indexed once a run, not once a lesson
        [candidate_from_rule(r) for r in kb.rules if r.meta.status == "accepted" and r.meta.adopted] + waiting
    )
    waiting_ids = {c.id for c in waiting}
    asked = _consolidations(ctx, config, lessons, pool, consolidator)
    drafts: list[Draft] = []
    capped_keys: set[str] = set()
    for position, lesson in enumerate(lessons):
        if lesson.key in capped_keys:
            continue
        if lesson.kind in ("update", "flag"):
            drafts.append(_by_hand(kb, lesson))
        elif lesson.kind != "new":
            drafts.append(Draft(lesson, Checks(), None, ""))
        else:
            try:
                drafts.append(_new_lesson(lesson, asked.get(position), waiting_ids))
            except SpendingCapError:
                run.capped = True
                run.notice(
                    "spending-cap",
                    "spending cap reached during consolidation; those lessons wait for the next run",
                    ctx.out,
                )
                capped_keys.update(_copies(lesson, lessons))
    return drafts, capped_keys


@dataclass(frozen=True)
class _Asked:
    """A new lesson's candidates, and (when the consolidator was asked) its answer."""

    candidates: list[Candidate]
    answer: Answered[Consolidation | None] | None = None


def _consolidations(
    ctx: DailyContext, config: Config, lessons: Sequence[Lesson], index: OverlapIndex, consolidator: Asker
) -> dict[int, _Asked]:
    """Each new lesson's candidates, and the consolidator's answers for the first `consolidateCalls`
    of those with candidates, asked at once and handed back by the lesson's position."""
    budget = _Budget(config.agents.curator.consolidate_calls)
    found: dict[int, _Asked] = {}
    asking: list[int] = []
    for position, lesson in enumerate(lessons):
        if lesson.kind != "new":
            continue
        found[position] = _Asked(merge_candidates(lesson, index))
        if found[position].candidates and not ctx.options.no_reviews and budget.left > 0:
            budget.used += 1
            asking.append(position)

    def ask(position: int) -> Consolidation | None:
        lesson = lessons[position]
        with working_on(lesson.key):
            return consolidate(consolidator, lesson, found[position].candidates)

    answers = ctx.pool("consolidator").run_each([partial(ask, position) for position in asking])
    for position, answer in zip(asking, answers, strict=True):
        found[position] = replace(found[position], answer=answer)
    return found


def _by_hand(kb: KB, lesson: Lesson) -> Draft:
    """An update or flag names its rule; an update by hand keeps what it does not change."""
    rule = kb.rule(lesson.target)
    if rule is None:
        return Draft(
            lesson, Checks(validation_errors=(f"no rule {lesson.target} in the KB",)), None, lesson.target
        )
    if lesson.kind != "update":
        return Draft(lesson, Checks(), None, rule.id)
    consolidation = Consolidation(
        "update",
        rule.id,
        lesson.title or rule.title,
        lesson.rule or rule.rule,
        lesson.why or rule.why,
        reason="update by hand",
    )
    return Draft(lesson, Checks(), consolidation, rule.id)


def _new_lesson(lesson: Lesson, asked: _Asked | None, waiting_ids: set[str]) -> Draft:
    """Update before add: the consolidator (or word overlap) says whether it repeats or refines a rule."""
    candidates = asked.candidates if asked is not None else []
    if not candidates:
        return Draft(lesson, Checks(), None, "")
    consolidation: Consolidation | None = None
    if asked is not None and asked.answer is not None:
        try:
            consolidation = asked.answer.get()
        except SpendingCapError:
            raise
        except HomeostatError:
            consolidation = None
    consolidation = consolidation or fallback(lesson, candidates)
    checks = Checks()
    if consolidation.action in ("update", "duplicate") and consolidation.target in waiting_ids:
        checks = replace(checks, waits_with=consolidation.target)
    elif consolidation.action == "duplicate":
        checks = replace(checks, duplicate_of=consolidation.target)
    if consolidation.contradicts:
        checks = replace(checks, contradicts=consolidation.contradicts)
    return Draft(lesson, checks, consolidation, consolidation.target)


# --- 2. score -------------------------------------------------------------------------------------


def score_all(
    ctx: Scoring, kb: KB, config: Config, lessons: Sequence[Lesson], drafts: Sequence[Draft]
) -> list[Scored]:
    repeated = _repeated_by(lessons)
    accepted = accepted_languages(kb, config)
    updated_rules: set[str] = set()
    scored: list[Scored] = []
    for draft in drafts:
        effective, checks, consolidation = draft.lesson, draft.checks, draft.consolidation
        if consolidation is not None and consolidation.action == "update":
            if consolidation.target in updated_rules:
                checks = replace(checks, waits_with=f"another update of {consolidation.target} in this run")
            effective = _as_updated(kb, effective, consolidation)
            # the rewritten rule keeps the old rule's code, which a change uses for reasons of its own:
            # only the code the comment's draft names shows that its author enacted the comment
            checks = replace(checks, enactment_terms=code_terms(draft.lesson.rule, draft.lesson.example))
        checks = validate_draft(ctx, kb, config, effective, consolidation, checks)
        checks = replace(checks, untrusted=trust_problems(_drafted_text(effective), effective.trust))
        checks = replace(checks, subjects=lesson_subjects(effective, config))
        checks = replace(checks, foreign=lesson_languages(effective, accepted))
        rule = kb.rule(draft.target) if draft.target else None
        if rule is not None and effective.kind == "flag":
            checks = replace(checks, target_subjects=rule_subjects(rule, config))
        confidence = score_confidence(
            effective,
            config,
            repeated_by=repeated.get(draft.lesson.key, 0),
            open_flags=len(rule.meta.open_flags) if rule is not None and draft.lesson.kind == "update" else 0,
            conflicts=1 if checks.contradicts else 0,
        )
        decision = decide(effective, confidence, checks, config)
        if decision.verdict == "merge" and consolidation is not None and consolidation.action == "update":
            updated_rules.add(consolidation.target)
        scored.append(Scored(effective, consolidation, draft.target, confidence, decision))
    return scored


def capped_flags(scored: Sequence[Scored], config: Config, run: RunState, kb: KB) -> list[Scored]:
    """The scored lessons with each member's flags past `scoring.autoMerge.flags` sent to review,
    counted in the run's order after the flags merged unread earlier that UTC day or by a killed run
    this run finished (core.daily.flag_cap). Lessons are collected member by member, so counting
    here, over the whole run (every shard's lessons in a merge job), counts each member's flags once."""
    merged_before = flags_merged_before(run.state, run.started)
    disputed = {rule.meta.id for rule in kb.rules if rule.meta.status == "disputed"}
    decisions = cap_flags([(s.lesson, s.decision) for s in scored], merged_before, config, disputed)
    return [replace(s, decision=d) for s, d in zip(scored, decisions, strict=True)]


def _drafted_text(lesson: Lesson) -> str:
    """Every text of the lesson a model wrote and the KB would keep: the rule's fields, or a patch."""
    patch = lesson.doc_patch
    return "\n".join([lesson.text, *((patch.heading, patch.body) if patch is not None else ())])


def lesson_subjects(lesson: Lesson, config: Config) -> tuple[SubjectHit, ...]:
    """The sensitive subjects of every text the lesson would merge: title, rule, why, example, scope
    and a document patch (an update's rewritten text). A flag's reason is not read: a flag lands no
    text as a rule, and what sends it to a person is its rule's text (`rule_subjects`). Hosts are
    allowed as the risky check allows them (the KB's own code repos' links are provenance), so the two
    never disagree about a link."""
    if lesson.kind == "flag":
        return ()
    text = "\n".join([_drafted_text(lesson), *lesson.scope])
    return subjects(text, allowed_domains(config))


def rule_subjects(rule: Rule, config: Config) -> tuple[SubjectHit, ...]:
    """The sensitive subjects of a rule's current text (title, rule, why, example), for a flag on it:
    a flag takes its rule out of every agent's context, so one on a rule about a sensitive subject
    waits for a person (`core.daily.decide`). The rule is the team's own reviewed text, so reading
    it with the gate's word tables is sound here: an attacker's flag cannot choose the words read.
    The learned model is left out: it names a rule that reads like poisoning, the opposite of a
    safety rule to keep in service, and a flag on such a rule should dispute it at once."""
    return subjects(rule.text(), allowed_domains(config), learned=False)


def accepted_languages(kb: KB, config: Config) -> frozenset[str]:
    """The languages a lesson may be written in and merge unread: the one most of the KB's rules are
    written in, English (the language the risky check and the subject gate read best) and
    `scoring.autoMerge.languages`."""
    usual = usual_language(f"{rule.title}\n{rule.rule}\n{rule.why}" for rule in kb.rules)
    return frozenset({usual, ENGLISH, *config.scoring.auto_merge.languages})


def lesson_languages(lesson: Lesson, accepted: frozenset[str]) -> tuple[Foreign, ...]:
    """The sentences of every text the lesson would merge (title, rule, why, example, a document
    patch; an update's rewritten text) written in a language outside `accepted`. Code, paths and
    scope globs are not prose and are not read; nor is a flag's reason (see lesson_subjects)."""
    if lesson.kind == "flag":
        return ()
    return foreign_sentences(_drafted_text(lesson), accepted)


def _as_updated(kb: KB, lesson: Lesson, consolidation: Consolidation) -> Lesson:
    """The lesson as the update would land: the rewritten rule, in the rule's own area and scope,
    with the rule's own example (an update keeps it), so the judge and the checks read what merges."""
    effective = lesson.with_changes(title=consolidation.title, rule=consolidation.rule, why=consolidation.why)
    rule = kb.rule(consolidation.target)
    if rule is not None:
        effective = effective.with_changes(area=rule.area, scope=rule.meta.scope, example=rule.example or "")
    return effective


def validate_draft(
    ctx: Scoring,
    kb: KB,
    config: Config,
    lesson: Lesson,
    consolidation: Consolidation | None,
    checks: Checks,
) -> Checks:
    """Check the lesson's own fields, then apply it to a scratch copy and validate the files it
    touched: the findings are those of the text as it would land (an update already rewritten)."""
    secrets, field_risky = field_problems(lesson, config)
    if secrets:
        return replace(checks, validation_errors=secrets)
    checks = replace(checks, risky=checks.risky + field_risky)
    if lesson.kind == "flag" or checks.validation_errors:
        return checks
    edit = KbEdit.of(kb, ctx.today())
    try:
        if lesson.kind == "doc":
            edit.patch_document(lesson)
        elif consolidation is not None and consolidation.action == "update":
            edit.update(
                consolidation.target, lesson, consolidation.title, consolidation.rule, consolidation.why
            )
        elif lesson.kind == "new":
            if not lesson.area or config.area(lesson.area) is None and lesson.area != "core":
                return replace(checks, validation_errors=(f"unknown area {lesson.area!r}",))
            edit.add_new(lesson)
        else:
            return checks
    except (ApplyError, ValidationError, ValueError) as exc:
        return replace(checks, validation_errors=(str(exc).splitlines()[0],))
    changed = edit.diff(kb.files)
    new = draft_errors(ctx.file_errors(), kb, edit.kb(), changed)
    risky = tuple(f.message for f in new if f.check == "risky")
    others = tuple(f.message for f in new if f.check != "risky")
    return replace(checks, risky=checks.risky + risky, validation_errors=others)


def draft_errors(checks: FileErrors, before: KB, after: KB, changed: Collection[str]) -> list[Finding]:
    """`core.validate.new_errors` for a run's drafts, all edits of one base KB: the sections each changed are
    checked, and the rest of each file keeps the errors it had (see FileErrors). What merges with no
    person holds no risky content or secret, so those count even where the file had them before."""
    seen = Counter((f.file, f.check, f.message) for path in changed for f in checks.of(before, path))
    new: list[Finding] = []
    for finding in (f for path in sorted(changed) for f in checks.of(after, path)):
        key = (finding.file, finding.check, finding.message)
        if finding.check in ("conflict", "cache"):
            continue
        if seen[key] and finding.check not in NEVER_FORGIVEN:
            seen[key] -= 1
            continue
        new.append(finding)
    return new


# --- 3. judge -------------------------------------------------------------------------------------


def judge_all(
    ctx: DailyContext, kb: KB, config: Config, scored: Sequence[Scored], run: RunState, judge_asker: Asker
) -> list[Decided]:
    """Judge the confident review drafts, within `judgeCalls` (raised for a --since backfill)."""
    cap = config.agents.curator.judge_calls
    if ctx.options.since is not None:
        confident = sum(1 for s in scored if s.decision.needs_judge)
        cap = max(cap, (1 + JUDGE_CONFIRMATIONS) * confident)
    budget = JudgeBudget(cap)
    judged = judgements(ctx.pool("judge"), kb, scored, judge_asker, budget) if cap != 0 else {}
    decided = [_judge_one(ctx, config, s, run, judged, i, budget) for i, s in enumerate(scored)]
    if budget.skipped:
        run.notice(
            "judge-cap",
            f"{budget.skipped} confident draft(s) went to review without a judge's pass",
            ctx.out,
        )
    return decided


def judgements(
    pool: ModelPool, kb: KB, scored: Sequence[Scored], asker: Asker, budget: Gate[int, Verdict]
) -> dict[int, Answered[Verdict] | None]:
    """The verdict of each draft that needs the judge, by position: None where the call cap left it
    unjudged. Judged at once, through the budget's gate."""
    needing = [i for i, s in enumerate(scored) if s.decision.needs_judge]

    def run_judge(position: int) -> Verdict:
        s = scored[position]
        with working_on(s.lesson.key):
            return judge(asker, s.lesson, _rewritten(kb, s.consolidation))

    outcomes = pool.run_gated(needing, run_judge, budget)
    return dict(zip(needing, outcomes, strict=True))


def _judge_one(
    ctx: DailyContext,
    config: Config,
    s: Scored,
    run: RunState,
    judged: dict[int, Answered[Verdict] | None],
    position: int,
    budget: JudgeBudget,
) -> Decided:
    confidence, outcome, reason = s.confidence, s.decision.verdict, s.decision.reason
    verdict: Verdict | None = None
    if s.decision.needs_judge and budget.cap != 0:
        answered = judged.get(position)
        if answered is None:
            budget.skipped += 1
            outcome, reason = "review", "the judge's call cap was reached; a person reads it"
        else:
            try:
                verdict = answered.get()
            except SpendingCapError:
                run.capped = True
                run.notice(
                    "spending-cap",
                    "spending cap reached before the judge; those drafts wait for the next run",
                    ctx.out,
                )
                return Decided(
                    s.lesson,
                    confidence,
                    "review",
                    "spending cap",
                    target=s.target,
                    update=s.consolidation,
                    undecided=True,
                )
            assert verdict is not None  # judge() always returns one
            if verdict.outcome == "unavailable":
                budget.skipped += 1
                outcome, reason = (
                    "review",
                    f"the judge gave no usable answer ({verdict.detail}); a person reads it",
                )
            elif verdict.outcome == "contradicts":
                outcome, reason = "decline", "the judge found it contradicts its thread: " + verdict.evidence
            elif verdict.outcome == "fail":
                confidence = confidence.with_term("judge", -config.scoring.confidence.penalty.judge)
                outcome, reason = "review", "the judge found: " + verdict.evidence
            elif verdict.outcome == "unsafe":
                confidence = confidence.with_term("judge", -config.scoring.confidence.penalty.judge)
                quoted = "; ".join(quote_inline(p.evidence) for p in verdict.problems)
                outcome, reason = "review", "the judge found an unsafe instruction: " + quoted
    return Decided(
        s.lesson, confidence, outcome, reason, target=s.target, update=s.consolidation, judge=verdict
    )


def _rewritten(kb: KB, consolidation: Consolidation | None) -> str:
    """For an update, the rule it rewrites, so the judge sees what changed."""
    if consolidation is None or consolidation.action != "update":
        return ""
    old = kb.rule(consolidation.target)
    return f"{old.title}\n{old.rule}" if old else ""


# --- helpers --------------------------------------------------------------------------------------


def _repeated_by(lessons: Sequence[Lesson]) -> dict[str, int]:
    """How many other members taught the same lesson in this run."""
    counts: dict[str, int] = {}
    for lesson in lessons:
        if lesson.kind != "new":
            continue
        others = {
            o.member
            for o in lessons
            if o.kind == "new" and o.member != lesson.member and same_lesson(lesson.text, o.text)
        }
        if others:
            counts[lesson.key] = len(others)
    return counts


def _copies(lesson: Lesson, lessons: Sequence[Lesson]) -> set[str]:
    return {lesson.key} | {o.key for o in lessons if o.kind == "new" and same_lesson(lesson.text, o.text)}
