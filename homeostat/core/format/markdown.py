"""Markdown structure the KB relies on: frontmatter, headings outside code fences, fence health."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from homeostat.core.records import Record

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_HEADING_ID = re.compile(r"^(?P<title>.*?)\s*\{#(?P<id>[^}\s]+)\}\s*$")


@dataclass(frozen=True)
class Frontmatter:
    yaml_text: str
    yaml_line: int  # 1-based line of the first YAML line
    body: str
    body_line: int  # 1-based line where the body starts
    body_offset: int  # character offset where the body starts


_FRONTMATTER_CLOSE = re.compile(r"^---\r*$", re.MULTILINE)


def split_frontmatter(text: str) -> Frontmatter | None:
    """`---\\n…\\n---\\n` at the very start; None when the file has none or it is not closed.

    The closing line is `---` (carriage returns aside) anywhere after the opening one, found by one
    search (tests/core/format/test_markdown.py keeps it equal to a walk over the lines)."""
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return None
    first_break = text.index("\n") + 1
    close = _FRONTMATTER_CLOSE.search(text, first_break)
    if close is None:
        return None
    pos = close.start()
    body_offset = min(close.end() + 1, len(text))
    line = 2 + text.count("\n", first_break, pos)
    return Frontmatter(text[first_break:pos], 2, text[body_offset:], line + 1, body_offset)


class Heading(Record):
    """A tuple, not a frozen dataclass: a topic file's heading pass makes three a rule, and a frozen
    dataclass takes four times as long to make."""

    level: int
    title: str  # without the {#id} suffix
    anchor: str | None  # the {#id}, if any
    line: int  # 1-based, relative to the text given
    start: int  # offset of the heading line
    end: int  # offset just past the heading line (after its newline)


def iter_lines(text: str) -> Iterator[tuple[int, int, str]]:
    """(1-based line number, start offset, line text without newline)."""
    pos = 0
    number = 1
    while pos < len(text):
        end = text.find("\n", pos)
        if end == -1:
            yield number, pos, text[pos:]
            return
        yield number, pos, text[pos:end]
        pos = end + 1
        number += 1


_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)
# The line patterns the heading scan needs, each searched for after a line break in "\n" + text:
# one that starts with a literal lets the regex engine skip from line break to line break, where a
# leading `^` is tried at every character. An offset in that text is one past the same character's
# offset in `text`, so a match's start there is where its line starts in `text`.
# A heading's level less one, and its text up to the line's end: `heading_text` takes off what
# `_HEADING`'s `(.*?)[ \t]*#*[ \t]*$` leaves out, without the lazy match trying every character.
_HEADING_AFTER_BREAK = re.compile(r"\n#(#{0,5})[ \t]+(.*)")
_FENCE_AFTER_BREAK = re.compile("\n" + _FENCE_LINE.pattern.removeprefix("^"), re.MULTILINE)
# A line that opens a fenced code block or an HTML comment block.
_BLOCK_AFTER_BREAK = re.compile(r"\n {0,3}(?:(`{3,}|~{3,})(.*)$|<!--)", re.MULTILINE)


def heading_text(rest: str) -> str:
    """A heading line's text after the blanks that follow its `#`s, without a closing `#` sequence
    and the blanks around it: the longest such end, as `_HEADING`'s lazy group leaves it."""
    return rest.rstrip(" \t").rstrip("#").rstrip(" \t")


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


def _skipped_spans(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks and HTML comment blocks, which CommonMark reads no heading in.

    A comment block starts at a line opening with `<!--` and runs to the first line holding `-->`
    (the same line, for a one-line comment); an unclosed fence or comment runs to the end. Each
    block's opening and closing line is found by a search, not by walking every line: a topic file
    opens a comment in every section (a test keeps this equal to the line walk).
    """
    shifted = f"\n{text}"
    spans: list[tuple[int, int]] = []
    pos = 0  # in `text`; the line break before it is at `pos` in `shifted`
    while (block := _BLOCK_AFTER_BREAK.search(shifted, pos)) is not None:
        opened = block.start()
        line_end = _line_end(text, opened)
        fence = block.group(1)
        if fence is not None:
            close = next(
                (
                    m
                    for m in _FENCE_AFTER_BREAK.finditer(shifted, line_end + 1)
                    if m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not m.group(2).strip()
                ),
                None,
            )
            pos = len(text) if close is None else close.end() - 1
        elif "-->" in text[opened:line_end]:
            pos = line_end
        else:
            closing = text.find("-->", line_end)
            pos = len(text) if closing == -1 else _line_end(text, closing)
        spans.append((opened, pos))
        if pos >= len(text):
            break
        pos += 1  # the next line
    return spans


def headings(text: str) -> list[Heading]:
    """Top-level ATX and setext headings, as CommonMark reads them.

    Most KB text is plain: ATX headings at the start of a line, fences at the start of a line, no
    HTML. For that a line scan gives CommonMark's answer; anything the scan could misread (an HTML
    block, which may hold a `## heading` inside a comment; a setext underline; an indented heading or
    fence; an empty heading or one closed by `#`) goes to markdown-it, a CommonMark parser.
    A differential test keeps the two equal where the scan is used.
    """
    if "\r" in text or _AFTER_BREAK_NEEDS_COMMONMARK.search(f"\n{text}") or _odd_fence(text):
        return commonmark_headings(text)
    return simple_headings(text)


# Lines only a CommonMark parser reads right: an HTML block start, a setext underline (or thematic
# break made of `-`), an ATX heading, fence or comment indented 1 to 3 spaces (a comment inside a list
# item ends with the item, not at `-->`), an ATX heading that is empty, ends in `#` or holds a backslash.
_NEEDS_COMMONMARK = re.compile(
    r"^(?: {0,3}<(?!!--)| {0,3}(?:=+|-+)[ \t]*$| {1,3}(?:#|`{3}|~{3}|<!--)"
    r"|#{1,6}(?:[ \t]*|[ \t].*#[ \t]*|[ \t].*\\.*)$)",
    re.MULTILINE,
)
# The same lines, searched for after a line break in `"\n" + text`: a pattern that starts with a
# literal is skipped through by a fast scan, where one that starts with `^` is tried at every character.
_AFTER_BREAK_NEEDS_COMMONMARK = re.compile("\n" + _NEEDS_COMMONMARK.pattern.removeprefix("^"), re.MULTILINE)


def _odd_fence(text: str) -> bool:
    """A backtick fence line whose info string holds a backtick is no fence in CommonMark."""
    if "```" not in text:
        return False
    return any(m.group(1)[0] == "`" and "`" in m.group(2) for m in _FENCE_LINE.finditer(text))


def simple_headings(text: str) -> list[Heading]:
    """ATX headings at the start of a line, outside fenced code and HTML comments (the fast path)."""
    fenced = _skipped_spans(text) if ("```" in text or "~~~" in text or "<!--" in text) else []
    found: list[Heading] = []
    line = 1
    counted_to = 0
    span, spans = 0, len(fenced)  # spans and headings both come in text order: one walk over each
    size = len(text)
    for match in _HEADING_AFTER_BREAK.finditer(f"\n{text}"):
        start, end = match.span()  # of the heading's line in `text`; past its newline (if any)
        if span < spans:
            while span < spans and fenced[span][1] <= start:
                span += 1
            if span < spans and fenced[span][0] <= start:
                continue
        line += text.count("\n", counted_to, start)
        counted_to = start
        hashes, rest = match.groups()
        found.append(_heading(len(hashes) + 1, heading_text(rest), line, start, min(end, size)))
    return found


def commonmark_headings(text: str) -> list[Heading]:
    """Top-level headings as markdown-it parses them (blocks only; inline parsing is not needed)."""
    starts = [0, *(m.end() for m in _LINE_BREAK.finditer(text)), len(text)]
    tokens = _parser().parse(text)
    found: list[Heading] = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or token.map is None:
            continue
        first, last = token.map
        content = tokens[index + 1].content.replace("\n", " ") if index + 1 < len(tokens) else ""
        start = starts[min(first, len(starts) - 1)]
        end = starts[min(last, len(starts) - 1)]
        found.append(_heading(int(token.tag[1]), content, first + 1, start, end))
    return found


def _heading(level: int, raw_title: str, line: int, start: int, end: int) -> Heading:
    anchor_match = _HEADING_ID.match(raw_title) if "{#" in raw_title else None  # `{#` is what it needs
    if anchor_match is None:
        return Heading(level, raw_title.strip(), None, line, start, end)
    return Heading(level, anchor_match.group("title").strip(), anchor_match.group("id"), line, start, end)


_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as markdown-it counts lines
_MARKDOWN_IT: list[object] = []


def _parser() -> Any:
    """markdown-it's CommonMark preset, built on first use: most texts never need it."""
    if not _MARKDOWN_IT:
        from markdown_it import MarkdownIt

        _MARKDOWN_IT.append(MarkdownIt("commonmark").disable("inline"))
    return _MARKDOWN_IT[0]


@dataclass(frozen=True)
class FenceReport:
    unclosed_line: int | None  # line of a fence never closed
    wrapped: bool  # the whole body sits inside one fence (a model's ```markdown wrapper)


def check_fences(text: str) -> FenceReport:
    fence: str | None = None
    opened_at = 0
    spans: list[tuple[int, int]] = []
    lines = list(iter_lines(text))
    for number, _, line in lines:
        match = _FENCE.match(line)
        if not match:
            continue
        marker = match.group(1)
        if fence is None:
            fence, opened_at = marker, number
        elif marker[0] == fence[0] and len(marker) >= len(fence) and not match.group(2).strip():
            spans.append((opened_at, number))
            fence = None
    if fence is not None:
        return FenceReport(opened_at, False)
    content = [number for number, _, line in lines if line.strip()]
    wrapped = bool(content) and len(spans) >= 1 and spans[0][0] == content[0] and spans[0][1] == content[-1]
    return FenceReport(None, wrapped and len(content) > 2)


CONFLICT_MARKER = re.compile(r"^(<{7}|={7}|>{7})(?:\s|$)", re.MULTILINE)


def conflict_marker_lines(text: str) -> list[int]:
    return [text.count("\n", 0, m.start()) + 1 for m in CONFLICT_MARKER.finditer(text)]


def line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1
