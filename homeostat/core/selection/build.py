"""Building the corpus from a loaded KB: the slow path, run when the KB changes (it loads the
models and counts tokens); a session reads the cached result."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import chain

from homeostat.core.records import Record
from homeostat.core.selection.corpus import Corpus, _by_id
from homeostat.core.selection.entries import CORE, AreaInfo, Budget, Entry, MemberInfo, RepoInfo, SectionEntry
from homeostat.core.selection.index import IndexedRules, _index
from homeostat.core.selection.terms import file_refs, strip_hidden
from homeostat.core.similarity import same_lesson
from homeostat.core.type_hints import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from typing import TypeVar

    _T = TypeVar("_T")

    from homeostat.core.config import Config
    from homeostat.core.cost.token_counts import TokenCounts
    from homeostat.core.kb import KB
    from homeostat.core.pending import PendingLesson
    from homeostat.core.schema import DocSection, Document
    from homeostat.core.scoring import ScoreKey
    from homeostat.core.selection.corpus_rows import RuleRow


def section_view(doc_title: str, heading: str, key: str, body: str) -> str:
    from homeostat.core.served import served_text

    return f"### {doc_title} › {heading} ({key})\n{served_text(body).strip()}\n"


def pending_view(lesson: PendingLesson, entry_id: str, *, with_why: bool = True) -> str:
    lines = [f"**{lesson.title.strip()}** ({entry_id}, pending review)", lesson.rule.strip()]
    if with_why and lesson.why.strip():
        lines.append(f"Why: {lesson.why.strip()}")
    if with_why and lesson.example.strip():
        lines.append(f"Example: {lesson.example.strip()}")
    return "\n".join(lines) + "\n"


class ToCount(Record):
    """The texts a corpus build counts, in the order it counts them (a `TokenCounts` keeps what it
    looked up in that order, and `tokens.json` with it), so the counting can run apart from the rest
    of the build (`adapters.forked.count_worker`) and give the same counts in the same order."""

    rules: list[tuple[str, str]]  # each served rule's rule-only form and what its whole form adds
    pending: list[tuple[str, str]]  # each pending entry's whole form and rule-only form
    sections: list[str]
    lines: list[str]  # `render_view.memo_lines`


def count_texts(todo: ToCount, counts: TokenCounts) -> list[int]:
    """Every count a corpus needs, in `todo`'s order: per rule and per pending entry its whole form's
    tokens then its rule-only form's (a rule's rule-only form is counted first, as the head of its
    whole form: `TokenCounts.count_joined`), then each section's and each line's."""
    count = counts.count
    joined = counts.count_joined
    out: list[int] = []
    for short, rest in todo.rules:
        short_tokens = count(short)  # counted first: its count is the whole form's head
        out += (joined(short, short_tokens, rest), short_tokens)
    for view, short in todo.pending:
        out += (count(view), count(short))
    out += [count(view) for view in todo.sections]
    out += [count(line) for line in todo.lines]
    return out


# Starts counting a build's texts and gives the function that waits for the counts (`count_texts`).
TextCounter = Callable[[ToCount], Callable[[], list[int]]]


def build_corpus(
    kb: KB, pending: Sequence[PendingLesson], counts: TokenCounts, counter: TextCounter | None = None
) -> Corpus:
    """Flatten a loaded KB (and this clone's pending lessons) into a corpus (`counted_first`)."""
    from homeostat.core.selection.corpus_rows import rule_row

    config = kb.require_config()
    rows = [rule_row(rule) for rule in kb.rules]
    unreadable = [u.row() for u in kb.unreadable]
    return counted_first(config, rows, kb.documents, unreadable, pending, counts, counter)[0]


def counted_first(
    config: Config,
    rows: Sequence[RuleRow],
    documents: Sequence[Document],
    unreadable: Sequence[tuple[str, int, str, tuple[str, ...]]],
    pending: Sequence[PendingLesson],
    counts: TokenCounts,
    counter: TextCounter | None = None,
    indexed: IndexedRules | None = None,
    first: Callable[[str], bool] | None = None,
) -> tuple[Corpus, Callable[[TokenCounts], Corpus]]:
    """The corpus of a KB's rules (`rows`, every rule in KB order, `core.selection.corpus_rows`), documents and
    unreadable files (a rule in one is served from nowhere, as `KB.served_rules`). Token counts come
    from `counts` (the caller's cache of earlier counts). A rule's whole view is its rule-only view
    and what follows it, so only that is counted again (`TokenCounts.count_joined`). The texts to
    count are gathered first and handed to `counter`, which may count them elsewhere while the index
    is built here (by default they are counted here, `count_texts`). `indexed`: the index of the
    last served rules, made where they were read (`corpus_rows.indexed_rows`).

    With `first` (the areas of a session's part, `part_areas`) only the texts of its rules, pending
    entries and sections, and every line, are counted: the others' counts are 0 in the corpus given
    until the function given counts them (with the same `TokenCounts`) and gives the corpus counting
    everything gives. A cold session hook answers from its part and leaves the rest to the writer
    behind its answer (`write_behind`). Without it the function gives the same corpus."""
    from homeostat.core.kb import unserved
    from homeostat.core.render.view import memo_lines
    from homeostat.core.scoring import declared_contradictions

    areas = {name: AreaInfo(name, a.owner, a.team_only, a.paths) for name, a in config.iter_areas()}
    scored = _scorer(config, declared_contradictions(row.contradicts for row in rows))
    scope_of = scope_expander(config)
    drafts, parts = _rule_drafts(rows, unserved(unreadable), areas, scored, scope_of)
    served = len(drafts)
    live = [lesson for lesson in pending if not _landed(lesson, rows)]
    drafts += [e for e in (_pending_entry(lesson, areas, scope_of) for lesson in live) if e is not None]
    sections = [
        _section_entry(document, sec, scope_of) for document in documents for sec in document.sections
    ]
    lines = memo_lines(drafts, {s.area for s in sections}, areas)
    todo = ToCount(parts, [(e.view, e.short) for e in drafts[served:]], [s.view for s in sections], lines)
    kept = None if first is None else _kept_texts(drafts, served, sections, first)
    now, later = (todo, None) if kept is None else _split_todo(todo, kept)
    waiting = counter(now) if counter is not None else lambda: count_texts(now, counts)
    block = None if indexed is None else (served - len(indexed[1]), indexed)
    inverted = _index(drafts, sections, block)
    counted_now = waiting()
    made = _Made(config, areas, drafts, served, sections, lines, inverted, tuple(unreadable))
    if later is None or kept is None:
        corpus = _assembled(made, counted_now)
        return corpus, lambda _counts: corpus

    def finish(counts: TokenCounts) -> Corpus:
        return _assembled(made, _merged_counts(counted_now, count_texts(later, counts), kept))

    return _assembled(made, _merged_counts(counted_now, None, kept)), finish


def _rule_drafts(
    rows: Sequence[RuleRow],
    broken: set[tuple[str, str]],
    areas: Mapping[str, AreaInfo],
    scored: Callable[[str, ScoreKey], int],
    scope_of: Callable[[tuple[str, ...]], tuple[str, ...]],
) -> tuple[list[Entry], list[tuple[str, str]]]:
    """The served rules as entries whose token counts are still 0, and each one's (rule-only view,
    rest) to count: counting is the slow part, so `counted_first` decides what to count when. A rule
    in a file that fails the schema (`broken`) is left out, as no reader serves it."""
    drafts: list[Entry] = []
    parts: list[tuple[str, str]] = []
    for row in rows:
        entry = row.entry
        if broken and (entry.file, entry.id) in broken:
            continue
        area = areas.get(entry.area)
        parts.append((entry.short, row.rest))
        drafts.append(
            entry._replace(
                scope=scope_of(entry.scope),
                score=scored(entry.id, row.score_key),
                owner=entry.owner or (area.owner if area else ""),
            )
        )
    return drafts, parts


class _Made(Record):
    """A corpus build's parts but the token counts (`counted_first`)."""

    config: Config
    areas: dict[str, AreaInfo]
    drafts: list[Entry]  # the served rules, then the pending entries, with no counts
    served: int
    sections: list[SectionEntry]
    lines: list[str]
    inverted: tuple[dict[str, list[int]], tuple[int, ...], dict[str, str]]  # `_index`
    unreadable: tuple[tuple[str, int, str, tuple[str, ...]], ...]


def _assembled(made: _Made, counts: list[int]) -> Corpus:
    """The corpus, given every count in `ToCount`'s order."""
    config, drafts, served, sections, lines = made.config, made.drafts, made.served, made.sections, made.lines
    postings, lengths, stems = made.inverted
    counted = iter(counts)
    new, at = tuple.__new__, _TOKENS_AT  # `_replace` per rule costs more than the rest of this loop
    entries = cast(
        "tuple[Entry, ...]",
        tuple([new(Entry, (*e[:at], next(counted), next(counted), *e[at + 2 :])) for e in drafts[:served]]),
    )
    entries += tuple([e._replace(tokens=next(counted), short_tokens=next(counted)) for e in drafts[served:]])
    d = config.distribution
    return Corpus(
        entries=entries,
        sections=tuple([s._replace(tokens=next(counted)) for s in sections]),
        areas=made.areas,
        repos=tuple(RepoInfo(r.name, r.url, r.public) for r in config.repos),
        members=tuple(MemberInfo(m.handle, m.name, m.email, m.teams) for m in config.team.members),
        budget=Budget(d.token_budget, d.doc_token_budget, d.max_chars, d.rule_share),
        mcp_writes=config.security.mcp_writes,
        mcp_write_limit=config.security.mcp_write_limit,
        postings=postings,
        lengths=lengths,
        line_tokens={line: next(counted) for line in lines},
        by_id=_by_id(entries),
        stems=stems,
        unreadable=made.unreadable,
    )


# Which of a build's texts are counted first: each served rule's, each pending entry's, each section's
Kept = tuple[list[bool], list[bool], list[bool]]


def _kept_texts(
    drafts: list[Entry], served: int, sections: list[SectionEntry], first: Callable[[str], bool]
) -> Kept:
    return (
        [first(e.area) for e in drafts[:served]],
        [first(e.area) for e in drafts[served:]],
        [first(s.area) for s in sections],
    )


def _split_todo(todo: ToCount, kept: Kept) -> tuple[ToCount, ToCount]:
    """The texts counted first (and every line), and the rest."""
    rules, pending, sections = (
        _parted(todo.rules, kept[0]),
        _parted(todo.pending, kept[1]),
        _parted(todo.sections, kept[2]),
    )
    now = ToCount(rules[0], pending[0], sections[0], todo.lines)
    later = ToCount(rules[1], pending[1], sections[1], [])
    return now, later


def _parted(texts: Sequence[_T], kept: Sequence[bool]) -> tuple[list[_T], list[_T]]:
    """`texts` where `kept` is true, and the others."""
    now: list[_T] = []
    later: list[_T] = []
    for text, k in zip(texts, kept, strict=True):
        (now if k else later).append(text)
    return now, later


def _merged_counts(now: list[int], later: list[int] | None, kept: Kept) -> list[int]:
    """Every count in `ToCount`'s order from those counted first and the rest (None: 0 for each)."""
    first, rest = iter(now), iter(later) if later is not None else None
    out: list[int] = []
    rules, pending, sections = kept
    for k in chain(rules, pending):
        if k:
            out += (next(first), next(first))
        else:
            out += (0, 0) if rest is None else (next(rest), next(rest))
    for k in sections:
        out.append(next(first) if k else 0 if rest is None else next(rest))
    out += first  # the lines
    return out


# Where an Entry's two token counts sit (`tokens`, then `short_tokens`): `build_corpus` fills them in
_TOKENS_AT = Entry._fields.index("tokens")
assert Entry._fields[_TOKENS_AT + 1] == "short_tokens"


def _scorer(config: Config, conflicts: Mapping[str, int]) -> Callable[[str, ScoreKey], int]:
    """`score_rule`'s total for a rule (its id and `ScoreKey`), worked out once for each combination
    of what it reads: a KB's rules share a few. Only totals CPython shares anyway (its small
    integers) are kept, so the corpus holds the integers a plain `score_rule` per rule gives."""
    from homeostat.core.scoring import score_parts

    known: dict[tuple[ScoreKey, int], int] = {}

    def score(rule_id: str, key: ScoreKey) -> int:
        conflicting = conflicts.get(rule_id, 0)
        total = known.get((key, conflicting))
        if total is None:
            total = score_parts(config, key, conflicting).total
            if -5 <= total <= 256:
                known[key, conflicting] = total
        return total

    return score


def scope_expander(config: Config) -> Callable[[tuple[str, ...]], tuple[str, ...]]:
    """A scope with its `lang:` selectors as the globs they stand for (`core.languages`), one
    tuple per distinct scope: most rules share their scope with others, and a shared tuple is
    written once in a corpus file."""
    from homeostat.core.languages import expand_scope

    table = config.language_table()
    seen: dict[tuple[str, ...], tuple[str, ...]] = {}

    def expanded(scope: tuple[str, ...]) -> tuple[str, ...]:
        found = seen.get(scope)
        if found is None:
            found = seen[scope] = expand_scope(scope, table)
        return found

    return expanded


def _section_entry(
    document: Document, section: DocSection, scope_of: Callable[[tuple[str, ...]], tuple[str, ...]]
) -> SectionEntry:
    """A section's entry, its token count still 0 (`build_corpus` fills it in); its text and fields as
    every surface shows them (`served.served_document`)."""
    from homeostat.core.served import served_doc_meta, served_line, served_provenance, served_text

    key = f"{document.doc_id}#{section.id}"
    meta = served_doc_meta(document.meta)
    heading = served_line(section.heading)
    p = served_provenance(section.provenance) if section.provenance else None
    view = strip_hidden(section_view(meta.title, heading, key, section.body))
    return SectionEntry(
        doc_id=document.doc_id,
        id=section.id,
        doc_title=meta.title,
        heading=heading,
        area=meta.area,
        scope=scope_of(meta.scope),
        refs=file_refs(served_text(section.body)),
        source=p.source if p else "",
        updated=p.updated if p else "",
        url=p.url if p else "",
        view=view,
        tokens=0,
    )


def _landed(lesson: PendingLesson, rows: Sequence[RuleRow]) -> bool:
    """A pending lesson the KB already holds (merged, and this clone's copy not yet cleared): serving both
    would give the session one rule twice."""
    if lesson.kind != "new":
        return False
    text = f"{lesson.title}\n{lesson.rule}"
    return any(
        row.entry.area == lesson.area and same_lesson(text, f"{row.entry.title}\n{row.rule}") for row in rows
    )


def _pending_entry(
    lesson: PendingLesson,
    areas: Mapping[str, AreaInfo],
    scope_of: Callable[[tuple[str, ...]], tuple[str, ...]],
) -> Entry | None:
    """A pending *new* lesson that looks acceptable (title, rule, a known area) applies at once (its
    token counts still 0: `build_corpus` fills them in), as its sessions are served it
    (`served.served_lesson`)."""
    from homeostat.core.served import served_lesson

    lesson = served_lesson(lesson)
    if lesson.kind != "new" or not lesson.title.strip() or not lesson.rule.strip():
        return None
    area = lesson.area
    if area != CORE and area not in areas:
        return None
    scope = lesson.scope or (areas[area].paths if area in areas else ("**",))
    entry_id = f"pending-{lesson.content_key()[:8]}"
    text = "\n".join([lesson.title, lesson.rule, lesson.why, lesson.example])
    view = strip_hidden(pending_view(lesson, entry_id))
    short = strip_hidden(pending_view(lesson, entry_id, with_why=False))
    return Entry(
        id=entry_id,
        title=lesson.title.strip(),
        area=area,
        topic=lesson.topic,
        scope=scope_of(tuple(scope)),
        kind=lesson.lesson_kind or "",
        adopted=True,
        status="pending",
        score=0,
        refs=file_refs(text),
        view=view,
        short=short,
        tokens=0,
        short_tokens=0,
        owner=areas[area].owner if area in areas else "",
    )
