"""Rules and documents: the on-disk schema (pydantic) and the loaded, located values (dataclasses).

A rule's machine fields live in YAML frontmatter (or, in a topic file, in a `<!-- homeostat … -->`
comment under its heading); its body is `Rule` (≤60 words), `Why` (≤100 words) and an optional
`Example`. Documents are frontmatter plus `## Heading {#id}` sections with a provenance comment each.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from homeostat.core.format.one_line import is_glob, single_line
from homeostat.core.records import Record
from homeostat.core.text import is_valid_id

RuleStatus = Literal["candidate", "accepted", "disputed", "retired"]
RuleKind = Literal[
    "convention", "anti-pattern", "migration", "legacy", "tech-debt", "practice", "review-lesson", "decision"
]
SourceType = Literal["pr-feedback", "manual", "agent-handoff", "deep-dive"]
DocSource = Literal["bootstrap", "curator", "manual", "deep-dive", "import"]

RULE_WORD_LIMIT = 60
WHY_WORD_LIMIT = 100
TITLE_CHAR_LIMIT = 80
SECTION_WORD_LIMIT = 400

RULE_KEY_ORDER = (
    "id",
    "title",
    "area",
    "topic",
    "scope",
    "status",
    "kind",
    "adopted",
    "owner",
    "approvedBy",
    "flags",
    "contradicts",
    "riskReviewedBy",
    "source",
    "alsoFrom",
    "created",
    "lastConfirmed",
    "score",
    "tokens",
)
# Fields a topic file's section comment holds; id and title come from the heading, area and topic
# from the file's frontmatter.
TOPIC_SECTION_KEYS = tuple(k for k in RULE_KEY_ORDER if k not in ("id", "title", "area", "topic"))


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)


class Source(Strict):
    type: SourceType
    url: str = ""
    author: str = ""
    changed_code: bool | None = None


class Flag(Strict):
    by: str
    at: dt.date
    reason: str
    resolved: bool = False


class RiskSignOff(Strict):
    """A member's sign-off on risky content, bound to the text they read (see `core.safety.signoff`)."""

    by: str
    fingerprint: str = ""


def _reviewer(value: str | RiskSignOff) -> str:
    return value.by if isinstance(value, RiskSignOff) else value


def _reviewed_fingerprint(value: str | RiskSignOff) -> str:
    return value.fingerprint if isinstance(value, RiskSignOff) else ""


class RuleMeta(Strict):
    """The machine fields of one rule, exactly as the frontmatter (or topic comment) holds them."""

    id: str
    title: str = Field(max_length=TITLE_CHAR_LIMIT)
    area: str
    topic: str | None = None
    scope: tuple[str, ...]
    status: RuleStatus
    kind: RuleKind | None = None
    adopted: bool = True
    owner: str = ""
    approved_by: tuple[str, ...] = ()
    flags: tuple[Flag, ...] = ()
    contradicts: tuple[str, ...] = ()
    risk_reviewed_by: str | RiskSignOff = ""  # a bare handle is read as a sign-off on no text in particular
    source: Source
    also_from: tuple[str, ...] = ()
    created: dt.date
    last_confirmed: dt.date
    score: int | None = None
    tokens: int | None = None

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not is_valid_id(value):
            raise ValueError("an id is lower-case letters or digits joined by '-'")
        return value

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("a title cannot be empty")
        return _one_line(value, "a title")

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or any(not glob.strip() for glob in value):
            raise ValueError("scope needs at least one path glob")
        for glob in value:
            _glob(glob)
        return value

    @model_validator(mode="after")
    def _dates(self) -> RuleMeta:
        if self.last_confirmed < self.created:
            raise ValueError("lastConfirmed is before created")
        return self

    @property
    def risk_reviewer(self) -> str:
        return _reviewer(self.risk_reviewed_by)

    @property
    def risk_fingerprint(self) -> str:
        return _reviewed_fingerprint(self.risk_reviewed_by)

    @property
    def open_flags(self) -> tuple[Flag, ...]:
        return tuple(flag for flag in self.flags if not flag.resolved)

    @property
    def is_rejected_decision(self) -> bool:
        return not self.adopted


class DocMeta(Strict):
    title: str
    area: str
    owner: str = ""
    scope: tuple[str, ...] = ()
    updated: dt.date
    risk_reviewed_by: str | RiskSignOff = ""
    # What bootstrap, seed and import drafted the document from (a hash of their inputs): an unchanged
    # source is skipped on a rerun. Generator-owned, like `updated`.
    source_hash: str = ""

    @field_validator("title")
    @classmethod
    def _title(cls, value: str) -> str:
        return _one_line(value, "a title")

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for glob in value:
            _glob(glob)
        return value

    @property
    def risk_reviewer(self) -> str:
        return _reviewer(self.risk_reviewed_by)

    @property
    def risk_fingerprint(self) -> str:
        return _reviewed_fingerprint(self.risk_reviewed_by)


def _glob(value: str) -> str:
    """A glob is one line, and holds no `#` an exporter's plain YAML would read as a comment."""
    _one_line(value, "a scope glob")
    if value.strip() and not is_glob(value):
        raise ValueError("a scope glob cannot start a comment: no '#' at its start or after a blank")
    return value


def _one_line(value: str, what: str) -> str:
    """Exporters write titles and globs on one frontmatter line: a newline or control character in one
    would end that line and let the rest of the value write frontmatter of its own. A title may hold a
    tab (it ends no line); a glob may not."""
    if not single_line(value, tab=what == "a title"):
        raise ValueError(
            f"{what} must be one line with no control characters (newline, carriage return, tab)"
        )
    return value


@dataclass(frozen=True, slots=True)
class Provenance:
    """`<!-- homeostat: source=… url=… updated=… confidence=… note=… -->` at the top of a section."""

    source: str
    url: str = ""
    updated: str = ""
    confidence: str = ""
    note: str = ""
    extra: tuple[tuple[str, str], ...] = ()
    # Text in the comment that is no `key=value` field: never data and never served, but hidden from a
    # reviewer like any comment, so validate reads it for risky content.
    stray: str = ""


class BodySection(Record):
    """One `## Rule`/`## Why`/`## Example` part of a rule body (a tuple: two or three a rule)."""

    name: str
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Rule:
    """A loaded rule with where it came from, so findings can point at a file and line."""

    meta: RuleMeta
    rule: str
    why: str
    example: str | None
    file: str  # repo-relative path of the file holding it
    line: int  # 1-based line of its frontmatter start or its section heading
    virtual_path: str  # <area>/<id>.md
    in_topic_file: bool = False

    @property
    def id(self) -> str:
        return self.meta.id

    @property
    def area(self) -> str:
        return self.meta.area

    @property
    def title(self) -> str:
        return self.meta.title

    def text(self) -> str:
        """Everything an agent would read, for scanning and search."""
        parts = [self.meta.title, self.rule, self.why]
        if self.example:
            parts.append(self.example)
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class DocSection:
    id: str
    heading: str
    provenance: Provenance | None
    body: str  # text after the provenance comment, up to the next section
    line: int  # line of the heading
    start: int  # character offsets of the whole section (heading included) in the file text
    end: int


@dataclass(frozen=True)
class Document:
    meta: DocMeta
    sections: tuple[DocSection, ...]
    file: str
    doc_id: str  # <area>/<name>, e.g. ledger/api/architecture

    def section(self, section_id: str) -> DocSection | None:
        return next((s for s in self.sections if s.id == section_id), None)
