"""The words every match of a regex must hold, read from its parse tree, so a text can be told it has
no match from its set of words (a lookup) instead of by running the regex (a pass over the text).

`required_words(pattern)` gives groups: every match holds, for each group, a word (a maximal run of
letters and digits, lowercased) that one of the group's keys names. A key is a word's start
(`ignor`), or a whole word when it ends in `$` (`dig$`: the pattern reads `\\bdig\\b`, and `digest`
is no match). `you\\s+are\\s+now` gives `({you$}, {are$}, {now})`; `(?:ignore|forget)\\s+(?:\\w+\\s+)?
instructions` gives `({ignore$, forget$}, {instructions})`; `--yolo` gives `({-}, {yolo})` (a
required ASCII punctuation mark is a group of itself, which the caller counts among a text's keys
when the text holds it). A letter in the middle of a word (`\\w+ing`) or inside something optional
gives nothing, which only makes the answer weaker, never wrong.

The groups hold for text whose letters and digits are all ASCII (the only text they are asked about):
a pattern that needs a letter past ASCII (`игнорир`, `忽略`) is `IMPOSSIBLE` there.
"""

from __future__ import annotations

import re
import re._constants as _c  # type: ignore[import-not-found]  # the parser's opcodes (3.11+)
import re._parser as _parser  # type: ignore[import-not-found]
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

Group = frozenset[str]
# Punctuation a match may require, given as a group of itself: a text holds it or cannot match.
MARKS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
IMPOSSIBLE: tuple[Group, ...] = (frozenset(),)  # no word can satisfy an empty group
WHOLE = "$"  # a key ending in it names a whole word
_REPEATS = frozenset({_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", _c.MAX_REPEAT)})
_PIECES = re.compile(r"[^\W_]+|.", re.DOTALL)  # runs of letters and digits, and each other character
_WORD_STARTS = (_c.AT_BOUNDARY, _c.AT_BEGINNING, _c.AT_BEGINNING_LINE, _c.AT_BEGINNING_STRING)


@dataclass
class _Walk:
    """What a piece of a pattern says: the groups it requires, and how it ends."""

    groups: list[Group] = field(default_factory=list)
    impossible: bool = False
    # the next character starts a word (what came last cannot be a letter or a digit)
    starts_word: bool = False
    # the literal starts the word being read may have (one per way through the pattern), if known
    words: frozenset[str] | None = None
    # keys of other ways through an alternation, finished, that make one group with `words`
    alongside: frozenset[str] = frozenset()
    non_alnum_only: bool = True  # every character it can consume is neither a letter nor a digit


def required_words(pattern: str, *, word_start: bool = False) -> tuple[Group, ...]:
    """The groups every match of `pattern` holds (see the module's docstring); `word_start` when the
    match always starts a word (the concepts' stems are compiled behind `(?<![^\\W_])`)."""
    walk = _sequence(_parser.parse(pattern).data, _Walk(starts_word=word_start))
    if walk.impossible:
        return IMPOSSIBLE
    _flush(walk)
    return tuple(walk.groups)


def _flush(walk: _Walk, *, whole: bool = False) -> None:
    """The word being read ends here (`whole`: and so does the text's word, at a non-word character)."""
    if walk.words:
        walk.groups.append(frozenset(w + WHOLE if whole else w for w in walk.words) | walk.alongside)
    walk.words = None
    walk.alongside = frozenset()


def _here(walk: _Walk) -> _Walk:
    """A walk starting where `walk` is: at a word's start or inside the word it reads."""
    return _Walk(starts_word=walk.starts_word, words=walk.words, alongside=walk.alongside)


def _sequence(items: Sequence[tuple[Any, Any]], walk: _Walk) -> _Walk:
    literal: list[str] = []  # literal characters in a row, read together (a stem is mostly these)
    for op, arg in items:
        if op is _c.LITERAL:
            literal.append(chr(arg))
            continue
        if literal:
            _literals(walk, "".join(literal))
            literal.clear()
        if not walk.impossible:
            _step(walk, op, arg)
        if walk.impossible:
            return walk
    if literal:
        _literals(walk, "".join(literal))
    return walk


def _literals(walk: _Walk, text: str) -> None:
    for piece in _PIECES.findall(text):
        if not piece[0].isalnum():
            _literal(walk, piece)
        elif not piece.isascii():
            walk.impossible = True
            return
        else:
            walk.non_alnum_only = False
            low = piece.lower()
            if walk.words is not None:
                walk.words = frozenset(w + low for w in walk.words)
            elif walk.starts_word:
                walk.words = frozenset({low})
            walk.starts_word = False


def _step(walk: _Walk, op: Any, arg: Any) -> None:
    if op is _c.LITERAL:
        _literal(walk, chr(arg))
    elif op is _c.AT:
        # `\b` after a letter ends the word; before one, nothing but a non-word character precedes
        _flush(walk, whole=arg is _c.AT_BOUNDARY)
        walk.starts_word = arg in _WORD_STARTS
    elif op in (_c.ASSERT, _c.ASSERT_NOT):
        if op is _c.ASSERT_NOT and _covers_alnum(arg[1]):
            _flush(walk, whole=arg[0] == 1)  # `(?![\w-])` ends the word
            if arg[0] == -1:
                walk.starts_word = True  # `(?<![\w-])`: no letter or digit before
    elif op is _c.SUBPATTERN:
        _join(walk, _sequence(arg[-1], _here(walk)))
    elif getattr(_c, "ATOMIC_GROUP", None) is op:
        _join(walk, _sequence(arg, _here(walk)))
    elif op is _c.BRANCH:
        _branch(walk, arg[1])
    elif op in _REPEATS:
        _repeat(walk, *arg)
    else:  # a class, any character, a back reference: one character or more we cannot name
        blank_or_mark = op is _c.IN and _non_alnum_class(arg)
        _flush(walk, whole=blank_or_mark)
        walk.starts_word = blank_or_mark
        walk.non_alnum_only &= blank_or_mark


def _literal(walk: _Walk, char: str) -> None:
    if not char.isalnum():
        _flush(walk, whole=True)
        walk.starts_word = True
        if char in MARKS:
            walk.groups.append(frozenset({char}))
        return
    if not char.isascii():
        walk.impossible = True
        return
    walk.non_alnum_only = False
    if walk.words is not None:
        walk.words = frozenset(w + char.lower() for w in walk.words)
    elif walk.starts_word:
        walk.words = frozenset({char.lower()})
    walk.starts_word = False


def _join(walk: _Walk, inner: _Walk) -> None:
    """`inner` read right where `walk` is (a group): its groups count, and it says how it ends."""
    walk.impossible |= inner.impossible
    walk.groups += inner.groups
    walk.words = inner.words
    walk.alongside = inner.alongside
    walk.starts_word = inner.starts_word
    walk.non_alnum_only &= inner.non_alnum_only


def _branch(walk: _Walk, alternatives: list[Any]) -> None:
    """One of several: one group of what each way holds. A way that ends inside a word it read from
    its start gives that word, which goes on after the alternation (`(?:eval|exec)\\b` reads `eval` or
    `exec` whole); another gives its most telling group, beside those words. No group when a way
    holds nothing."""
    ways = [_sequence(alternative, _here(walk)) for alternative in alternatives]
    possible = [way for way in ways if not way.impossible]
    if not possible:
        walk.impossible = True
        return
    walk.starts_word = all(way.starts_word for way in possible)
    walk.non_alnum_only &= all(way.non_alnum_only for way in possible)
    walk.words, walk.alongside = None, frozenset()
    if not all(way.words or way.groups for way in possible):
        return
    finished = frozenset().union(*(_best(way.groups) for way in possible if not way.words))
    if any(way.words for way in possible):
        walk.words = frozenset().union(*(way.words or () for way in possible))
        walk.alongside = finished.union(*(way.alongside for way in possible))
    else:
        walk.groups.append(finished)


def _best(groups: list[Group]) -> Group:
    """The most telling group: the one whose shortest key is longest."""
    return max(groups, key=lambda group: min(map(len, group)))


def _repeat(walk: _Walk, least: int, most: int, items: Any) -> None:
    if least == 0:  # optional: nothing in it is required, and a word may run on through it
        _flush(walk)
        inner = _sequence(items, _Walk(starts_word=walk.starts_word))
        # skipped, or read to its end: a word starts next only if it does in both cases
        walk.starts_word = walk.starts_word and inner.starts_word
        walk.non_alnum_only &= inner.non_alnum_only
        return
    inner = _sequence(items, _here(walk))
    _join(walk, inner)
    if most != 1:  # repeated: the word read in it does not go on as a literal
        _flush(walk)
        walk.starts_word = inner.non_alnum_only or (inner.starts_word and inner.words is None)


def _covers_alnum(items: Sequence[tuple[Any, Any]]) -> bool:
    """A one-character look that matches every letter and digit (`[\\w-]`, `[^\\W_]`, `\\w`)."""
    if len(items) != 1 or items[0][0] is not _c.IN:
        return False
    parts = items[0][1]
    if parts and parts[0][0] is _c.NEGATE:
        # `[^\W_]`: everything but non-word characters and some non-alnum literals
        return all(
            (op is _c.CATEGORY and arg is _c.CATEGORY_NOT_WORD)
            or (op is _c.LITERAL and not chr(arg).isalnum())
            for op, arg in parts[1:]
        )
    return any(op is _c.CATEGORY and arg is _c.CATEGORY_WORD for op, arg in parts)


def _non_alnum_class(parts: Sequence[tuple[Any, Any]]) -> bool:
    """A class of blanks and punctuation only (`\\s`, `[ ._-]`, `['’]`)."""
    return all(
        (op is _c.LITERAL and not chr(arg).isalnum()) or (op is _c.CATEGORY and arg is _c.CATEGORY_SPACE)
        for op, arg in parts
    )


def satisfied(groups: Sequence[Group], present: frozenset[str] | set[str]) -> bool:
    """Every group has a key among `present` (the keys a text's words and marks meet)."""
    return all(not group.isdisjoint(present) for group in groups)


def keys_of(word: str, keys: frozenset[str], starts: frozenset[str]) -> set[str]:
    """The keys of `keys` that `word` meets: its starts, and itself whole. `starts` holds every start
    of every key (so the look stops at the first start no key has)."""
    found = set()
    for n in range(1, len(word) + 1):
        start = word[:n]
        if start not in starts:
            break
        if start in keys:
            found.add(start)
    if word + WHOLE in keys:
        found.add(word + WHOLE)
    return found


def key_starts(keys: frozenset[str]) -> frozenset[str]:
    """Every start of every key but a whole word's, for `keys_of`."""
    return frozenset(key[:n] for key in keys if not key.endswith(WHOLE) for n in range(1, len(key) + 1))
