"""Byte-safe document section patches.

Whole-file rewrites caused most of the pilot's document damage, so every document edit is one of three
operations on one section: replace its body, append to it, or add a new section. Every other byte of
the file stays as it was; only the section's span and the frontmatter's `updated:` line change. A
patch that would break the document is refused with the reason, and nothing is half-applied.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Literal

from homeostat.core.format.markdown import check_fences, conflict_marker_lines, headings, split_frontmatter
from homeostat.core.format.parse import parse_document
from homeostat.core.schema import SECTION_WORD_LIMIT, DocSection, Document, Provenance
from homeostat.core.text import count_words, is_valid_id
from homeostat.errors import HomeostatError

PatchOp = Literal["replace", "append", "add"]
_UPDATED = re.compile(r"^updated:[ \t]*\S.*$", re.MULTILINE)


class PatchError(HomeostatError):
    """A section patch that would break the document; the message says why."""


@dataclass(frozen=True)
class SectionPatch:
    op: PatchOp
    section_id: str
    body: str
    source: str = "curator"
    url: str = ""
    confidence: int | None = None
    note: str = ""
    heading: str = ""  # required for "add"
    after: str = ""  # "add": insert after this section (default: at the end)
    extra: tuple[tuple[str, str], ...] = ()  # more provenance fields (bootstrap's `hash=`)


def _quote(value: str) -> str:
    if value and not re.search(r'[\s"]', value):
        return value
    return '"' + value.replace('"', '\\"') + '"'


def render_provenance(p: Provenance) -> str:
    fields = [("source", p.source), ("url", p.url), ("updated", p.updated), ("confidence", p.confidence)]
    fields.append(("note", p.note))
    fields += list(p.extra)
    body = " ".join(f"{key}={_quote(value)}" for key, value in fields if value)
    return f"<!-- homeostat: {body} -->"


def _check_body(body: str, section_id: str) -> None:
    if not body.strip():
        raise PatchError(f"patch for section {section_id!r} is empty")
    if conflict_marker_lines(body):  # first: `x` over `=======` also reads as a heading
        raise PatchError(f"patch for section {section_id!r} contains git conflict markers")
    if any(h.level <= 2 for h in headings(body)):
        raise PatchError(
            f"patch for section {section_id!r} contains a # or ## heading, which would split the document"
        )
    fences = check_fences(body)
    if fences.unclosed_line is not None:
        raise PatchError(f"patch for section {section_id!r} opens a code fence it never closes")
    if "<!-- homeostat" in body:
        raise PatchError(f"patch for section {section_id!r} contains a homeostat comment")


def apply_section_patch(text: str, patch: SectionPatch, today: dt.date, file: str = "document") -> str:
    """Return the patched document text, or raise PatchError saying why the patch was refused."""
    front = split_frontmatter(text)
    if front is None:
        raise PatchError(f"{file}: not a document (no frontmatter)")
    area_dir = "/".join(file.split("/")[1:-2]) if file.startswith("knowledge/") else ""
    document, _ = parse_document(file, text, area_dir or "_")
    if document is None:
        raise PatchError(f"{file}: the document does not parse; fix it before patching")
    _check_body(patch.body, patch.section_id)
    existing = document.section(patch.section_id)
    provenance = Provenance(
        source=patch.source,
        url=patch.url,
        updated=today.isoformat(),
        confidence=str(patch.confidence) if patch.confidence is not None else "",
        note=patch.note,
        extra=patch.extra,
    )
    if patch.op in ("replace", "append"):
        if existing is None:
            raise PatchError(f"{file}: no section {{#{patch.section_id}}} to {patch.op}")
        patched, words_after = _rewrite_section(text, existing, patch, provenance)
    elif patch.op == "add":
        patched, words_after = _add_section(text, document, patch, provenance, file)
    else:  # pragma: no cover - Literal guards it
        raise PatchError(f"unknown patch operation {patch.op!r}")
    if words_after > SECTION_WORD_LIMIT:
        raise PatchError(
            f"{file}: section {{#{patch.section_id}}} would have {words_after} words (limit {SECTION_WORD_LIMIT}); "
            "split it into another section"
        )
    patched = _bump_updated(patched, today)
    _verify(file, text, patched, patch, area_dir or "_")
    return patched


def _rewrite_section(
    text: str, existing: DocSection, patch: SectionPatch, provenance: Provenance
) -> tuple[str, int]:
    """`replace` or `append`: the section keeps its heading line and the blank lines after it, takes a
    new provenance comment (an append keeps the old confidence unless the patch gives one), and
    nothing else in the text moves. Returns the text and the section's words after."""
    if patch.op == "replace":
        new_body = patch.body.strip("\n")
    else:
        new_body = existing.body.rstrip("\n") + "\n\n" + patch.body.strip("\n")
        if existing.provenance is not None and not patch.confidence:
            provenance = replace(provenance, confidence=existing.provenance.confidence)
    original = text[existing.start : existing.end]
    heading_line = original.split("\n", 1)[0]
    trailing = original[len(original.rstrip("\n")) :] or ("" if existing.end >= len(text) else "\n")
    section_text = f"{heading_line}\n{render_provenance(provenance)}\n{new_body}{trailing or chr(10)}"
    return text[: existing.start] + section_text + text[existing.end :], count_words(new_body)


def _add_section(
    text: str, document: Document, patch: SectionPatch, provenance: Provenance, file: str
) -> tuple[str, int]:
    """`add`: a new section with a valid id and a one-line heading no other section has, after
    `patch.after` or at the end. Returns the text and the new section's words."""
    if document.section(patch.section_id) is not None:
        raise PatchError(f"{file}: section {{#{patch.section_id}}} already exists; replace or append to it")
    if not is_valid_id(patch.section_id):
        raise PatchError(f"{file}: {patch.section_id!r} is not a valid section id")
    heading = patch.heading.strip()
    if not heading or "\n" in heading:
        raise PatchError(f"{file}: a new section needs a one-line heading")
    if any(s.heading.strip().lower() == heading.lower() for s in document.sections):
        raise PatchError(f"{file}: a section headed {heading!r} already exists")
    section_text = f"## {heading} {{#{patch.section_id}}}\n{render_provenance(provenance)}\n{patch.body.strip(chr(10))}\n"
    anchor = document.section(patch.after) if patch.after else None
    if patch.after and anchor is None:
        raise PatchError(f"{file}: no section {{#{patch.after}}} to add after")
    if anchor is not None and anchor.end < len(text):
        patched = text[: anchor.end] + section_text + "\n" + text[anchor.end :]
    else:
        patched = text.rstrip("\n") + "\n\n" + section_text
    return patched, count_words(patch.body)


def _bump_updated(text: str, today: dt.date) -> str:
    front = split_frontmatter(text)
    if front is None:
        return text
    header_end = front.body_offset
    header = text[:header_end]
    if _UPDATED.search(header):
        header = _UPDATED.sub(f"updated: {today.isoformat()}", header, count=1)
    return header + text[header_end:]


def _verify(file: str, before: str, after: str, patch: SectionPatch, area_dir: str) -> None:
    """The patched document still parses, has the same sections (plus one for add), and no new damage."""
    old_doc, _ = parse_document(file, before, area_dir)
    new_doc, problems = parse_document(file, after, area_dir)
    if new_doc is None or old_doc is None:
        raise PatchError(f"{file}: the patch would make the document unreadable")
    old_ids = [s.id for s in old_doc.sections]
    new_ids = [s.id for s in new_doc.sections]
    expected = sorted(old_ids + ([patch.section_id] if patch.op == "add" else []))
    if sorted(new_ids) != expected:
        raise PatchError(f"{file}: the patch would change the document's sections ({', '.join(new_ids)})")
    if check_fences(after).unclosed_line is not None and check_fences(before).unclosed_line is None:
        raise PatchError(f"{file}: the patch would leave a code fence unclosed")
    if len(conflict_marker_lines(after)) > len(conflict_marker_lines(before)):
        raise PatchError(f"{file}: the patch would add conflict markers")
    del problems
