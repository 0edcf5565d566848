"""A set of content hashes that stays small: 8 bytes a hash instead of a string in a hash table.

Every lesson decided is one content hash on the state branch (16 hex digits, see
`homeostat.core.text.content_hash`), and a run asks "was this one decided" of all of them: a year is
180,000 hashes. As a frozenset of str each costs ~100 bytes, and every union copies the table: a year
of state cost a run ~50 MB just to hold them. Here the hashes in the usual form are kept as sorted
arrays of 64-bit integers, looked up by bisection; any other string (the format allows any
non-blank hash: older records, a hand edit) is kept as it is, in a small frozenset aside. It iterates
in sorted order, as the index files list them.
"""

from __future__ import annotations

import operator
import re
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from heapq import merge
from itertools import chain, islice, zip_longest

_PACKED = re.compile(r"[0-9a-f]{16}")
_DIGITS = re.compile(r"[0-9a-f]*")


class HashSet(AbstractSet[str]):
    """An immutable set of content hashes (membership, iteration in sorted order, union).

    The regular hashes are held in sorted runs of integers, one per set united (a union copies
    nothing: the decided hashes of a run are the live records' and a dozen months' indexes, asked of
    a few hundred lessons); a lookup bisects each run."""

    __slots__ = ("_runs", "_other", "_size")

    def __init__(self, hashes: Iterable[str] = ()) -> None:
        texts = list(hashes)
        other = frozenset[str]()
        # the usual case, every hash 16 hex digits and (as an index file lists them) in order, is
        # checked and decoded without a Python step per hash
        if not (set(map(len, texts)) <= {16} and _DIGITS.fullmatch("".join(texts))):
            other = frozenset(text for text in texts if not _PACKED.fullmatch(text))
            texts = [text for text in texts if _PACKED.fullmatch(text)]
        if not all(map(operator.lt, texts, islice(texts, 1, None))):
            texts = sorted(set(texts))
        numbers = array("Q", bytes.fromhex("".join(texts)))
        if sys.byteorder == "little":
            numbers.byteswap()  # the digits are big-endian: so numeric order is the hashes' order
        self._runs: tuple[array[int], ...] = (numbers,) if numbers else ()
        self._other = other
        self._size: int | None = len(numbers) + len(other)

    @classmethod
    def of(cls, hashes: Iterable[str]) -> HashSet:
        """`hashes` as a HashSet (the same object when it already is one)."""
        return hashes if isinstance(hashes, HashSet) else cls(hashes)

    def union(self, *others: Iterable[str]) -> HashSet:
        """Every hash in this set or any of `others` (their runs shared, not copied)."""
        parts = [self, *(HashSet.of(other) for other in others)]
        runs = tuple(run for part in parts for run in part._runs)
        if len(runs) > _MAX_RUNS:
            runs = (array("Q", _distinct(merge(*runs))),)
        united = HashSet()
        united._runs = runs
        united._other = frozenset(chain.from_iterable(part._other for part in parts))
        united._size = None if len(runs) > 1 else sum(map(len, runs)) + len(united._other)
        return united

    def _numbers(self) -> Iterator[int]:
        if len(self._runs) == 1:
            return iter(self._runs[0])
        return _distinct(merge(*self._runs))

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, str):
            return False
        if not _PACKED.fullmatch(value):
            return value in self._other
        number = int(value, 16)
        for run in self._runs:
            at = bisect_left(run, number)
            if at < len(run) and run[at] == number:
                return True
        return False

    def __len__(self) -> int:
        if self._size is None:
            self._size = sum(1 for _ in self._numbers()) + len(self._other)
        return self._size

    def __iter__(self) -> Iterator[str]:
        return merge((f"{number:016x}" for number in self._numbers()), sorted(self._other))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, HashSet):
            return self._other == other._other and all(
                a == b for a, b in zip_longest(self._numbers(), other._numbers())
            )
        return super().__eq__(other)

    def __hash__(self) -> int:
        return self._hash()

    def __repr__(self) -> str:
        if len(self) > 8:
            return f"HashSet(<{len(self)} hashes>)"
        return f"HashSet({sorted(self)!r})"


# A union of more runs than this is merged into one (a lookup bisects every run).
_MAX_RUNS = 64


def _distinct(numbers: Iterable[int]) -> Iterator[int]:
    """Sorted `numbers` without repeats."""
    last = -1
    for number in numbers:
        if number != last:
            yield number
            last = number
