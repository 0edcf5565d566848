"""The YAML fast path against the full parser: equal values where both read, never a crash."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from homeostat.core.format import yamltext
from homeostat.core.format.yamltext import YamlError, load_full, load_yaml

KEYS = st.from_regex(r"[a-z][a-zA-Z_-]{0,6}", fullmatch=True)
# Pieces that sit on the fast path's edges: types PyYAML resolves, characters it quotes or refuses.
TRICKY = st.sampled_from(
    [
        "2026-01-01",
        "2026-02-30",
        "2026-01-01T25:00:00",
        "2026-01-01T10:00:00Z",
        "2026-01-01 10:00:00",
        "1e3",
        "1_000",
        "0x1F",
        "0o17",
        "012",
        "+1",
        "-0",
        ".inf",
        "~",
        "null",
        "yes",
        "Off",
        "on",
        "=",
        "<<",
        "a: b",
        "a #b",
        "a\tb",
        "\t",
        "é",
        "\u2028",
        "\x85",
        "\x00",
        "x:",
        "- a",
        "?",
        "!tag",
        "&anchor",
        "*alias",
        "a, b",
        "don't",
        "it's 'x'",
        'say "hi"',
        "a]",
        "[a",
        "{x}",
        "a {#b}",
        "a\t#b",
        "a:\tb",
        "'",
        "''",
        "'it''s'",
        "'a, b'",
        "'a' b",
        '"a" b',
    ]
)
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
PLAIN = st.one_of(TRICKY, TEXT, st.integers(-(10**20), 10**20).map(str))


def _quoted(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _single_quoted(text: str) -> str:
    escaped = text.replace("'", "''")
    return f"'{escaped}'"


SCALAR = st.one_of(
    PLAIN,
    PLAIN.map(_quoted),
    PLAIN.map(_single_quoted),
    st.sampled_from(['"a\\tb"', '"\\u00e9"', '"\\/"', '""']),
)
VALUE = st.one_of(
    SCALAR,
    st.lists(SCALAR, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    st.just(""),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for key in draw(st.lists(KEYS, min_size=1, max_size=6)):
        nested = draw(st.lists(st.tuples(KEYS, VALUE), max_size=3))
        if nested and draw(st.booleans()):
            lines.append(f"{key}:")
            lines += [f"  {k}: {v}".rstrip() if v else f"  {k}:" for k, v in nested]
        else:
            value = draw(VALUE)
            lines.append(f"{key}: {value}" if value else f"{key}:")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


def _fast(text: str) -> yamltext.YamlDoc | None:
    try:
        return yamltext._load_simple(text)
    except yamltext._Slow:
        return None


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
@example("no: 2026-01-01")  # a key PyYAML reads as False
def test_the_fast_path_gives_the_full_parsers_values_or_steps_aside(text: str) -> None:
    try:
        fast = _fast(text)
    except YamlError as exc:  # only a duplicate key, which the full parser refuses as well
        assert "duplicate key" in str(exc)
        with pytest.raises(YamlError):
            load_full(text)
        return
    if fast is None:
        return
    full = load_full(text)
    assert fast.data == full.data
    assert _types(fast.data) == _types(full.data)
    assert {k: v for k, v in fast.key_lines.items() if len(k) == 1} == {
        k: v for k, v in full.key_lines.items() if len(k) == 1
    }


@settings(max_examples=400, deadline=None)
@given(documents())
def test_loading_never_raises_anything_but_a_located_yaml_error(text: str) -> None:
    try:
        load_yaml(text)
    except YamlError as exc:
        assert exc.line >= 1


def _types(value: object) -> object:
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def test_a_tab_inside_double_quotes_is_read_as_pyyaml_reads_it() -> None:
    assert load_yaml('title: "a\tb"').data == {"title": "a\tb"}


def test_a_timestamp_that_does_not_exist_is_a_located_error_not_a_crash() -> None:
    with pytest.raises(YamlError) as caught:
        load_yaml("id: x\nupdated: 2026-01-01T25:00:00\n")
    assert caught.value.line == 2
    assert "'2026-01-01T25:00:00' is not a valid timestamp (hour must be in 0..23)" in str(caught.value)


def test_valid_timestamps_still_read_as_datetimes() -> None:
    assert load_yaml("at: 2026-01-01T10:00:00Z").data["at"] == dt.datetime(2026, 1, 1, 10, tzinfo=dt.UTC)
