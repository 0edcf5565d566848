"""Word-overlap similarity with fact guards, shared by validate, the daily run and the deep dive.

`same_lesson` says two texts teach the same thing; `distinct_facts` vetoes a pair outright when each
states a number or version the other lacks (v1/v2, 101/102) or they name look-alike code
(useFoo/useFooBar, ledger-sync/ledger-sink). Inflections (withRetry/withRetries) are the same name.
Never delete on similarity: these functions only propose.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable
from functools import lru_cache

from homeostat.core.text import lazy_pattern, words

STOPWORDS = frozenset(
    """a an and are as at be been but by can do does for from has have if in into is it its not no of on
    or our so such than that the their then there these this those to use used uses using was we were
    when where which while will with without you your only always never should must any all each every
    one more most other same new old just also before after them they via per like""".split()
)
_NUMBER = lazy_pattern(r"(?<![\w.])v?\d+(?:\.\d+)*(?![\w.]*[A-Za-z])")
_CODE_NAME = lazy_pattern(r"`([^`\n]+)`|\b([a-z]+[A-Z][A-Za-z0-9]*|[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)+)\b")
_CAMEL = lazy_pattern(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude stemmer: enough that retry/retries/retried and cache/caching meet."""
    w = word.lower()
    for suffix, repl in (
        ("ies", "y"),
        ("ied", "y"),
        ("ying", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("ed", ""),
        ("es", ""),
        ("s", ""),
    ):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)] + repl
    return w


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    """Remembered per text: a daily run compares each of its drafts with every other (`same_lesson`),
    and reading the words again was most of a 500-lesson merge job's own time."""
    distinct = set(words(text)) - STOPWORDS  # each word stemmed once, however often it is used
    return frozenset(stem(w) for w in distinct if len(w) > 2 or not w.isascii())


# An ASCII text a byte per character, as `words` reads it: letters lowered, digits and apostrophes
# kept, everything else a blank; its split is the words `words` finds, except where an apostrophe
# joins or ends one (`it's`, `'quoted'`, `a''b`), which the word regex reads again.
_WORD_BYTES = bytes(
    b + 32 if 65 <= b <= 90 else b if 97 <= b <= 122 or 48 <= b <= 57 or b == 39 else 32 for b in range(256)
)
_ASCII_WORD_BYTES = re.compile(rb"[a-z0-9]+(?:'[a-z0-9]+)?")


def ascii_word_set(text: str) -> set[bytes]:
    """`set(words(text))` of an ASCII text, as bytes: a translate and a split instead of a regex walk
    (three quarters of the near-duplicate check's tokenising)."""
    tokens = set(text.encode("ascii").translate(_WORD_BYTES).split())
    if "'" in text:
        for token in [t for t in tokens if b"'" in t]:
            tokens.discard(token)
            tokens.update(_ASCII_WORD_BYTES.findall(token))
    return tokens


class ContentWordNumbers(dict[str | bytes, int]):
    """A number for each distinct stem, looked up by the word as `words` gives it (or its ASCII
    bytes; -1 for a word `content_words` drops): the numbers `of(text)` gives are exactly those of
    `content_words(text)`, each word stemmed once per KB instead of once per rule that uses it."""

    def __init__(self) -> None:
        super().__init__()
        self.stems: dict[str, int] = {}

    def __missing__(self, key: str | bytes) -> int:
        word = key.decode("ascii") if isinstance(key, bytes) else key
        if word in STOPWORDS or not (len(word) > 2 or not word.isascii()):
            number = -1
        else:
            number = self.stems.setdefault(stem(word), len(self.stems))
        self[key] = number
        return number

    def of(self, text: str) -> set[int]:
        """The numbers of `text`'s content words."""
        distinct: set[str] | set[bytes] = ascii_word_set(text) if text.isascii() else set(words(text))
        found = set(map(self.__getitem__, distinct))
        found.discard(-1)
        return found


@lru_cache(maxsize=65536)
def numbers(text: str) -> frozenset[str]:
    return frozenset(m.group(0).lower().lstrip("v") for m in _NUMBER.finditer(text))


@lru_cache(maxsize=65536)
def code_names(text: str) -> frozenset[str]:
    names: set[str] = set()
    for match in _CODE_NAME.finditer(text):
        span = match.group(1) or match.group(2)
        for part in re.split(r"[\s(),;]+", span):
            part = part.strip(".:'\"")
            if len(part) >= 3 and re.search(r"[A-Za-z]", part):
                names.add(part)
    return frozenset(names)


@lru_cache(maxsize=65536)
def normalise_name(name: str) -> str:
    """withRetries → with-retry; ledger_sync → ledger-sync (inflections and case ignored)."""
    parts = _CAMEL.findall(name.replace("_", "-").replace(".", "-").replace("/", "-")) or [name]
    return "-".join(stem(p) for p in (q for part in parts for q in part.split("-")) if p)


def _edit_distance_at_most(a: str, b: str, limit: int) -> bool:
    """Levenshtein distance ≤ limit, computing only the diagonal band the limit allows."""
    if abs(len(a) - len(b)) > limit:
        return False
    far = limit + 1
    previous = {j: j for j in range(min(len(b), limit) + 1)}
    for i, ca in enumerate(a, 1):
        current: dict[int, int] = {}
        for j in range(max(0, i - limit), min(len(b), i + limit) + 1):
            if j == 0:
                current[j] = i
                continue
            cost = previous.get(j - 1, far) + (ca != b[j - 1])
            current[j] = min(previous.get(j, far) + 1, current.get(j - 1, far) + 1, cost)
        if min(current.values()) > limit:
            return False
        previous = current
    return previous.get(len(b), far) <= limit


def look_alike(a: str, b: str) -> bool:
    """Different names a reader could confuse: one extends the other, or they differ by a letter or two."""
    na, nb = normalise_name(a), normalise_name(b)
    if na == nb:
        return False
    if "/" in a or "/" in b:  # a file inside a folder is not a look-alike of the folder
        return (
            "/" in a
            and "/" in b
            and a.rsplit("/", 1)[0] == b.rsplit("/", 1)[0]
            and _edit_distance_at_most(na, nb, 2)
        )
    if na.startswith(nb + "-") or nb.startswith(na + "-"):
        return True
    return min(len(na), len(nb)) >= 4 and _edit_distance_at_most(na, nb, 2)


def distinct_facts(a: str, b: str) -> bool:
    """True when the two texts state different facts, so no similarity may merge them."""
    na, nb = numbers(a), numbers(b)
    if (na - nb) and (nb - na):
        return True
    only_a = {normalise_name(n): n for n in code_names(a)}
    only_b = {normalise_name(n): n for n in code_names(b)}
    shared = set(only_a) & set(only_b)
    left = [only_a[k] for k in only_a if k not in shared]
    right = [only_b[k] for k in only_b if k not in shared]
    return any(look_alike(x, y) for x in left for y in right)


def overlap(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    sa = a if isinstance(a, frozenset) else frozenset(a)
    sb = b if isinstance(b, frozenset) else frozenset(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


SAME_LESSON_THRESHOLD = 0.5


def same_lesson(a: str, b: str, threshold: float = SAME_LESSON_THRESHOLD) -> bool:
    """Word overlap (Jaccard of content words) at or above the threshold, unless the facts differ."""
    if overlap(content_words(a), content_words(b)) < threshold:
        return False
    return not distinct_facts(a, b)
