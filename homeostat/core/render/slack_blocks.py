"""Slack Block Kit messages that Slack never rejects.

An incoming webhook answers a message over any limit with 400 `invalid_blocks` and posts nothing, so
a digest for a busy week would be lost whole. The limits (at most 50 blocks, 3,000 characters of
section text, 150 of header text) are checked here, where the blocks are built: a list that does
not fit is cut at a line, ending "…and N more" with a link to where the rest is, and `fit` makes
any message fit as the last word. Pure: values in, block dicts out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from homeostat.core.notify import escape, link

MAX_BLOCKS = 50
MAX_SECTION_TEXT = 3000
MAX_HEADER_TEXT = 150
MAX_FALLBACK_TEXT = 3000  # Slack allows more, but a notification shows a line or two

Block = dict[str, object]


def header(text: str) -> Block:
    return {
        "type": "header",
        "text": {"type": "plain_text", "text": cut(text, MAX_HEADER_TEXT), "emoji": True},
    }


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": cut(text, MAX_SECTION_TEXT)}}


def context(text: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": cut(text, MAX_SECTION_TEXT)}]}


def divider() -> Block:
    return {"type": "divider"}


def list_section(title: str, lines: Sequence[str], *, more_url: str = "", limit: int = 0) -> Block:
    """A section: `title`, then as many of `lines` as fit (at most `limit` when set), then
    "…and N more" linking to `more_url`. Lines are mrkdwn, already escaped."""
    shown = list(lines[:limit]) if limit else list(lines)
    while True:
        rest = len(lines) - len(shown)
        tail = [_more(rest, more_url)] if rest else []
        text = "\n".join([title, *shown, *tail])
        if len(text) <= MAX_SECTION_TEXT or not shown:
            return section(text)
        shown.pop()


def _more(count: int, url: str) -> str:
    words = f"…and {count} more"
    return f"{words}: {link(url, 'see them all')}" if url else words


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def fit(blocks: Sequence[Mapping[str, object]]) -> list[Block]:
    """The blocks within every limit: texts cut, and past 50 blocks the rest summed up in one."""
    fitted = [_fit_block(block) for block in blocks]
    if len(fitted) <= MAX_BLOCKS:
        return fitted
    dropped = len(fitted) - (MAX_BLOCKS - 1)
    return [
        *fitted[: MAX_BLOCKS - 1],
        context(escape(f"…and {dropped} more blocks left out of this message")),
    ]


def _fit_block(block: Mapping[str, object]) -> Block:
    out = dict(block)
    text = out.get("text")
    if isinstance(text, Mapping) and isinstance(text.get("text"), str):
        limit = MAX_HEADER_TEXT if out.get("type") == "header" else MAX_SECTION_TEXT
        out["text"] = {**text, "text": cut(str(text["text"]), limit)}
    return out


def problems(blocks: Sequence[Mapping[str, object]], fallback: str = "") -> list[str]:
    """What Slack would refuse in a message (empty when it fits): for tests and the webhook sink."""
    found = []
    if len(blocks) > MAX_BLOCKS:
        found.append(f"{len(blocks)} blocks (at most {MAX_BLOCKS})")
    for index, block in enumerate(blocks):
        for text in _texts(block):
            limit = MAX_HEADER_TEXT if block.get("type") == "header" else MAX_SECTION_TEXT
            if len(text) > limit:
                found.append(f"block {index} ({block.get('type')}): {len(text)} characters (at most {limit})")
            if not text.strip():
                found.append(f"block {index} ({block.get('type')}): empty text")
    if not fallback.strip():
        found.append("no top-level text (the notification's fallback)")
    return found


def _texts(block: Mapping[str, object]) -> list[str]:
    texts = []
    text = block.get("text")
    if isinstance(text, Mapping) and isinstance(text.get("text"), str):
        texts.append(str(text["text"]))
    elements = block.get("elements")
    if isinstance(elements, list):
        texts += [
            str(e["text"]) for e in elements if isinstance(e, Mapping) and isinstance(e.get("text"), str)
        ]
    return texts


def block_text(blocks: Sequence[Mapping[str, object]]) -> str:
    """The blocks' text, one block per paragraph: what `--print` shows."""
    return "\n\n".join("\n".join(_texts(block)) for block in blocks if _texts(block)) + "\n"
