"""A session repo's part of the corpus: only the areas that repo's sessions can be served."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from homeostat.core.selection.corpus import Corpus, _by_id
from homeostat.core.selection.entries import CORE
from homeostat.core.selection.scope_index import scope_index
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


def part_areas(repo: str | None) -> Callable[[str], bool]:
    """Whether an area is in `repo`'s part (`repo_part`): `core`, and the repo's own areas."""
    prefix = f"{repo}/" if repo is not None else None

    def kept(area: str) -> bool:
        return area == CORE or (prefix is not None and area.startswith(prefix))

    return kept


# Above this many runs of a part's documents (rules filed away from their area's folder), a pass
# over every pair costs less than bisecting for each run
MAX_RUNS = 32


def _runs(docs: Sequence[int]) -> list[tuple[int, int, int]]:
    """Ascending document numbers as runs of consecutive ones: (the first, past the last, the
    first's number among `docs`). A repo's part is a few runs: `core`'s files, the repo's, its
    sections (a KB's files are in path order, an area's in its folder)."""
    runs: list[tuple[int, int, int]] = []
    for new, old in enumerate(docs):
        if runs and runs[-1][1] == old:
            first, _, at = runs[-1]
            runs[-1] = (first, old + 1, at)
        else:
            runs.append((old, old + 1, new))
    return runs


def _renumbered(flat: Sequence[int], runs: Sequence[tuple[int, int, int]]) -> list[int]:
    """A posting list's (document, frequency) pairs of the documents in `runs`, numbered as in
    them: each run's pairs found by bisection and copied as one slice, so a part costs a few slices
    per term, not a step per pair of the whole KB."""
    numbers = flat[::2]  # ascending: postings are made in document order
    out: list[int] = []
    for first, past, at in runs:
        lo = bisect_left(numbers, first)
        hi = bisect_left(numbers, past, lo)
        if lo == hi:
            continue
        found = list(flat[2 * lo : 2 * hi])
        if at != first:
            shift = at - first
            found[::2] = [doc + shift for doc in found[::2]]
        out += found
    return out


def _pairs_renumbered(docs: Sequence[int], total: int) -> Callable[[Sequence[int], object], list[int]]:
    """`_renumbered` a pair at a time, for a part of many runs."""
    renumbered = [-1] * total  # each document's number in the part, -1 if left out
    for new, old in enumerate(docs):
        renumbered[old] = new

    def renumber(flat: Sequence[int], _runs: object) -> list[int]:
        out: list[int] = []
        for doc, tf in zip(flat[::2], flat[1::2], strict=True):
            new = renumbered[doc]
            if new >= 0:
                out += (new, tf)
        return out

    return renumber


def repo_part(corpus: Corpus, repo: str | None) -> Corpus:
    """The rules and sections a session in `repo` (None: in no repo) may see, `core`'s and its repo's
    (as `Audience.sees`), with the whole KB's document count, length and term frequencies: selection,
    BM25 and rare words over the part give what they give over the whole KB, while a session hook
    loads and scans only its own repo. A KB without repos is its own part."""
    if not corpus.multi_repo or corpus.whole is not None:
        return corpus
    kept = part_areas(repo)
    n = len(corpus.entries)
    rules = [i for i, e in enumerate(corpus.entries) if kept(e.area)]
    docs = rules + [n + i for i, s in enumerate(corpus.sections) if kept(s.area)]
    runs = _runs(docs)
    renumber = _renumbered if len(runs) <= MAX_RUNS else _pairs_renumbered(docs, n + len(corpus.sections))
    postings: dict[str, list[int]] = {}
    for key, flat in corpus.postings.items():
        out = renumber(flat, runs)
        if out:
            postings[key] = out
    entries = tuple(corpus.entries[i] for i in rules)
    return corpus._replace(
        entries=entries,
        sections=tuple(corpus.sections[d - n] for d in docs[len(rules) :]),
        postings=postings,
        lengths=tuple(corpus.lengths[d] for d in docs),
        by_id=_by_id(entries),
        whole=(corpus.doc_count, corpus.length_sum),
        frequencies={key: len(flat) // 2 for key, flat in corpus.postings.items()},
        scopes=scope_index(entries),
    )
