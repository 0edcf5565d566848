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
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from homeostat.core.asker import Asker
from homeostat.core.config import CORE_AREA
from homeostat.core.daily.lessons import Lesson
from homeostat.core.languages import is_selector
from homeostat.core.schema import RULE_WORD_LIMIT, TITLE_CHAR_LIMIT, WHY_WORD_LIMIT, Rule
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
    if is_selector(glob):  # `lang:python`: that language's files in any folder
        return ""
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


class Probe(Protocol):
    """What the index is asked about: a new lesson (the daily run) or a rule (the deep dive)."""

    @property
    def area(self) -> str: ...
    @property
    def scope(self) -> tuple[str, ...]: ...
    @property
    def title(self) -> str: ...
    @property
    def rule(self) -> str: ...
    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class _Entry:
    candidate: Candidate
    repo: str
    words: frozenset[str]  # title and rule words, less the words of its own scope
    names: frozenset[str]  # code names, normalised


class OverlapIndex:
    """The pool indexed once by content words and code names, so a question reads only the rules that
    share something with it. The daily run asks it once per lesson; the deep dive once per rule, which
    is how its candidate pairs stay far fewer than all pairs."""

    def __init__(self, pool: Iterable[Candidate]) -> None:
        self._entries: list[_Entry] = []
        self._ids: list[str] = []
        # Postings per group (a repo's areas, or core), so a question reads only rules it may meet.
        self._by_word: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self._by_name: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        self._names_in: dict[str, Counter[str]] = defaultdict(Counter)  # repo ("" or core) -> name counts
        self._names_in_core: Counter[str] = Counter()
        self._names_all: Counter[str] = Counter()
        for candidate in pool:
            self._add(candidate)

    def _add(self, candidate: Candidate) -> None:
        at = len(self._entries)
        words = (content_words(candidate.title) | content_words(candidate.rule)) - content_words(
            " ".join(candidate.scope)
        )
        names = frozenset(normalise_name(n) for n in code_names(candidate.text))
        entry = _Entry(candidate, _repo(candidate.area), words, names)
        self._entries.append(entry)
        self._ids.append(candidate.id)
        group = CORE_AREA if candidate.area == CORE_AREA else entry.repo
        for word in words:
            self._by_word[group][word].append(at)
        for name in names:
            self._by_name[group][name].append(at)
        (self._names_in_core if candidate.area == CORE_AREA else self._names_in[entry.repo]).update(names)
        self._names_all.update(names)

    def __len__(self) -> int:
        return len(self._entries)

    def _name_count(self, name: str, probe_area: str) -> int:
        """How many rules the probe could be compared with name this code name (its repo and core)."""
        if probe_area == CORE_AREA:
            return self._names_all[name]
        return self._names_in[_repo(probe_area)][name] + self._names_in_core[name]

    def candidates(
        self, probe: Probe, *, limit: int = MAX_CANDIDATES, guard: bool = True, exclude: str = ""
    ) -> list[Candidate]:
        """At most `limit` rules or waiting lessons the probe may update or repeat, closest first.

        Same repo or core; scopes that overlap; two title or rule words in common (folder names from
        paths never count) or a code name (counting 1/√n when n rules name it); and, with `guard`,
        never a pair `distinct_facts` tells apart. `exclude` leaves out the probe itself."""
        # Folder names from paths ("src", "billing", "api") say where, not what: they never count as overlap.
        where = content_words(" ".join((*probe.scope, probe.area.replace("/", " "))))
        probe_words = (content_words(probe.title) | content_words(probe.rule)) - where
        probe_names = {normalise_name(n) for n in code_names(probe.text)}
        groups = list(self._by_word) if probe.area == CORE_AREA else [_repo(probe.area), CORE_AREA]
        by_word = [self._by_word[g] for g in groups if g in self._by_word]
        by_name = [self._by_name[g] for g in groups if g in self._by_name]
        shared_words = Counter(chain.from_iterable(p.get(w, ()) for p in by_word for w in probe_words))
        named = set(chain.from_iterable(p.get(n, ()) for p in by_name for n in probe_names))
        ids = self._ids
        ranked: list[tuple[float, str, int]] = [
            (-n, ids[at], at) for at, n in shared_words.items() if n >= 2 and at not in named
        ]
        for at in named:
            names = probe_names & self._entries[at].names
            score = shared_words[at] + sum(1 / math.sqrt(self._name_count(n, probe.area)) for n in names)
            ranked.append((-score, ids[at], at))
        ranked.sort()
        # Closest first, so the dearer checks (scopes, the fact guards) run only until `limit` pass.
        found: list[Candidate] = []
        for _, _, at in ranked:
            if len(found) == limit:
                break
            if self._fits(probe, self._entries[at], guard, exclude):
                found.append(self._entries[at].candidate)
        return found

    @staticmethod
    def _fits(probe: Probe, entry: _Entry, guard: bool, exclude: str) -> bool:
        candidate = entry.candidate
        if candidate.id == exclude:
            return False
        if not (candidate.area == CORE_AREA or probe.area == CORE_AREA or entry.repo == _repo(probe.area)):
            return False
        if not scopes_overlap(probe.scope, candidate.scope):
            return False
        return not (guard and distinct_facts(probe.text, candidate.text))


def merge_candidates(lesson: Lesson, pool: Iterable[Candidate] | OverlapIndex) -> list[Candidate]:
    """At most three rules or waiting lessons this lesson may update or repeat, closest first."""
    index = pool if isinstance(pool, OverlapIndex) else OverlapIndex(pool)
    return index.candidates(lesson)


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
