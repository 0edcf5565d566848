"""Text a person reviewing a rule does not see but an agent reads: invisible characters and HTML
comments.

Invisible characters that scripts need are left alone: the zero-width joiner inside emoji sequences
and Indic or Arabic words, the zero-width non-joiner in Persian, the zero-width space between Thai or
Khmer words, a bidi mark near right-to-left text, one variation selector after the character it
styles (an emoji, a CJK ideograph, a keycap digit), and tag characters spelling a subdivision flag
(🏴 + tags + cancel tag). A run of variation selectors is never styling: it is the "emoji smuggling"
trick, and like tag characters it is decoded for the reviewer.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

ZWSP, ZWNJ, ZWJ, WORD_JOINER, BOM = "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"
LRM, RLM, ALM, SOFT_HYPHEN, CGJ = "\u200e", "\u200f", "\u061c", "\u00ad", "\u034f"
# Every character that renders as nothing (or as blank space a reader takes for nothing).
INVISIBLE_CLASS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028\u2029\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_HIDDEN = re.compile(f"[{INVISIBLE_CLASS}]+")
_TAG_BASE, _TAG_CANCEL, _BLACK_FLAG = 0xE0000, 0xE007F, "\U0001f3f4"
_FLAG_TAG = re.compile("[\U000e0030-\U000e0039\U000e0061-\U000e007a]{1,6}\U000e007f")
_VARIATION_SELECTORS = ((0xFE00, 0xFE0F), (0xE0100, 0xE01EF))

# Scripts whose orthography uses the joiners, and scripts written without spaces between words.
_JOINING_RANGES = (
    (0x0590, 0x08FF),  # Hebrew, Arabic, Syriac, Thaana, NKo…
    (0x0900, 0x0DFF),  # Devanagari … Sinhala
    (0x0F00, 0x0FFF),  # Tibetan
    (0x1800, 0x18AF),  # Mongolian
    (0xFB1D, 0xFDFF),  # Hebrew and Arabic presentation forms
    (0xFE70, 0xFEFE),
)
_RIGHT_TO_LEFT_RANGES = ((0x0590, 0x08FF), (0xFB1D, 0xFDFF), (0xFE70, 0xFEFE))
_SPACELESS_RANGES = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x0F00, 0x0FFF))
_EMOJI_RANGES = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF), (0x2B00, 0x2BFF), (0xFE0F, 0xFE0F), (0x2190, 0x21FF))
_BIDI_MARK_REACH = 30  # a bidi mark is styling when right-to-left text is this close
_KEYCAP_BASES = frozenset("0123456789#*")


def _in(ch: str, ranges: tuple[tuple[int, int], ...]) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in ranges)


@dataclass(frozen=True)
class Hidden:
    start: int
    end: int
    chars: str


def _styles(before: str) -> bool:
    """A character a single variation selector may follow: anything visible but plain ASCII letters,
    blanks and punctuation, except the keycap bases (1️⃣)."""
    if not before or before.isspace() or _HIDDEN.match(before):
        return False
    return before in _KEYCAP_BASES or not before.isascii()


def _near_right_to_left(text: str, start: int, end: int) -> bool:
    window = text[max(0, start - _BIDI_MARK_REACH) : end + _BIDI_MARK_REACH]
    return any(_in(c, _RIGHT_TO_LEFT_RANGES) for c in window if not c.isascii())


def _legitimate(text: str, start: int, end: int) -> bool:
    run = text[start:end]
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if run == BOM and start == 0:
        return True
    if before == _BLACK_FLAG and _FLAG_TAG.fullmatch(run):
        return True
    if len(run) != 1:
        return False
    if _in(run, _VARIATION_SELECTORS):
        return _styles(before)
    if run in (LRM, RLM, ALM):
        return _near_right_to_left(text, start, end)
    if run == CGJ:
        return bool(before) and (_in(before, _JOINING_RANGES) or unicodedata.category(before) == "Mn")
    if run == "\u1160":  # a Hangul jamo filler inside an old-Hangul syllable
        return bool(before) and 0x1100 <= ord(before) <= 0x115F
    if run == "\u115f":
        return bool(after) and 0x1160 <= ord(after) <= 0x11A7
    if "\u180b" <= run <= "\u180d" or run == "\u180f":  # Mongolian free variation selectors
        return bool(before) and _in(before, _JOINING_RANGES)
    if not before or not after:
        return False
    if run == ZWJ and _in(before, _EMOJI_RANGES) and _in(after, _EMOJI_RANGES):
        return True
    if run in (ZWJ, ZWNJ) and _in(before, _JOINING_RANGES) and _in(after, _JOINING_RANGES):
        return True
    return run == ZWSP and _in(before, _SPACELESS_RANGES) and _in(after, _SPACELESS_RANGES)


def hidden_characters(text: str) -> Iterator[Hidden]:
    """Runs of invisible characters (zero-width, bidi, tags, fillers, variation selectors…) that no
    script needs where they stand."""
    if text.isascii():
        return
    for m in _HIDDEN.finditer(text):
        if not _legitimate(text, m.start(), m.end()):
            yield Hidden(m.start(), m.end(), m.group(0))


def hidden_payload(chars: str) -> str:
    """The text invisible characters spell, if any: Unicode tag characters carry ASCII ("ASCII
    smuggling"); a run of variation selectors carries one byte each ("emoji smuggling")."""
    spelled = "".join(chr(ord(c) - _TAG_BASE) for c in chars if _TAG_BASE < ord(c) < _TAG_CANCEL)
    selectors = [ord(c) for c in chars if _in(c, _VARIATION_SELECTORS)]
    if len(selectors) > 1:
        data = bytes(v - 0xFE00 if v <= 0xFE0F else v - 0xE0100 + 16 for v in selectors)
        spelled += data.decode("utf-8", "ignore")
    return "".join(c for c in spelled if c.isprintable())


_NAMES = {
    ZWSP: "zero-width space",
    ZWNJ: "zero-width non-joiner",
    ZWJ: "zero-width joiner",
    WORD_JOINER: "word joiner",
    BOM: "byte-order mark",
    LRM: "left-to-right mark",
    RLM: "right-to-left mark",
    ALM: "Arabic letter mark",
    SOFT_HYPHEN: "soft hyphen",
    CGJ: "combining grapheme joiner",
    "\u3164": "Hangul filler",
    "\uffa0": "halfwidth Hangul filler",
    "\u115f": "Hangul choseong filler",
    "\u1160": "Hangul jungseong filler",
    "\u2061": "invisible function application",
    "\u2062": "invisible times",
    "\u2063": "invisible separator",
    "\u2064": "invisible plus",
}


def describe(chars: str) -> str:
    """`U+200B zero-width space`-style summary of the distinct characters in a run."""
    seen: list[str] = []
    for c in chars:
        code = ord(c)
        if 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069:
            label = f"U+{code:04X} bidi control"
        elif _TAG_BASE <= code <= _TAG_CANCEL:
            label = "Unicode tag characters"
        elif _in(c, _VARIATION_SELECTORS):
            label = "variation selectors"
        else:
            name = _NAMES.get(c) or unicodedata.name(c, "invisible character").lower()
            label = f"U+{code:04X} {name}"
        if label not in seen:
            seen.append(label)
    return ", ".join(seen)


def escape_invisible(text: str) -> str:
    """Printable form for an excerpt: hidden and control characters as `\\uXXXX`."""
    if text.isascii() and text.isprintable():
        return text
    out = []
    for c in text:
        code = ord(c)
        if c.isprintable() and not _HIDDEN.match(c):
            out.append(c)
        elif code > 0xFFFF:
            out.append(f"\\U{code:08x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out)


_COMMENT_OPEN, _COMMENT_CLOSE = "<!--", "-->"
_HOMEOSTAT_OPENING = re.compile(r"<!--\s*homeostat\b")
# A heading line, and the blank lines that may stand between it and its fields comment.
_HEADING_BEFORE = re.compile(r"(?:^|\n)[ \t]{0,3}#{1,6}[ \t][^\n]*\n(?:[ \t]*\n)*\Z")
# Tool directives that live in comments by design.
_DIRECTIVE = re.compile(
    r"\s*(?:markdownlint|prettier|eslint|textlint|vale|cspell|spell-?checker|codespell|toc|tocstop|"
    r"end\s*toc|region|endregion|more|begin|end|start|stop|include|snippet|lint|nolint|"
    r"mdformat|remark|docs?-)",
    re.IGNORECASE,
)
_ADDRESSES_AGENT = re.compile(
    r"\b(?:you|your|yourself|agent|agents|assistant|llm|ai|claude|copilot|gpt|chatgpt|cursor|gemini|codex|"
    r"model|bot)\b",
    re.IGNORECASE,
)
_IMPERATIVE_START = re.compile(
    r"\s*(?:always|never|ignore|disregard|forget|run|execute|install|download|send|upload|delete|remove|"
    r"print|reveal|use|add|set|call|do|don't|make|write|read|open|fetch|post|push|commit|copy|paste|"
    r"include|insert|replace|skip|disable|enable|turn|tell|say|respond|reply|answer|output|return|stop|"
    r"obey|follow|treat|approve|merge|grant|allow)\b",
    re.IGNORECASE,
)
_TODO = re.compile(r"\s*(?:todo|fixme|xxx|note|hack)\b(?!\s+(?:to|for)\s)", re.IGNORECASE)
_LOOKBACK = 400  # how far before a comment a heading is looked for


@dataclass(frozen=True)
class Comment:
    start: int
    end: int  # past `-->`, or the end of the text for a comment never closed
    body: str


def comments(text: str, start: int = 0, end: int | None = None) -> Iterator[Comment]:
    """The HTML comments in `text[start:end]`, in order; one never closed runs to the end (a browser
    hides all of it). One `str.find` for each opening and its close: linear in the text."""
    stop = len(text) if end is None else end
    pos = text.find(_COMMENT_OPEN, start, stop)
    while pos >= 0:
        close = text.find(_COMMENT_CLOSE, pos + 4, stop)
        if close < 0:
            yield Comment(pos, stop, text[pos + 4 : stop])
            return
        yield Comment(pos, close + 3, text[pos + 4 : close])
        pos = text.find(_COMMENT_OPEN, close + 3, stop)


class Fields(Enum):
    """Where a text may hold Homeostat's fields comments, which are data and not read for risks.

    A document's sections each open with a provenance comment, so any `<!-- homeostat … -->` right under
    a heading is taken for one (`UNDER_HEADINGS`, also for a text of unknown kind). A rule's fields are
    its frontmatter (`NONE`), or in a topic file the YAML comment its section's heading opens with
    (`SECTION`): a `<!-- homeostat: … -->` under its `## Rule` heading is only text a reviewer does not
    see, and is read like any other comment."""

    UNDER_HEADINGS = "under-headings"
    SECTION = "section"
    NONE = "none"


# A topic section's fields comment as the loader reads it: its heading line, blank lines, then
# `<!-- homeostat` alone on its line with the YAML on the lines after (`format.parse._section_comment`).
_SECTION_HEADING = re.compile(r"[ \t]{0,3}#{1,6}[ \t][^\n]*")
_SECTION_OPENING = re.compile(r"<!-- homeostat[ \t\r]*\n")


def _opens_section(text: str, at: int, start: int) -> bool:
    """The comment at `at` is the fields comment of the section whose heading is at `start`. Each
    comment walks back only over the blank lines before it and the one line before those, so a text of
    many comments is read about once, not once per comment."""
    if not _SECTION_OPENING.match(text, at):
        return False
    line = at
    while line > start and text[line - 1] == "\n":
        line -= 1
    if line == at or text.rfind("\n", start, line) >= 0:
        return False
    return _SECTION_HEADING.fullmatch(text, start, line) is not None


def is_fields_comment(
    text: str, comment: Comment, start: int = 0, fields: Fields = Fields.UNDER_HEADINGS
) -> bool:
    """A `<!-- homeostat … -->` comment that holds a section's fields or provenance: closed, and right
    under a heading or at the start of the text (blank lines aside); where `fields` says such comments
    may be. Homeostat reads it as data and never serves it; any other comment, `<!-- homeostat` or
    not, is text a reviewer does not see."""
    if (
        fields is Fields.NONE
        or not _HOMEOSTAT_OPENING.match(text, comment.start)
        or not text.startswith(_COMMENT_CLOSE, comment.end - 3)
    ):
        return False
    if fields is Fields.SECTION:
        return _opens_section(text, comment.start, start)
    line_start = comment.start
    while line_start > start and comment.start - line_start < 3 and text[line_start - 1] in " \t":
        line_start -= 1
    if line_start > start and text[line_start - 1] != "\n":
        return False
    window = text[max(start, line_start - _LOOKBACK) : line_start]
    return not window.strip() and line_start - start < _LOOKBACK or _HEADING_BEFORE.search(window) is not None


def blank_homeostat_comments(text: str, fields: Fields = Fields.UNDER_HEADINGS) -> str:
    """Homeostat's own fields comments (`is_fields_comment`) blanked to spaces, newlines and offsets
    kept."""
    if "<!--" not in text or fields is Fields.NONE:
        return text
    pieces: list[str] = []
    last = 0
    for comment in comments(text):
        if is_fields_comment(text, comment, 0, fields):
            pieces += [text[last : comment.start], blank(text[comment.start : comment.end])]
            last = comment.end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


# Every byte but a newline's as a blank's. A comment encoded a byte per character (one `?` for each
# character past Latin-1), translated and decoded, is its blank copy, in C.
_TO_BLANKS = bytes(10 if b == 10 else 32 for b in range(256))


def blank(text: str) -> str:
    """Every character but a newline as a space: the comment's lines, blank, and as long."""
    return text.encode("latin-1", "replace").translate(_TO_BLANKS).decode("ascii")


def homeostat_comments(
    text: str, start: int, end: int, fields: Fields = Fields.UNDER_HEADINGS
) -> list[tuple[int, int]] | None:
    """The spans (in `text`) that `blank_homeostat_comments(text[start:end], fields)` blanks, when every
    comment opening there is one of them; None when one is not (the caller reads that part the usual
    way)."""
    found: list[tuple[int, int]] = []
    for comment in comments(text, start, end):
        if not is_fields_comment(text, comment, start, fields):
            return None
        found.append((comment.start, comment.end))
    return found


def _gives_orders(body: str) -> bool:
    if not body.strip():
        return False
    if _DIRECTIVE.match(body) and len(body) <= 80 and not _ADDRESSES_AGENT.search(body):
        return False
    return bool(_ADDRESSES_AGENT.search(body) or (not _TODO.match(body) and _IMPERATIVE_START.match(body)))


def instruction_comments(text: str, fields: Fields = Fields.UNDER_HEADINGS) -> Iterator[Comment]:
    """HTML comments (Homeostat's fields comments aside) that address an agent or open with an order;
    tool directives and notes are fine."""
    if "<!--" not in text:
        return
    for comment in comments(text):
        if not is_fields_comment(text, comment, 0, fields) and _gives_orders(
            comment.body.removeprefix(" homeostat:")
        ):
            yield comment


# Markdown a rendered page never shows: link and image titles (a tooltip at most), image alt text,
# link reference definitions (`[//]: # (…)` is the usual comment), HTML hidden by attribute or written in
# the page's own colour, and the content of elements a page never renders (`<template>`, `<script>`…).
# The destination stops at a bracket or parenthesis and nothing is given back, so a text of `](` after
# `](` is read once, not once per opening.
_LINK_TITLE = re.compile(r"\]\(\s*+<?[^\s()<>\[\]]*+>?\s++([\"'(])([^\n]{1,300}?)[\"')]\s*\)")
_IMAGE_ALT = re.compile(r"!\[([^\]\n]{1,300})\]")
# (a footnote's definition, `[^1]: …`, is rendered at the page's foot: it hides nothing)
_REFERENCE = re.compile(r"(?m)^[ \t]{0,3}\[(?!\^)[^\]\n]{1,100}\]:[ \t]*(\S*)[ \t]*([^\n]{0,300})$")
_HIDDEN_ELEMENT = re.compile(
    r"<([a-z][a-z0-9]{0,10})\b[^<>\n]{0,200}?(?:\bhidden\b|display\s*:\s*none|visibility\s*:\s*hidden|"
    r"aria-hidden|font-size\s*:\s*0|opacity\s*:\s*0(?![.\d])|"
    # text the colour of the page: `<font color="white">`, `style="color:#fff"` (not `background-color`)
    r"(?<![\w-])color\s*[:=]\s*[\"']?\s*(?:white|#f{3}(?:f{3})?(?![\w])|transparent))[^<>\n]{0,200}>([^<]{1,600})",
    re.IGNORECASE,
)
# Elements whose content a page never renders, whatever their attributes.
_UNRENDERED_ELEMENT = re.compile(
    r"<(template|script|style|noscript)\b[^<>\n]{0,200}>([^<]{1,600})", re.IGNORECASE
)
# Where Markdown shows text as code: fenced blocks (from a fence line to the next) and code spans.
FENCE_LINE = re.compile(r"^[ \t]{0,3}(?:```|~~~)", re.MULTILINE)
CODE_SPAN = re.compile(r"`[^`\n]*`")
_ATTRIBUTE_TEXT = re.compile(
    r"<[a-z][a-z0-9]{0,10}\b[^<>\n]{0,300}?\b(?:alt|title)\s*=\s*[\"']([^\"'\n]{1,300})", re.IGNORECASE
)


@dataclass(frozen=True)
class HiddenPlace:
    start: int
    place: str  # what hides it: "a link title", "an image's alt text"…
    text: str


# A text with none of these has no hidden place (each pattern above starts from one).
PLACE_MARKS = ("](", "![", "]:", "<")


def mask_code_spans(text: str, *, open_at_end: bool = False) -> str:
    """`text` with each code span blanked to as many `x`s: a colon or comma inside `code, like this` is no
    clause boundary. `open_at_end`: a span opened and not closed in `text` is blanked to its end too (the
    text runs up to a place inside that span)."""
    masked = CODE_SPAN.sub(lambda m: "x" * len(m.group(0)), text)
    if open_at_end and masked.count("`") % 2:
        opened = masked.rfind("`")
        masked = masked[:opened] + "x" * (len(masked) - opened)
    return masked


def _code_places(text: str) -> tuple[list[int], list[tuple[int, int]]]:
    """Where fence lines start, and the code spans (start, end), in order."""
    return [m.start() for m in FENCE_LINE.finditer(text)], [m.span() for m in CODE_SPAN.finditer(text)]


def shown_as_code(text: str) -> Callable[[int], bool]:
    """Whether an offset of `text` is shown as code (in a fenced block, an unclosed one running to the
    end, or a one-backtick code span): HTML there is displayed, not rendered. Each is found once."""
    fences, spans = _code_places(text)
    edges = [edge for span in spans for edge in span]
    return lambda pos: bisect_right(fences, pos) % 2 == 1 or bisect_right(edges, pos) % 2 == 1


def shown_whole_as_code(text: str) -> Callable[[int, int], bool]:
    """Whether `start:end` of `text` lies inside one fenced block or inside one code span: the page
    shows it as code, word for word (an HTML comment quoted as an example, `<!-- prettier-ignore -->`,
    hides nothing). Fences and spans are found once."""
    fences, spans = _code_places(text)
    starts, ends = [a for a, _ in spans], [b for _, b in spans]

    def whole(start: int, end: int) -> bool:
        inside = bisect_right(fences, start)
        if inside % 2 == 1:
            return inside == bisect_right(fences, max(start, end - 1))
        i = bisect_right(starts, start) - 1  # the last span opening before `start`
        return i >= 0 and start < ends[i] and end <= ends[i]

    return whole


def hidden_places(text: str) -> Iterator[HiddenPlace]:
    """Text in the Markdown places a reviewer reading the rendered page does not see."""
    if "](" in text:
        for m in _LINK_TITLE.finditer(text):
            yield HiddenPlace(m.start(2), "a link title", m.group(2))
    if "![" in text:
        for m in _IMAGE_ALT.finditer(text):
            yield HiddenPlace(m.start(1), "an image's alt text", m.group(1))
    if "]:" in text:
        for m in _REFERENCE.finditer(text):
            yield HiddenPlace(m.start(), "a link reference definition", m.group(1) + " " + m.group(2))
    if "<" in text:
        # an HTML element shown as code (an example of the markup) is displayed, not rendered: it
        # hides nothing from a reviewer, for every reader of these places alike
        in_code: Callable[[int], bool] | None = None
        for m in _HIDDEN_ELEMENT.finditer(text):
            in_code = in_code or shown_as_code(text)
            if not in_code(m.start()):
                yield HiddenPlace(m.start(2), "a hidden HTML element", m.group(2))
        for m in _UNRENDERED_ELEMENT.finditer(text):
            in_code = in_code or shown_as_code(text)
            if not in_code(m.start()):
                yield HiddenPlace(m.start(2), f"a <{m.group(1).lower()}> element", m.group(2))
        for m in _ATTRIBUTE_TEXT.finditer(text):
            yield HiddenPlace(m.start(1), "an HTML attribute", m.group(1))


def addresses_agent(text: str) -> bool:
    """Hidden text that names the agent (or "you") or opens with an order."""
    return _gives_orders(text.strip("\"'()<>#: "))
