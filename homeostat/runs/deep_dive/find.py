"""Find: the KB at the base branch's tip, the window since the last deep dive, and what to change.

Merges and contradiction checks ask the `deep-dive` agent, retractions the `retractor`; the
spending cap stops new calls where it is reached, and what it left is named in `Found.skipped`.

The calls go through the run's pool, several at once, and their answers are applied in order, so
the PR is the one the calls one at a time would make. A merge drops a rule, and a later pair with
that rule is not asked: the merges' gate (`MergeGate`) starts a pair only once no pair still running
could drop one of its rules. Every answer is remembered on the state branch by the content hash of
its question (homeostat.core.state.checkpoints), so next week a pair whose rules did not change is not
asked again: the weekly cost follows what changed, not the size of the KB.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from homeostat.adapters.kb_files import load_kb_ref
from homeostat.adapters.state.run_claim import ClaimLost
from homeostat.adapters.state.state_store import read_state
from homeostat.core.asker import Answered, Asker, SpendingCapError
from homeostat.core.config import Config
from homeostat.core.daily.consolidate import OverlapIndex, candidate_from_rule
from homeostat.core.daily.retract import ForAPerson, RetractCalls, listed_citations, retract_all
from homeostat.core.deep_dive.contradictions import (
    CONTRADICTION_SYSTEM,
    ContradictionAnswer,
    contradiction_prompt,
    new_rules,
    overlapping,
    usable_contradictions,
)
from homeostat.core.deep_dive.duplicates import (
    SAME_RULE_SYSTEM,
    MergeGate,
    Pair,
    SameRuleAnswer,
    in_force,
    near_duplicate_pairs,
    same_rule_prompt,
)
from homeostat.core.deep_dive.upkeep import coverage_notes, stale_rules
from homeostat.core.kb import KB
from homeostat.core.measure.repeats import RuleRepeats, rule_repeats
from homeostat.core.schema import Rule
from homeostat.core.state.branch import StateSnapshot, state_branch
from homeostat.errors import HomeostatError
from homeostat.runs.deep_dive.run_state import DeepDiveContext, Found, Merge
from homeostat.runs.model_pool import ModelPool

FIRST_WINDOW = dt.timedelta(days=7)
T = TypeVar("T")


@dataclass(frozen=True)
class Loaded:
    kb: KB
    config: Config
    base: str
    base_sha: str
    snapshot: StateSnapshot
    week: str  # ISO week, e.g. 2026-W49: one deep-dive PR each
    since: dt.datetime  # rules new since then are checked for contradictions


def base_branch(ctx: DeepDiveContext) -> str:
    """The branch the checkout's homeostat.yaml names as the base (`sources.baseBranch`)."""
    head = ctx.git.rev_parse("HEAD")
    if head is None:
        raise HomeostatError("the KB checkout has no commits")
    return load_kb_ref(ctx.git, head).require_config().sources.base_branch


def load(ctx: DeepDiveContext, base: str, now: dt.datetime) -> Loaded:
    """The KB at the base's tip and the state branch (read after the run's claim is taken)."""
    ctx.fetch(base)
    base_sha = ctx.publisher.base_tip(base)
    kb = load_kb_ref(ctx.git, base_sha)
    snapshot = read_state(ctx.git, ctx.deps.remote, state_branch(base))
    week, monday = week_of(now)
    return Loaded(kb, kb.require_config(), base, base_sha, snapshot, week, window_start(snapshot, monday))


def week_of(now: dt.datetime) -> tuple[str, dt.datetime]:
    """The ISO week's name and its Monday 00:00 UTC."""
    day = now.astimezone(dt.UTC).date()
    year, week, weekday = day.isocalendar()
    monday = dt.datetime.combine(day - dt.timedelta(days=weekday - 1), dt.time(), dt.UTC)
    return f"{year}-W{week:02d}", monday


def window_start(snapshot: StateSnapshot, monday: dt.datetime) -> dt.datetime:
    """Where "the week's new rules" start: the last deep dive before this week (reaching back over a
    capped or failed one), so a rerun this week checks what the week's first run checked."""
    earlier = [r for r in snapshot.runs.values() if r.kind == "deep-dive" and r.started_at < monday]
    last = max(earlier, key=lambda r: r.started_at, default=None)
    if last is None:
        return monday - FIRST_WINDOW
    carried = [
        c
        for c in (last.capped.since if last.capped else None, last.failed.since if last.failed else None)
        if c
    ]
    return min([last.started_at, *carried])


def find(ctx: DeepDiveContext, loaded: Loaded) -> Found:
    kb, config, today = loaded.kb, loaded.config, ctx.today()
    found = Found()
    rules = in_force(kb.rules)
    index = OverlapIndex(candidate_from_rule(r) for r in rules)
    asker, pool = ctx.ask("deep-dive"), ctx.pool("deep-dive")
    merge_duplicates(found, near_duplicate_pairs(rules, config, index), asker, pool)
    gone = {m.drop.id for m in found.merges}
    confirmed = {m.keep.id: max(m.keep.meta.last_confirmed, m.drop.meta.last_confirmed) for m in found.merges}
    left = [r for r in rules if r.id not in gone]
    found.stale = stale_rules(left, today, config.scoring.stale_after_days, confirmed)
    gone |= {r.id for r in found.stale}
    check_contradictions(found, loaded, [r for r in left if r.id not in gone], index, gone, asker, pool)
    retract_stale(ctx, found, kb, config, today)
    for merge in found.merges:
        note = f"merged into {merge.keep.id} as a duplicate: cite {merge.keep.id} instead"
        found.listed += listed_citations(kb, merge.drop, note)
    found.notes = coverage_notes(
        kb, config, [r for r in rules if r.id not in gone], today, config.scoring.stale_after_days
    )
    found.retaught = retaught(loaded, {r.id for r in rules} - gone)
    _notices(ctx, found)
    return found


def retaught(loaded: Loaded, kept: set[str]) -> list[RuleRepeats]:
    """Rules still in force that a review re-taught since the last deep dive, most re-taught first."""
    recent = [r for r in loaded.snapshot.repeat_records() if r.at >= loaded.since and r.rule_id in kept]
    return list(rule_repeats(recent))


def merge_duplicates(
    found: Found, pairs: Sequence[Pair], asker: Asker, pool: ModelPool | None = None
) -> None:
    """One call per proposed pair whose rules no earlier merge dropped; merged only on `same: true`."""
    gate = MergeGate()

    def ask(pair: Pair) -> SameRuleAnswer | None:
        return asker.ask(SAME_RULE_SYSTEM, same_rule_prompt(pair), SameRuleAnswer)

    outcomes = (pool or ModelPool(1)).run_gated(pairs, ask, gate)
    gone: set[str] = set()
    for pair, outcome in zip(pairs, outcomes, strict=True):
        if outcome is None or pair.keep.id in gone or pair.drop.id in gone:
            continue
        answer = _asked(found, f"merge of {pair.drop.id} into {pair.keep.id}", outcome)
        if answer is not None and answer.same:
            found.merges.append(Merge(pair.keep, pair.drop, answer.reason))
            gone.add(pair.drop.id)


def check_contradictions(
    found: Found,
    loaded: Loaded,
    rules: Sequence[Rule],
    index: OverlapIndex,
    gone: set[str],
    asker: Asker,
    pool: ModelPool | None = None,
) -> None:
    """One call per new rule that overlaps others; each contradiction is declared once."""
    checks = [
        (rule, others)
        for rule in new_rules(rules, loaded.since, loaded.snapshot.records_since(loaded.since))
        if (others := overlapping(rule, index, gone))
    ]
    outcomes = (pool or ModelPool(1)).run_each(
        [
            partial(asker.ask, CONTRADICTION_SYSTEM, contradiction_prompt(rule, others), ContradictionAnswer)
            for rule, others in checks
        ]
    )
    declared: set[tuple[str, str]] = set()
    for (rule, others), outcome in zip(checks, outcomes, strict=True):
        name = f"contradiction check of {rule.id}"
        answer = _asked(found, name, outcome)
        usable = usable_contradictions(answer, rule, others) if answer is not None else []
        if usable is None:
            found.unanswered.append(f"{name}: no usable answer")
            continue
        for c in usable:
            if (c.other, c.rule.id) not in declared:
                declared.add((c.rule.id, c.other))
                found.contradictions.append(c)


def _asked(found: Found, name: str, outcome: Answered[T]) -> T | None:
    """One check's answer, applied in order: a check the spending cap refused is skipped by name, and
    a failure or an answer that does not fit is named too. None whenever there is nothing to act on.

    An answer already paid for is used even after an earlier check was refused: the checks are asked
    at once, so a later one can reserve its cost before an earlier one is refused, and throwing its
    answer away would pay for nothing."""
    try:
        answer = outcome.get()
    except SpendingCapError:
        found.capped = True
        found.skipped.append(name)
        return None
    except ClaimLost:
        raise  # another deep dive took the run over: it stops here
    except HomeostatError as exc:
        found.unanswered.append(f"{name}: the model call failed ({exc})")
        return None
    if answer is None:
        found.unanswered.append(f"{name}: no usable answer")
    return answer


def retract_stale(ctx: DeepDiveContext, found: Found, kb: KB, config: Config, today: dt.date) -> None:
    """A retraction for each section citing a stale rule; one rewrite per section in this PR."""
    calls = RetractCalls(config.agents.deep_dive.retract_calls, "agents.deepDive.retractCalls")
    calls.capped = found.capped
    retractor = ctx.ask("retractor") if found.stale else None
    rewritten: set[tuple[str, str]] = set()
    every = retract_all(retractor, kb, found.stale, calls, source="deep-dive", today=today)
    for rule, result in zip(found.stale, every, strict=True):
        found.listed += result.listed
        for rewrite in result.rewrites:
            where = (rewrite.citation.doc_id, rewrite.citation.section_id)
            if where in rewritten:
                found.listed.append(
                    ForAPerson(*where, rule.id, "rewritten for another retired rule in this PR")
                )
                continue
            rewritten.add(where)
            found.rewrites.append(rewrite)
    found.capped = found.capped or calls.capped


def _notices(ctx: DeepDiveContext, found: Found) -> None:
    if found.capped:
        names = "; ".join(found.skipped) or "retractions"
        ctx.notice(
            found,
            "spending-cap",
            f"spending cap reached: skipped {len(found.skipped)} check(s): {names}"[:500],
        )
    if found.listed:
        ctx.notice(
            found,
            "retract-cap",
            f"{len(found.listed)} document section(s) citing a retired or merged rule are listed for a person",
        )
    if found.unanswered and not ctx.options.show_prompts:
        print(
            f"notice: {len(found.unanswered)} check(s) had no usable answer: " + "; ".join(found.unanswered),
            file=ctx.out,
        )
