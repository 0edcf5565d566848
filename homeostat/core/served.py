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

A field a surface shows must be listed here; `tests/test_served.py` holds every field of `RuleMeta`
and `DocMeta` to being either listed or named as never shown.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from homeostat.core.model import DocMeta, RuleMeta

_HOMEOSTAT_COMMENT_OPEN = re.compile(r"<!--\s*homeostat\b")
# Characters that end a line or control a terminal: none belongs in a title, a glob or an id.
_BREAKING = frozenset({"Cc", "Zl", "Zp"})

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


def single_line(value: str, *, tab: bool = False) -> bool:
    """No newline, carriage return, other control character or line separator (nor a tab, unless
    `tab`): what a field an exporter writes on one frontmatter line must be."""
    return value.isprintable() or not any(
        unicodedata.category(c) in _BREAKING and not (tab and c == "\t") for c in value
    )


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


# The fields read as prose (scanned for risky content); the rest have a grammar of their own.
PROSE_FIELDS = frozenset({"title", "flag reason"})
