"""`homeostat read <doc>#<section> | <doc> | <area>/<topic>#<rule> | <rule-id>`: one thing, in full.

A whole document prints each section once, with its source. A name that matches nothing is an
ordinary answer (with a hint to search), not a failure of the tool; the exit code is 1 so a script
can tell.
"""

from __future__ import annotations

import argparse
import sys

from homeostat.cli import add_kb_option
from homeostat.cli_options import add_checkout_option, add_format_option, emit_json
from homeostat.commands.context import log_event, open_session
from homeostat.core.render_view import render_rule, render_sections
from homeostat.core.search import Found


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read one document section or a whole document",
        description="Read a document section (<area>/<doc>#<section>), a whole document, a rule "
        "(<area>/<topic>#<id> or its id) or a whole topic (<area>/<topic>).",
    )
    parser.add_argument("target", help="what to read, e.g. billing/api/overview#errors")
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )
    add_checkout_option(parser)
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


READ_TOKEN_LIMIT = 4000  # what one `read` returns at most: a whole large document, or a runaway file
_CHARS_PER_TOKEN = 4


def render_found(found: Found, limit: int = READ_TOKEN_LIMIT) -> str:
    """Rules, then sections, whole, up to `limit` tokens; what does not fit is named, not printed."""
    if found.empty:
        return found.hint + "\n"
    items = [(entry.tokens, render_rule(entry), entry.id) for entry in found.rules]
    seen: set[str] = set()
    for section in found.sections:
        if section.key not in seen:
            seen.add(section.key)
            items.append((section.tokens, render_sections([section]), section.key))
    parts: list[str] = []
    used = 0
    left: list[str] = []
    for tokens, text, key in items:
        if not left and used + tokens <= limit:
            parts.append(text)
            used += tokens
        elif not parts:  # even the first is over the limit: its beginning, cut at a line
            head = text[: limit * _CHARS_PER_TOKEN]
            head = head[: head.rfind("\n") + 1] or head
            parts.append(f"{head}\n(cut at {limit} tokens; read a section)\n")
            used = limit
        else:
            left.append(key)
    if left:
        parts.append(f"(cut at {limit} tokens; read a section: {', '.join(left)})\n")
    return "\n".join(parts)


def found_data(target: str, found: Found, limit: int = READ_TOKEN_LIMIT) -> dict[str, object]:
    """The JSON form of `read`: what the text form prints, as fields, within the same token limit."""
    rules: list[dict[str, object]] = []
    sections: list[dict[str, object]] = []
    cut: list[str] = []
    used = 0
    for entry in found.rules:
        if used + entry.tokens > limit and (rules or sections):
            cut.append(entry.id)
            continue
        used += entry.tokens
        rules.append(
            {
                "id": entry.id,
                "title": entry.title,
                "area": entry.area,
                "scope": list(entry.scope),
                "status": entry.status,
                "text": entry.view[: limit * _CHARS_PER_TOKEN],
            }
        )
    for section in dict.fromkeys(found.sections):
        if used + section.tokens > limit and (rules or sections):
            cut.append(section.key)
            continue
        used += section.tokens
        sections.append(
            {
                "key": section.key,
                "heading": section.heading,
                "source": section.source,
                "updated": section.updated,
                "url": section.url,
                "text": section.view[: limit * _CHARS_PER_TOKEN],
            }
        )
    return {
        "target": target,
        "found": not found.empty,
        "rules": rules,
        "sections": sections,
        "cut": cut,
        "hint": found.hint,
    }


def run(args: argparse.Namespace) -> int:
    from homeostat.core.search import lookup

    session = open_session(args.kb, args.checkout, args.repo)
    found = lookup(session.corpus, args.target, session.audience)
    if args.format == "json":
        emit_json(found_data(args.target, found))
    else:
        sys.stdout.write(render_found(found))
    if found.sections:
        log_event(
            session.root,
            "doc-read",
            {
                "source": "cli",
                "sections": len(found.sections),
                "ids": ",".join(s.key for s in found.sections),
            },
        )
    return 1 if found.empty else 0
