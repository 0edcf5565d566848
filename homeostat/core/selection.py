"""Which rules a session gets, in what order, and how many fit: tiers, rank fusion, BM25, the budget.

Everything here works on a `Corpus`: the KB flattened into plain records (rule entries, document
sections, the few config facts selection needs, an inverted index and pre-counted token costs). A
session hook runs on every prompt, so this module imports neither pydantic nor the tokenizer: the
corpus is built once per KB version (`build_corpus`, which does load the models) and cached as JSON.

Order (the design's): tier 1 is rules scoped to the touched files together with global rules that
name a touched file outright; tier 2 global rules naming a file next to one; tier 3 global rules that
name no file; tier 4 global rules naming other files. Within a tier, reciprocal rank fusion (k = 60)
of scope (narrowest matching glob, then score), BM25 of the touched paths' words against the rule
text, code references (touched files the rule names) and, when the session knows what the developer
is doing, the task (BM25 of the branch name's and recent commit subjects' words); score breaks ties.
Tiers come first, so a rule scoped to the touched files never loses to a general one that does not
name them; the one exception is stated with `lifted` below.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import _count_elements  # type: ignore[attr-defined]  # Counter's own counting, in C
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from itertools import chain

from homeostat.core.globs import MAGIC, compile_glob
from homeostat.core.records import Record
from homeostat.core.scope_index import SERVED, ScopeIndex, scope_index, scopes_for
from homeostat.core.similarity import STOPWORDS, same_lesson
from homeostat.core.text import identifiers, lazy_pattern, words
from homeostat.core.type_hints import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from homeostat.core.config import Config
    from homeostat.core.corpus_rows import RuleRow
    from homeostat.core.kb import KB
    from homeostat.core.model import DocSection, Document
    from homeostat.core.pending import PendingLesson
    from homeostat.core.scoring import ScoreKey
    from homeostat.core.token_counts import TokenCounts

    _T = TypeVar("_T")

CORPUS_FORMAT = 10  # 10: every entry's text and fields as `core.served` gives them
CORE = "core"
RRF_K = 60
# The task ranking ranks only rules the task names at least this share as strongly as its best match in
# the tier: reciprocal rank fusion rewards being ranked at all far more than being ranked first, so a
# faint match on one common word would otherwise count almost as much as the rule the task is about.
TASK_RELATIVE = 0.5
BM25_K1 = 1.2
BM25_B = 0.75
_CODE_EXT = lazy_pattern(
    r"\.(py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|scala|sql|ya?ml|json|"
    r"toml|md|sh|bash|css|scss|less|html|vue|svelte|proto|tf|gradle|xml|ini|cfg|lock|txt|env|graphql|gql)$"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # every message uses it
# For `search_words` (ASCII text only): each byte but letters, digits and the apostrophe to a space
# (`_GAPS`); lower-case letters and digits to "a", capitals to "A", so `_CAMEL` splits where "aA" is.
_GAPS = bytes(c if c < 128 and (chr(c).isalnum() or c == 39) else 32 for c in range(256))
_CASES = bytes(65 if 65 <= c <= 90 else 97 if c < 128 and chr(c).isalnum() else 32 for c in range(256))
# Zero-width and bidi control characters: invisible to a reviewer, readable by a model. Stripped from
# everything an agent is served or an export writes.
_HIDDEN = lazy_pattern("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def strip_hidden(text: str) -> str:
    return text if text.isascii() else _HIDDEN.sub("", text)  # every hidden character is non-ASCII


# --- text to terms ---------------------------------------------------------------------------------


# The stemmer is part of the index's identity (corpus_cache.corpus_key): the same word must become the
# same term when the index is built and when it is queried.
STEMMER_ID = "snowball-english-3.1.1"
_STEMS: dict[str, str] = {}
_ENGLISH: list[Callable[[str], str]] = []


def _stemmer() -> Callable[[str], str]:
    """snowballstemmer's English (Porter2) stemmer, loaded on first use. The package's `__init__`
    imports all 36 of its languages (about 13 ms, a tenth of a warm session hook), so a bare stand-in
    package lets only `english_stemmer` and its two helpers load; the stand-in is then removed, so a
    later `import snowballstemmer` anywhere in the process still runs the real `__init__`."""
    if not _ENGLISH:
        import importlib.util
        import sys

        standin = None
        if "snowballstemmer" not in sys.modules:
            spec = importlib.util.find_spec("snowballstemmer")
            if spec is not None:
                standin = sys.modules["snowballstemmer"] = importlib.util.module_from_spec(spec)
        try:
            from snowballstemmer.english_stemmer import EnglishStemmer  # type: ignore[import-untyped]
        finally:
            if standin is not None and sys.modules.get("snowballstemmer") is standin:
                del sys.modules["snowballstemmer"]
        _ENGLISH.append(EnglishStemmer().stemWord)
    return _ENGLISH[0]


def term(word: str) -> str:
    """A word's search term: its Snowball (Porter2) stem, so status/statuses, retry/retries/retried
    and cache/cached/caching meet."""
    found = _STEMS.get(word)
    if found is None:
        found = _STEMS[word] = _stemmer()(word)
    return found


def remember_stems(stems: Mapping[str, str]) -> None:
    """Seed the stem memo with an index's vocabulary (stemmed when the index was built)."""
    _STEMS.update(stems)


def search_words(text: str) -> list[str]:
    """The words search reads: `words` of the text with camelCase split (`refundHandler` is refund
    and handler). ASCII text (the common case, and an index reads every rule) is split by C string
    methods instead of two regex passes: the camel split only where a lower-case letter or digit
    meets a capital, and `words`' pattern only on the few pieces holding an apostrophe; every other
    piece between characters that are not letters, digits or apostrophes is one of its matches."""
    if not text.isascii():
        return words(_CAMEL.sub(" ", text))
    raw = text.encode()
    if b"aA" in raw.translate(_CASES):
        raw = _CAMEL.sub(" ", text).encode()
    pieces = raw.lower().translate(_GAPS).decode().split()
    if b"'" not in raw:
        return pieces
    return [w for piece in pieces for w in ((piece,) if "'" not in piece else words(piece))]


def terms(text: str) -> list[str]:
    """Search terms: lower-cased words without stopwords, stemmed."""
    return [term(w) for w in search_words(text) if w not in STOPWORDS]


def path_terms(path: str) -> list[str]:
    """The words of a path: `src/billing/api/refundHandler.py` → src, billing, api, refund, handler, py."""
    return terms(re.sub(r"[/._\-]+", " ", path))


def is_file_ref(name: str) -> bool:
    """A code reference that names a file or folder (`src/api/app.py`, `web/routes/`, `errors.py`)."""
    if "://" in name or name.startswith(("http", "@")):
        return False
    if "/" in name:
        return True
    return bool(_CODE_EXT.search(name)) and "." in name[1:]


def file_refs(text: str) -> tuple[str, ...]:
    """Files and folders the text names in backticks, without a leading `./`."""
    found = {name.removeprefix("./") for name in identifiers(text) if is_file_ref(name)}
    return tuple(sorted(found))


# --- what the developer is doing --------------------------------------------------------------------

# Words of a branch name or commit subject that say nothing about the change itself.
TASK_NOISE = frozenset(
    """main master develop development dev trunk head origin branch merge into fix fixes fixed fixup bug
    bugs bugfix hotfix feature features feat wip chore refactor patch release update updates bump tmp temp
    issue gh pr review reviews address addressed comment comments nit nits typo typos lint
    news entry changelog pre commit ci squash revert add added adds remove removed
    make use""".split()
)
# A file name's "test" says only that it is a test file, which the touched paths already say.
TEST_MARKERS = frozenset({"test", "tests", "spec", "specs", "conftest"})
_TICKET = lazy_pattern(r"^[A-Za-z]{2,10}-\d+(?=$|[-_])")
_SPLIT = lazy_pattern(r"[/\-_.\s]+|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")


def _task_words(text: str) -> list[str]:
    out = []
    for piece in _SPLIT.split(_CAMEL.sub(" ", text)):
        for word in words(piece):
            if len(word) > 1 and not word.isdigit() and word not in STOPWORDS and word not in TASK_NOISE:
                out.append(word)
    return out


def branch_words(branch: str) -> list[str]:
    """`feature/PROJ-123-apikey-from-file` → apikey, file: split on `/ - _ .`, camelCase and digits;
    ticket ids, numbers and words such as main, fix, feature and wip dropped."""
    return [w for part in branch.split("/") for w in _task_words(_TICKET.sub("", part))]


def task_words(
    branch: str = "", commits: Sequence[str] = (), files: Sequence[str] = (), *, stated: str = ""
) -> tuple[str, ...]:
    """The words of what the developer is doing: what they said (`stated`: `--task`, the MCP tools'
    `task`), the branch name, the subjects (and first body lines) of recent commits (merge commits
    skipped), and the names of the files changed in the working tree, each once."""
    found = _task_words(stated) + branch_words(branch)
    for subject in commits:
        if not subject.startswith("Merge "):
            found += _task_words(subject)
    for path in files:
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        found += [w for w in _task_words(name) if w not in TEST_MARKERS]
    kept: dict[str, str] = {}  # one word per search term: `status` and `statuses` are one word
    for word in found:
        kept.setdefault(term(word), word)
    return tuple(kept.values())


# --- globs -------------------------------------------------------------------------------------------

_MATCHERS: dict[str, Any] = {}


_MAGIC = MAGIC  # every session uses it


def glob_matches(pattern: str, path: str) -> bool:
    """wcmatch globstar matching, compiled once per glob; a glob whose literal start cannot match
    is rejected without compiling (a KB has hundreds of distinct globs, a session touches a few files)."""
    magic = _MAGIC.search(pattern)
    literal = pattern[: magic.start()] if magic else pattern
    literal = literal.removeprefix("./")
    if magic is None:
        return literal == path
    if not path.startswith(literal):
        return False
    matcher = _MATCHERS.get(pattern)
    if matcher is None:
        matcher = _MATCHERS[pattern] = compile_glob(pattern.removeprefix("./"))
    return bool(matcher.match(path))


def is_global(pattern: str) -> bool:
    """A glob for any folder: `**`, `**/*.py`. (`*.md` matches files at the repo's root only.)"""
    return pattern.removeprefix("./").startswith("**")


def specificity(pattern: str) -> tuple[int, int]:
    """(literal leading folders, literal characters): `src/api/**/*.py` is narrower than `src/**`."""
    text = pattern.removeprefix("./")
    parts = text.split("/")
    folders = 0
    for part in parts[:-1]:
        if _MAGIC.search(part):
            break
        folders += 1
    literal = len(re.sub(r"[*?\[\]{}!]", "", text))
    return folders, literal


# --- the corpus ------------------------------------------------------------------------------------


class Entry(Record):
    """One rule as selection and rendering need it (also a pending lesson of this clone)."""

    id: str
    title: str
    area: str
    topic: str
    scope: tuple[str, ...]
    kind: str
    adopted: bool
    status: str  # accepted, candidate, disputed, retired, or "pending" for this clone's lessons
    score: int
    refs: tuple[str, ...]
    view: str  # the whole lean form (rule, why, example)
    short: str  # rule only
    tokens: int
    short_tokens: int
    file: str = ""
    owner: str = ""

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    @property
    def rejected(self) -> bool:
        return not self.adopted

    @property
    def view_chars(self) -> int:
        """`len(view)`: what fitting a view reads of every ranked rule, whose text a cached repo part
        reads only for the rules it serves (`adapters.cache.corpus_part`)."""
        return len(self.view)

    @property
    def short_chars(self) -> int:
        return len(self.short)


class SectionEntry(Record):
    """One `## Heading {#id}` section of a document."""

    doc_id: str
    id: str
    doc_title: str
    heading: str
    area: str
    scope: tuple[str, ...]
    refs: tuple[str, ...]
    source: str
    updated: str
    url: str
    view: str
    tokens: int

    @property
    def key(self) -> str:
        return f"{self.doc_id}#{self.id}"


class AreaInfo(Record):
    name: str
    owner: str
    team_only: bool
    paths: tuple[str, ...]


class RepoInfo(Record):
    name: str
    url: str
    public: bool = False


class MemberInfo(Record):
    handle: str
    name: str
    email: str
    teams: tuple[str, ...]


class Budget(Record):
    """`distribution` from homeostat.yaml."""

    token_budget: int = 2000
    doc_token_budget: int = 1000
    max_chars: int = 10000
    rule_share: float = 0.8


class Corpus(Record):
    entries: tuple[Entry, ...]
    sections: tuple[SectionEntry, ...]
    areas: Mapping[str, AreaInfo]
    repos: tuple[RepoInfo, ...]
    members: tuple[MemberInfo, ...]
    budget: Budget
    mcp_writes: bool = False
    mcp_write_limit: int = 5
    # term -> flat [doc, tf, doc, tf, …]; docs 0..len(entries)-1 are rules, then sections
    postings: Mapping[str, Sequence[int]] = {}
    lengths: tuple[int, ...] = ()
    line_tokens: Mapping[str, int] = {}
    by_id: Mapping[str, Entry] = {}
    stems: Mapping[str, str] = {}  # every indexed word's term, so a warm run rarely needs the stemmer
    # KB files left out because they fail the schema: (file, line, message, ids), for readers to report
    unreadable: tuple[tuple[str, int, str, tuple[str, ...]], ...] = ()
    # A repo's part of the KB (`repo_part`) keeps the whole KB's statistics: (documents, their total
    # length) and every term's document frequency; None for a whole KB, which counts its own
    whole: tuple[int, int] | None = None
    frequencies: Mapping[str, int] = {}
    # A repo part's served rules by scope (`repo_part`), so a session looks only at those that may
    # apply; None for a whole KB, whose selection looks at every rule
    scopes: ScopeIndex | None = None

    @property
    def multi_repo(self) -> bool:
        return bool(self.repos)

    @property
    def doc_count(self) -> int:
        """Rules and sections in the whole KB (BM25's N)."""
        return len(self.lengths) if self.whole is None else self.whole[0]

    @property
    def length_sum(self) -> int:
        return sum(self.lengths) if self.whole is None else self.whole[1]

    def entry(self, entry_id: str) -> Entry | None:
        if self.by_id:
            return self.by_id.get(entry_id)
        return next((e for e in self.entries if e.id == entry_id), None)

    def doc_frequency(self, term: str) -> int:
        """How many of the whole KB's rules and sections hold the term."""
        if self.whole is not None:
            return self.frequencies.get(term, 0)
        return len(self.postings.get(term, ())) // 2

    def to_data(self) -> dict[str, Any]:
        """A JSON-ready form (lists and scalars only)."""
        b = self.budget
        return {
            "format": CORPUS_FORMAT,
            "entries": [_row(e) for e in self.entries],
            "sections": [_row(s) for s in self.sections],
            "areas": [[a.name, a.owner, a.team_only, list(a.paths)] for a in self.areas.values()],
            "repos": [[r.name, r.url, r.public] for r in self.repos],
            "members": [[m.handle, m.name, m.email, list(m.teams)] for m in self.members],
            "budget": [b.token_budget, b.doc_token_budget, b.max_chars, b.rule_share],
            "mcp": [self.mcp_writes, self.mcp_write_limit],
            "postings": {term: _packed(p) for term, p in self.postings.items()},
            "lengths": list(self.lengths),
            "lineTokens": dict(self.line_tokens),
            "stems": dict(self.stems),
            "unreadable": [[f, n, m, list(ids)] for f, n, m, ids in self.unreadable],
            "whole": None if self.whole is None else list(self.whole),
            "frequencies": dict(self.frequencies),
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any], entry: type[Entry] = Entry) -> Corpus:
        """`entry`: the class of the rules' records (a cached repo part's reads their texts later)."""
        if data.get("format") != CORPUS_FORMAT:
            raise ValueError(f"corpus format {data.get('format')!r}, expected {CORPUS_FORMAT}")
        new = tuple.__new__  # rows are stored as tuples in field order
        entries = cast("tuple[Entry, ...]", tuple([new(entry, row) for row in data["entries"]]))
        remember_stems(data["stems"])
        whole = data["whole"]
        return cls(
            entries=entries,
            sections=cast(
                "tuple[SectionEntry, ...]", tuple([new(SectionEntry, row) for row in data["sections"]])
            ),
            areas={a[0]: AreaInfo(a[0], a[1], bool(a[2]), tuple(a[3])) for a in data["areas"]},
            repos=tuple(RepoInfo(r[0], r[1], bool(r[2])) for r in data["repos"]),
            members=tuple(MemberInfo(m[0], m[1], m[2], tuple(m[3])) for m in data["members"]),
            budget=Budget(*data["budget"]),
            mcp_writes=bool(data["mcp"][0]),
            mcp_write_limit=int(data["mcp"][1]),
            postings=Postings(data["postings"]),
            lengths=tuple(data["lengths"]),
            line_tokens=dict(data["lineTokens"]),
            by_id=_by_id(entries),
            stems=data["stems"],
            unreadable=tuple((u[0], u[1], u[2], tuple(u[3])) for u in data["unreadable"]),
            whole=None if whole is None else (int(whole[0]), int(whole[1])),
            frequencies=data["frequencies"],
        )


def _packed(flat: Sequence[int]) -> bytes:
    """A posting list as native 32-bit integers: a cached corpus loads its index as bytes, and only
    the terms a session looks up are ever turned into lists (`Postings`)."""
    from array import array

    return array("i", flat).tobytes()


class Postings(Mapping[str, list[int]]):
    """A cached corpus's posting lists, each unpacked from its bytes the first time it is looked up."""

    __slots__ = ("_packed", "_open")

    def __init__(self, packed: Mapping[str, bytes]) -> None:
        self._packed = packed
        self._open: dict[str, list[int]] = {}

    def __getitem__(self, term: str) -> list[int]:
        found = self._open.get(term)
        if found is None:
            found = self._open[term] = memoryview(self._packed[term]).cast("i").tolist()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)

    def __contains__(self, term: object) -> bool:
        return term in self._packed


# A word is rare when at most this share of the KB's rules and sections use it (and never fewer than 3):
# matching a message and lifting a rule by the task both count only rare words.
RARE_SHARE = 0.1


def rare_limit(corpus: Corpus) -> int:
    return max(3, math.ceil(RARE_SHARE * corpus.doc_count))


def _row(record: Entry | SectionEntry) -> tuple[Any, ...]:
    """A record as a plain tuple in field order: marshal keeps tuples, so loading one is a copy."""
    return tuple(record)


# --- building the corpus from a loaded KB (the slow path, run when the KB changes) -----------------


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
    from homeostat.core.corpus_rows import rule_row

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
    """The corpus of a KB's rules (`rows`, every rule in KB order, `core.corpus_rows`), documents and
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
    from homeostat.core.render_view import memo_lines
    from homeostat.core.scoring import declared_contradictions

    areas = {name: AreaInfo(name, a.owner, a.team_only, a.paths) for name, a in config.iter_areas()}
    scored = _scorer(config, declared_contradictions(row.contradicts for row in rows))
    scope_of = scope_expander(config)
    broken = unserved(unreadable)
    drafts: list[Entry] = []  # token counts still 0
    parts: list[tuple[str, str]] = []
    for row in rows:
        if broken and (row.file, row.id) in broken:
            continue
        area = areas.get(row.area)
        parts.append((row.short, row.rest))
        drafts.append(
            Entry(
                id=row.id,
                title=row.title,
                area=row.area,
                topic=row.topic,
                scope=scope_of(row.scope),
                kind=row.kind,
                adopted=row.adopted,
                status=row.status,
                score=scored(row.id, row.score_key),
                refs=row.refs,
                view=row.short + row.rest,
                short=row.short,
                tokens=0,
                short_tokens=0,
                file=row.file,
                owner=row.owner or (area.owner if area else ""),
            )
        )
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


def _by_id(entries: Sequence[Entry]) -> dict[str, Entry]:
    """The first rule with each id (validate reports duplicates)."""
    found: dict[str, Entry] = {}
    for entry in entries:
        found.setdefault(entry.id, entry)
    return found


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
    return any(row.area == lesson.area and same_lesson(text, f"{row.title}\n{row.rule}") for row in rows)


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


# --- BM25 --------------------------------------------------------------------------------------------


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


# --- who is asking ----------------------------------------------------------------------------------


class Audience(Record):
    """The session's repo (None: unknown, so only core in a KB with repo folders) and member."""

    repo: str | None
    member: str | None = None
    teams: frozenset[str] = frozenset()

    def sees(self, area: str, corpus: Corpus) -> bool:
        """Own repo plus core; another team's team-only area never."""
        if area != CORE and corpus.multi_repo:
            if self.repo is None or not area.startswith(f"{self.repo}/"):
                return False
        info = corpus.areas.get(area)
        return info is None or not info.team_only or info.owner in self.teams


def visibility(corpus: Corpus, audience: Audience) -> Callable[[str], bool]:
    """`audience.sees(area, corpus)`, worked out once per area: a message or a search over a large KB
    asks for thousands of rules of a few dozen areas."""
    seen: dict[str, bool] = {}

    def sees(area: str) -> bool:
        found = seen.get(area)
        if found is None:
            found = seen[area] = audience.sees(area, corpus)
        return found

    return sees


def find_member(
    corpus: Corpus, *, handle: str | None, email: str | None, name: str | None
) -> MemberInfo | None:
    """HOMEOSTAT_MEMBER (a handle) first, then the git email, then the git name as handle or name."""
    lowered = (handle or "").strip().lower()
    if lowered:
        return next((m for m in corpus.members if m.handle.lower() == lowered), None)
    mail = (email or "").strip().lower()
    if mail:
        found = next((m for m in corpus.members if m.email and m.email.lower() == mail), None)
        if found is not None:
            return found
    who = (name or "").strip().lower()
    if who:
        return next((m for m in corpus.members if who in (m.handle.lower(), m.name.lower())), None)
    return None


def audience_for(corpus: Corpus, repo: str | None, member: MemberInfo | None) -> Audience:
    if member is None:
        return Audience(repo)
    return Audience(repo, member.handle, frozenset(member.teams))


# --- tiers and ranking -----------------------------------------------------------------------------

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


# --- budget fitting ----------------------------------------------------------------------------------


class Placed(Record):
    ranked: Ranked
    form: str  # "full" or "rule-only"

    @property
    def entry(self) -> Entry:
        return self.ranked.entry

    @property
    def text(self) -> str:
        return self.entry.view if self.form == "full" else self.entry.short

    @property
    def tokens(self) -> int:
        return self.entry.tokens if self.form == "full" else self.entry.short_tokens


class Cut(Record):
    """Something left out of a view, and why; every cut is reported (`--explain`, JSON, MCP)."""

    id: str
    what: str  # "rule" or "section"
    reason: str
    area: str = ""
    topic: str = ""


class Fitted(Record):
    placed: tuple[Placed, ...]
    cut: tuple[Cut, ...]
    tokens: int
    chars: int


def group_of(entry: Entry) -> str:
    """The kind group a rule renders under; rejected decisions get their own."""
    if entry.rejected:
        return "rejected"
    return entry.kind or "rule"


def fit_rules(
    ranked: Sequence[Ranked], tokens: int, chars: int, group_cost: Callable[[str], tuple[int, int]]
) -> Fitted:
    """Greedy in rank order: whole, else rule-only, else cut; a rule that does not fit never blocks a
    smaller one after it. A group's guidance line is paid by the first rule placed in it."""
    placed: list[Placed] = []
    cut: list[Cut] = []
    used_tokens = used_chars = 0
    opened: set[str] = set()
    new = tuple.__new__
    for item in ranked:
        entry = item.entry
        group = group_of(entry)
        extra_tokens, extra_chars = (0, 0) if group in opened else group_cost(group)
        tokens_left, chars_left = tokens - used_tokens - extra_tokens, chars - used_chars - extra_chars
        # each size is looked at only when the one before it fits: a cached part reads it from a table
        if entry.tokens <= tokens_left and (size := entry.view_chars) <= chars_left:
            form, cost = "full", entry.tokens
        elif (size := entry.short_chars) <= chars_left and entry.short_tokens <= tokens_left:
            form, cost = "rule-only", entry.short_tokens
        else:
            reason = "over the character cap" if size > chars_left else "over the rule token budget"
            cut.append(new(Cut, (entry.id, "rule", reason, entry.area, entry.topic)))  # most rules of a tier
            continue
        used_tokens += cost + extra_tokens
        used_chars += size + extra_chars
        opened.add(group)
        placed.append(Placed(item, form))
    return Fitted(tuple(placed), tuple(cut), used_tokens, used_chars)


# --- documents --------------------------------------------------------------------------------------


def section_names(section: SectionEntry, touched: Sequence[str]) -> int:
    """2 when the section names a touched file, 1 a folder holding one, else 0."""
    best = 0
    for ref in section.refs:
        for path in touched:
            relation = naming(ref, path)
            if relation == OUTRIGHT:
                return 2
            if is_folder_ref(ref) and relation == NEARBY:
                best = 1
    return best


def select_sections(corpus: Corpus, touched: Sequence[str], audience: Audience) -> list[SectionEntry]:
    """Document sections that name a touched path (a file outright first, then a folder holding one)."""
    if not touched:
        return []
    found: list[tuple[int, int, SectionEntry]] = []
    for order, section in enumerate(corpus.sections):
        if not audience.sees(section.area, corpus):
            continue
        strength = section_names(section, touched)
        if strength:
            found.append((-strength, order, section))
    return [s for _, _, s in sorted(found, key=lambda f: (f[0], f[1]))]


def covering_documents(corpus: Corpus, touched: Sequence[str], audience: Audience) -> dict[str, set[str]]:
    """Area → ids of the visible documents whose scope covers a touched path (all of them with none)."""
    found: dict[str, set[str]] = {}
    for section in corpus.sections:
        if not audience.sees(section.area, corpus):
            continue
        if touched and not any(glob_matches(g, p) for g in section.scope for p in touched):
            continue
        found.setdefault(section.area, set()).add(section.doc_id)
    return found


def fit_sections(
    sections: Sequence[SectionEntry], tokens: int, chars: int
) -> tuple[list[SectionEntry], list[Cut]]:
    """Whole sections only, in order; one that does not fit never blocks a smaller one after it."""
    kept: list[SectionEntry] = []
    cut: list[Cut] = []
    used_tokens = used_chars = 0
    for section in sections:
        if used_tokens + section.tokens <= tokens and used_chars + len(section.view) <= chars:
            kept.append(section)
            used_tokens += section.tokens
            used_chars += len(section.view)
        else:
            cut.append(Cut(section.key, "section", "over the document budget", section.area))
    return kept, cut
