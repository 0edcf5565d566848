"""Sections as CommonMark reads them: the line scan against markdown-it, and the cases that differ."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from homeostat.core.kb import load_kb
from homeostat.core.markdown import (
    _NEEDS_COMMONMARK,
    _odd_fence,
    commonmark_headings,
    headings,
    simple_headings,
)

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
