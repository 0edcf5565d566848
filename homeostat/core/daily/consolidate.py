"""Update before add: find rules a new lesson may refine or repeat, and ask the model which it does.

Candidates need no model: rules in the same repo or core (and lessons waiting in open review PRs)
whose scope overlaps and whose title, rule words or code names overlap, a code name counting 1/√n
when n rules name it; at most three, closest first, and never a pair `distinct_facts` tells apart.
One consolidator call per lesson with candidates decides create, update <id> or duplicate <id>
(optionally contradicts <id>). Decision rules adapted from vectorize-io/hindsight (MIT).
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from homeostat.core.asker import Asker
from homeostat.core.config import CORE_AREA
from homeostat.core.daily.lessons import Lesson
from homeostat.core.model import RULE_WORD_LIMIT, TITLE_CHAR_LIMIT, WHY_WORD_LIMIT, Rule
from homeostat.core.similarity import code_names, content_words, distinct_facts, normalise_name, same_lesson
from homeostat.core.text import count_words

MAX_CANDIDATES = 3
_GLOB_CHARS = re.compile(r"[*?\[{]")


@dataclass(frozen=True)
class Candidate:
    id: str
    title: str
    rule: str
    why: str
    area: str
    scope: tuple[str, ...]
    confirmed: dt.date | None
    waiting: bool = False  # a lesson in an open review PR, not yet a rule

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.rule}"


def candidate_from_rule(rule: Rule) -> Candidate:
    return Candidate(
        rule.id, rule.title, rule.rule, rule.why, rule.area, rule.meta.scope, rule.meta.last_confirmed
    )


def _literal_prefix(glob: str) -> str:
    match = _GLOB_CHARS.search(glob)
    prefix = glob[: match.start()] if match else glob
    return prefix.rsplit("/", 1)[0] if match else prefix


def scopes_overlap(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two glob lists can match a common path (conservative: literal folder prefixes nest)."""
    if not a or not b:
        return True
    for x in a:
        for y in b:
            px, py = _literal_prefix(x), _literal_prefix(y)
            if not px or not py or px.startswith(py) or py.startswith(px):
                return True
    return False


def _repo(area: str) -> str:
    return area.split("/", 1)[0] if "/" in area else ""


@dataclass(frozen=True, slots=True)
class _Read:
    """What matching reads of one candidate: its content words (less its scope's) and code names."""

    words: frozenset[str]
    names: frozenset[str]


class CandidatePool:
    """The rules and waiting lessons a run's lessons are matched against. What matching reads of a
    candidate does not depend on the lesson, so it is worked out once a run, not once a lesson (on a
    KB of 10,000 rules, the difference between a second per lesson and a hundredth)."""

    def __init__(self, candidates: Iterable[Candidate]) -> None:
        self.candidates = list(candidates)
        self._read: dict[int, _Read] = {}
        self._names: dict[str, Counter[str]] = {}

    def read(self, index: int) -> _Read:
        found = self._read.get(index)
        if found is None:
            c = self.candidates[index]
            words = (content_words(c.title) | content_words(c.rule)) - content_words(" ".join(c.scope))
            found = _Read(words, frozenset(normalise_name(n) for n in code_names(c.text)))
            self._read[index] = found
        return found

    def near(self, area: str) -> list[int]:
        """The candidates a lesson in `area` may refine: its repo's and core's (any, for a core lesson)."""
        return [
            n
            for n, c in enumerate(self.candidates)
            if c.area == CORE_AREA or area == CORE_AREA or _repo(c.area) == _repo(area)
        ]

    def name_counts(self, area: str, near: Sequence[int]) -> Counter[str]:
        """How many of those candidates name each code name."""
        key = "" if area == CORE_AREA else _repo(area) + "/"
        counts = self._names.get(key)
        if counts is None:
            counts = Counter()
            for n in near:
                counts.update(self.read(n).names)
            self._names[key] = counts
        return counts


def merge_candidates(lesson: Lesson, pool: Iterable[Candidate] | CandidatePool) -> list[Candidate]:
    """At most three rules or waiting lessons this lesson may update or repeat, closest first."""
    pool = pool if isinstance(pool, CandidatePool) else CandidatePool(pool)
    near = pool.near(lesson.area)
    name_counts = pool.name_counts(lesson.area, near)
    # Folder names from paths ("src", "billing", "api") say where, not what: they never count as overlap.
    where = content_words(" ".join((*lesson.scope, lesson.area.replace("/", " "))))
    lesson_words = (content_words(lesson.title) | content_words(lesson.rule)) - where
    lesson_names = {normalise_name(n) for n in code_names(lesson.text)}
    scored: list[tuple[float, Candidate]] = []
    for n in near:
        candidate = pool.candidates[n]
        if not scopes_overlap(lesson.scope, candidate.scope):
            continue
        theirs = pool.read(n)
        shared_words = len(lesson_words & theirs.words)
        shared_names = lesson_names & theirs.names
        if shared_words < 2 and not shared_names:
            continue
        if distinct_facts(lesson.text, candidate.text):
            continue
        score = shared_words + sum(1 / math.sqrt(name_counts[name]) for name in shared_names)
        scored.append((score, candidate))
    scored.sort(key=lambda item: (-item[0], item[1].id))
    return [candidate for _, candidate in scored[:MAX_CANDIDATES]]


class ConsolidationAnswer(BaseModel):
    reason: str = Field(
        description="Reason first: what the lesson says and how it relates to each candidate."
    )
    action: Literal["create", "update", "duplicate"]
    target: str = Field(default="", description="The candidate id for update or duplicate.")
    title: str = Field(default="", description="For update: the whole rewritten title.")
    rule: str = Field(default="", description="For update: the whole rewritten rule, at most 60 words.")
    why: str = Field(default="", description="For update: the whole rewritten why, at most 100 words.")
    contradicts: str = Field(default="", description="A candidate id the lesson contradicts, if any.")


CONSOLIDATOR_SYSTEM = """You keep a team's coding rules free of near-duplicates. A new lesson arrives with \
up to three existing rules it may refine or repeat. Reason first, then answer:
- create: the lesson teaches something none of the candidates says.
- update <id>: the lesson refines one candidate; give the whole rewritten title, rule and why, keeping \
everything in the candidate that is still true.
- duplicate <id>: the lesson says what one candidate already says.
Optionally name contradicts <id> when the lesson says the opposite of a candidate.
Prefer update over a near-duplicate. Match on the specific thing and facet, not the topic. Answer \
create when a number, a negation, a named entity or a condition differs. Never derive values that are \
not written in the lesson or the rule. A rule confirmed after the lesson was written is newer: let it \
stand. Rules are at most 60 words, why at most 100."""


def consolidation_prompt(lesson: Lesson, candidates: Sequence[Candidate]) -> str:
    lines = [
        "New lesson (written " + lesson.created.date().isoformat() + "):",
        f"title: {lesson.title}",
        f"rule: {lesson.rule}",
        f"why: {lesson.why}",
        "",
        "Candidates:",
    ]
    for candidate in candidates:
        when = candidate.confirmed.isoformat() if candidate.confirmed else "waiting in review"
        lines += [
            f"- id: {candidate.id} (last confirmed {when})",
            f"  title: {candidate.title}",
            f"  rule: {candidate.rule}",
            f"  why: {candidate.why}",
        ]
    return "\n".join(lines)


@dataclass(frozen=True)
class Consolidation:
    action: Literal["create", "update", "duplicate"]
    target: str = ""
    title: str = ""
    rule: str = ""
    why: str = ""
    contradicts: str = ""
    reason: str = ""


def fits_a_rule(title: str, rule: str, why: str) -> bool:
    """A model-written rule is usable only whole and within the schema's limits."""
    if not (title.strip() and rule.strip() and why.strip()):
        return False
    return (
        count_words(rule) <= RULE_WORD_LIMIT
        and count_words(why) <= WHY_WORD_LIMIT
        and len(title) <= TITLE_CHAR_LIMIT
    )


def usable(answer: ConsolidationAnswer | None, candidates: Sequence[Candidate]) -> Consolidation | None:
    """An answer the run can apply, or None (an unknown id or an update over the word limits)."""
    if answer is None:
        return None
    ids = {c.id for c in candidates}
    if answer.contradicts and answer.contradicts not in ids:
        return None
    if answer.action in ("update", "duplicate") and answer.target not in ids:
        return None
    if answer.action == "update" and not fits_a_rule(answer.title, answer.rule, answer.why):
        return None
    result = Consolidation(
        answer.action, answer.target, answer.title, answer.rule, answer.why, answer.contradicts, answer.reason
    )
    return _equal_text_is_duplicate(result, candidates)


def _equal_text_is_duplicate(result: Consolidation, candidates: Sequence[Candidate]) -> Consolidation:
    text = result.rule.strip()
    if result.action in ("create", "update") and text:
        same = next((c for c in candidates if c.rule.strip() == text), None)
        if same is not None:
            return Consolidation("duplicate", same.id, reason=result.reason or "same rule text")
    return result


def consolidate(asker: Asker, lesson: Lesson, candidates: Sequence[Candidate]) -> Consolidation | None:
    """One call per lesson with candidates; None means no usable answer (the caller falls back)."""
    if not candidates:
        return Consolidation("create")
    answer = asker.ask(CONSOLIDATOR_SYSTEM, consolidation_prompt(lesson, candidates), ConsolidationAnswer)
    if answer is not None and answer.action == "create" and answer.rule.strip() == "":
        answer = answer.model_copy(update={"rule": lesson.rule})
    return usable(answer, candidates)


def fallback(lesson: Lesson, candidates: Sequence[Candidate]) -> Consolidation:
    """Without a model answer: the word-overlap check decides duplicates, as before consolidation."""
    for candidate in candidates:
        if same_lesson(lesson.text, candidate.text):
            return Consolidation("duplicate", candidate.id, reason="same lesson by word overlap")
    return Consolidation("create")
