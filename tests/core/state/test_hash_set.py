"""The compact set of decided hashes answers exactly as a frozenset of the same strings would."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from homeostat.core.state.hash_set import _MAX_RUNS, HashSet
from homeostat.core.text import content_hash

REGULAR = [content_hash(str(n)) for n in range(50)]


def test_membership_of_regular_and_other_hashes() -> None:
    hashes = HashSet([*REGULAR[:10], "a-old", "sha256:xyz"])

    assert all(h in hashes for h in REGULAR[:10])
    assert not any(h in hashes for h in REGULAR[10:])
    assert "a-old" in hashes and "sha256:xyz" in hashes and "a-new" not in hashes
    # near misses of a regular hash are not it: case, width, and what int() would forgive
    first = REGULAR[0]
    assert first[:15] not in hashes and first + "0" not in hashes
    assert f"0_{first[2:]}" not in hashes and f" {first[1:]}" not in hashes
    assert None not in hashes and 7 not in hashes


def test_uppercase_digits_are_another_hash_not_the_lowercase_one() -> None:
    hashes = HashSet(["ABCDEF0123456789"])
    assert "ABCDEF0123456789" in hashes and "abcdef0123456789" not in hashes
    assert list(hashes) == ["ABCDEF0123456789"]


def test_iteration_is_sorted_as_the_strings_sort() -> None:
    shuffled = [*REGULAR, "zz-last", "0-first", "a-mid"]
    random.Random(7).shuffle(shuffled)
    assert list(HashSet(shuffled)) == sorted(shuffled)


def test_duplicates_count_once_within_and_across_unions() -> None:
    first = HashSet([REGULAR[0], REGULAR[1], REGULAR[1], "x", "x"])
    assert len(first) == 3 and list(first) == sorted({REGULAR[0], REGULAR[1], "x"})

    united = first.union([REGULAR[1], REGULAR[2], "x", "y"], HashSet(REGULAR[:3]))

    assert len(united) == 5
    assert list(united) == sorted({*REGULAR[:3], "x", "y"})
    assert united == frozenset({*REGULAR[:3], "x", "y"}) == united
    assert united == HashSet([*REGULAR[:3], "y", "x"])


def test_empty() -> None:
    empty = HashSet()
    assert len(empty) == 0 and list(empty) == [] and REGULAR[0] not in empty and "" not in empty
    assert empty == frozenset() and empty.union() == empty and empty.union([]) == HashSet([])
    assert empty.union(["x"]) == {"x"}
    assert HashSet([""]) == {""}  # not a hash the format allows, but kept as given


def test_a_union_of_many_sets_is_merged_and_still_finds_each_hash() -> None:
    parts = [HashSet([content_hash("part", str(n), str(i)) for i in range(3)]) for n in range(_MAX_RUNS + 5)]
    united = HashSet().union(*parts)
    every = {h for part in parts for h in part}
    assert len(united) == len(every) and all(h in united for h in every)
    assert list(united) == sorted(every)


def test_an_equal_set_hashes_equal_and_the_set_operators_still_answer() -> None:
    one, other = HashSet(REGULAR[:5]), HashSet(reversed(REGULAR[:5]))
    assert hash(one) == hash(other)
    assert set(one - HashSet(REGULAR[:2])) == set(REGULAR[2:5])
    assert set(one | {"x"}) == {*REGULAR[:5], "x"}
    assert one & {REGULAR[0], "x"} == {REGULAR[0]}


hashes = st.lists(
    st.one_of(
        st.integers(min_value=0, max_value=2**64 - 1).map(lambda n: f"{n:016x}"),
        st.sampled_from(REGULAR),
        st.text(alphabet="0123456789abcdefABCDEF-_ x", min_size=0, max_size=18),
    ),
    max_size=40,
)


@given(st.lists(hashes, max_size=4), st.lists(st.sampled_from(REGULAR), max_size=5))
def test_it_answers_as_a_frozenset_of_the_same_strings(parts: list[list[str]], asked: list[str]) -> None:
    compact = HashSet().union(*(HashSet(part) for part in parts))
    plain = frozenset(h for part in parts for h in part)

    assert compact == plain and len(compact) == len(plain)
    assert list(compact) == sorted(plain)
    for value in [*asked, *plain, "nothing-like-it"]:
        assert (value in compact) == (value in plain)
