"""Contradictions between the week's new rules and the rules they overlap.

The week's new rules are those created, or merged or updated by a daily run (as the state branch
records it), since the last deep dive. Each is asked about once, with at most three rules from the
overlap index; a contradiction found is declared on the new rule (`contradicts`), which costs it
score and makes validate ask a reviewer which stands. Numbers are not a guard here: "30 s" against
"60 s" is exactly what a contradiction looks like.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from homeostat.core.daily.consolidate import Candidate, OverlapIndex, candidate_from_rule
from homeostat.core.schema import Rule
from homeostat.core.state.branch import DecisionRecord

NEW_OUTCOMES = frozenset({"merged", "updated"})


@dataclass(frozen=True)
class Contradiction:
    rule: Rule  # the new rule
    other: str  # the rule it contradicts
    reason: str


def new_rules(rules: Sequence[Rule], since: dt.datetime, records: Iterable[DecisionRecord]) -> list[Rule]:
    """Rules created on or after `since`, or that a decision recorded since then merged or updated."""
    touched = {r.rule_id for r in records if r.rule_id and r.outcome in NEW_OUTCOMES and r.at >= since}
    day = since.date()
    return sorted((r for r in rules if r.meta.created >= day or r.id in touched), key=lambda r: r.id)


def overlapping(rule: Rule, index: OverlapIndex, skip: set[str]) -> list[Candidate]:
    """Up to three rules the new one overlaps, leaving out what it already declares and `skip`."""
    declared = set(rule.meta.contradicts)
    return [
        c
        for c in index.candidates(candidate_from_rule(rule), guard=False, exclude=rule.id)
        if c.id not in declared and c.id not in skip
    ]


class ContradictionAnswer(BaseModel):
    reason: str = Field(description="Reason first: what the new rule says against each other rule.")
    contradicts: list[str] = Field(
        default_factory=list, description="Ids of the other rules the new rule contradicts; empty for none."
    )


CONTRADICTION_SYSTEM = """You check a team's coding rules for contradictions. A rule added this week \
comes with up to three existing rules about the same code. Reason first, then list the ids of the \
existing rules the new rule contradicts: following one would break the other for the same code and \
case. Rules about different cases, or that only add detail, do not contradict. Answer an empty list \
when there is none."""


def contradiction_prompt(rule: Rule, others: Sequence[Candidate]) -> str:
    lines = [
        f"New rule {rule.id} (created {rule.meta.created.isoformat()}):",
        f"title: {rule.title}",
        f"rule: {rule.rule}",
        f"why: {rule.why}",
        "",
        "Existing rules:",
    ]
    for other in others:
        lines += [f"- id: {other.id}", f"  title: {other.title}", f"  rule: {other.rule}"]
    return "\n".join(lines)


def usable_contradictions(
    answer: ContradictionAnswer | None, rule: Rule, others: Sequence[Candidate]
) -> list[Contradiction] | None:
    """The contradictions the answer names, or None when it names a rule it was not shown."""
    if answer is None:
        return None
    ids = {o.id for o in others}
    if any(other not in ids for other in answer.contradicts):
        return None
    named = dict.fromkeys(answer.contradicts)
    return [Contradiction(rule, other, answer.reason) for other in named]
