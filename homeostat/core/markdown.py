"""Markdown structure the KB relies on: frontmatter, headings outside code fences, fence health."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

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


def split_frontmatter(text: str) -> Frontmatter | None:
    """`---\\n…\\n---\\n` at the very start; None when the file has none or it is not closed."""
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return None
    first_break = text.index("\n") + 1
    pos = first_break
    line = 2
    while pos <= len(text):
        end = text.find("\n", pos)
        current = text[pos:] if end == -1 else text[pos:end]
        if current.rstrip("\r") == "---":
            body_offset = len(text) if end == -1 else end + 1
            return Frontmatter(text[first_break:pos], 2, text[body_offset:], line + 1, body_offset)
        if end == -1:
            return None
        pos = end + 1
        line += 1
    return None


@dataclass(frozen=True, slots=True)
class Heading:
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


_HEADING_LINE = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.MULTILINE)


def _fenced_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of fenced code blocks (an unclosed fence runs to the end)."""
    spans: list[tuple[int, int]] = []
    opened: tuple[str, int] | None = None
    for match in _FENCE_LINE.finditer(text):
        marker = match.group(1)
        if opened is None:
            opened = (marker, match.start())
        elif marker[0] == opened[0][0] and len(marker) >= len(opened[0]) and not match.group(2).strip():
            spans.append((opened[1], match.end()))
            opened = None
    if opened is not None:
        spans.append((opened[1], len(text)))
    return spans


def headings(text: str) -> list[Heading]:
    """ATX headings outside fenced code blocks."""
    fenced = _fenced_spans(text) if ("```" in text or "~~~" in text) else []
    found: list[Heading] = []
    line = 1
    counted_to = 0
    for match in _HEADING_LINE.finditer(text):
        start = match.start()
        if fenced and any(a <= start < b for a, b in fenced):
            continue
        line += text.count("\n", counted_to, start)
        counted_to = start
        title = match.group(2)
        anchor_match = _HEADING_ID.match(title)
        anchor = anchor_match.group("id") if anchor_match else None
        if anchor_match:
            title = anchor_match.group("title")
        end = match.end() + (1 if match.end() < len(text) else 0)
        found.append(Heading(len(match.group(1)), title.strip(), anchor, line, start, end))
    return found


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
