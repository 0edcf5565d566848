"""Tiers and ranking: BM25, the four tiers, reciprocal rank fusion of scope, keywords, code
references and task, and the one way across tiers (`lifted`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import chain

from homeostat.core.records import Record
from homeostat.core.selection.audience import Audience, visibility
from homeostat.core.selection.corpus import Corpus, rare_limit
from homeostat.core.selection.entries import Entry
from homeostat.core.selection.globs import glob_matches, is_global, specificity
from homeostat.core.selection.scope_index import SERVED, ScopeIndex, scopes_for
from homeostat.core.selection.terms import path_terms, terms
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


RRF_K = 60
# The task ranking ranks only rules the task names at least this share as strongly as its best match in
# the tier: reciprocal rank fusion rewards being ranked at all far more than being ranked first, so a
# faint match on one common word would otherwise count almost as much as the rule the task is about.
TASK_RELATIVE = 0.5
BM25_K1 = 1.2
BM25_B = 0.75


def bm25(corpus: Corpus, query: Iterable[str], docs: set[int] | None = None) -> dict[int, float]:
    """BM25 (k1 = 1.2, b = 0.75) of each document (rules, then sections) for the query terms."""
    total = corpus.doc_count
    if not total:
        return {}
    average = corpus.length_sum / total or 1.0
    lengths = corpus.lengths
    length_norms: dict[int, float] = {}  # each document's part of the denominator, worked out once
    scale = BM25_K1 + 1
    scores: dict[int, float] = {}
    for term in set(query):
        flat = corpus.postings.get(term)
        if not flat:
            continue
        df = corpus.doc_frequency(term)
        idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
        pairs: Iterable[tuple[int, int]] = zip(flat[0::2], flat[1::2], strict=True)
        if docs is not None and 2 * len(docs) < len(flat):  # a few candidates, a long list: look up
            held = dict(pairs)
            pairs = [(doc, held[doc]) for doc in docs if doc in held]
        elif docs is not None:
            pairs = [(doc, tf) for doc, tf in pairs if doc in docs]
        for doc, tf in pairs:
            length_norm = length_norms.get(doc)
            if length_norm is None:
                length_norm = length_norms[doc] = BM25_K1 * (1 - BM25_B + BM25_B * lengths[doc] / average)
            scores[doc] = scores.get(doc, 0.0) + idf * tf * scale / (tf + length_norm)
    return scores


OUTRIGHT, NEARBY, OTHER, NONE = 3, 2, 1, 0


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def is_folder_ref(ref: str) -> bool:
    """`web/routes/legacy` (backticks drop a trailing slash): a last part without an extension."""
    return ref.endswith("/") or "." not in ref.rstrip("/").rsplit("/", 1)[-1]


def naming(ref: str, path: str) -> int:
    """How a code reference relates to a touched path: names it, names a neighbour, or neither."""
    if is_folder_ref(ref):
        folder = ref.rstrip("/")
        return NEARBY if path.startswith(folder + "/") else OTHER
    if ref == path or path.endswith("/" + ref):
        return OUTRIGHT
    if "/" in ref and _parent(ref) == _parent(path):
        return NEARBY
    return OTHER


def how_named(refs: Sequence[str], touched: Sequence[str]) -> tuple[int, float]:
    """(best relation over all refs and paths, code-reference weight: 1 per path named, ½ per neighbour)."""
    best = NONE
    weight = 0.0
    for path in touched:
        strongest = max((naming(ref, path) for ref in refs), default=NONE)
        best = max(best, strongest)
        weight += 1.0 if strongest == OUTRIGHT else 0.5 if strongest == NEARBY else 0.0
    if refs and best == NONE:
        best = OTHER
    return best, weight


RANKINGS = ("scope", "keywords", "code refs", "task")


class Ranked(Record):
    entry: Entry
    tier: int
    rrf: float
    specificity: tuple[int, int]
    keyword: float
    references: float
    ranks: tuple[int | None, ...]  # rank in its tier by each of RANKINGS (None: not ranked by it)
    task: float = 0.0  # BM25 of the task words against the rule
    lifted: bool = False  # moved up a tier by `lifted`


def rank_summary(ranked: Ranked) -> str:
    """`scope #2, keywords #1, task #1, lifted` for `--explain` and `explain --files`."""
    parts = [f"{name} #{rank}" for name, rank in zip(RANKINGS, ranked.ranks, strict=True) if rank]
    if ranked.lifted:
        parts.append("lifted by the task")
    return ", ".join(parts) or "unranked"


class Selection(Record):
    """Every visible rule in order (tiers first), and the visible rules no tier took (`rest`)."""

    ranked: tuple[Ranked, ...]
    rest: tuple[Entry, ...]
    touched: tuple[str, ...]
    task: tuple[str, ...] = ()  # the task words used


ScopeFacts = tuple[tuple[str, ...], tuple[str, ...], bool]


def _scope_facts(
    scope: Sequence[str], touched: Sequence[str], globs: dict[str, tuple[bool, bool]]
) -> ScopeFacts:
    """(globs of the scope that match a touched path and are not global, its global globs, whether
    any global one matches a touched path). `globs` remembers, for one selection, whether each glob
    is global and matches: a large KB's rules share a few hundred globs, and most of its scopes."""
    scoped: list[str] = []
    globals_: list[str] = []
    applies = False
    for glob in scope:
        facts = globs.get(glob)
        if facts is None:
            facts = globs[glob] = (is_global(glob), any(glob_matches(glob, p) for p in touched))
        if facts[0]:
            globals_.append(glob)
            applies = applies or facts[1]
        elif facts[1]:
            scoped.append(glob)
    return tuple(scoped), tuple(globals_), applies


def _tier(
    entry: Entry, facts: ScopeFacts, touched: Sequence[str], specs: dict[str, tuple[int, int]]
) -> tuple[int | None, tuple[int, int], float]:
    """(tier, specificity, code-reference weight) from its scope's facts. A rule no tier takes
    (None) needs no weight, and most rules of a large KB are scoped to folders the session never
    touches."""
    scoped, globals_, applies = facts
    if scoped:
        return 1, max(_specificity(g, specs) for g in scoped), how_named(entry.refs, touched)[1]
    if not globals_:
        return None, (0, 0), 0.0
    best, weight = how_named(entry.refs, touched)
    if best == OUTRIGHT:
        return 1, (0, 0), weight
    if touched and not applies:
        return None, (0, 0), weight
    return {NEARBY: 2, NONE: 3, OTHER: 4}[best], max(_specificity(g, specs) for g in globals_), weight


def _specificity(glob: str, known: dict[str, tuple[int, int]]) -> tuple[int, int]:
    found = known.get(glob)
    if found is None:
        found = known[glob] = specificity(glob)
    return found


def _ranks(keys: Sequence[tuple[Any, ...] | None]) -> list[int | None]:
    """1-based rank of each item by its key (smaller first); None keys are unranked."""
    order = sorted((k, i) for i, k in enumerate(keys) if k is not None)
    ranks: list[int | None] = [None] * len(keys)
    for position, (_, i) in enumerate(order, start=1):
        ranks[i] = position
    return ranks


def select_entries(
    corpus: Corpus, touched: Sequence[str], audience: Audience, task: Sequence[str] = ()
) -> Selection:
    """Rank the rules this audience may see for these touched paths (budget comes later). `task` is
    what the developer is doing, as words (`task_words`); without it the task ranking is empty."""
    paths = tuple(dict.fromkeys(p.removeprefix("./") for p in touched if p.strip()))
    task_terms = terms(" ".join(task))
    if corpus.scopes is None:
        candidates, rest = _tiered_by_scan(corpus, paths, audience)
    else:
        candidates, rest = _tiered_by_index(corpus, corpus.scopes, paths, audience)
    docs = {c[4] for c in candidates}
    keyword = bm25(corpus, [t for p in paths for t in path_terms(p)], docs)
    task_score = bm25(corpus, task_terms, docs) if task_terms else {}
    shared = _shared_terms(corpus, task_terms, docs) if task_terms else {}
    lifts = lifted([(id(c[0]), c[1], task_score.get(c[4], 0.0), shared.get(c[4], 0)) for c in candidates])
    tiers: dict[int, list[Candidate]] = {1: [], 2: [], 3: [], 4: []}
    for c in candidates:
        tiers[1 if id(c[0]) in lifts else c[1]].append(c)
    ranked: list[Ranked] = []
    for tier, group in tiers.items():
        scope_ranks = _ranks([(-c[2][0], -c[2][1], -c[0].score, c[0].id) for c in group])
        kw = [keyword.get(c[4], 0.0) for c in group]
        kw_ranks = _ranks([(-s, c[0].id) if s > 0 else None for s, c in zip(kw, group, strict=True)])
        ref_ranks = _ranks([(-c[3], c[0].id) if c[3] > 0 else None for c in group])
        tk = [task_score.get(c[4], 0.0) for c in group]
        floor = TASK_RELATIVE * max(tk, default=0.0)
        task_ranks = _ranks(
            [(-s, c[0].id) if s > 0 and s >= floor else None for s, c in zip(tk, group, strict=True)]
        )
        rows = []
        new = tuple.__new__  # `Ranked(...)` per rule costs a Python call more
        for i, (entry, _, spec, weight, _doc) in enumerate(group):
            ranks = (scope_ranks[i], kw_ranks[i], ref_ranks[i], task_ranks[i])
            rrf = sum([1.0 / (RRF_K + r) for r in ranks if r is not None])
            rows.append(
                new(Ranked, (entry, tier, rrf, spec, kw[i], weight, ranks, tk[i], id(entry) in lifts))
            )
        rows.sort(key=lambda r: (not r.lifted, -r.rrf, -r.entry.score, r.entry.id))
        ranked += rows
    return Selection(tuple(ranked), tuple(rest), paths, tuple(task))


Candidate = tuple[Entry, int, tuple[int, int], float, int]  # tier, specificity, weight, document number


def _tiered_by_scan(
    corpus: Corpus, paths: Sequence[str], audience: Audience
) -> tuple[list[Candidate], list[Entry]]:
    """The rules a tier takes (with their tier, specificity, code-reference weight and document
    number) and the adopted rules none takes, in corpus order, looking at every rule."""
    candidates: list[Candidate] = []
    rest: list[Entry] = []
    seen: dict[str, bool] = {}  # by area
    globs: dict[str, tuple[bool, bool]] = {}
    specs: dict[str, tuple[int, int]] = {}
    by_scope: dict[tuple[str, ...], ScopeFacts] = {}  # most rules share their scope with others
    for doc, entry in enumerate(corpus.entries):
        if entry.status not in SERVED:
            continue
        sees = seen.get(entry.area)
        if sees is None:
            sees = seen[entry.area] = audience.sees(entry.area, corpus)
        if not sees:
            continue
        facts = by_scope.get(entry.scope)
        if facts is None:
            facts = by_scope[entry.scope] = _scope_facts(entry.scope, paths, globs)
        if not facts[0] and not facts[1]:  # no glob of its scope is global or matches: no tier
            tier, spec, weight = None, (0, 0), 0.0
        else:
            tier, spec, weight = _tier(entry, facts, paths, specs)
        if tier is None or (not entry.adopted and tier != 1):  # a rejected decision only where it applies
            if entry.adopted:
                rest.append(entry)
            continue
        candidates.append((entry, tier, spec, weight, doc))
    return candidates, rest


def _tiered_by_index(
    corpus: Corpus, index: ScopeIndex, paths: Sequence[str], audience: Audience
) -> tuple[list[Candidate], list[Entry]]:
    """`_tiered_by_scan`'s answer, looking only at the rules whose scope may match a path or is
    global (`scope_index`): every other served rule's scope has no glob that is global or matches,
    so no tier takes it, and the adopted ones are the untiered rest. A rule's tier follows from its
    scope and its code references alone, which the rules of one file or folder often share."""
    globs: dict[str, tuple[bool, bool]] = {}
    specs: dict[str, tuple[int, int]] = {}
    facts_of: dict[int, ScopeFacts] = {}
    picked: list[tuple[int, int]] = []  # (document number, its scope's number)
    for number in scopes_for(index, paths):
        facts = _scope_facts(index.scopes[number], paths, globs)
        if facts[0] or facts[1]:
            facts_of[number] = facts
            picked += [(doc, number) for doc in index.members[number]]
    picked.sort()
    sees = visibility(corpus, audience)
    entries = corpus.entries
    candidates: list[Candidate] = []
    taken: set[int] = set()
    tiers: dict[tuple[int, tuple[str, ...]], tuple[int | None, tuple[int, int], float]] = {}
    for doc, number in picked:
        entry = entries[doc]
        if not sees(entry.area):
            continue
        found = tiers.get((number, entry.refs))
        if found is None:
            found = tiers[number, entry.refs] = _tier(entry, facts_of[number], paths, specs)
        tier, spec, weight = found
        if tier is None or (not entry.adopted and tier != 1):  # a rejected decision only where it applies
            continue
        candidates.append((entry, tier, spec, weight, doc))
        taken.add(doc)
    shown = [docs for area, docs in index.adopted_by_area.items() if sees(area)]
    if len(shown) == len(index.adopted_by_area):
        untiered: Iterable[int] = index.adopted
    else:
        untiered = sorted(chain.from_iterable(shown))
    return candidates, [entries[d] for d in untiered if d not in taken]


LIFT_MIN_SHARED = 2


def lifted(candidates: Sequence[tuple[int, int, float, int]]) -> set[int]:
    """The one way across tiers: a global rule (tiers 2-4) goes to the head of tier 1 when the task
    names it at least half as strongly (`TASK_RELATIVE`) as its best match in tier 1 and it shares
    two or more words with the task that are rare in the KB. So a language-wide rule the branch and
    commits are about (`**/*.py` "use timezone-aware datetimes" on branch `tz-aware-session-expiry`)
    outranks folder rules the task barely mentions; with no task, or words common to many rules,
    the tiers are as before.

    `candidates` are (key, tier, task score, rare task words shared); returns the keys lifted."""
    best = max((score for _, tier, score, _ in candidates if tier == 1), default=0.0)
    return {
        key
        for key, tier, score, shared in candidates
        if tier > 1 and score > 0 and score >= TASK_RELATIVE * best and shared >= LIFT_MIN_SHARED
    }


def _shared_terms(corpus: Corpus, task_terms: Sequence[str], docs: set[int]) -> dict[int, int]:
    """How many distinct task terms that are rare in the KB each candidate rule's text contains."""
    found: dict[int, int] = {}
    limit = rare_limit(corpus)
    for term in set(task_terms):
        flat = corpus.postings.get(term, ())
        if corpus.doc_frequency(term) > limit:
            continue
        for i in range(0, len(flat), 2):
            if flat[i] in docs:
                found[flat[i]] = found.get(flat[i], 0) + 1
    return found
