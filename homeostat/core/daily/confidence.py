"""The daily run's 0–100 confidence, with every term kept so the PR body can show the breakdown.

Base points by source, the originator's role (the reviewer's for review lessons), bonuses (area owner,
specific, clear title, repeated by others in the run, an optional model rating), and penalties (open
flags, conflicts, a vague title, a kept judge failure). Every weight is in `scoring.confidence`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.lessons import Lesson
from homeostat.core.text import identifiers, words

VAGUE_WORDS = frozenset(
    {
        "fix",
        "fixes",
        "misc",
        "note",
        "notes",
        "update",
        "updates",
        "general",
        "improvement",
        "improvements",
        "stuff",
        "things",
        "thing",
        "change",
        "changes",
        "review",
        "comment",
        "feedback",
        "todo",
        "nit",
        "cleanup",
    }
)
_PATHISH = re.compile(r"[\w.-]+/[\w./*-]+|\b\w+\.(?:py|ts|tsx|js|go|rb|java|kt|rs|sql|yaml|yml|json|md)\b")
_IDENTIFIER = re.compile(r"\b[a-z]+[A-Z]\w*\b|\b\w+_\w+\b|\b\w+\(\)")


@dataclass(frozen=True)
class Confidence:
    total: int
    breakdown: tuple[tuple[str, int], ...]

    def as_dict(self) -> dict[str, int]:
        return dict(self.breakdown)

    def with_term(self, name: str, points: int) -> Confidence:
        terms = (*self.breakdown, (name, points))
        return Confidence(_clamp(sum(p for _, p in terms)), terms)


def _clamp(value: int) -> int:
    return max(0, min(100, value))


def is_specific(lesson: Lesson) -> bool:
    """Names paths, code or identifiers, so an agent can tell when it applies."""
    text = f"{lesson.title}\n{lesson.rule}\n{lesson.example}"
    return bool(identifiers(text) or _PATHISH.search(text) or _IDENTIFIER.search(text))


def is_vague_title(title: str) -> bool:
    tokens = words(title)
    if len(tokens) < 3:
        return True
    meaningful = [t for t in tokens if t not in VAGUE_WORDS]
    return len(meaningful) < 2


def is_clear_title(title: str) -> bool:
    return not is_vague_title(title) and len(title) <= 80 and len(words(title)) >= 4


def originator_owns_area(config: Config, lesson: Lesson) -> bool:
    member = config.member(lesson.originator)
    if member is None:
        return False
    if lesson.area == CORE_AREA:
        return member.role in ("senior", "lead")
    area = config.area(lesson.area)
    return area is not None and bool(area.owner) and area.owner in member.teams


def score_confidence(
    lesson: Lesson,
    config: Config,
    *,
    repeated_by: int = 0,
    open_flags: int = 0,
    conflicts: int = 0,
) -> Confidence:
    weights = config.scoring.confidence
    terms: list[tuple[str, int]] = []
    source = lesson.source if lesson.source in weights.base else "manual"
    terms.append((f"base:{source}", weights.base[source]))
    member = config.member(lesson.originator)
    role = member.role if member is not None else None
    terms.append((f"role:{role or 'unknown'}", weights.role.get(role, 0) if role else 0))
    bonus = weights.bonus
    if originator_owns_area(config, lesson):
        terms.append(("owner", bonus.owner))
    if is_specific(lesson):
        terms.append(("specific", bonus.specific))
    if lesson.kind in ("new", "update") and is_clear_title(lesson.title):
        terms.append(("clearTitle", bonus.clear_title))
    if repeated_by:
        terms.append(("repeated", min(bonus.repeated * repeated_by, bonus.repeated_max)))
    if lesson.model_rating is not None and bonus.model_rating:
        rating = max(0.0, min(1.0, lesson.model_rating))
        terms.append(("modelRating", round(bonus.model_rating * rating)))
    penalty = weights.penalty
    if open_flags:
        terms.append(("openFlags", -penalty.flag * open_flags))
    if conflicts:
        terms.append(("conflict", -penalty.conflict * conflicts))
    if lesson.kind in ("new", "update") and is_vague_title(lesson.title):
        terms.append(("vagueTitle", -penalty.vague_title))
    return Confidence(_clamp(sum(points for _, points in terms)), tuple(terms))
