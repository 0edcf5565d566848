"""Near-duplicate rules: proposed by word overlap within the consolidation's candidates, confirmed
by the model, merged into the higher-scoring rule.

A pair is proposed only when the overlap index (the daily run's update-before-add index, with its
fact guards) names one rule as a candidate of the other and their words overlap as `same_lesson`
counts it. Similarity only proposes: the model must answer `same: true` before anything is retired.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

from homeostat.core.asker import Answered
from homeostat.core.config import Config
from homeostat.core.daily.consolidate import OverlapIndex, candidate_from_rule
from homeostat.core.schema import Rule
from homeostat.core.scoring import conflict_counts, score_rule
from homeostat.core.similarity import same_lesson


@dataclass(frozen=True)
class Pair:
    """Two rules that look like the same lesson; `keep` is the one a merge would keep."""

    keep: Rule
    drop: Rule

    @property
    def name(self) -> str:
        return f"{self.drop.id} into {self.keep.id}"


@dataclass
class MergeGate:
    """Which pairs to ask when several are asked at once. One at a time, a pair is skipped when an
    earlier merge dropped one of its rules; so a pair starts only when no pair still running could
    drop one of its rules, waits when one could, and is skipped when one did. The pairs asked are
    exactly those one at a time would ask."""

    gone: set[str] = field(default_factory=set)

    def decide(self, pair: Pair, running: Sequence[Pair]) -> Literal["start", "skip", "wait"]:
        mine = {pair.keep.id, pair.drop.id}
        if mine & self.gone:
            return "skip"
        if any(other.drop.id in mine for other in running):
            return "wait"
        return "start"

    def finished(self, pair: Pair, outcome: Answered[SameRuleAnswer | None]) -> None:
        if outcome.error is None and outcome.value is not None and outcome.value.same:
            self.gone.add(pair.drop.id)


def in_force(rules: Sequence[Rule]) -> list[Rule]:
    """Rules that apply today: accepted, and not a rejected decision (which is context, not a rule)."""
    return [r for r in rules if r.meta.status == "accepted" and r.meta.adopted]


def _text(rule: Rule) -> str:
    return f"{rule.title}\n{rule.rule}"


def near_duplicate_pairs(rules: Sequence[Rule], config: Config | None, index: OverlapIndex) -> list[Pair]:
    """Each unordered pair once, from each rule's candidates in the index; in id order."""
    by_id = {r.id: r for r in rules}
    scores = _scores(rules, config)
    seen: set[tuple[str, str]] = set()
    pairs: list[Pair] = []
    for rule in sorted(rules, key=lambda r: r.id):
        for candidate in index.candidates(candidate_from_rule(rule), exclude=rule.id):
            other = by_id.get(candidate.id)
            key = (min(rule.id, candidate.id), max(rule.id, candidate.id))
            if other is None or key in seen:
                continue
            seen.add(key)
            if same_lesson(_text(rule), _text(other)):
                pairs.append(_ordered(rule, other, scores))
    return pairs


def _scores(rules: Sequence[Rule], config: Config | None) -> dict[str, int]:
    conflicts = conflict_counts(rules)
    return {r.id: score_rule(r.meta, config, conflicts.get(r.id, 0)).total for r in rules}


def _ordered(a: Rule, b: Rule, scores: dict[str, int]) -> Pair:
    """The higher score stays; then the one with more evidence, then the older, then the lower id."""

    def rank(rule: Rule) -> tuple[int, int, int, str]:
        evidence = len({u for u in (rule.meta.source.url, *rule.meta.also_from) if u})
        return (-scores[rule.id], -evidence, rule.meta.created.toordinal(), rule.id)

    keep, drop = sorted((a, b), key=rank)
    return Pair(keep, drop)


class SameRuleAnswer(BaseModel):
    reason: str = Field(description="Reason first: what each rule tells an agent to do, and where.")
    same: bool = Field(description="True only when both rules give the same instruction.")


SAME_RULE_SYSTEM = """You keep a team's coding rules free of near-duplicates. Two rules in the team's \
knowledge base look alike. Reason first, then answer same: true only when both give an agent the same \
instruction about the same specific thing and facet, so keeping one loses nothing. Answer same: false \
when a number, a version, a negation, a named entity, a code name or a condition differs, or when one \
rule covers a case the other does not. Never derive values that are not written in the rules."""


def same_rule_prompt(pair: Pair) -> str:
    lines: list[str] = []
    for label, rule in (("A", pair.keep), ("B", pair.drop)):
        lines += [
            f"Rule {label} ({rule.id}, area {rule.area}, scope {', '.join(rule.meta.scope)}):",
            f"title: {rule.title}",
            f"rule: {rule.rule}",
            f"why: {rule.why}",
            "",
        ]
    return "\n".join(lines).rstrip("\n")
