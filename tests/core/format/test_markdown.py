"""Sections as CommonMark reads them: the line scan against markdown-it, and the cases that differ."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from homeostat.core.format.markdown import (
    _AFTER_BREAK_NEEDS_COMMONMARK,
    _FENCE,
    _HEADING,
    _HEADING_AFTER_BREAK,
    _HEADING_ID,
    _NEEDS_COMMONMARK,
    Frontmatter,
    _heading,
    _odd_fence,
    _skipped_spans,
    commonmark_headings,
    heading_text,
    headings,
    simple_headings,
    split_frontmatter,
)
from homeostat.core.kb import load_kb

# Lines on the edges of what decides a heading: fences, comments, HTML, setext underlines, indents.
LINES = st.sampled_from(
    [
        "## Title {#title}",
        "## Plain",
        "# One",
        "### Three {#three}",
        "## Closed ##",
        "## Hash#",
        "##",
        "#5 not a heading",
        "##\tTabbed",
        "   ## Indented",
        "    ## Code",
        "```",
        "```python",
        "~~~",
        "````",
        "   ```",
        "``` `odd`",
        "<!--",
        "-->",
        "<!-- one line -->",
        "<!-- homeostat",
        "scope: [a]",
        "<div>",
        "</div>",
        "<br>",
        "---",
        "===",
        "- item",
        "- ## in a list",
        "> ## quoted",
        "> ```",
        "1. first",
        "text with `code`",
        "a paragraph line",
        "",
        "",
        "\t## tab indent",
        "## Escaped \\#",
        "*** ",
        "text --> after",
        "  <!-- indented",
        "````` info",
        "~~~~",
        "   ~~~ tilde",
    ]
)
TEXTS = st.lists(LINES, max_size=14).map("\n".join)


@settings(max_examples=600, deadline=None)
@given(TEXTS, st.booleans())
def test_the_line_scan_agrees_with_commonmark_wherever_it_is_used(text: str, newline: bool) -> None:
    text = text + ("\n" if newline else "")
    if _NEEDS_COMMONMARK.search(text) is None and not _odd_fence(text):  # where headings() scans lines
        assert simple_headings(text) == commonmark_headings(text)
    assert headings(text) == commonmark_headings(text)


def _spans_by_line_walk(text: str) -> list[tuple[int, int]]:
    """Fences and comment blocks found by walking every line: what `_skipped_spans` searches for."""
    spans: list[tuple[int, int]] = []
    fence: str | None = None
    in_comment, opened, start = False, 0, 0
    for line in text.split("\n"):
        end = start + len(line)
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                if not match.group(2).strip():
                    spans.append((opened, end))
                    fence = None
        elif in_comment:
            if "-->" in line:
                spans.append((opened, end))
                in_comment = False
        elif match:
            fence, opened = match.group(1), start
        elif line.lstrip(" ").startswith("<!--") and len(line) - len(line.lstrip(" ")) <= 3:
            if "-->" in line:
                spans.append((start, end))
            else:
                in_comment, opened = True, start
        start = end + 1
    if fence is not None or in_comment:
        spans.append((opened, len(text)))
    return spans


@settings(max_examples=600, deadline=None)
@given(TEXTS, st.booleans())
def test_fences_and_comments_found_by_search_are_the_ones_a_line_walk_finds(text: str, newline: bool) -> None:
    text = text + ("\n" if newline else "")
    assert _skipped_spans(text) == _spans_by_line_walk(text)
    # headings() looks for the lines it leaves to markdown-it after a line break: the same lines
    needs = _NEEDS_COMMONMARK.search(text)
    assert (needs is None) == (_AFTER_BREAK_NEEDS_COMMONMARK.search(f"\n{text}") is None)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="# \t\rab{}", max_size=16))
def test_a_heading_line_is_read_as_the_anchored_pattern_reads_it(line: str) -> None:
    whole = _HEADING.match(line)
    found = _HEADING_AFTER_BREAK.match(f"\n{line}")
    assert (whole is None) == (found is None)
    if whole is not None and found is not None:
        assert len(whole.group(1)) == len(found.group(1)) + 1
        assert whole.group(2) == heading_text(found.group(2))


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="{#} \tab-", max_size=14))
def test_a_heading_title_without_an_opening_brace_hash_is_read_without_the_anchor_pattern(title: str) -> None:
    anchored = _HEADING_ID.match(title)
    expected = (anchored.group("title").strip(), anchored.group("id")) if anchored else (title.strip(), None)
    made = _heading(2, title, 1, 0, 0)
    assert (made.title, made.anchor) == expected


def _frontmatter_by_line_walk(text: str) -> Frontmatter | None:
    """The closing `---` line found by walking the lines: what `split_frontmatter` searches for."""
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return None
    first_break = text.index("\n") + 1
    pos, line = first_break, 2
    while pos <= len(text):
        end = text.find("\n", pos)
        current = text[pos:] if end == -1 else text[pos:end]
        if current.rstrip("\r") == "---":
            body_offset = len(text) if end == -1 else end + 1
            return Frontmatter(text[first_break:pos], 2, text[body_offset:], line + 1, body_offset)
        if end == -1:
            return None
        pos, line = end + 1, line + 1
    return None


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(["---\n", "---\r\n", "--\n", "", "---"]),
    st.lists(
        st.sampled_from(["---", "---\r", "---\r\r", " ---", "--- ", "----", "a: b", "", "\r", "-"]),
        max_size=6,
    ),
    st.sampled_from(["", "\n", "\r"]),
)
def test_the_frontmatter_found_by_search_is_the_one_a_line_walk_finds(
    opening: str, lines: list[str], end: str
) -> None:
    text = opening + "\n".join(lines) + end
    assert split_frontmatter(text) == _frontmatter_by_line_walk(text)


def test_a_heading_inside_a_multiline_html_comment_is_no_section() -> None:
    body = "## Real {#real}\nText.\n\n<!--\n## Old {#old}\nkept for history\n-->\n\nMore.\n"
    assert [(h.title, h.anchor) for h in headings(body)] == [("Real", "real")]


def test_the_document_keeps_the_commented_heading_in_its_section() -> None:
    files = {
        "homeostat.yaml": "team:\n  members: [{handle: ana, role: lead}]\nareas:\n  - {name: api, paths: ['**'], owner: ''}\n",
        "knowledge/api/docs/guide.md": (
            "---\ntitle: Guide\narea: api\nowner: ana\nscope: ['**']\nupdated: 2026-11-01\n---\n"
            "## Start {#start}\n<!-- homeostat: source=manual updated=2026-11-01 -->\nBegin.\n\n"
            "<!--\n## Draft {#draft}\nnot yet\n-->\n\n## End {#end}\nDone.\n"
        ),
    }
    [document] = load_kb(files).documents
    assert [s.id for s in document.sections] == ["start", "end"]
    assert "## Draft {#draft}" in document.sections[0].body


def test_setext_and_indented_headings_are_headings_as_on_github() -> None:
    assert [(h.level, h.title, h.line) for h in headings("Intro\n\nTitle {#t}\n---\n   ## Near {#n}\n")] == [
        (2, "Title", 3),
        (2, "Near", 5),
    ]


def test_a_heading_closed_by_hashes_keeps_a_hash_that_is_not_a_closing_sequence() -> None:
    assert [h.title for h in headings("## C# tips\n## Done ##\n")] == ["C# tips", "Done"]
