"""Regenerate, never overwrite: a fresh draft merges into the document on disk (PEERS.md, lessons 1–3).

For each drafted section, matched to the document's by id (else by heading):

| On disk | What happens |
|---|---|
| no such section | added |
| written by a person or another agent (`source=` not this generator's) | kept; if the draft differs, "source now disagrees" |
| this generator's, unedited (its `hash=` matches its body) | refreshed with the draft |
| this generator's, edited since: both bullet lists | unioned: the person's items first, new items after, no duplicates |
| this generator's, edited since: prose | kept; if the draft differs, "source now disagrees" |

Sections the draft lacks are never removed. In the frontmatter only `GENERATOR_FIELDS` change: a
person's title, owner or scope stay. Every section edit goes through `apply_section_patch`, which
keeps every other byte and refuses a patch that would break the document.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from homeostat.core.bootstrap.drafting import Drafted
from homeostat.core.findings import Finding
from homeostat.core.format.markdown import split_frontmatter
from homeostat.core.format.parse import parse_document
from homeostat.core.format.patch import PatchError, SectionPatch, apply_section_patch
from homeostat.core.format.write import scalar
from homeostat.core.kb import CONFIG_FILE
from homeostat.core.safety.secrets import redact_secrets
from homeostat.core.schema import DocSection, Provenance
from homeostat.core.text import content_hash, words
from homeostat.core.validate import validate_files

# The only frontmatter keys a rerun may change, and the only provenance fields it refreshes.
GENERATOR_FIELDS = ("updated", "sourceHash")
SECTION_HASH = "hash"


@dataclass(frozen=True)
class DocumentDraft:
    path: str  # knowledge/<area>/docs/<name>.md
    title: str
    area: str
    owner: str
    scope: tuple[str, ...]
    source: str  # the provenance source it writes: bootstrap or import
    sections: tuple[Drafted, ...]
    source_hash: str
    url: str = ""  # each section's provenance url (an imported file's address)


@dataclass
class MergeReport:
    added: list[str] = field(default_factory=list)
    refreshed: list[str] = field(default_factory=list)
    unioned: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)  # section ids
    refused: list[tuple[str, str]] = field(default_factory=list)  # (section id, why)
    written: dict[str, str] = field(default_factory=dict)  # drafted id → the section it went to

    @property
    def changed_sections(self) -> bool:
        return bool(self.added or self.refreshed or self.unioned)


def section_hash(body: str) -> str:
    return content_hash("section", body.strip("\n").rstrip())


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


# --- lists --------------------------------------------------------------------------------------

_ITEM = re.compile(r"^(?:[-*+]|\d{1,3}[.)])[ \t]+\S")


def list_items(body: str) -> list[str] | None:
    """The top-level items of a body that is one bullet list (continuation lines kept), else None."""
    items: list[str] = []
    for line in body.strip("\n").split("\n"):
        if not line.strip():
            continue
        if _ITEM.match(line):
            items.append(line)
        elif items and line[:1] in (" ", "\t"):
            items[-1] += "\n" + line
        else:
            return None
    return items or None


def _item_key(item: str) -> str:
    first, _, rest = item.partition(" ")
    return " ".join(words(rest))


def union_lists(kept: Sequence[str], fresh: Sequence[str]) -> list[str]:
    """The kept items, then the fresh ones not among them (compared by their words)."""
    seen = {_item_key(item) for item in kept}
    added = [item for item in fresh if _item_key(item) not in seen]
    return [*kept, *added]


# --- the frontmatter ----------------------------------------------------------------------------


def _front_line(key: str, value: str) -> str:
    return f"{key}: {scalar(value)}"


def set_front_field(text: str, key: str, value: str) -> str:
    """Set one generator-owned frontmatter key, leaving every other line as it was."""
    assert key in GENERATOR_FIELDS, key
    front = split_frontmatter(text)
    if front is None:
        return text
    header, rest = text[: front.body_offset], text[front.body_offset :]
    line = re.compile(rf"^{re.escape(key)}:.*$", re.MULTILINE)
    if line.search(header):
        return line.sub(_front_line(key, value).replace("\\", "\\\\"), header, count=1) + rest
    closing = header.rstrip("\n").rfind("\n")
    return header[: closing + 1] + _front_line(key, value) + "\n" + header[closing + 1 :] + rest


def new_document(draft: DocumentDraft, today: dt.date) -> str:
    """The frontmatter of a document this generator starts, in the canonical key order."""
    lines = ["---", _front_line("title", draft.title), _front_line("area", draft.area)]
    if draft.owner:
        lines.append(_front_line("owner", draft.owner))
    lines.append("scope: [" + ", ".join(json.dumps(glob) for glob in draft.scope) + "]")
    lines += [f"updated: {today.isoformat()}", _front_line("sourceHash", draft.source_hash), "---", ""]
    return "\n".join(lines)


# --- sections -----------------------------------------------------------------------------------


def _find(existing: Sequence[DocSection], drafted: Drafted) -> DocSection | None:
    by_id = next((s for s in existing if s.id == drafted.id), None)
    if by_id is not None:
        return by_id
    heading = drafted.heading.strip().lower()
    return next((s for s in existing if s.heading.strip().lower() == heading), None)


def _edited(section: DocSection) -> bool:
    """Changed by hand since this generator wrote it (a missing hash counts as changed)."""
    provenance = section.provenance
    stored = dict(provenance.extra).get(SECTION_HASH) if provenance is not None else None
    return stored != section_hash(section.body)


def _our_patch(draft: DocumentDraft, op: str, drafted: Drafted, body: str) -> SectionPatch:
    """This generator's provenance, with the hash of the body it writes (how an edit is told later)."""
    return SectionPatch(
        op=op,  # type: ignore[arg-type]
        section_id=drafted.id,
        body=body,
        source=draft.source,
        url=draft.url,
        heading=drafted.heading,
        extra=((SECTION_HASH, section_hash(body)),),
    )


def _kept_patch(section_id: str, body: str, keep: Provenance) -> SectionPatch:
    """A section's own provenance (a union keeps the hash of what the generator last wrote, so the
    section still counts as edited), with `updated` bumped."""
    return SectionPatch(
        op="replace",
        section_id=section_id,
        body=body,
        source=keep.source,
        url=keep.url,
        confidence=int(keep.confidence) if keep.confidence.isdigit() else None,
        note=keep.note,
        extra=keep.extra,
    )


def _merge_one(text: str, draft: DocumentDraft, drafted: Drafted, today: dt.date, report: MergeReport) -> str:
    document, _ = parse_document(draft.path, text, draft.area)
    sections = document.sections if document is not None else ()
    current = _find(sections, drafted)
    report.written[drafted.id] = drafted.id if current is None else current.id
    if current is None:
        report.added.append(drafted.id)
        return apply_section_patch(text, _our_patch(draft, "add", drafted, drafted.body), today, draft.path)
    found = Drafted(current.id, current.heading, drafted.body)
    ours = current.provenance is not None and current.provenance.source == draft.source
    if ours and not _edited(current):
        if _same(current.body, drafted.body):
            return text
        report.refreshed.append(current.id)
        return apply_section_patch(text, _our_patch(draft, "replace", found, drafted.body), today, draft.path)
    kept_items, fresh_items = list_items(current.body), list_items(drafted.body)
    if ours and current.provenance is not None and kept_items is not None and fresh_items is not None:
        merged = union_lists(kept_items, fresh_items)
        if len(merged) == len(kept_items):
            report.kept.append(current.id)
            return text
        report.unioned.append(current.id)
        body = "\n".join(merged)
        return apply_section_patch(text, _kept_patch(current.id, body, current.provenance), today, draft.path)
    report.kept.append(current.id)
    if not _same(current.body, drafted.body):
        report.disagreements.append(current.id)
    return text


def merge_document(
    existing: str | None, draft: DocumentDraft, today: dt.date
) -> tuple[str | None, MergeReport]:
    """The document with the draft merged in (None when a new one would have no section), and what
    happened to each section. A section whose patch is refused is left out and reported."""
    report = MergeReport()
    fresh = existing is None
    text = new_document(draft, today) if existing is None else existing
    for drafted in draft.sections:
        try:
            text = _merge_one(text, draft, drafted, today, report)
        except PatchError as exc:
            for bucket in (report.added, report.refreshed, report.unioned):
                if drafted.id in bucket:
                    bucket.remove(drafted.id)
            report.refused.append((drafted.id, str(exc)))
    if fresh:
        if not report.added:
            return None, report
        front = split_frontmatter(text)
        assert front is not None
        text = text[: front.body_offset] + text[front.body_offset :].lstrip("\n")
        return text, report
    return set_front_field(text, "sourceHash", draft.source_hash), report


# --- merged and validated -------------------------------------------------------------------------


@dataclass(frozen=True)
class Blocked:
    document: str
    section: str  # '' for the document as a whole
    finding: str  # `check: message`, secrets redacted


def _errors(config_text: str, path: str, text: str | None, today: dt.date) -> list[Finding]:
    if text is None:
        return []
    result = validate_files({CONFIG_FILE: config_text, "knowledge/": "", path: text}, today)
    return [f for f in result.errors if f.file == path and f.check not in ("cache", "conflict")]


def _new(before: Sequence[Finding], after: Sequence[Finding]) -> list[Finding]:
    seen = Counter((f.check, f.message) for f in before)
    fresh: list[Finding] = []
    for finding in after:
        key = (finding.check, finding.message)
        if seen[key]:
            seen[key] -= 1
        else:
            fresh.append(finding)
    return fresh


def _section_at(text: str, draft: DocumentDraft, line: int) -> str:
    document, _ = parse_document(draft.path, text, draft.area)
    found = ""
    for section in document.sections if document is not None else ():
        if section.line <= line:
            found = section.id
    return found


def merge_validated(
    existing: str | None, draft: DocumentDraft, today: dt.date, config_text: str
) -> tuple[str | None, MergeReport, list[Blocked]]:
    """`merge_document`, then `validate` on the result: a drafted section that brings an error
    (a secret, risky content, a broken link) is left out with its finding, and the merge redone."""
    before = _errors(config_text, draft.path, existing, today)
    blocked: list[Blocked] = []
    sections = list(draft.sections)
    while True:
        current = replace(draft, sections=tuple(sections))
        text, report = merge_document(existing, current, today)
        fresh = _new(before, _errors(config_text, draft.path, text, today))
        if text is None or not fresh:
            return text, report, blocked
        touched = set(report.added + report.refreshed + report.unioned)
        ours = {_section_at(text, current, f.line) for f in fresh} & touched
        for finding in fresh:
            where = _section_at(text, current, finding.line)
            message = redact_secrets(f"{finding.check}: {finding.message}")[0]
            blocked.append(Blocked(draft.path, where if where in ours else "", message))
        if not ours:  # the document itself is at fault (its frontmatter): nothing is written
            return existing, MergeReport(), blocked
        sections = [s for s in sections if report.written.get(s.id) not in ours]
