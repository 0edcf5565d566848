"""Telling that the risky-content check can find nothing in a text, from its words and a few marks, in
a fraction of the time reading it takes.

Most of a KB is prose with no trigger in it, yet each reading (`risky._scan`) runs regexes over
every character: the phrase rules, the shell reading, the concept families in twenty languages, the
canonical reading and the decoder. A text is certainly quiet when:

- every character is ASCII or plain typography (`‘’“”–—`): normalising changes nothing, no
  invisible character hides anything, no confusable or other script is read;
- it holds none of the marks a reading starts from: `&`, a comment or tag (`<`), a link's `](`,
  `![`, `]:`, a pipe, `$(`, `:(`, escapes or percent-encoding, or a host (`domains.host_marks`);
- no run of word characters and `@$!`, as it stands or as the canonical reading reads it
  (`canonical.run_reading`, or the whole canonical reading where `canonical.joins_words` says it
  may join pieces into words), holds a phrase rule's gate word or a shell command; no run of those
  and `+/=-` holds an encoded payload; and its words are not enough for a family: each concept stem
  and shape regex needs certain words (`literals.required_words`), and each family certain
  concepts together (`families.could_fire`).

What a run holds is worked out once per distinct run and kept, so a KB's vocabulary is looked up with
set operations, not re-read. `could_hold_risks` is False only when `find_risks` would find nothing,
whatever the allowed domains; True only means "read it" (tests/core/safety/test_quiet_spans.py holds it to
`risky.read_risks` on the tuning set, the original corpus and disguised mixes of their words).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import accumulate

from homeostat.core.scanners.hidden import (
    PLACE_MARKS,
    Fields,
    blank,
    blank_homeostat_comments,
    homeostat_comments,
)
from homeostat.core.scanners.risky.canonical import (
    LEET,
    LEET_L,
    canonical,
    joining_marks,
    joins_words,
    other_readings,
    run_reading,
)
from homeostat.core.scanners.risky.decoded import decoded_payloads, escape_marks
from homeostat.core.scanners.risky.domains import host_marks, occurrences
from homeostat.core.scanners.risky.families import SHAPES, could_fire
from homeostat.core.scanners.risky.lexicon import CONCEPTS, starts_word
from homeostat.core.scanners.risky.literals import (
    IMPOSSIBLE,
    MARKS,
    Group,
    key_starts,
    keys_of,
    required_words,
    satisfied,
)
from homeostat.core.scanners.risky.risk_rules import PHRASE_RULES
from homeostat.core.scanners.risky.shell import CLUE_SYMBOLS, CLUE_WORDS

__all__ = ["CLUE", "PAYLOAD", "Look", "could_hold_risks", "holds_clue_symbol", "look", "quiet_spans"]

# Typography that is no word character, never normalised, never invisible, and no letter-spacer.
TYPOGRAPHY = "‘’“”–—"
_PAST_PLAIN = re.compile(f"[^\\x00-\\x7f{TYPOGRAPHY}]")
_PHRASE_GATES = frozenset(gate for rule in PHRASE_RULES for p in rule.patterns for gate in p.gates)
_GATE_WORDS = frozenset(g for g in _PHRASE_GATES if g.isalnum())
_MARKS = tuple(
    dict.fromkeys([*PLACE_MARKS, *CLUE_SYMBOLS, *(g for g in _PHRASE_GATES if not g.isalnum()), "&"])
)
# Runs of the characters a word, an encoded payload or a leetspeak word is made of; anything else
# (a blank, `.`, `,`, typography) ends one.
_RUN_BYTES = bytes(
    b if chr(b).isalnum() or chr(b) in "_@$!+/=-" else 32 for b in range(128)
) + b" " * 128  # fmt: skip
_WORD_PART = re.compile(r"[+/=-]+")  # what parts a run into runs of word characters and `@$!`
_ALNUM = re.compile(r"[a-z0-9]+")
_LETTER = re.compile(r"[a-z]")
_SHARED: dict[frozenset[str], frozenset[str]] = {}  # one copy of each set of keys runs have
_RUN_CACHE_LIMIT = 200_000
_SHORTEST_PAYLOAD = 16  # the shortest base64 or hex run `decoded_payloads` reads


@dataclass(frozen=True)
class _Vocabulary:
    """Every concept stem and shape as the keys it needs, indexed by those of its most telling group,
    so a text's few keys look up the few stems they can open; and the shell's clue words."""

    # a key → the stems it opens: each concept's name and the groups it needs besides the key's own
    by_key: dict[str, tuple[tuple[str, tuple[Group, ...]], ...]]
    always: frozenset[str]  # concepts (and the shapes, as `shape`) some stem of which needs no word
    keys: frozenset[str]  # every key of a stem, a shape or a clue
    key_starts: frozenset[str]
    clues: frozenset[str]
    marks: tuple[str, ...]  # the punctuation some stem or shape needs

    @cached_property
    def indexed(self) -> frozenset[str]:
        return frozenset(self.by_key)


def _alternatives(pattern: str) -> list[str]:
    """The top-level `|` alternatives of a regex source, each read apart (tighter than one group of all
    their starts)."""
    parts: list[str] = []
    depth = last = 0
    in_class = escaped = False
    for i, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]" or pattern[i - 1] == "["
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[last:i])
            last = i + 1
    return [*parts, pattern[last:]]


@lru_cache(maxsize=1)
def _vocabulary() -> _Vocabulary:
    needs: list[tuple[str, tuple[Group, ...]]] = []
    for name, stems in CONCEPTS.items():
        needs += [(name, required_words(stem, word_start=starts_word(stem))) for stem in stems]
    needs += [("shape", required_words(alt)) for shape in SHAPES for alt in _alternatives(shape)]
    by_key: dict[str, list[tuple[str, tuple[Group, ...]]]] = {}
    always: set[str] = set()
    for name, groups in needs:
        if groups == IMPOSSIBLE:
            continue
        if not groups:
            always.add(name)
            continue
        best = max(groups, key=lambda group: min(map(len, group)))
        rest = tuple(group for group in groups if group is not best)
        for key in best:
            by_key.setdefault(key, []).append((name, rest))
    (clues,) = required_words(CLUE_WORDS)  # one group: the commands a shell line names
    keys = frozenset(k for _, groups in needs for group in groups for k in group if k not in MARKS) | clues
    marks = tuple(sorted({k for _, groups in needs for group in groups for k in group if k in MARKS}))
    return _Vocabulary(
        {key: tuple(entries) for key, entries in by_key.items()},
        frozenset(always),
        keys,
        key_starts(keys),
        clues,
        marks,
    )


# What a run can be on its own, whatever else the text holds: keys no regex analysis gives.
GATE, CLUE, PAYLOAD = "!gate", "!clue", "!payload"
TRIGGERS = frozenset({GATE, CLUE, PAYLOAD})


class _Runs:
    """Every run met so far, and the keys of those that have any: a text's runs are looked up with two
    set operations, and only its new and telling ones are read in Python."""

    def __init__(self, read: Callable[[str], frozenset[str]]) -> None:
        self.read = read
        self.known: set[bytes] = set()
        self.telling: dict[bytes, frozenset[str]] = {}
        self.telling_runs: set[bytes] = set()

    def keys(self, runs: set[bytes]) -> set[str]:
        """The keys of `runs`, together."""
        if len(self.known) > _RUN_CACHE_LIMIT:  # a fresh start bounds the memory
            self.known.clear()
            self.telling.clear()
            self.telling_runs.clear()
            _SHARED.clear()
        for run in runs.difference(self.known):
            self.known.add(run)
            keys = self.read(run.decode("ascii"))
            if keys:
                self.telling[run] = _SHARED.setdefault(keys, keys)  # runs tell the same few things
                self.telling_runs.add(run)
        return set().union(*(self.telling[run] for run in runs.intersection(self.telling_runs)))


def _read_run(run: str) -> frozenset[str]:
    """The keys of a run of word characters and `@$!+/=-`, `PAYLOAD` among them when it holds a payload
    `decoded_payloads` decodes (base64 and hex runs are 16 characters or more; ROT13 is decoded where
    it is named)."""
    keys: set[str] = set()
    if (len(run) >= _SHORTEST_PAYLOAD or "rot" in run.lower()) and next(decoded_payloads(run), None):
        keys.add(PAYLOAD)
    for part in _WORD_PART.split(run):
        if part:
            keys |= _word_keys(part)
    return frozenset(keys)


@lru_cache(maxsize=65_536)
def _word_keys(run: str) -> frozenset[str]:
    """The keys of a run of word characters and `@$!` (what the canonical reading folds one at a time),
    as it stands and as the canonical reading reads it."""
    lowered = run.lower()
    if lowered.isalpha() or lowered.isdigit():  # nothing for the canonical reading to change
        return _keys_of_word(lowered)
    words = _ALNUM.findall(lowered)
    if "@" in run or "$" in run or "!" in run:
        words += _ALNUM.findall(run_reading(run).lower()) + _ALNUM.findall(run_reading(run, LEET_L).lower())
    elif _LETTER.search(lowered):
        # the canonical reading folds a word mixing letters and digits: each part with its digits
        # read as letters (an identifier's parts are few and common; the run itself is new), `1` as
        # `i` and, in the second reading, as `l`
        mixed = [word for word in words if not word.isalpha()]
        words += [word.translate(LEET) for word in mixed] + [w.translate(LEET_L) for w in mixed if "1" in w]
    return frozenset().union(*map(_keys_of_word, set(words)))


@lru_cache(maxsize=65_536)
def _keys_of_word(word: str) -> frozenset[str]:
    """The keys one word meets: `GATE` when it is a phrase rule's gate, `CLUE` when a shell command."""
    vocabulary = _vocabulary()
    keys = keys_of(word, vocabulary.keys, vocabulary.key_starts)
    if word in _GATE_WORDS:
        keys.add(GATE)
    if not vocabulary.clues.isdisjoint(keys):
        keys.add(CLUE)
    return frozenset(keys)


_RUNS = _Runs(_read_run)


def _runs(data: bytes) -> set[bytes]:
    return set(data.translate(_RUN_BYTES).split())


def _possible(keys: set[str]) -> set[str]:
    """The concepts (and `shape`) whose needs the keys meet."""
    vocabulary = _vocabulary()
    found = set(vocabulary.always)
    for key in vocabulary.indexed.intersection(keys):
        for name, rest in vocabulary.by_key[key]:
            if name not in found and (not rest or satisfied(rest, keys)):
                found.add(name)
    return found


def _marks(original: str, shown: str) -> Iterator[tuple[int, int]]:
    """Where `shown` holds a mark some reading starts from (a host, an escape, `<`, `|`…), or
    `original` a character past plain text."""
    if not original.isascii():
        yield from (m.span() for m in _PAST_PLAIN.finditer(original))
    for mark in _MARKS:
        yield from occurrences(shown, mark)
    yield from escape_marks(shown)
    yield from host_marks(shown)


def _holds_mark(text: str) -> bool:
    return any(mark in text for mark in _MARKS)


def holds_clue_symbol(text: str) -> bool:
    """A pipe, `<` or `$(`: what a shell line may be read from besides its commands' names."""
    return any(symbol in text for symbol in CLUE_SYMBOLS)


@dataclass(frozen=True)
class Look:
    """What a quick look at a plain text found: the keys its words (and its canonical reading's) meet,
    the families and shapes those allow, and whether it holds a mark some reading starts from."""

    keys: frozenset[str]
    possible: frozenset[str]
    marked: bool  # any mark (these two included) some reading starts from
    hosts: bool = True  # what a host needs (`domains.host_marks`)
    escapes: bool = True  # escapes or percent-encoding (`decoded.escape_marks`)

    @property
    def quiet(self) -> bool:
        """No reading can find anything in it."""
        return not (self.marked or self.fires or not TRIGGERS.isdisjoint(self.keys))

    @property
    def fires(self) -> bool:
        """A family or a shape may be read in it."""
        return "shape" in self.possible or could_fire(self.possible)


def _words(text: str, *, joined: bool) -> tuple[frozenset[str], frozenset[str]]:
    """The keys the words of `text` meet (and those of its canonical reading, when `joined`: it may
    join pieces into words `run_reading` does not see), its punctuation's, and what they allow."""
    readings = [text, canonical(text), *other_readings(text)] if joined else [text]
    keys: set[str] = set()
    for reading in readings:
        keys |= _RUNS.keys(_runs(reading.encode("ascii", "replace")))  # typography is no run character
        keys.update(mark for mark in _vocabulary().marks if mark in reading)
    return frozenset(keys), frozenset(_possible(keys))


def look(original: str, visible: str) -> Look | None:
    """The quick look at `visible` (`original` with Homeostat's fields comments blanked, as
    `hidden.blank_homeostat_comments` blanks them); None when `original` is not plain text (a
    character past ASCII but typography), which only the readings can read."""
    if not original.isascii() and _PAST_PLAIN.search(original) is not None:
        return None
    hosts = next(host_marks(visible), None) is not None
    escapes = next(escape_marks(visible), None) is not None
    found = _look(visible, marked=hosts or escapes or _holds_mark(visible))
    return Look(found.keys, found.possible, found.marked, hosts, escapes)


def _look(visible: str, *, marked: bool) -> Look:
    joined = joins_words(visible)
    keys, possible = _words(visible, joined=joined)
    return Look(keys, possible, marked or (joined and _holds_mark(canonical(visible))))


def could_hold_risks(original: str, visible: str) -> bool:
    """False when `find_risks(original, any domains)` is certainly empty; `visible` is `original` with
    Homeostat's fields comments blanked (`hidden.blank_homeostat_comments`), which is what is read."""
    if next(_marks(original, visible), None) is not None:
        return True
    return not _look(visible, marked=False).quiet


def _words_could_fire(text: str, *, joined: bool) -> bool:
    keys, possible = _words(text, joined=joined)
    return not Look(keys, possible, marked=False).quiet


class _Touched:
    """Spans of a text, sorted, asked whether any touches a part of it (a bisect)."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self.starts = [start for start, _ in ordered]
        self.reach = list(accumulate((end for _, end in ordered), max))  # the furthest end so far

    def touch(self, start: int, end: int) -> bool:
        before = bisect_left(self.starts, end)  # the spans that start before `end`
        return before > 0 and self.reach[before - 1] > start


def quiet_spans(
    text: str, spans: Sequence[tuple[int, int]], fields: Fields = Fields.UNDER_HEADINGS
) -> list[bool]:
    """For each `(start, end)` span of `text`, True when `find_risks(text[start:end], domains,
    fields=fields)` is certainly empty, whatever the domains; False only means "check it".

    Read as one text, then span by span only where it must be: the marks are found once in the
    whole text (a span none of them touches holds none), and so are the words, whose runs hold every
    run of every span; only where those hold a trigger, a payload or what a family needs, or where
    the canonical reading may join words, is a span's words read on its own."""
    shown, checkable = _shown(text, spans, fields)
    quiet = [False] * len(spans)
    for i in set(range(len(spans))).difference(checkable):  # spans read apart: overlapping, or other comments
        piece = text[spans[i][0] : spans[i][1]]
        quiet[i] = not could_hold_risks(piece, blank_homeostat_comments(piece, fields))
    if not checkable:
        return quiet
    marked = _Touched(_marks(text, shown))
    joining = _Touched(joining_marks(shown))
    # the spans' own text (not a topic file's frontmatter): every run of each is a run of it
    words_quiet = not _words_could_fire(
        "\n".join(shown[spans[i][0] : spans[i][1]] for i in checkable), joined=False
    )
    for i in checkable:
        start, end = spans[i]
        if marked.touch(start, end):
            quiet[i] = False
            continue
        # the whole text's letter-spacing classes end where its spans do only if no letter borders them
        joined = joining.touch(start, end) or (_bordered(shown, start, end) and joins_words(shown[start:end]))
        quiet[i] = (words_quiet and not joined) or not _words_could_fire(shown[start:end], joined=joined)
    return quiet


def _bordered(text: str, start: int, end: int) -> bool:
    """A letter or digit right before or right after `text[start:end]`."""
    return (start > 0 and text[start - 1].isalnum()) or (end < len(text) and text[end].isalnum())


def _shown(text: str, spans: Sequence[tuple[int, int]], fields: Fields) -> tuple[str, list[int]]:
    """`text` with the Homeostat comments each span's own reading blanks blanked, and the spans it holds
    as they are read (none when spans overlap; not one holding another comment)."""
    order = sorted(range(len(spans)), key=lambda i: spans[i])
    checkable: list[int] = []
    pieces: list[str] = []
    last = previous_end = 0
    for i in order:
        start, end = spans[i]
        if start < previous_end:
            return text, []  # overlapping spans would blank each other's text
        previous_end = end
        comments = homeostat_comments(text, start, end, fields)
        if comments is None:
            continue
        for opening, close in comments:
            pieces += [text[last:opening], blank(text[opening:close])]
            last = close
        checkable.append(i)
    pieces.append(text[last:])
    return "".join(pieces), checkable
