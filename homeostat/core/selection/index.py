"""The inverted index of rule texts: each term's postings, the texts' lengths, the stems met."""

from __future__ import annotations

from collections import _count_elements  # type: ignore[attr-defined]  # Counter's own counting, in C
from collections.abc import Sequence

from homeostat.core.selection.entries import Entry, SectionEntry
from homeostat.core.selection.terms import search_words, term
from homeostat.core.similarity import STOPWORDS
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


class _Terms(dict[str, "str | None"]):
    """Each word's search term, None for a stopword, worked out the first time it is asked for."""

    def __missing__(self, word: str) -> str | None:
        found = self[word] = None if word in STOPWORDS else term(word)
        return found


# The index of a run of consecutive rules made elsewhere (the cold rebuild's parse child indexes the
# rules it read, `corpus_rows.indexed_rows`): their postings, numbered from the first of them, their
# lengths, and each word's term (stopwords left out)
IndexedRules = tuple[dict[str, list[int]], list[int], dict[str, str]]


def _index(
    entries: Sequence[Entry],
    sections: Sequence[SectionEntry],
    block: tuple[int, IndexedRules] | None = None,
) -> tuple[dict[str, list[int]], tuple[int, ...], dict[str, str]]:
    """Inverted index over rules then sections (a rule's title counts twice: it says what it is about),
    and the term of every word indexed. `block`: where a run of the rules starts and its index made
    elsewhere, which goes in as indexing them here would put it: their terms in the order found."""
    flat: dict[str, list[int]] = {}
    lengths: list[int] = []
    seen = _Terms()  # every word indexed, by its first occurrence, with its term (None: a stopword)
    start, end = (len(entries), len(entries)) if block is None else (block[0], block[0] + len(block[1][1]))
    _add_docs(flat, lengths, seen, [rule_text(e.title, e.view) for e in entries[:start]], 0)
    if block is not None:
        postings, block_lengths, block_terms = block[1]
        new_posting = flat.setdefault
        for key, found in postings.items():
            if start:
                found[::2] = [doc + start for doc in found[::2]]
            new_posting(key, []).extend(found)
        lengths += block_lengths
        seen.update(block_terms)
    texts = [rule_text(e.title, e.view) for e in entries[end:]]
    texts += [f"{s.doc_title} {s.heading}\n{s.view}" for s in sections]
    _add_docs(flat, lengths, seen, texts, end)
    vocabulary = [word for word, found in seen.items() if found is not None]
    return flat, tuple(lengths), {w: term(w) for w in sorted(vocabulary)}


def index_texts(texts: Sequence[str]) -> IndexedRules:
    """The index of a run of rules' texts (`rule_text`), numbered from 0, for `_index`'s `block`."""
    flat: dict[str, list[int]] = {}
    lengths: list[int] = []
    seen = _Terms()
    _add_docs(flat, lengths, seen, texts, 0)
    return flat, lengths, {word: found for word, found in seen.items() if found is not None}


def rule_text(title: str, view: str) -> str:
    """What the index reads of a rule."""
    return f"{title}\n{view}"


def _add_docs(
    flat: dict[str, list[int]], lengths: list[int], seen: _Terms, texts: Sequence[str], first: int
) -> None:
    term_of = seen.__getitem__  # a dict lookup per word, not a call
    new_posting = flat.setdefault
    for doc, text in enumerate(texts, first):
        found = search_words(text)
        counted: dict[str | None, int] = {}  # a Counter's counts, without its Python-level set-up
        _count_elements(counted, map(term_of, found))  # in the order of each term's first word
        lengths.append(len(found) - counted.pop(None, 0))
        for key, tf in counted.items():
            new_posting(key, []).extend((doc, tf))  # type: ignore[arg-type]  # None is popped
