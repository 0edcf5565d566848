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

from homeostat.core.safety.mechanism_words import MECHANISM_WEAKENERS, SAFE_VALUES
from homeostat.core.safety.subject_hits import SubjectHit, in_one_sentence, short, word_pattern
from homeostat.core.safety.topic_words import (
    ACTS,
    CLAUSE_END,
    EXCEPTION,
    FORBID_AFTER,
    FORBID_BEFORE,
    FORBID_POST,
    NEGATIONS,
    READINGS,
    SAFE_CHOICE,
    TOPICS,
    WEAKENERS,
    WORDS,
)


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
        evidence = _alone(reading, starts, alone) or next(
            (hit for names in pairs if (hit := _together(reading, starts, names))), ""
        )
        if evidence:
            found.append(TopicHit(topic, short(evidence)))
    return tuple(found)


def _alone(reading: str, starts: Sequence[int], names: tuple[str, ...]) -> str:
    for name in names:
        for match in _pattern(name).finditer(reading):
            if _counts(reading, starts, name, match):
                return match.group(0)
    return ""


def _together(reading: str, starts: Sequence[int], names: tuple[str, ...]) -> str:
    """The first sentence holding a match of every concept that counts, none overlapping another."""
    matches = in_one_sentence(
        reading,
        starts,
        [(name, _pattern(name)) for name in names],
        lambda name, match: _counts(reading, starts, name, match),
    )
    return " … ".join(m.group(0) for m in matches)


# How far a prohibition or a safe choice is looked for around a match: bounded, so the gate stays
# linear in the text.
_REACH = 120


def _counts(reading: str, starts: Sequence[int], name: str, match: re.Match[str]) -> bool:
    """Whether a match names its topic: not a dangerous act a prohibition governs, nor a safeguard
    its sentence asks for by its safe value."""
    if name in ACTS:
        return not _forbidden(reading, match)
    if name == "security_soft":
        return not _chosen(reading, starts, match, _FIND["safe"], _FIND["weak"])
    if name in SAFE_VALUES:
        return not _chosen(reading, starts, match, _safe(name), _MECHANISM_WEAK)
    return True


def _forbidden(reading: str, match: re.Match[str]) -> bool:
    """The act is forbidden in its own clause ("never log customer e-mails", "lösche niemals …",
    "logging customer e-mails is not allowed"), by one negation (two undo each other), with no
    exception after it ("… except the audit ones")."""
    before = _clause_before(reading, match.start())
    after = _clause_after(reading, match.end())
    if len(_FIND["negation"].findall(before)) > 1 or _FIND["exception"].search(after):
        return False
    if _FIND["before"].search(before):
        return True
    if _FIND["post"].search(after):
        return not _FIND["negation"].search(before)
    after_word = reading[match.end() : match.end() + 24]
    return bool(_FIND["after"].match(after_word)) and not _FIND["negation"].search(before)


def _chosen(
    reading: str, starts: Sequence[int], match: re.Match[str], safe: re.Pattern[str], weak: re.Pattern[str]
) -> bool:
    """The sentence names the safeguard's safe value (`HttpOnly`, `SameSite=Lax`, constant-time;
    a bound parameter, a per-user cache key) and nothing that weakens it (`SameSite=None`,
    "without", "overkill", "but", "forever", a negation)."""
    sentence = bisect_right(starts, match.start()) - 1
    start = max(starts[sentence], match.start() - _REACH)
    end = starts[sentence + 1] if sentence + 1 < len(starts) else len(reading)
    text = reading[start : min(end, match.end() + _REACH)]
    return bool(safe.search(text)) and not weak.search(text)


def _clause_before(reading: str, start: int) -> str:
    text = reading[max(0, start - _REACH) : start]
    ends = list(_FIND["clause"].finditer(text))
    return text[ends[-1].end() :] if ends else text


def _clause_after(reading: str, end: int) -> str:
    text = reading[end : end + _REACH]
    stop = _FIND["clause"].search(text)
    return text[: stop.start()] if stop else text


_FIND = {
    "before": re.compile(FORBID_BEFORE),
    "after": re.compile(FORBID_AFTER),
    "post": re.compile(FORBID_POST),
    "negation": re.compile(NEGATIONS),
    "exception": re.compile(EXCEPTION),
    "clause": re.compile(CLAUSE_END),
    "safe": re.compile(SAFE_CHOICE),
    "weak": re.compile(WEAKENERS),
}


_MECHANISM_WEAK = re.compile(MECHANISM_WEAKENERS)


@cache
def _safe(name: str) -> re.Pattern[str]:
    """A mechanism concept's safe value (`mechanism_words.SAFE_VALUES`), compiled once."""
    return re.compile(SAFE_VALUES[name])


@cache
def _pattern(name: str) -> re.Pattern[str]:
    """One regex for a concept: its stems, and the lexicon concepts it names (`lex:…`)."""
    return word_pattern(name, WORDS, anchor="text")
