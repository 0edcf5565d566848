"""The corpus: the KB flattened into plain records with an inverted index and pre-counted token costs."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence

from homeostat.core.records import Record
from homeostat.core.selection.entries import AreaInfo, Budget, Entry, MemberInfo, RepoInfo, SectionEntry
from homeostat.core.selection.scope_index import ScopeIndex
from homeostat.core.selection.terms import remember_stems
from homeostat.core.type_hints import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from typing import Any


CORPUS_FORMAT = 10  # 10: every entry's text and fields as `core.served` gives them


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


def _by_id(entries: Sequence[Entry]) -> dict[str, Entry]:
    """The first rule with each id (validate reports duplicates)."""
    found: dict[str, Entry] = {}
    for entry in entries:
        found.setdefault(entry.id, entry)
    return found
