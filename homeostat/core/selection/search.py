"""Keyword search over rules and document sections, and matching a chat message against the KB.

No model and no embeddings: BM25 over the corpus's inverted index, on the CPU. The same search backs
`homeostat search`, the MCP `search` tool, `homeostat eval`'s search cases and the per-message match
(a question or a bug report names no file yet, so the message itself is searched).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from homeostat.core.records import Record
from homeostat.core.selection.audience import Audience, visibility
from homeostat.core.selection.corpus import Corpus, rare_limit
from homeostat.core.selection.entries import CORE, Entry, SectionEntry
from homeostat.core.selection.rank import bm25
from homeostat.core.selection.terms import terms
from homeostat.core.text import plural, words

DEFAULT_LIMIT = 10
SNIPPET_CHARS = 180
PROMPT_RULES = 3
PROMPT_SECTIONS = 2
PROMPT_RELATIVE = 0.6
PROMPT_MIN_WORDS = 3
PROMPT_MIN_RARE = 2

# Words of conversation: "yes, go ahead", "run the tests again", "commit it" never count toward a match.
CONVERSATION = frozenset(
    """yes yeah yep no nope ok okay sure fine go ahead run rerun tests test again commit push merge please
    thanks thank great good nice cool perfect looks look lgtm continue proceed next now then done do
    did does doing that this it its let lets us me my i you we can could would should try retry
    again also still just right wrong sounds sound well hmm stop wait keep going start finish
    what why how when which who where here there fix fixed check make sure see show tell""".split()
)


class Hit(Record):
    kind: str  # "rule" or "section"
    id: str  # rule id, or <doc>#<section>
    title: str
    area: str
    topic: str
    score: float
    snippet: str
    status: str = "accepted"
    rejected: bool = False
    doc_id: str = ""

    def to_data(self) -> dict[str, object]:
        data: dict[str, object] = {
            "kind": self.kind,
            "id": self.id,
            "title": self.title,
            "area": self.area,
            "score": round(self.score, 3),
            "snippet": self.snippet,
        }
        if self.topic:
            data["topic"] = self.topic
        if self.rejected:
            data["rejected"] = True
        if self.status != "accepted":
            data["status"] = self.status
        return data


def _served(entry: Entry, corpus: Corpus, audience: Audience) -> bool:
    return entry.status in ("accepted", "pending") and audience.sees(entry.area, corpus)


def snippet(text: str, query_terms: set[str], width: int = SNIPPET_CHARS) -> str:
    """The window of the text around its first query word, on one line."""
    body = " ".join(text.split("\n", 1)[-1].split())
    if len(body) <= width:
        return body
    start = 0
    for match in re.finditer(r"[^\W_]+", body):
        found = terms(match.group(0))
        if found and found[0] in query_terms:
            start = max(0, match.start() - width // 4)
            break
    piece = body[start : start + width]
    return ("…" if start else "") + piece.strip() + ("…" if start + width < len(body) else "")


def _rule_hit(entry: Entry, score: float) -> Hit:
    """A hit whose snippet is still the whole view: `_cut` makes it a snippet once the hit is kept."""
    return Hit(
        "rule",
        entry.id,
        entry.title,
        entry.area,
        entry.topic,
        score,
        entry.view,
        entry.status,
        entry.rejected,
    )


def _section_hit(section: SectionEntry, score: float) -> Hit:
    title = f"{section.doc_title} › {section.heading}"
    return Hit(
        "section",
        section.key,
        title,
        section.area,
        "",
        score,
        section.view,
        doc_id=section.doc_id,
    )


def search_entries(
    corpus: Corpus,
    query: str,
    audience: Audience,
    *,
    limit: int | None = DEFAULT_LIMIT,
    group: bool = False,
    kinds: Iterable[str] = ("rule", "section"),
) -> list[Hit]:
    """Rules and sections by BM25; an exact rule id or section key comes first. Rejected decisions
    are kept (as context: the agent should know what was decided against). Only the hits kept get a
    snippet: a common word matches thousands of rules in a large KB, and cutting a snippet for each
    cost an MCP search 300 ms at 20,000 rules."""
    wanted = set(kinds)
    query_terms = terms(query)
    qset = set(query_terms)
    scores = bm25(corpus, query_terms)
    exact = query.strip().lower()
    hits: list[Hit] = []
    n = len(corpus.entries)
    for doc, score in scores.items():
        if doc < n:
            entry = corpus.entries[doc]
            if "rule" in wanted and _served(entry, corpus, audience):
                hits.append(_rule_hit(entry, score))
        else:
            section = corpus.sections[doc - n]
            if "section" in wanted and audience.sees(section.area, corpus):
                hits.append(_section_hit(section, score))
    if exact and not any(h.id == exact for h in hits):
        hits += _exact_hits(corpus, exact, audience, wanted)
    hits.sort(key=lambda h: (h.id != exact, -h.score, h.kind, h.id))
    if group:
        hits = _one_per_document(hits)
    return _cut(hits if limit is None else hits[:limit], qset)


def _cut(hits: Iterable[Hit], query: set[str]) -> list[Hit]:
    return [hit._replace(snippet=snippet(hit.snippet, query)) for hit in hits]


def _exact_hits(corpus: Corpus, exact: str, audience: Audience, wanted: set[str]) -> list[Hit]:
    entry = corpus.entry(exact)
    if entry is not None and "rule" in wanted and _served(entry, corpus, audience):
        return [_rule_hit(entry, 0.0)]
    section = next((s for s in corpus.sections if s.key == exact), None)
    if section is not None and "section" in wanted and audience.sees(section.area, corpus):
        return [_section_hit(section, 0.0)]
    return []


def _one_per_document(hits: Sequence[Hit]) -> list[Hit]:
    """Sections collapse to their document's best; rules to their topic file's best."""
    seen: set[str] = set()
    kept: list[Hit] = []
    for hit in hits:
        key = hit.doc_id if hit.kind == "section" else (f"{hit.area}/{hit.topic}" if hit.topic else hit.id)
        if key in seen:
            continue
        seen.add(key)
        kept.append(hit)
    return kept


def topic_listing(corpus: Corpus, topic: str, audience: Audience) -> list[Hit]:
    """Every visible rule of a topic (`errors`, or `billing/api/errors` for one area), no cutoff."""
    area, _, name = topic.rpartition("/")
    found = [
        _rule_hit(e, 0.0)
        for e in corpus.entries
        if _served(e, corpus, audience) and e.topic == name and (not area or e.area == area)
    ]
    return _cut(sorted(found, key=lambda h: (h.area, h.id)), set())


# --- matching a chat message ------------------------------------------------------------------------


class PromptMatch(Record):
    rules: tuple[Entry, ...]
    sections: tuple[SectionEntry, ...]
    searched: bool
    reason: str  # why nothing (or what) was matched, for --explain
    rare: tuple[str, ...] = ()


def message_terms(message: str) -> list[str]:
    """The message's words that are neither stopwords nor conversation, as search terms."""
    kept = [w for w in words(message) if w not in CONVERSATION]
    return terms(" ".join(kept))


def _docs_with(corpus: Corpus, term: str) -> set[int]:
    flat = corpus.postings.get(term, ())
    return {flat[i] for i in range(0, len(flat), 2)}


def match_prompt(corpus: Corpus, message: str, audience: Audience, given: Iterable[str] = ()) -> PromptMatch:
    """Up to 3 rules and 2 sections, in full, each scoring ≥ 0.6 of the best hit of its kind and
    sharing at least two of the message's words that are rare in the KB; ids in `given` (already
    shown this session) are skipped. A message needs three words beyond conversation."""
    query = message_terms(message)
    if len(set(query)) < PROMPT_MIN_WORDS:
        return PromptMatch((), (), False, "fewer than three words beyond conversation")
    limit = rare_limit(corpus)
    rare = sorted(t for t in set(query) if 0 < corpus.doc_frequency(t) <= limit)
    if len(rare) < PROMPT_MIN_RARE:
        return PromptMatch((), (), True, "fewer than two words rare in the KB", tuple(rare))
    holders = {t: _docs_with(corpus, t) for t in rare}
    scores = bm25(corpus, query)
    n = len(corpus.entries)
    done = set(given)
    sees = visibility(corpus, audience)
    entries, sections = corpus.entries, corpus.sections
    rule_scores = {
        d: s
        for d, s in scores.items()
        if d < n and entries[d].status in ("accepted", "pending") and sees(entries[d].area)
    }
    section_scores = {d: s for d, s in scores.items() if d >= n and sees(sections[d - n].area)}
    rules = [entries[d] for d in _pick(rule_scores, holders, PROMPT_RULES, done, corpus)]
    matched = [sections[d - n] for d in _pick(section_scores, holders, PROMPT_SECTIONS, done, corpus)]
    reason = (
        f"{plural(len(rules), 'rule')} and {plural(len(matched), 'section')} matched"
        if rules or matched
        else "no hit shares two rare words"
    )
    return PromptMatch(tuple(rules), tuple(matched), True, reason, tuple(rare))


def _pick(
    scores: dict[int, float], holders: dict[str, set[int]], count: int, done: set[str], corpus: Corpus
) -> list[int]:
    if not scores:
        return []
    best = max(scores.values())
    n = len(corpus.entries)
    picked: list[int] = []
    for doc, score in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0])):
        if score < PROMPT_RELATIVE * best or len(picked) == count:
            break
        key = corpus.entries[doc].id if doc < n else corpus.sections[doc - n].key
        if key in done:
            continue
        if sum(1 for docs in holders.values() if doc in docs) >= PROMPT_MIN_RARE:
            picked.append(doc)
    return picked


def visible_areas(corpus: Corpus, audience: Audience) -> list[str]:
    """Areas this audience may read, core last."""
    names = sorted(a for a in corpus.areas if audience.sees(a, corpus))
    return names + [CORE]


# --- reading one thing by name ----------------------------------------------------------------------


class Found(Record):
    """What `read` resolved a name to: rules and/or sections, or nothing (with a hint)."""

    rules: tuple[Entry, ...] = ()
    sections: tuple[SectionEntry, ...] = ()
    hint: str = ""

    @property
    def empty(self) -> bool:
        return not self.rules and not self.sections


def lookup(corpus: Corpus, target: str, audience: Audience) -> Found:
    """`<doc>#<section>`, `<doc>`, `<area>/<topic>#<rule-id>`, `<area>/<topic>` or a rule id."""
    name = target.strip().strip("`").removeprefix("#")
    base, _, fragment = name.partition("#")
    visible_sections = [s for s in corpus.sections if audience.sees(s.area, corpus)]
    if fragment:
        section = next((s for s in visible_sections if s.doc_id == base and s.id == fragment), None)
        if section is not None:
            return Found(sections=(section,))
        entry = corpus.entry(fragment)
        if entry is not None and _served(entry, corpus, audience) and f"{entry.area}/{entry.topic}" == base:
            return Found(rules=(entry,))
    else:
        sections = tuple(s for s in visible_sections if s.doc_id == base)
        if sections:
            return Found(sections=sections)
        entry = corpus.entry(base)
        if entry is not None and _served(entry, corpus, audience):
            return Found(rules=(entry,))
        area, _, topic = base.rpartition("/")
        rules = tuple(
            e for e in corpus.entries if _served(e, corpus, audience) and e.area == area and e.topic == topic
        )
        if rules:
            return Found(rules=rules)
    hint = f"Nothing named {target!r} for this repo; `search` for it, or list documents with `docs`."
    return Found(hint=hint)
