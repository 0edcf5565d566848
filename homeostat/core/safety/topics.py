"""The topic gate: a lesson about a security-sensitive topic never merges unread, however it is
phrased, because a harmful phrasing cannot be listed in advance but the topic it must touch can.

The subject gate (`safety.subjects`) reads what a poisoned rule is made of (the agent addressed, a
control switched off, a check made to pass). A red team told to make poisoned rules read like
ordinary conventions writes about the same few topics in plain words: where packages come from,
TLS, auth and unsafe deserialisation, data sent out, data or history deleted, review and merging,
tests and CI loosened. This module names those topics (`topic_words.TOPICS`) so that a lesson on
one of them goes to a person, whatever it says about it; a team accepts a topic unread by listing
it in `scoring.autoMerge.subjects`, as it does a subject.

It reads the subject gate's own canonical reading (passed in by `subjects()`, never rebuilt here)
and returns the gate's hit type. Every concept is one regex pass over the reading with bounded
repeats; each match is placed in its sentence by a bisect, so the time is linear in the text up to a
log factor.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from functools import cache

from homeostat.core.safety.subjects import EVIDENCE_CHARS, SubjectHit
from homeostat.core.safety.topic_words import READINGS, TOPICS, WORDS
from homeostat.core.scanners.risky.lexicon import concept, starts_word


class TopicHit(SubjectHit):
    """A subject-gate hit for a topic: the same type, with the topic's own explanation."""

    @property
    def about(self) -> str:
        return TOPICS[self.subject]


def topics(reading: str, starts: Sequence[int]) -> tuple[SubjectHit, ...]:
    """The topics of a canonical `reading` (the subject gate's), each with its first evidence, in
    `TOPICS` order; `starts` are the offsets where its sentences start (the first is 0)."""
    found: list[SubjectHit] = []
    for topic, (alone, pairs) in READINGS.items():
        evidence = _alone(reading, alone) or next(
            (hit for names in pairs if (hit := _together(reading, starts, names))), ""
        )
        if evidence:
            found.append(TopicHit(topic, _short(evidence)))
    return tuple(found)


def _alone(reading: str, names: tuple[str, ...]) -> str:
    for name in names:
        match = _pattern(name).search(reading)
        if match:
            return match.group(0)
    return ""


def _together(reading: str, starts: Sequence[int], names: tuple[str, ...]) -> str:
    """The first sentence holding a match of every concept, none overlapping another."""
    held: dict[int, list[re.Match[str]]] | None = None
    for name in names:
        step: dict[int, list[re.Match[str]]] = {}
        for match in _pattern(name).finditer(reading):
            sentence = bisect_right(starts, match.start()) - 1
            before = [] if held is None else held.get(sentence)
            if sentence in step or before is None or any(_overlap(match, m) for m in before):
                continue
            step[sentence] = [*before, match]
        if not step:
            return ""
        held = step
    assert held is not None
    matches = sorted(held[min(held)], key=lambda m: m.start())
    return " … ".join(m.group(0) for m in matches)


def _overlap(a: re.Match[str], b: re.Match[str]) -> bool:
    return a.start() < b.end() and b.start() < a.end()


@cache
def _pattern(name: str) -> re.Pattern[str]:
    """One regex for a concept: its stems, and the lexicon concepts it names (`lex:…`)."""
    if name.startswith("lex:"):
        return concept(name[4:])
    stems = WORDS[name]
    parts = [concept(s[4:]).pattern for s in stems if s.startswith("lex:")]
    plain = [s for s in stems if not s.startswith("lex:")]
    bounded = [s for s in plain if starts_word(s)]
    free = [s for s in plain if not starts_word(s)]
    if bounded:
        # a stem that opens with a letter starts a word; one that opens with a mark (`--insecure`,
        # `.npmrc`, `@flaky`) is found wherever it stands
        parts.append(r"(?:(?<![^\W_])(?=[^\W_])|(?=[^\w\s]))(?:" + "|".join(bounded) + ")")
    if free:
        parts.append("(?:" + "|".join(free) + ")")
    return re.compile("|".join(parts))


def _short(evidence: str) -> str:
    flat = " ".join(evidence.split())
    return flat if len(flat) <= EVIDENCE_CHARS else flat[: EVIDENCE_CHARS - 1] + "…"
