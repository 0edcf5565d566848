"""What the subject gate and its topics share: the hit they return, how a concept's stems become one
regex, and how a pair of concepts is found in one sentence of a canonical reading.

Both `safety.subjects` and `safety.topics` read the same reading with the same sentence starts; the
topics add a test of each match (a dangerous act under a prohibition does not count). Keeping the
pieces here lets `subjects()` call the topics without either module importing the other.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from homeostat.core.safety.subject_words import SUBJECTS
from homeostat.core.scanners.risky.lexicon import concept, starts_word

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


def word_pattern(
    name: str,
    words: Mapping[str, Sequence[str]],
    *,
    anchor: Literal["stem", "text"],
    flags: int = 0,
) -> re.Pattern[str]:
    """One regex for a concept: a lexicon concept (`lex:…`, `scanners.risky.lexicon`), or the stems
    `words` lists for it, each a regex fragment, with the lexicon concepts they name.

    Both gates compile their word lists here, so a stem is read one way: in a script written with
    spaces it matches from a word's start (`starts_word`), in another wherever it stands. Where a
    word may start is the one thing the gates read differently, each tuned on its own lists:
    `anchor="stem"` (the subject gate) asks the stem: one that opens with a literal mark (`.env`,
    `| sh`) is found wherever it stands, any other only where no letter or digit stands before it;
    `anchor="text"` (the topic gate) asks the text: every stem starts at a word's first letter or
    digit, or at a mark. They agree on a stem that opens with a letter or a mark and differ on one
    that opens with a class or `_` (`\\S{1,80}\\.so`, `['"]…`), so each keeps its own.
    """
    if name.startswith("lex:"):
        return concept(name[4:])
    stems = words[name]
    parts = [concept(s[4:]).pattern for s in stems if s.startswith("lex:")]
    plain = [s for s in stems if not s.startswith("lex:")]
    bounded = [s for s in plain if starts_word(s)]
    free = [s for s in plain if not starts_word(s)]
    if bounded and anchor == "text":
        parts.append(r"(?:(?<![^\W_])(?=[^\W_])|(?=[^\w\s]))(?:" + "|".join(bounded) + ")")
    elif bounded:
        # (a stem opening with a class, `\w+:`, starts a word too: tried at every letter of a long
        # word, it would scan the rest of the word from each)
        lettered = [s for s in bounded if not _starts_with_mark(s)]
        marked = [s for s in bounded if _starts_with_mark(s)]
        if lettered:
            parts.append(r"(?<![^\W_])(?:" + "|".join(lettered) + ")")
        if marked:
            parts.append("(?:" + "|".join(marked) + ")")
    if free:
        parts.append("(?:" + "|".join(free) + ")")
    return re.compile("|".join(parts), flags)


def _starts_with_mark(stem: str) -> bool:
    """The stem opens with a literal mark (`.env`, `| sh`, `\\$shell`, `</system`), not a letter or
    a class."""
    first = stem[1:2] if stem.startswith("\\") else stem[:1]
    return (
        bool(first)
        and not first.isalnum()
        and first not in "(["
        and not stem.startswith(("\\w", "\\s", "\\S", "\\b"))
    )


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
