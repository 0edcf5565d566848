"""A rule file's body as one-instruction items and prose, without a model.

Most rule files are lists under headings. Every top-level list item is a candidate instruction, its
indented lines and nested items included, and a code block under it is its example. A short lead-in
ending in a colon right above a list ("NEVER:", "To run tests:") belongs to each of its items: lifted
out alone, "Mix package boundaries" would say the opposite of what the file says. Everything else
(paragraphs, tables, top-level code, items too long for a rule) is prose, kept per heading for the
document sections.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from homeostat.core.text import count_words

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$")
_ITEM = re.compile(r"^( {0,3})([-*+]|\d{1,3}[.)])[ \t]+(.*)$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_CHECKBOX = re.compile(r"^\[[ xX]\][ \t]+")
LEAD_IN_WORDS = 12
PSEUDO_LEVEL = 7  # below every Markdown heading


@dataclass(frozen=True)
class Item:
    text: str  # the instruction on one line, lead-in first
    lead_in: str
    headings: tuple[str, ...]  # the headings it sits under, outermost first
    line: int  # its line in the file
    example: str = ""
    markdown: str = ""  # as written (nested items kept), lead-in first

    @property
    def written(self) -> str:
        return self.markdown or self.text


@dataclass(frozen=True)
class Prose:
    headings: tuple[str, ...]
    text: str
    line: int


@dataclass
class _State:
    body_line: int
    items: list[Item]
    prose: list[Prose]
    headings: list[tuple[int, str]]
    para: list[str]
    para_line: int = 0
    lead_in: str = ""
    item: list[str] | None = None
    item_line: int = 0
    item_example: list[str] | None = None
    in_example: bool = False
    marker: str = ""  # the list's kind: a bullet, or `.`/`)` of a numbered list
    fence: str | None = None  # the open code fence's marker, while inside one
    blank: bool = False  # the line before was blank

    def heading_path(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.headings)


def _flush_item(state: _State) -> str:
    """Emit the item; a short one ending in a colon (`5. Type hints:`) is a label for the list after
    it and is handed back instead."""
    if state.item is None:
        return ""
    text = " ".join(" ".join(line.split()) for line in state.item if line.strip())
    text = _CHECKBOX.sub("", text)
    example = "\n".join(state.item_example or []).strip("\n")
    if not example and text.endswith(":") and count_words(text) <= LEAD_IN_WORDS:
        state.item = None
        return text
    lead = state.lead_in
    whole = f"{lead} {text}".strip() if lead else text
    first, *rest = [line for line in state.item if line.strip()]
    markdown = "\n".join(
        [f"{lead} {first}".strip() if lead else first, *(f"  {line.strip()}" for line in rest)]
    )
    state.items.append(Item(whole, lead, state.heading_path(), state.item_line, _dedent(example), markdown))
    state.item = None
    state.item_example = None
    return ""


def _dedent(block: str) -> str:
    lines = block.split("\n")
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return "\n".join(line[indent:] for line in lines)


_TITLE_LIKE = re.compile(r"^[^\s>|`<#*+-][^.!?,;]*$")
TITLE_WORDS = 6


def _flush_para(state: _State, *, before_list: bool = False) -> None:
    if not state.para:
        return
    text = "\n".join(state.para).strip("\n")
    state.para = []
    single = "\n" not in text.strip()
    if before_list and single and text.rstrip().endswith(":") and count_words(text) <= LEAD_IN_WORDS:
        state.lead_in = " ".join(text.split())
        return
    if single and count_words(text) <= TITLE_WORDS and _TITLE_LIKE.match(text.strip()):
        # A short line standing alone ("Key Principles") is a heading written without the `#`s.
        state.headings = [(level, title) for level, title in state.headings if level < PSEUDO_LEVEL]
        state.headings.append((PSEUDO_LEVEL, text.strip().rstrip(":")))
        return
    state.prose.append(Prose(state.heading_path(), text, state.para_line))


def _is_lead_in(line: str) -> bool:
    """An unindented short line ending in a colon: the start of the next list, not this item's tail."""
    return line[:1] not in (" ", "\t") and line.rstrip().endswith(":") and count_words(line) <= LEAD_IN_WORDS


def _end_list(state: _State) -> None:
    _flush_item(state)
    state.lead_in = ""
    state.marker = ""


def split_body(body: str, body_line: int = 1) -> tuple[list[Item], list[Prose]]:
    """Items (candidate rules) and prose, in file order."""
    state = _State(body_line, [], [], [], [])
    for offset, line in enumerate(body.split("\n")):
        number = body_line + offset
        fence_match = _FENCE.match(line)
        if state.fence is not None:
            _fenced_line(state, line, state.fence, fence_match)
        elif fence_match:
            _open_fence(state, line, number, fence_match.group(1))
        elif not line.strip():
            state.blank = True
            if state.item is None:
                _flush_para(state)
        elif heading := _HEADING.match(line):
            _heading(state, len(heading.group(1)), heading.group(2).strip())
        else:
            _text_line(state, line, number)
    _end_list(state)
    _flush_para(state)
    return state.items, state.prose


def _fenced_line(state: _State, line: str, fence: str, fence_match: re.Match[str] | None) -> None:
    """A line inside a code fence is kept as it is (the item's example, or the paragraph's text);
    only a closing fence of the same character, at least as long, ends it."""
    (state.item_example if state.in_example and state.item_example is not None else state.para).append(line)
    if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
        state.fence = None
        state.in_example = False


def _open_fence(state: _State, line: str, number: int, fence: str) -> None:
    """A fence indented under an item, or right after it, is that item's example; any other starts
    prose (and ends the list)."""
    state.fence = fence
    indented = line[:1] in (" ", "\t")
    if state.item is not None and (indented or not state.blank):
        state.item_example = [*(state.item_example or []), line]
        state.in_example = True
    else:
        _end_list(state)
        if not state.para:
            state.para_line = number
        state.para.append(line)
    state.blank = False


def _heading(state: _State, level: int, title: str) -> None:
    """A heading ends the list and the paragraph, and replaces the headings at its level or below in
    the path every later item is filed under."""
    _end_list(state)
    _flush_para(state)
    state.headings = [(lvl, t) for lvl, t in state.headings if lvl < level]
    state.headings.append((level, title))
    state.blank = False


def _text_line(state: _State, line: str, number: int) -> None:
    """Any other line: a new item (a top-level one, or any while no list is open), a lead-in that
    ends the list, the open item's continuation, or prose."""
    state.blank, was_blank = False, state.blank
    item = _ITEM.match(line)
    if item and (state.item is None or len(item.group(1)) <= 1):
        marker = item.group(2)[-1] if item.group(2)[-1] in ".)" else "-"
        label = _flush_item(state)
        if state.marker and marker != state.marker:
            state.lead_in = ""  # another kind of list is another list
        state.lead_in = label or state.lead_in
        _flush_para(state, before_list=True)
        state.marker = marker
        state.item, state.item_line = [item.group(3)], number
    elif state.item is not None and _is_lead_in(line):
        _end_list(state)
        state.para, state.para_line = [line], number
    elif state.item is not None and (line[:1] in (" ", "\t") or not was_blank):
        state.item.append(line.strip())
    else:
        _end_list(state)
        if not state.para:
            state.para_line = number
        state.para.append(line)
