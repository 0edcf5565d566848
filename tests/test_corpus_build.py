"""The cold build's shortcuts give what the plain build gives: token counts, words and the index.

Building the corpus (what `context` does when its cache is missing) counts a rule's whole view as its
rule-only view plus what follows, splits words with C string methods instead of two regex passes,
and counts each document's terms in one pass. Each shortcut is held here to the plain way it stands
for, over random text and over a KB with the awkward cases (hidden and non-ASCII characters,
apostrophes, camelCase, trailing spaces, CRLF, examples or none).
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from homeostat.adapters.search_index import build
from homeostat.core.selection import _CAMEL, STOPWORDS, Entry, SectionEntry, _index, search_words, term
from homeostat.core.text import identifiers, words
from homeostat.core.token_counts import TokenCounts, text_digest
from homeostat.core.tokens import count_tokens, splits_cleanly

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "kb"

# Characters the tokenizer's pattern treats differently: letters, capitals, digits, apostrophes,
# punctuation, every kind of space and line break, accents, CJK, emoji and the hidden characters.
PIECES = list("aZq9'’.,:;!?*`#-_/()[]{}") + [" ", "  ", "\t", "\n", "\r\n", "\n\n", "\u00a0", "\u3000"]
PIECES += ["é", "ß", "日本", "🙂", "\u200b", "\u202e", "\ufeff", "'s", "'LL", "don't", "HTTPServer"]
PIECES += ["refundHandler", "a1B2", "x'yZ", "<|endoftext|>", "100", "12345", "Why:", "**Title**"]
text = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
ascii_text = st.lists(st.sampled_from([p for p in PIECES if p.isascii()]), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(head=text, tail=text)
def test_a_text_ending_in_a_newline_counts_apart_from_what_follows(head: str, tail: str) -> None:
    head += "\n"
    if splits_cleanly(head, tail):
        assert count_tokens(head + tail) == count_tokens(head) + count_tokens(tail)


def test_splits_cleanly_refuses_what_it_cannot_promise() -> None:
    assert splits_cleanly("rule.\n", "Why: because")
    assert not splits_cleanly("rule.", "Why: because")  # no newline: "." and "Why" may merge
    assert not splits_cleanly("rule\n", " indented")  # the whitespace run would span both
    assert not splits_cleanly("rule\n", "\nWhy")
    assert not splits_cleanly("rule\n", "")


def test_count_joined_keeps_the_whole_texts_count_for_the_next_run() -> None:
    counts = TokenCounts()
    head, tail = (
        "**Retry refunds** (refund-retries)\nRetry with backoff.\n",
        "Why: the gateway drops calls.\n",
    )
    whole = counts.count_joined(head, counts.count(head), tail)
    assert whole == count_tokens(head + tail)
    assert counts.used[text_digest(head + tail)] == whole  # validate looks the whole view up by digest
    again = TokenCounts(counts.used)
    assert again.count_joined(head, 0, tail) == whole and again.counted == 0  # trusted, not counted
    unclean = TokenCounts()
    assert unclean.count_joined("no newline", 3, " tail") == count_tokens("no newline tail")


@settings(max_examples=600, deadline=None)
@given(value=text)
def test_search_words_are_the_words_of_the_camel_split_text(value: str) -> None:
    assert search_words(value) == words(_CAMEL.sub(" ", value))


@settings(max_examples=600, deadline=None)
@given(value=ascii_text)
def test_search_words_of_ascii_text(value: str) -> None:
    assert search_words(value) == words(_CAMEL.sub(" ", value))


@settings(max_examples=300, deadline=None)
@given(
    value=st.lists(st.sampled_from([*PIECES, "`", "`", "src/api/app.py", "./x.py"]), max_size=40).map("".join)
)
def test_identifiers_are_every_name_in_every_backticked_span(value: str) -> None:
    plain = {
        m.group(0)
        for span in re.findall(r"`([^`\n]+)`", value)
        for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_.:/-]*[A-Za-z0-9_]", span)
    }
    assert identifiers(value) == plain


def _plain_index(
    entries: list[Entry], sections: list[SectionEntry]
) -> tuple[dict[str, list[int]], tuple[int, ...], dict[str, str]]:
    """The index the way it was first written: a list of words, a Counter of their terms."""
    flat: dict[str, list[int]] = {}
    lengths: list[int] = []
    texts = [f"{e.title}\n{e.view}" for e in entries] + [
        f"{s.doc_title} {s.heading}\n{s.view}" for s in sections
    ]
    vocabulary: set[str] = set()
    for doc, value in enumerate(texts):
        found = [w for w in words(_CAMEL.sub(" ", value)) if w not in STOPWORDS]
        vocabulary.update(found)
        lengths.append(len(found))
        for key, tf in Counter([term(w) for w in found]).items():
            flat.setdefault(key, []).extend((doc, tf))
    return flat, tuple(lengths), {w: term(w) for w in sorted(vocabulary)}


AWKWARD = {
    "knowledge/core/awkward-text.md": (
        "---\nid: awkward-text\ntitle: Don't log the refundHandler's HTTPServer errors twice\narea: core\n"
        'scope: ["**"]\nstatus: accepted\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\n'
        "lastConfirmed: 2026-01-01\n---\n## Rule\nUse `log_once()` in `src/api/app.py`\u200b \u202e"
        "(the team's rule, 日本語 too) \n\n## Why\n  Duplicate\r\nlines cost 3× the tokens.\t\n\n"
        "## Example\n```py\nlog_once(err)  # <|endoftext|>\n```\n"
    ),
    "knowledge/core/plain-ascii.md": (
        "---\nid: plain-ascii\ntitle: Retry idempotent calls\narea: core\nscope: ['**/*.py']\n"
        "status: accepted\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\n"
        "lastConfirmed: 2026-01-01\n---\n## Rule\nRetry with `with_backoff()`.\n\n## Why\nThe gateway drops calls.\n"
    ),
}


def test_the_built_corpus_counts_and_indexes_as_the_plain_way(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    for rel, content in AWKWARD.items():
        (root / rel).write_text(content, encoding="utf-8")
    corpus = build(root)
    assert {"awkward-text", "plain-ascii"} <= {e.id for e in corpus.entries}
    assert any(not e.view.isascii() for e in corpus.entries)
    for entry in corpus.entries:
        assert entry.view.startswith(entry.short)
        assert entry.tokens == count_tokens(entry.view), entry.id
        assert entry.short_tokens == count_tokens(entry.short), entry.id
    assert corpus.sections
    for section in corpus.sections:
        assert section.tokens == count_tokens(section.view), section.key
    postings, lengths, stems = _plain_index(list(corpus.entries), list(corpus.sections))
    assert dict(corpus.postings) == postings
    assert list(corpus.postings) == list(postings)  # the same order, so the cached bytes are the same
    assert corpus.lengths == lengths
    assert dict(corpus.stems) == stems
    built = _index(corpus.entries, corpus.sections)
    assert list(built[0].items()) == list(postings.items())
