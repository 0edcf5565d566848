"""What the subject gate and its topics share: the hit they return, and how a pair of concepts is
found in one sentence of a canonical reading.

Both `safety.subjects` and `safety.topics` read the same reading with the same sentence starts; the
topics add a test of each match (a dangerous act under a prohibition does not count). Keeping the
pieces here lets `subjects()` call the topics without either module importing the other.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from homeostat.core.safety.subject_words import SUBJECTS

EVIDENCE_CHARS = 80  # how much of one match a hit quotes


@dataclass(frozen=True)
class SubjectHit:
    """A subject the text is about, and the words that say so (from its canonical reading)."""

    subject: str
    evidence: str

    @property
    def about(self) -> str:
        return SUBJECTS[self.subject]


def short(evidence: str) -> str:
    """The evidence on one line, cut to `EVIDENCE_CHARS`."""
    flat = " ".join(evidence.split())
    return flat if len(flat) <= EVIDENCE_CHARS else flat[: EVIDENCE_CHARS - 1] + "…"


def in_one_sentence(
    reading: str,
    starts: Sequence[int],
    patterns: Sequence[tuple[str, re.Pattern[str]]],
    counts: Callable[[str, re.Match[str]], bool] | None = None,
) -> list[re.Match[str]]:
    """The matches, in text order, of every named pattern in the first sentence holding one of each,
    none overlapping another; [] when no sentence holds them all. `counts(name, match)`, when given,
    drops a match that does not count. One pass per pattern, each match placed by a bisect."""
    found: dict[int, list[re.Match[str]]] | None = None
    for name, pattern in patterns:
        step: dict[int, list[re.Match[str]]] = {}
        for match in pattern.finditer(reading):
            sentence = bisect_right(starts, match.start()) - 1
            before = [] if found is None else found.get(sentence)
            if sentence in step or before is None or any(_overlap(match, m) for m in before):
                continue
            if counts is not None and not counts(name, match):
                continue
            step[sentence] = [*before, match]
        if not step:
            return []
        found = step
    if found is None:
        return []
    return sorted(found[min(found)], key=lambda m: m.start())


def _overlap(a: re.Match[str], b: re.Match[str]) -> bool:
    return a.start() < b.end() and b.start() < a.end()
