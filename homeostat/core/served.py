"""What Homeostat serves of a rule or a document, computed in one place so delivery and validation read
the same text.

- The text an agent reads (a rule's view, a section's body) has Homeostat's `<!-- homeostat … -->`
  comments removed: they are data for Homeostat (a section's fields, its provenance), never prose for an
  agent, and one in a rule's body is never served. Validation still reads every comment but a
  section's fields comment (`scanners.hidden.is_fields_comment`), so one that hides an order is an
  error even though no agent would see it.
- Every other field a surface shows (explain, docs, search results, exports, PR bodies) is listed by
  `rule_fields` and `document_fields`: validation scans each listed prose field with the risky-content
  check, and the single-line fields (titles, globs) are held to their grammar by the schema
  (`single_line`), so an exporter writing them into frontmatter cannot be broken out of.

A field a surface shows must be listed here; `tests/core/test_served.py` holds every field of `RuleMeta`
and `DocMeta` to being either listed or named as never shown.

Every surface (context, search, read, docs, explain, report, exports, PR bodies, the Slack digest,
the dashboard) shows a rule, a document, a section's provenance or a pending lesson only as
`served_rule`, `served_document`, `served_provenance` and `served_lesson` give it: its prose with
Homeostat's comments dropped, one-line fields on one line, and each field with a grammar (handles,
team, area and topic names, ids, globs, URLs) as it stands only when it fits that grammar, so a field
validate would refuse is never shown even where validate has not run (a local edit, a branch, a
clone's pending lesson). Validate reports the same fields (`field_problems`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from homeostat.core.format.one_line import is_glob

if TYPE_CHECKING:
    from homeostat.core.pending import PendingLesson
    from homeostat.core.schema import DocMeta, Document, Provenance, Rule, RuleMeta

_HOMEOSTAT_COMMENT_OPEN = re.compile(r"<!--\s*homeostat\b")

# Fields of the schema no surface shows as text (dates, numbers, flags read by code, sign-offs).
NEVER_SHOWN_RULE = frozenset(
    {
        "id",
        "area",
        "topic",
        "status",
        "adopted",
        "created",
        "last_confirmed",
        "score",
        "tokens",
        "risk_reviewed_by",
    }
)
NEVER_SHOWN_DOCUMENT = frozenset({"area", "updated", "risk_reviewed_by", "source_hash"})


def served_text(text: str) -> str:
    """`text` without Homeostat's own comments, as an agent is given it: a comment alone on its lines
    goes with them; an unclosed one runs to the end and goes whole."""
    if "<!--" not in text:
        return text
    pieces: list[str] = []
    last = 0
    pos = text.find("<!--")
    while pos >= 0:
        close = text.find("-->", pos + 4)
        end = len(text) if close < 0 else close + 3
        if _HOMEOSTAT_COMMENT_OPEN.match(text, pos):
            line_start = text.rfind("\n", last, pos) + 1 if pos > last else pos
            alone = not text[line_start:pos].strip() and text[end : end + 1] in ("\n", "")
            pieces.append(text[last : line_start if alone else pos])
            last = min(len(text), end + 1) if alone else end
        if close < 0:
            break
        pos = text.find("<!--", end)
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def rule_fields(meta: RuleMeta) -> list[tuple[str, str]]:
    """Every field of a rule some surface shows besides its view, as (label, text)."""
    fields = [("title", meta.title), ("owner", meta.owner), ("kind", meta.kind or "")]
    fields += [("scope", glob) for glob in meta.scope]
    fields += [("approvedBy", handle) for handle in meta.approved_by]
    fields += [("contradicts", other) for other in meta.contradicts]
    fields += [("alsoFrom", url) for url in meta.also_from]
    fields += [("source.url", meta.source.url), ("source.author", meta.source.author)]
    fields += [("flag reason", flag.reason) for flag in meta.flags]
    fields += [("flag by", flag.by) for flag in meta.flags]
    return [(label, text) for label, text in fields if text]


def document_fields(meta: DocMeta) -> list[tuple[str, str]]:
    """Every field of a document some surface shows besides its sections, as (label, text)."""
    fields = [("title", meta.title), ("owner", meta.owner)]
    fields += [("scope", glob) for glob in meta.scope]
    return [(label, text) for label, text in fields if text]


# The fields read as prose (scanned for risky content); the rest have a grammar of their own. A scope
# glob has one too, but any printable line fits it and exporters write it where an agent reads it
# (Cursor's `globs:`, Copilot's `applyTo:`), so it is read as well: a real glob holds no sentence.
PROSE_FIELDS = frozenset({"title", "flag reason", "scope"})


# --- what each surface shows -------------------------------------------------------------------

# The grammar of each field that is not prose. A value that does not fit is shown as `not_shown(kind)`.
_GRAMMARS: dict[str, re.Pattern[str]] = {
    # a member's handle on a code host (a bot's too), as `approvedBy`, `flags[].by`, `source.author`
    "handle": re.compile(r"@?[A-Za-z0-9][A-Za-z0-9._-]{0,99}(?:\[bot\])?"),
    # a team, as `owner` names it (`payments`, `@acme/payments`)
    "team": re.compile(r"@?[A-Za-z0-9][A-Za-z0-9._-]{0,99}(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,99})?"),
    # an area or a topic (`payments/api`, `errors`)
    "name": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}(?:/[A-Za-z0-9][A-Za-z0-9._-]{0,99}){0,3}"),
    "id": re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*"),
    # a web address of the characters RFC 3986 allows, nothing that ends a line or hides text
    "url": re.compile(r"https?://[A-Za-z0-9._~:/?#\[\]@!$&()*+,;=%-]{1,2048}"),
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    # a provenance's word (`source=curator`, `confidence=70`)
    "word": re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}"),
}


def not_shown(kind: str) -> str:
    """What a surface shows for a field that does not fit its grammar."""
    return f"(not shown: not a valid {kind})"


@lru_cache(maxsize=8192)  # a KB names the same few handles, areas and teams throughout
def fits(kind: str, value: str) -> bool:
    """`value` fits the grammar of `kind` (a glob: one printable line)."""
    if kind == "glob":
        return len(value) <= 500 and value.isprintable() and is_glob(value)
    return _GRAMMARS[kind].fullmatch(value) is not None


def served_value(kind: str, value: str) -> str:
    """`value` when it fits the grammar of `kind`, else `not_shown(kind)`; empty stays empty."""
    return value if not value or fits(kind, value) else not_shown(kind)


def served_line(text: str) -> str:
    """A one-line field as served (a title, a heading, a flag's reason): Homeostat's comments dropped,
    every run of blanks one space, no character that is not printable."""
    if text.isprintable() and "<!--" not in text:
        return text
    line = " ".join(served_text(text).split())
    return line if line.isprintable() else "".join(c for c in line if c.isprintable())


def _each(kind: str, values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(served_value(kind, value) for value in values)


def served_meta(meta: RuleMeta) -> RuleMeta:
    """The rule's fields as a surface shows them (a copy; the KB's own is left alone)."""
    source = meta.source
    return meta.model_copy(
        update={
            "title": served_line(meta.title),
            "area": served_value("name", meta.area),
            "topic": served_value("name", meta.topic) if meta.topic else meta.topic,
            "scope": _each("glob", meta.scope),
            "owner": served_value("team", meta.owner),
            "approved_by": _each("handle", meta.approved_by),
            "contradicts": _each("id", meta.contradicts),
            "also_from": _each("url", meta.also_from),
            "flags": tuple(
                flag.model_copy(
                    update={"by": served_value("handle", flag.by), "reason": served_line(flag.reason)}
                )
                for flag in meta.flags
            ),
            "source": source.model_copy(
                update={
                    "url": served_value("url", source.url),
                    "author": served_value("handle", source.author),
                }
            ),
        }
    )


def served_rule(rule: Rule) -> Rule:
    """The rule as every surface shows it: its fields (`served_meta`) and its text, Homeostat's comments
    dropped."""
    example = served_text(rule.example) if rule.example is not None else None
    return dataclasses.replace(
        rule,
        meta=served_meta(rule.meta),
        rule=served_text(rule.rule),
        why=served_text(rule.why),
        example=example,
    )


def served_doc_meta(meta: DocMeta) -> DocMeta:
    return meta.model_copy(
        update={
            "title": served_line(meta.title),
            "area": served_value("name", meta.area),
            "owner": served_value("team", meta.owner),
            "scope": _each("glob", meta.scope),
        }
    )


def served_document(document: Document) -> Document:
    """The document as every surface shows it: its fields, each section's heading on one line, its
    provenance held to its grammar and its body without Homeostat's comments."""
    sections = tuple(
        dataclasses.replace(
            section,
            heading=served_line(section.heading),
            provenance=served_provenance(section.provenance) if section.provenance else None,
            body=served_text(section.body),
        )
        for section in document.sections
    )
    return dataclasses.replace(document, meta=served_doc_meta(document.meta), sections=sections)


def served_provenance(provenance: Provenance) -> Provenance:
    """A section's `<!-- homeostat: source=… url=… -->` as shown beside it (`read`): the comment is
    never served, so what it says is held to each field's grammar; its note is not shown."""
    return dataclasses.replace(
        provenance,
        source=served_value("word", provenance.source),
        url=served_value("url", provenance.url),
        updated=served_value("date", provenance.updated),
        confidence=served_value("word", provenance.confidence),
        note="",
        extra=(),
        stray="",
    )


def served_lesson(lesson: PendingLesson) -> PendingLesson:
    """A clone's pending lesson as its sessions are served it: its text without Homeostat's comments,
    its title and reason on one line, its names held to their grammar."""
    return lesson.model_copy(
        update={
            "title": served_line(lesson.title),
            "rule": served_text(lesson.rule),
            "why": served_text(lesson.why),
            "example": served_text(lesson.example),
            "reason": served_line(lesson.reason),
            "author": served_value("handle", lesson.author),
            "url": served_value("url", lesson.url),
            "area": served_value("name", lesson.area),
            "topic": served_value("name", lesson.topic),
            "scope": _each("glob", lesson.scope),
            "target": served_value("id", lesson.target),
        }
    )


# Each grammar field of a rule, for validate: (label, kind, values).
_RULE_GRAMMAR: tuple[tuple[str, str, Callable[[RuleMeta], tuple[str, ...]]], ...] = (
    ("area", "name", lambda m: (m.area,)),
    ("topic", "name", lambda m: (m.topic,) if m.topic else ()),
    ("owner", "team", lambda m: (m.owner,) if m.owner else ()),
    ("approvedBy", "handle", lambda m: m.approved_by),
    ("flags[].by", "handle", lambda m: tuple(f.by for f in m.flags)),
    ("contradicts", "id", lambda m: m.contradicts),
    ("alsoFrom", "url", lambda m: m.also_from),
    ("source.url", "url", lambda m: (m.source.url,) if m.source.url else ()),
    ("source.author", "handle", lambda m: (m.source.author,) if m.source.author else ()),
)


def field_problems(meta: RuleMeta) -> list[str]:
    """Each field of the rule that does not fit its grammar, said as validate says it: a surface
    would show `not_shown` in its place."""
    return [
        f"{label} {value!r} is not a valid {kind}"
        for label, kind, values in _RULE_GRAMMAR
        for value in values(meta)
        if not fits(kind, value)
    ]
