"""Every string in parsed data, with the key path a message can name, in the order it was written."""

from __future__ import annotations

import pytest

from homeostat.core.string_leaves import string_leaves


def test_strings_come_in_document_order_with_their_key_paths() -> None:
    data = {"title": "Use Decimal", "docPatch": {"body": "b", "op": None}, "scope": ["src/**", 3, "lib/**"]}
    assert list(string_leaves(data)) == [
        ("title", "Use Decimal"),
        ("docPatch.body", "b"),
        ("scope", "src/**"),
        ("scope", "lib/**"),
    ]


@pytest.mark.parametrize("value", [None, 7, True, {}, [], {"a": [{}]}])
def test_data_without_strings_has_no_leaves(value: object) -> None:
    assert list(string_leaves(value)) == []


def test_deep_nesting_is_walked_without_recursion() -> None:
    data: object = "deep"
    for _ in range(5000):
        data = {"k": [data]}
    assert list(string_leaves(data)) == [(".".join(["k"] * 5000), "deep")]
