"""The shortcuts validate's checks take give what the plain way gives, on any text.

Each speed-up skips work it can prove finds nothing, or reads a common case without the general
parser: the run finder against the run regex it replaced, the card prefilter against the card regex,
the content-word numbers against `content_words`, the plain GitHub URL reading against urlsplit's,
the comment blanking against its split-and-join, and `judge` against its order of tests before.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from homeostat.core.safety.secrets import _RUN, _RUN_CHARS, _runs
from homeostat.core.scanners.hidden import Comment, blank_homeostat_comments, is_fields_comment
from homeostat.core.scanners.secrets.found import RANK_ENTROPY, RANK_KEYED, Found
from homeostat.core.scanners.secrets.keys import KeyClass, classify_key, is_aws_secret
from homeostat.core.scanners.secrets.positional import (
    _MIN_RANDOM,
    _SEPARATOR,
    _key_before,
    _separator_end,
    _value_after,
    assignments,
    judge,
    password_ok,
    secret_value_ok,
)
from homeostat.core.scanners.secrets.structure import _CARD, cards, may_hold_card
from homeostat.core.scanners.secrets.values import is_code_expression, is_reference, looks_random
from homeostat.core.similarity import ContentWordNumbers, ascii_word_set, content_words
from homeostat.core.text import words
from homeostat.core.validate.structure_checks import (
    _parsed_pull_repo,
    _parsed_review_repo,
    _pull_repo,
    _review_repo,
)

PROPERTY = settings(max_examples=400, deadline=None)

# Characters near every edge the shortcuts draw: run characters and the ones just outside, digits
# `\d` matches beyond ASCII, characters past Latin-1 (encoded as `?`) and a real `?`.
EDGES = st.sampled_from(
    list("aZ09_-+/=.~$:") + list(" \n\t#@?!,;'\"`") + ["é", "٣", "３", "İ", "\u200b", "😀"]
)
RUN_TEXT = st.lists(
    st.one_of(EDGES, st.text(alphabet=_RUN_CHARS, min_size=12, max_size=20)), max_size=40
).map("".join)


@PROPERTY
@given(RUN_TEXT)
def test_runs_are_the_run_regex_matches(text: str) -> None:
    assert list(_runs(text)) == [m.span() for m in _RUN.finditer(text)]


def test_the_run_characters_are_the_run_regex_class() -> None:
    for code in range(0x3000):
        c = chr(code)
        assert (_RUN.fullmatch(c * 16) is not None) == (c in _RUN_CHARS), repr(c)


DIGITS = st.sampled_from(list("0123456789") * 4 + list(" - -") + ["٣", "３", "?", "x", "\n", ".", "/", "é"])


@PROPERTY
@given(st.lists(DIGITS, max_size=60).map("".join))
def test_a_text_the_card_prefilter_passes_over_holds_no_card_shape(text: str) -> None:
    if not may_hold_card(text):
        assert _CARD.search(text) is None
        assert list(cards(text)) == []


def test_the_card_prefilter_lets_real_cards_through() -> None:
    for text in (
        "card 4111111111111111 on file",
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "3782 822463 10005",
        "pay with ４１１１１１１１１１１１１１１１",  # fullwidth digits, as `\d` reads them
    ):
        assert may_hold_card(text), text
    assert list(cards("card 4111 1111 1111 1111.")) != []
    assert not may_hold_card("order 2026-11-29, ticket 123456789012, phone 555 1234")


def test_latin1_holds_no_decimal_digit_but_ascii_ones() -> None:
    """The prefilter encodes a text as Latin-1, counting only 0-9 (and anything past it) as digits."""
    assert [chr(b) for b in range(256) if re.fullmatch(r"\d", chr(b))] == list("0123456789")


ASCII_PIECES = st.sampled_from(
    list("abcXYZ019' -_.,\n\t`\"") + ["don't", "it's", "'q'", "a''b", "x'y'z", "Retry"]
)


@PROPERTY
@given(st.lists(ASCII_PIECES, max_size=40).map("".join))
def test_the_ascii_word_set_is_the_word_regex_set(text: str) -> None:
    assert ascii_word_set(text) == {w.encode() for w in words(text)}


WORDS = st.sampled_from(
    "retry retries retried caching cache the and of a is to api db io ok naïve café über 数据 x y "
    "Retry RETRIES handler_1 v2 it's don't you're queue queues ledgers 'quoted' a''b Caching.".split()
)


@PROPERTY
@given(st.lists(st.lists(WORDS, max_size=30).map(" ".join), min_size=1, max_size=8))
def test_content_word_numbers_number_exactly_the_content_words(texts: list[str]) -> None:
    numbers = ContentWordNumbers()
    stem_of = {}
    for text in texts:
        found = numbers.of(text)
        stem_of = {n: s for s, n in numbers.stems.items()}
        assert {stem_of[n] for n in found} == content_words(text)
    assert len(set(stem_of.values())) == len(stem_of)  # one number per stem


PIECE = st.sampled_from(["Acme", "ledger.js", "a-b_c", "x", "..", "%41", " o", "o\t", "[::1]", "o@", "٣", ""])
URLS = st.builds(
    lambda scheme, host, owner, name, kind, number, fragment: (
        f"{scheme}://{host}/{owner}/{name}/{kind}/{number}{fragment}"
    ),
    st.sampled_from(["https", "http", "HTTPS", "ftp"]),
    st.sampled_from(
        ["github.com", "GitHub.com", "bitbucket.org", "ghe.example.com", "github.com:443", "u@github.com"]
    ),
    PIECE,
    PIECE,
    st.sampled_from(["pull", "pull-requests", "issues", "pull/7/files"]),
    st.sampled_from(["12", "0", "٣", "1x", ""]),
    st.sampled_from(["", "#discussion_r345", "#r9", "#comment-3", "#discussion_r", "#x#y", "#r1\n", "/"]),
)


@PROPERTY
@given(URLS)
def test_plain_github_urls_read_as_urlsplit_reads_them(url: str) -> None:
    assert _review_repo(url) == _parsed_review_repo(url)
    assert _pull_repo(url) == _parsed_pull_repo(url)


def test_the_common_review_links_take_the_plain_reading() -> None:
    url = "https://github.com/Example/Payments/pull/12#discussion_r345"
    assert _review_repo(url) == ("github", "example", "payments") == _parsed_review_repo(url)
    assert _review_repo("https://github.com/o/n/pull/1#r2") == ("github", "o", "n")
    assert _review_repo("https://github.com/o/n/issues/1") is None


COMMENT_TEXT = st.lists(
    st.sampled_from(["<!-- homeostat", "-->", "\n", " ", "a: 1", "é", "😀", "\u200b", "\r\n", "<!--", "x"]),
    max_size=30,
).map("".join)


@PROPERTY
@given(COMMENT_TEXT)
def test_blanked_comments_are_the_split_and_join_blanking(text: str) -> None:
    """The one-pass blanking equals a regex reading of the comments (one never closed runs to the end),
    each fields comment's lines split, blanked and joined."""
    reference, last = [], 0
    for match in re.finditer(r"<!--(.*?)(?:-->|\Z)", text, re.DOTALL):
        if is_fields_comment(text, Comment(match.start(), match.end(), match.group(1))):
            blanked = "\n".join(" " * len(line) for line in match.group(0).split("\n"))
            reference += [text[last : match.start()], blanked]
            last = match.end()
    reference.append(text[last:])
    assert blank_homeostat_comments(text) == "".join(reference)


def reference_judge(key: str, value: str, *, quoted: bool) -> str | None:
    """`judge` as it was written before its last branch tested looks_random first."""
    cls = classify_key(key)
    if cls is KeyClass.PASSWORD:
        return "password" if password_ok(value, quoted=quoted) else None
    if cls is KeyClass.SECRET:
        if not secret_value_ok(key, value, quoted=quoted):
            return None
        return "aws-secret-key" if is_aws_secret(key) else "generic-secret"
    if cls is not KeyClass.OTHER or is_reference(value) or (not quoted and is_code_expression(value)):
        return None
    return "high-entropy" if looks_random(value, strict=True) else None


VALUES = st.sampled_from(
    [
        "https://github.com/o/n/pull/1#discussion_r2",
        "${DB_PASSWORD}",
        "settings.api_key",
        "get_token()",
        "Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0Ac",
        "os.environ[Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0AcQ]",
        "<Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0Ac>",
        "`Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0Ac`",
        "$Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0Ac",
        "a.Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0Ac",
        "hunter2",
        "",
    ]
)


@PROPERTY
@given(st.sampled_from(["mimi", "url", "password", "api_key", "token", "id", "x.y"]), VALUES, st.booleans())
def test_judge_is_the_judge_it_was(key: str, value: str, quoted: bool) -> None:
    assert judge(key, value, quoted=quoted) == reference_judge(key, value, quoted=quoted)


def test_every_lazily_compiled_pattern_compiles() -> None:
    """Token formats and phrase patterns compile on first use; a broken one must fail here, not on
    the first KB that opens its gate."""
    from homeostat.core.scanners.risky.risk_rules import PHRASE_RULES
    from homeostat.core.scanners.secrets.vendor_formats import _ALL_PREFIXED

    for fmt in _ALL_PREFIXED:
        assert fmt.pattern.pattern == fmt.source
    for rule in PHRASE_RULES:
        for pattern in rule.patterns:
            assert pattern.regex.flags & re.IGNORECASE and pattern.regex.pattern == pattern.source


def reference_assignments(line: str) -> list[Found]:
    """`assignments` as it was before it skipped the values of ignored keys."""
    found = []
    for sep in _SEPARATOR.finditer(line):
        if sep.start() == 0:
            continue
        sep_end = _separator_end(line, sep.start())
        if sep_end < 0:
            continue
        key = _key_before(line, sep.start())
        if "@" in key:
            continue
        if not key or (classify_key(key) is KeyClass.OTHER and sep_end + _MIN_RANDOM > len(line)):
            continue
        value = _value_after(line, sep_end)
        if value is None:
            continue
        start, text, quoted = value
        kind = judge(key, text, quoted=quoted)
        if kind:
            found.append(
                Found(kind, start, start + len(text), RANK_ENTROPY if kind == "high-entropy" else RANK_KEYED)
            )
    return found


LINE_PIECES = st.sampled_from(
    [
        "url",
        "created",
        "password",
        "db_pass",
        "mimi",
        "api_key_id",
        "token",
        ": ",
        "=",
        "==",
        " := ",
        "://",
        '"',
        "'",
        "`",
        " ",
        "Zx8Qm2Lp9Rt4Vw7Ys1Bn6Kd3Hf5Gj0Ac",
        "hunter2!",
        "${X}",
        "2026-11-01",
        "https://github.com/o/n/pull/1",
        "**",
        "@",
    ]
)


@PROPERTY
@given(st.lists(LINE_PIECES, max_size=12).map("".join))
def test_assignments_find_what_they_found_reading_every_value(line: str) -> None:
    assert list(assignments(line)) == reference_assignments(line)
