"""A simulated history of the daily run's decisions, for `homeostat calibrate`.

Lessons are drawn with the sources, roles and traits a team's lessons have; the daily run scores
each with the example KB's weights (the defaults) and decides it as core/daily/decide.py does: merge
at the threshold, decline below `decline`, a reviewer for the middle band (and for about one in six
above it, as areas outside `scoring.autoMerge` and risky text send them). Reviewers then merge or
close each review by what they actually value, `TRUE_WEIGHTS`, which differ from the defaults the way
a team finds out: a lesson naming the code it applies to is worth much more than the default says, a
clear title nothing, agent-written notes less, a senior's word more. Seeded: the same history every
time.

    records = history(settled=1000)   # {member: [DecisionRecord, ...]}
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections import defaultdict
from collections.abc import Mapping

from homeostat.core.config import Config
from homeostat.core.state.branch import DecisionRecord, LessonSource

MEMBERS = {"ana": "lead", "bo": "senior", "cy": "member", "dee": "junior"}
SOURCES = (
    ("pr-feedback", 0.45),
    ("manual", 0.25),
    ("agent-handoff", 0.12),
    ("claude-memory", 0.1),
    ("pr-feedback-no-change", 0.08),
)
AREAS = ("billing/api", "billing/db", "storefront/ui", "core")
# What reviewers really go by (what they merge at 9 in 10 at accept, 1 in 10 at decline).
TRUE_WEIGHTS = {
    "base:pr-feedback": 50, "base:manual": 42, "base:agent-handoff": 18, "base:claude-memory": 16,
    "base:pr-feedback-no-change": 24, "role:junior": 0, "role:member": 6, "role:senior": 18, "role:lead": 22,
    "owner": 8, "specific": 16, "clearTitle": 0, "vagueTitle": -14,
}  # fmt: skip
START = dt.datetime(2026, 6, 1, 6, tzinfo=dt.UTC)


def _terms(rng: random.Random, config: Config, member: str, source: str, area: str) -> dict[str, int]:
    """The breakdown the daily run records, with the config's weights."""
    weights = config.scoring.confidence
    role = MEMBERS[member]
    terms = {f"base:{source}": weights.base[source], f"role:{role}": weights.role[role]}
    if rng.random() < (0.7 if area != "core" and member in ("ana", "bo") else 0.2):
        terms["owner"] = weights.bonus.owner
    if rng.random() < 0.55:
        terms["specific"] = weights.bonus.specific
    vague = rng.random() < 0.15
    if vague:
        terms["vagueTitle"] = -weights.penalty.vague_title
    elif rng.random() < 0.6:
        terms["clearTitle"] = weights.bonus.clear_title
    if rng.random() < 0.05:
        terms["repeated"] = weights.bonus.repeated
    return terms


def _merges(
    rng: random.Random, terms: dict[str, int], threshold: int, decline: int, truth: Mapping[str, int]
) -> bool:
    middle = (threshold + decline) / 2
    slope = math.log(9) / (threshold - middle)
    value = sum(truth.get(term, points) for term, points in terms.items())
    return rng.random() < 1 / (1 + math.exp(-slope * (value - middle)))


def history(
    config: Config, settled: int = 1000, seed: int = 33, truth: Mapping[str, int] = TRUE_WEIGHTS
) -> dict[str, list[DecisionRecord]]:
    """Decision records until `settled` reviews have been settled by a reviewer who goes by `truth`."""
    rng = random.Random(seed)
    weights = config.scoring.confidence
    records: dict[str, list[DecisionRecord]] = defaultdict(list)
    reviewed = 0
    number = 0
    while reviewed < settled:
        number += 1
        member = rng.choice(list(MEMBERS))
        source = rng.choices([s for s, _ in SOURCES], [w for _, w in SOURCES])[0]
        area = rng.choice(AREAS)
        terms = _terms(rng, config, member, source, area)
        confidence = max(0, min(100, sum(terms.values())))
        threshold = weights.core_accept if area == "core" else weights.accept
        at = START + dt.timedelta(hours=6 * number)
        if confidence < weights.decline:
            outcome, reason, review = "declined", f"confidence {confidence} is below {weights.decline}", False
        elif confidence >= threshold and rng.random() > 1 / 6:
            outcome, reason, review = "merged", f"confidence {confidence} ≥ {threshold}", False
        else:
            band = confidence < threshold
            reason = (
                f"confidence {confidence} is between {weights.decline} and {threshold}"
                if band
                else f"area {area} is not in scoring.autoMerge"
            )
            outcome = "merged" if _merges(rng, terms, threshold, weights.decline, truth) else "declined"
            review = True
            reviewed += 1
        records[member].append(
            DecisionRecord(
                hash=f"h{number:05d}",
                member=member,
                kind="review-thread" if source.startswith("pr-feedback") else "new",
                title=f"Simulated lesson {number}",
                area=area,
                source=LessonSource(type=source),
                outcome=outcome,
                state="settled",
                confidence=confidence,
                breakdown=terms,
                reason=reason,
                review_opened_at=at if review else None,
                settled_at=at + dt.timedelta(hours=30 if review else 0),
                at=at + dt.timedelta(hours=30 if review else 0),
            )
        )
    return dict(records)
