"""Rule scores, computed from `scoring.weights` and never hand-set.

+prFeedback for review feedback followed by a code change, +manual for a hand-written lesson,
+seniorAuthor when the author is a senior or lead, conflict per declared conflict, openFlag per open
flag. Agent-written entries (handoff notes) are capped at 0, so they never outrank a person's.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from homeostat.core.config import Config, Weights
from homeostat.core.model import Rule, RuleMeta

SENIOR_ROLES = frozenset({"senior", "lead"})


@dataclass(frozen=True)
class ScoreBreakdown:
    total: int
    terms: tuple[tuple[str, int], ...]


def score_rule(meta: RuleMeta, config: Config | None, conflicts: int = 0) -> ScoreBreakdown:
    weights = config.scoring.weights if config is not None else Weights()
    terms: list[tuple[str, int]] = []
    source = meta.source
    if source.type == "pr-feedback" and source.changed_code:
        terms.append(("prFeedback", weights.pr_feedback))
    if source.type == "manual":
        terms.append(("manual", weights.manual))
    member = config.member(source.author) if (config is not None and source.author) else None
    if member is not None and member.role in SENIOR_ROLES:
        terms.append(("seniorAuthor", weights.senior_author))
    conflict_count = conflicts + len(meta.contradicts)
    if conflict_count:
        terms.append(("conflict", weights.conflict * conflict_count))
    if meta.open_flags:
        terms.append(("openFlag", weights.open_flag * len(meta.open_flags)))
    total = sum(points for _, points in terms)
    if source.type == "agent-handoff":
        total = min(total, 0)
    return ScoreBreakdown(total, tuple(terms))


def conflict_counts(rules: Iterable[Rule]) -> dict[str, int]:
    """Contradictions declared on the other side count against a rule too."""
    counts: dict[str, int] = {}
    for rule in rules:
        for other in rule.meta.contradicts:
            counts[other] = counts.get(other, 0) + 1
    return counts
