"""What a corpus holds, one record each: a rule entry, a document section, an area, a repo, a
member, the budget. The bottom of the selection package: it imports none of the rest."""

from __future__ import annotations

from homeostat.core.records import Record
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


CORE = "core"


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
