"""The RuleMeta fast check against pydantic: it builds only what pydantic accepts, and the same value."""

from __future__ import annotations

import datetime as dt
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from homeostat.core.format.fast_meta import rule_meta
from homeostat.core.format.parse import _share_fields_sets
from homeostat.core.schema import RuleMeta

BASE: dict[str, Any] = {
    "id": "money-minor-units",
    "title": "Keep money in integer minor units",
    "area": "payments/api",
    "topic": "data",
    "scope": ["src/**/*.py"],
    "status": "accepted",
    "kind": "convention",
    "approvedBy": ["ana"],
    "source": {"type": "pr-feedback", "url": "https://x/pull/1", "author": "ana", "changedCode": True},
    "created": dt.date(2026, 9, 1),
    "lastConfirmed": dt.date(2026, 11, 1),
    "score": 4,
    "tokens": 120,
}
# Values on the edges of each field's type: the plain one, lax-mode conversions pydantic makes, and
# ones it refuses.
ANY_VALUES: list[Any] = [
    None,
    "",
    " ",
    "x",
    0,
    1,
    -1,
    10**30,
    True,
    False,
    1.0,
    [],
    ["a"],
    [""],
    [" "],
    ["a", 1],
]
ANY_VALUES += [("a",), {}, {"by": "ana"}, dt.date(2026, 1, 1), dt.datetime(2026, 1, 1), "2026-01-01"]
FIELD_VALUES: dict[str, list[Any]] = {
    "id": ["a", "a-b", "A", "a_b", "-a", "a" * 200, "é"],
    "title": ["T", "x" * 80, "x" * 81, "é" * 80, "\t"],
    "status": ["candidate", "accepted", "disputed", "retired", "Accepted"],
    "kind": ["convention", "decision", "anti-pattern", "other"],
    "scope": [["**"], ["a", "b"], ["a", " "]],
    "riskReviewedBy": ["ana", {"by": "ana", "fingerprint": "f"}, {"by": 1}],
    "flags": [[{"by": "ana", "at": dt.date(2026, 1, 1), "reason": "r"}], [{}]],
    "created": [dt.date(2026, 12, 1)],
    "lastConfirmed": [dt.date(2026, 8, 1), dt.date(2026, 9, 1)],
    "source": [
        {"type": "manual"},
        {"type": "other"},
        {"type": "manual", "changedCode": None},
        {"type": "manual", "changedCode": "yes"},
        {"type": "manual", "changed_code": True},
        {"type": "manual", "extra": 1},
        {"url": "u"},
        "manual",
    ],
}
KEYS = [*BASE, "adopted", "owner", "flags", "contradicts", "riskReviewedBy", "alsoFrom"]
KEYS += ["approved_by", "last_confirmed", "unknown", "Id"]


@st.composite
def shapes(draw: st.DrawFn) -> dict[str, Any]:
    data = {k: v for k, v in BASE.items() if not draw(st.booleans()) or draw(st.integers(0, 9))}
    for key in draw(st.lists(st.sampled_from(KEYS), max_size=4)):
        pool = FIELD_VALUES.get(key, []) + ANY_VALUES
        data[key] = draw(st.sampled_from(pool))
    if draw(st.booleans()):
        data = dict(reversed(list(data.items())))  # another key order: another fields-set key
    return data


def _state(value: BaseModel) -> object:
    """Everything an instance holds, nested models included, in order."""
    return (
        type(value),
        [(k, _state(v) if isinstance(v, BaseModel) else v) for k, v in value.__dict__.items()],
        value.__pydantic_fields_set__,
        value.__pydantic_extra__,
        value.__pydantic_private__,
    )


def _check(data: dict[str, Any]) -> bool:
    fast = rule_meta(data)
    try:
        slow = RuleMeta.model_validate(dict(data))
    except ValidationError:
        assert fast is None, f"the fast check built what pydantic refuses: {data}"
        return False
    if fast is not None:
        assert _state(fast) == _state(slow)
        assert fast == slow and hash(fast) == hash(slow)
        assert repr(fast) == repr(slow)
        assert fast.model_dump(by_alias=True, exclude_unset=True) == slow.model_dump(
            by_alias=True, exclude_unset=True
        )
    return fast is not None


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes())
def test_the_fast_check_builds_what_pydantic_builds_or_steps_aside(data: dict[str, Any]) -> None:
    _check(data)


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"topic": None, "kind": None, "score": None, "tokens": None},
        {"adopted": False, "owner": "bo", "contradicts": ["other-rule"], "alsoFrom": ["x"], "flags": []},
        {"riskReviewedBy": "bo", "source": {"type": "manual"}},
    ],
)
def test_the_shapes_a_kb_holds_take_the_fast_path(change: dict[str, Any]) -> None:
    assert _check({**BASE, **change})
    minimal = {
        k: BASE[k] for k in ("id", "title", "area", "scope", "status", "source", "created", "lastConfirmed")
    }
    assert _check({**minimal, **change})


def test_instances_that_gave_the_same_keys_share_one_fields_set() -> None:
    first, second = rule_meta(dict(BASE)), rule_meta({**BASE, "id": "other"})
    assert first is not None and second is not None
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert first.source.__pydantic_fields_set__ is second.source.__pydantic_fields_set__


def _bytes_held(make: Callable[[int], object]) -> int:
    made = [make(-1)]  # the first instance may grow shared tables: not counted
    tracemalloc.start()
    try:
        made += [make(n) for n in range(300)]
        return tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()


def test_fast_built_rules_share_their_key_tables_and_tuples() -> None:
    """What the fast check is for: a loaded KB's rule fields take half the memory pydantic's do."""
    base = {**BASE, "scope": ["src/**/*.py", "lib/**"], "approvedBy": ["ana", "bo"]}

    def data(n: int) -> dict[str, Any]:
        return {**base, "id": f"rule-{n + 1000}", "score": n + 1000}

    def validated(n: int) -> RuleMeta:
        made = RuleMeta.model_validate(data(n))
        _share_fields_sets(made)  # as loading shares pydantic's
        return made

    fast = _bytes_held(lambda n: rule_meta(data(n)))
    slow = _bytes_held(validated)
    assert fast < 0.7 * slow
