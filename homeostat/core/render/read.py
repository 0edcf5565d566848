"""What one `read` returns: the found rule or document sections, fitted to a token limit, as text or
data (`read`, the MCP read tool)."""

from __future__ import annotations

from typing import NamedTuple

from homeostat.core.render.view import render_rule, render_sections
from homeostat.core.selection.entries import Entry, SectionEntry
from homeostat.core.selection.search import Found

READ_TOKEN_LIMIT = 4000  # what one `read` returns at most: a whole large document, or a runaway file


_CHARS_PER_TOKEN = 4


Item = Entry | SectionEntry


class Fitted(NamedTuple):
    """What one `read` gives: the items that fit in order, whether the first is cut short, what is left."""

    items: list[Item]
    cut_short: bool
    left: list[str]


def fit(found: Found, limit: int = READ_TOKEN_LIMIT) -> Fitted:
    """Rules, then sections (each once), whole, while they fit in `limit` tokens; a first item larger
    than the limit is given cut short, and everything after what fits is named, not given."""
    items: list[Item] = [*found.rules, *dict.fromkeys(found.sections)]
    kept: list[Item] = []
    used = 0
    for index, item in enumerate(items):
        if used + item.tokens > limit:
            left = [_key(other) for other in items[index + 1 if not kept else index :]]
            return Fitted(kept or [item], not kept, left)
        kept.append(item)
        used += item.tokens
    return Fitted(kept, False, [])


def _key(item: Item) -> str:
    return item.key if isinstance(item, SectionEntry) else item.id


def _cut(text: str, limit: int) -> str:
    """The beginning of a text too long to give whole, cut at a line."""
    head = text[: limit * _CHARS_PER_TOKEN]
    return head[: head.rfind("\n") + 1] or head


def render_found(found: Found, limit: int = READ_TOKEN_LIMIT) -> str:
    """The text form; what does not fit is named at the end."""
    if found.empty:
        return found.hint + "\n"
    fitted = fit(found, limit)
    parts = [render_sections([i]) if isinstance(i, SectionEntry) else render_rule(i) for i in fitted.items]
    if fitted.cut_short:
        parts = [f"{_cut(parts[0], limit)}\n(cut at {limit} tokens; read a section)\n"]
    if fitted.left:
        parts.append(f"(cut at {limit} tokens; read a section: {', '.join(fitted.left)})\n")
    return "\n".join(parts)


def found_data(target: str, found: Found, limit: int = READ_TOKEN_LIMIT) -> dict[str, object]:
    """The JSON form: the same items as fields, `cut` naming what did not fit."""
    fitted = fit(found, limit) if not found.empty else Fitted([], False, [])
    rules: list[dict[str, object]] = []
    sections: list[dict[str, object]] = []
    for item in fitted.items:
        text = _cut(item.view, limit) if fitted.cut_short else item.view
        if isinstance(item, SectionEntry):
            sections.append(
                {
                    "key": item.key,
                    "heading": item.heading,
                    "source": item.source,
                    "updated": item.updated,
                    "url": item.url,
                    "text": text,
                }
            )
        else:
            rules.append(
                {
                    "id": item.id,
                    "title": item.title,
                    "area": item.area,
                    "scope": list(item.scope),
                    "status": item.status,
                    "text": text,
                }
            )
    return {
        "target": target,
        "found": not found.empty,
        "rules": rules,
        "sections": sections,
        "cut": fitted.left,
        "hint": found.hint,
    }
