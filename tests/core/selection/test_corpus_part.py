"""A repo part's file reads back as the part it was written from, its rule texts read when asked for.

`context` and the hooks load a part's records and read a rule's view and rule-only view from the
file only when a view serves it: every entry must be equal (and hash equal) to the one written,
give the same texts and lengths, select and render the same, and keep reading the file it was
loaded from when a newer part replaces it. A file of another layout or cut short is no part.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from homeostat.adapters.cache.corpus_part import PART_FORMAT, PART_MAGIC, part_bytes, read_part, whole_entry
from homeostat.core.render.view import LineCounter, build_view
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import AreaInfo, Budget, Entry, RepoInfo
from homeostat.core.selection.rank import select_entries
from homeostat.core.selection.scope_index import scope_index


def rule(n: int, view: str, short: str, scope: tuple[str, ...] = ("src/api/**",)) -> Entry:
    return Entry(
        id=f"rule-{n}",
        title=f"Rule {n}",
        area="alpha/api" if n % 3 else "core",
        topic="errors",
        scope=scope,
        kind="convention",
        adopted=True,
        status="accepted",
        score=n % 5,
        refs=("src/api/x.py",) if n % 2 else (),
        view=view,
        short=short,
        tokens=len(view) // 4,
        short_tokens=len(short) // 4,
        file=f"knowledge/alpha/api/rule-{n}.md",
    )


TEXTS = [
    ("**Plain ASCII** (rule-0)\nDo it.\nWhy: because.\n", "**Plain ASCII** (rule-0)\nDo it.\n"),
    (
        "**Café, 日本語 and ✓** (rule-1)\nÜse thé accents.\nWhy: ß.\n",
        "**Café, 日本語 and ✓** (rule-1)\nÜse thé accents.\n",
    ),
    ("**A whole view** (rule-2)\nThat its rule-only view does not begin.\n", "**Another head** (rule-2)\n"),
    ("", ""),
    ("**Surrogate \udcff kept** (rule-4)\nx\n", "**Surrogate \udcff kept** (rule-4)\n"),
]


def part() -> Corpus:
    rules = tuple(rule(n, view, short) for n, (view, short) in enumerate(TEXTS))
    rules += tuple(
        rule(n, f"**Rule {n}** (rule-{n})\nBody {n}.\n", f"**Rule {n}** (rule-{n})\n") for n in range(5, 40)
    )
    return Corpus(
        entries=rules,
        sections=(),
        areas={"alpha/api": AreaInfo("alpha/api", "api", False, ("src/api/**",))},
        repos=(RepoInfo("alpha", "https://example.com/alpha"),),
        members=(),
        budget=Budget(token_budget=1500, max_chars=1900),
        postings={"bodi": [d for n in range(5, 40) for d in (n, 1)], "rule": [0, 2, 1, 2], "x": [3, 1]},
        lengths=tuple(12 for _ in rules),
        by_id={e.id: e for e in rules},
        whole=(100, 1200),
        frequencies={"bodi": 35, "rule": 2, "x": 1},
        scopes=scope_index(rules),
    )


@pytest.fixture
def written(tmp_path: Path) -> tuple[Corpus, Path]:
    corpus = part()
    path = tmp_path / "part"
    path.write_bytes(part_bytes(corpus))
    return corpus, path


def test_a_part_reads_back_equal_with_its_texts(written: tuple[Corpus, Path]) -> None:
    corpus, path = written
    loaded = read_part(path)
    assert loaded is not None
    assert loaded.entries == corpus.entries and loaded == corpus
    for mine, theirs in zip(loaded.entries, corpus.entries, strict=True):
        assert type(mine) is not Entry and isinstance(mine, Entry)  # its texts are read when asked for
        assert (mine.view, mine.short) == (theirs.view, theirs.short)
        assert (mine.view_chars, mine.short_chars) == (len(theirs.view), len(theirs.short))
        assert hash(mine) == hash(theirs) and mine == theirs and not mine != theirs
        assert type(whole_entry(mine)) is Entry and tuple(whole_entry(mine)) == tuple(theirs)
        assert mine._replace(score=99) == theirs._replace(score=99)
    assert loaded.by_id["rule-1"].view == TEXTS[1][0]
    assert loaded.postings["x"] == [3, 1] and "bodi" in loaded.postings and "retri" not in loaded.postings
    assert dict(loaded.postings) == dict(corpus.postings) and len(loaded.postings) == 3


def test_a_loaded_part_selects_and_renders_as_the_part_itself(written: tuple[Corpus, Path]) -> None:
    corpus, path = written
    loaded = read_part(path)
    assert loaded is not None
    audience = Audience("alpha")
    touched = ["src/api/x.py"]  # "x" is a term of rule-3
    assert select_entries(loaded, touched, audience) == select_entries(corpus, touched, audience)
    counter = LineCounter({}, len)
    mine, theirs = (
        build_view(loaded, touched, audience, counter),
        build_view(corpus, touched, audience, counter),
    )
    assert mine.text == theirs.text and mine.to_data() == theirs.to_data() and mine.placed and mine.cut


def test_a_part_replaced_after_it_was_loaded_still_reads_its_own_texts(written: tuple[Corpus, Path]) -> None:
    corpus, path = written
    loaded = read_part(path)
    assert loaded is not None
    other = part()._replace(
        entries=tuple(e._replace(view="changed\n", short="changed\n") for e in corpus.entries)
    )
    temp = path.with_name("part.new")
    temp.write_bytes(part_bytes(other._replace(scopes=scope_index(other.entries))))
    os.replace(temp, path)
    assert [e.view for e in loaded.entries] == [e.view for e in corpus.entries]
    again = read_part(path)
    assert again is not None and {e.view for e in again.entries} == {"changed\n"}


def test_a_file_of_another_layout_or_cut_short_is_no_part(
    written: tuple[Corpus, Path], tmp_path: Path
) -> None:
    _, path = written
    raw = path.read_bytes()
    older = tmp_path / "older"
    older.write_bytes(
        PART_MAGIC.replace(b"part %d" % PART_FORMAT, b"part %d" % (PART_FORMAT - 1)) + raw[len(PART_MAGIC) :]
    )
    short = tmp_path / "short"
    short.write_bytes(raw[: len(PART_MAGIC) + 20])
    marshalled = tmp_path / "marshalled"
    marshalled.write_bytes(b"\xfb\x00\x00")
    assert read_part(older) is None and read_part(short) is None and read_part(marshalled) is None
    assert read_part(tmp_path / "missing") is None
