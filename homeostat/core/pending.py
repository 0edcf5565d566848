"""Pending lessons: what a developer (or their agent) taught, waiting for the daily run.

`homeostat learn` writes one to the clone's git-ignored `.homeostat/pending/`, where it applies to that
developer's sessions at once; the background sync carries it to `candidates/<member>` at the same
path; the daily run decides it and records the decision by content hash, so a lesson is decided once
and the sync can clear it afterwards. A lesson is new, an update of a rule, a flag on a rule, or a
document section patch.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, fields
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from homeostat.core.schema import RuleKind
from homeostat.core.string_leaves import string_leaves
from homeostat.core.text import content_hash

PENDING_DIR = ".homeostat/pending"
LessonKind = Literal["new", "update", "flag", "doc"]
LessonSource = Literal[
    "manual",
    "agent-handoff",
    "pr-feedback",
    "pr-feedback-no-change",
    "deep-dive",
    "claude-memory",
    "coderabbit",
]
# Sources imported from another tool's memory (`learn --from`): an agent wrote their text, so a rule
# made from one is recorded as `agent-handoff`, whatever scored it.
IMPORTED_SOURCES = frozenset({"claude-memory", "coderabbit"})


@dataclass(frozen=True)
class LessonText:
    """What a lesson says and where it applies, defined once. Each form a lesson takes in memory is
    these fields and its own: the flags' `core.lessons.Fields`, the daily run's
    `core.daily.lessons.Lesson`, an import's `core.imports.candidates.Candidate`. `PendingLesson`, the
    file's schema, names the same fields; `text_of` copies them from one form into the next."""

    title: str = ""
    rule: str = ""
    why: str = ""
    example: str = ""
    area: str = ""
    topic: str = ""
    scope: tuple[str, ...] = ()


TEXT_FIELDS = tuple(field.name for field in fields(LessonText))


def text_of(lesson: LessonText | PendingLesson) -> dict[str, Any]:
    """A lesson's `LessonText` fields by name, to make another form of it with them."""
    return {name: getattr(lesson, name) for name in TEXT_FIELDS}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)


class DocPatchRequest(_Strict):
    doc: str = Field(description="<area>/<name> of the document")
    section: str = Field(description="section id")
    op: Literal["replace", "append", "add"] = "append"
    heading: str = ""
    body: str
    note: str = ""  # provenance note, e.g. "retracted <id>"


class PendingLesson(_Strict):
    """One pending lesson as its file holds it. The seven `LessonText` fields are written out here
    again, not inherited: a pydantic model cannot take fields from a dataclass, and a pydantic base
    holding them would put them ahead of `version`, `kind`, `author`, `source`, `url` and `created`.
    The file would not change (`to_json` sorts its keys), but the order the fields are dumped and
    checked in would: `secret_fields` names the first field that holds a secret, and the MCP server's
    `learn` shows the first error pydantic reports, so either message could name another field. Making
    `LessonText` a pydantic model instead would make the three forms that extend it (`Fields`,
    `Lesson`, `Candidate`, plain dataclasses) validating models too. `text_of` reads these fields by
    `LessonText`'s names, so a field added there and not here fails at the first copy."""

    version: int = 1
    kind: LessonKind = "new"
    author: str
    source: LessonSource = "manual"
    url: str = ""
    created: dt.datetime
    title: str = ""
    rule: str = ""
    why: str = ""
    example: str = ""
    area: str = ""
    topic: str = ""
    scope: tuple[str, ...] = ()
    lesson_kind: RuleKind | None = None
    target: str = ""  # rule id for update and flag
    reason: str = ""  # why a flag was raised
    doc_patch: DocPatchRequest | None = None

    @model_validator(mode="after")
    def _complete(self) -> PendingLesson:
        if self.kind == "new" and not (self.title.strip() and self.rule.strip()):
            raise ValueError("a new lesson needs a title and a rule")
        if self.kind in ("update", "flag") and not self.target:
            raise ValueError(f"a {self.kind} needs the target rule id")
        if self.kind == "flag" and not self.reason.strip():
            raise ValueError("a flag needs a reason")
        if self.kind == "doc" and self.doc_patch is None:
            raise ValueError("a doc lesson needs docPatch")
        return self

    def content_key(self) -> str:
        """Hash of what the lesson says (never when or where it was written), to decide it once."""
        parts = [
            self.kind,
            self.author,
            self.title,
            self.rule,
            self.why,
            self.example,
            self.area,
            self.target,
            self.reason,
            self.source,
            self.url,
            self.topic,
            "\n".join(self.scope),
        ]
        if self.doc_patch is not None:
            parts += [self.doc_patch.doc, self.doc_patch.section, self.doc_patch.op, self.doc_patch.body]
        return content_hash(*parts)

    def to_json(self) -> str:
        data = self.model_dump(mode="json", by_alias=True, exclude_defaults=True)
        data["version"] = self.version
        data["created"] = self.created.isoformat()
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> PendingLesson:
        return cls.model_validate(json.loads(text))


def secret_fields(lesson: PendingLesson) -> list[tuple[str, str]]:
    """(field, secret kind) for every field of the lesson that holds a secret: scope globs, topic,
    URL and the document patch included, since the whole lesson travels to the team's branch."""
    from homeostat.core.safety.secrets import find_secrets  # not loaded by the hooks that only read lessons

    data = lesson.model_dump(mode="json", by_alias=True, exclude={"created", "version"})
    found: list[tuple[str, str]] = []
    for name, text in string_leaves(data):
        hits = find_secrets(text)
        if hits and all(name != seen for seen, _ in found):
            found.append((name, hits[0].kind))
    return found


def pending_path(lesson: PendingLesson) -> str:
    return f"{PENDING_DIR}/{lesson.content_key()}.json"
