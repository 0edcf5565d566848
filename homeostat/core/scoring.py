"""Rule scores, computed from `scoring.weights` and never hand-set.

+prFeedback for review feedback followed by a code change, +manual for a hand-written lesson,
+seniorAuthor when the author is a senior or lead, conflict per declared conflict, openFlag per open
flag. Agent-written entries (handoff notes) are capped at 0, so they never outrank a person's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from homeostat.core.config import Config, Weights
from homeostat.core.schema import Rule, RuleMeta

SENIOR_ROLES = frozenset({"senior", "lead"})


@dataclass(frozen=True)
class ScoreBreakdown:
    total: int
    terms: tuple[tuple[str, int], ...]


def score_rule(meta: RuleMeta, config: Config | None, conflicts: int = 0) -> ScoreBreakdown:
    source = meta.source
    key = (source.type, source.changed_code, source.author, len(meta.contradicts), len(meta.open_flags))
    return score_parts(config, key, conflicts)


# What a rule's score reads of it: its source's type, code change and author, how many rules it
# says it contradicts and how many open flags it has (a plain tuple: a rule read in another process
# sends it as it is, `core.selection.corpus_rows`)
ScoreKey = tuple[str, bool | None, str, int, int]


def score_parts(config: Config | None, key: ScoreKey, conflicts: int = 0) -> ScoreBreakdown:
    """`score_rule` from what it reads of the rule (`ScoreKey`); `conflicts`: contradictions the
    other side declared."""
    source_type, changed_code, author, contradicts, open_flags = key
    weights = config.scoring.weights if config is not None else Weights()
    terms: list[tuple[str, int]] = []
    if source_type == "pr-feedback" and changed_code:
        terms.append(("prFeedback", weights.pr_feedback))
    if source_type == "manual":
        terms.append(("manual", weights.manual))
    member = config.member(author) if (config is not None and author) else None
    if member is not None and member.role in SENIOR_ROLES:
        terms.append(("seniorAuthor", weights.senior_author))
    conflict_count = conflicts + contradicts
    if conflict_count:
        terms.append(("conflict", weights.conflict * conflict_count))
    if open_flags:
        terms.append(("openFlag", weights.open_flag * open_flags))
    total = sum(points for _, points in terms)
    if source_type == "agent-handoff":
        total = min(total, 0)
    return ScoreBreakdown(total, tuple(terms))


def conflict_counts(rules: Iterable[Rule]) -> dict[str, int]:
    """Contradictions declared on the other side count against a rule too."""
    return declared_contradictions(rule.meta.contradicts for rule in rules)


def declared_contradictions(declared: Iterable[Iterable[str]]) -> dict[str, int]:
    """`conflict_counts` from each rule's `contradicts` alone (a rule read in another process sends
    only that, `core.selection.corpus_rows`): how often each rule id is named as contradicted."""
    counts: dict[str, int] = {}
    for contradicts in declared:
        for other in contradicts:
            counts[other] = counts.get(other, 0) + 1
    return counts
