"""The shortcuts validate's checks take give what the plain way gives, on any text.

Each speed-up skips work it can prove finds nothing, or reads a common case without the general
parser: the run finder against the run regex it replaced, the card prefilter against the card regex,
the content-word numbers against `content_words`, the plain GitHub URL reading against urlsplit's.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from homeostat.core.hosts import UrlError, parse_comment_url, parse_pull_url
from homeostat.core.scanners.structure import _CARD, cards, may_hold_card
from homeostat.core.secrets import _RUN, _RUN_CHARS, _runs
from homeostat.core.similarity import ContentWordNumbers, content_words
from homeostat.core.validate.structure_checks import _pull_repo, _review_repo

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


WORDS = st.sampled_from(
    "retry retries retried caching cache the and of a is to api db io ok naïve café über 数据 x y "
    "Retry RETRIES handler_1 v2 it's don't you're queue queues ledgers".split()
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


def slow_review_repo(url: str) -> tuple[str, str, str] | None:
    try:
        repo = parse_comment_url(url).repo
    except UrlError:
        try:
            repo, _ = parse_pull_url(url)
        except UrlError:
            return None
    return (repo.host.value, repo.owner.lower(), repo.name.lower())


def slow_pull_repo(url: str) -> tuple[str, str, str] | None:
    try:
        repo, _ = parse_pull_url(url.split("#", 1)[0])
    except UrlError:
        return None
    return (repo.host.value, repo.owner.lower(), repo.name.lower())


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
    assert _review_repo(url) == slow_review_repo(url)
    assert _pull_repo(url) == slow_pull_repo(url)


def test_the_common_review_links_take_the_plain_reading() -> None:
    url = "https://github.com/Example/Payments/pull/12#discussion_r345"
    assert _review_repo(url) == ("github", "example", "payments") == slow_review_repo(url)
    assert _review_repo("https://github.com/o/n/pull/1#r2") == ("github", "o", "n")
    assert _review_repo("https://github.com/o/n/issues/1") is None
