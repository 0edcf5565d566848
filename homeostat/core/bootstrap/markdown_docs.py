"""A repo's own Markdown docs as KB documents, without a model.

Which files: every tracked Markdown file except the root README, changelog, licence and similar
boilerplate, host templates, and agent rule files (`homeostat import` reads those). How: the first
`#` heading is the title; every other `#` or `##` heading starts a section (`## Heading {#id}`); text
before the first is the overview; a section over the word limit is split at paragraph breaks into
parts. Relative links are rewritten to the file's address on the code host, so they still work from
the KB and do not climb out of it.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from homeostat.core.bootstrap.drafting import Drafted
from homeostat.core.format.markdown import headings, split_frontmatter
from homeostat.core.schema import SECTION_WORD_LIMIT, TITLE_CHAR_LIMIT
from homeostat.core.text import count_words, is_valid_id, slugify

MAX_DOCS = 60
_BOILERPLATE = re.compile(
    r"^(?:readme|changelog|changes|history|license|licence|copying|notice|code_of_conduct|security|authors"
    r"|contributors|codeowners)(?:\.\w+)?$",
    re.IGNORECASE,
)
_RULE_FILES = re.compile(r"^(?:agents|claude|gemini|copilot-instructions)\.md$", re.IGNORECASE)
_HOST_DIRS = (".github/", ".gitlab/", ".bitbucket/", ".cursor/", ".claude/", ".agents/", ".windsurf/")
_LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)((?:\s+\"[^\"\n]*\")?\))")
_REFERENCE = re.compile(r"^( {0,3}\[[^\]\n]+\]:[ \t]*)(\S+)(.*)$", re.MULTILINE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def is_repo_doc(path: str) -> bool:
    """A Markdown document of the repo worth importing (not boilerplate, templates or rule files)."""
    if not path.lower().endswith((".md", ".markdown")):
        return False
    name = path.rsplit("/", 1)[-1]
    if path.startswith(_HOST_DIRS) or _RULE_FILES.match(name):
        return False
    if "/" not in path and _BOILERPLATE.match(name):
        return False
    return not re.match(r"^(?:pull_request_template|issue_template)", name, re.IGNORECASE)


def document_name(path: str) -> str:
    """`docs/adr/0001-use-postgres.md` → `adr-0001-use-postgres` (a leading docs/ folder dropped)."""
    stem = re.sub(r"\.(?:md|markdown)$", "", path, flags=re.IGNORECASE)
    for prefix in ("docs/", "doc/", "documentation/"):
        if stem.lower().startswith(prefix):
            stem = stem[len(prefix) :]
            break
    return slugify(stem.replace("/", "-"), prefix="doc")


# --- links ---------------------------------------------------------------------------------------


def _target(target: str, doc_path: str, blob_base: str) -> str | None:
    """A link target as the KB can follow it: kept, made absolute, or None to drop the link."""
    if target.startswith("#") or _SCHEME.match(target):
        return target
    path, hash_mark, fragment = target.partition("#")
    if path.startswith("/"):
        resolved = posixpath.normpath(path.lstrip("/"))
    else:
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(doc_path), path))
    if resolved == ".." or resolved.startswith("../"):
        return None
    return f"{blob_base}/{resolved}" + (f"#{fragment}" if hash_mark else "")


def rewrite_links(body: str, doc_path: str, blob_base: str) -> str:
    """Relative links and images pointed at the code host; one leaving the repo keeps only its text."""

    def inline(match: re.Match[str]) -> str:
        found = _target(match.group(2), doc_path, blob_base)
        if found is None:
            text = match.group(1)[:-2].lstrip("!").lstrip("[")
            return text
        return f"{match.group(1)}{found}{match.group(3)}"

    def reference(match: re.Match[str]) -> str:
        found = _target(match.group(2), doc_path, blob_base)
        return f"{match.group(1)}{found}{match.group(3)}" if found is not None else ""

    return _REFERENCE.sub(reference, _LINK.sub(inline, body))


# --- sections ------------------------------------------------------------------------------------


def _paragraphs(body: str) -> list[str]:
    """Blocks separated by blank lines outside code fences."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        match = _FENCE.match(line)
        if match:
            marker = match.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
        if not line.strip() and fence is None:
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def split_long(heading: str, section_id: str, body: str) -> list[Drafted]:
    """One section, or parts of at most `SECTION_WORD_LIMIT` words cut at paragraph breaks."""
    if count_words(body) <= SECTION_WORD_LIMIT:
        return [Drafted(section_id, heading, body)]
    parts: list[list[str]] = [[]]
    for block in _paragraphs(body):
        if parts[-1] and count_words("\n\n".join([*parts[-1], block])) > SECTION_WORD_LIMIT:
            parts.append([])
        parts[-1].append(block)
    out: list[Drafted] = []
    for index, blocks in enumerate(parts, 1):
        suffix = "" if index == 1 else f" (part {index})"
        part_id = section_id if index == 1 else f"{section_id}-{index}"
        out.append(
            Drafted(part_id, f"{heading[: TITLE_CHAR_LIMIT - len(suffix)]}{suffix}", "\n\n".join(blocks))
        )
    return out


@dataclass(frozen=True)
class ImportedDoc:
    title: str
    sections: tuple[Drafted, ...]


def _title_from_front(text: str) -> tuple[str, str]:
    """(frontmatter title, body without the frontmatter)."""
    front = split_frontmatter(text)
    if front is None:
        return "", text
    match = re.search(r"^title:[ \t]*[\"']?(.*?)[\"']?[ \t]*$", front.yaml_text, re.MULTILINE)
    return (match.group(1).strip() if match else ""), front.body


def import_markdown(path: str, text: str, blob_base: str) -> ImportedDoc:
    """A Markdown file as a title and sections, links rewritten to the code host."""
    front_title, body = _title_from_front(text.replace("\r\n", "\n"))
    marks = [h for h in headings(body) if h.level <= 2]
    title = front_title
    if marks and marks[0].level == 1 and not body[: marks[0].start].strip():
        title = title or marks[0].title
        body = body[: marks[0].start] + body[marks[0].end :]
        marks = [h for h in headings(body) if h.level <= 2]
    title = " ".join((title or path.rsplit("/", 1)[-1]).split())[:TITLE_CHAR_LIMIT]
    pieces: list[tuple[str, str | None, str]] = []
    lead = body[: marks[0].start] if marks else body
    if lead.strip():
        pieces.append(("Overview", "overview", lead))
    for index, mark in enumerate(marks):
        end = marks[index + 1].start if index + 1 < len(marks) else len(body)
        pieces.append((mark.title, mark.anchor, body[mark.end : end]))
    sections: list[Drafted] = []
    ids: set[str] = set()
    headings_seen: set[str] = set()
    for heading, anchor, content in pieces:
        content = rewrite_links(content.strip("\n").rstrip(), path, blob_base)
        heading = " ".join(heading.split())[:TITLE_CHAR_LIMIT] or "Section"
        if not content.strip():
            continue
        base = anchor if anchor and is_valid_id(anchor) else slugify(heading, prefix="section")
        section_id, n = base, 2
        while section_id in ids:
            section_id, n = f"{base}-{n}", n + 1
        shown, m = heading, 2
        while shown.lower() in headings_seen:
            shown, m = f"{heading} ({m})", m + 1
        for part in split_long(shown, section_id, content):
            ids.add(part.id)
            headings_seen.add(part.heading.lower())
            sections.append(part)
    return ImportedDoc(title, tuple(sections))
