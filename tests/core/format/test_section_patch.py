"""apply_section_patch: one section changes, every other byte stays, broken patches are refused."""

from __future__ import annotations

import datetime as dt

import pytest
from kbfactory import example_files

from homeostat.core.format.patch import PatchError, SectionPatch, apply_section_patch
from homeostat.core.kb import load_kb

DOC = "knowledge/billing/api/docs/overview.md"
TODAY = dt.date(2026, 11, 29)


@pytest.fixture
def text() -> str:
    return example_files()[DOC]


def _outside(before: str, after: str, section_id: str) -> tuple[str, str]:
    """Both texts with the patched section and the updated: line cut out."""

    def cut(text: str) -> str:
        lines = [line for line in text.splitlines(keepends=True) if not line.startswith("updated:")]
        joined = "".join(lines)
        start = joined.index(f"{{#{section_id}}}")
        start = joined.rfind("\n", 0, start) + 1
        end = joined.find("\n## ", start)
        return joined[:start] + (joined[end + 1 :] if end != -1 else "")

    return cut(before), cut(after)


def test_replace_changes_one_section_and_bumps_updated(text: str) -> None:
    patched = apply_section_patch(
        text, SectionPatch("replace", "request-path", "Requests go through `app.py`."), TODAY, DOC
    )
    assert "updated: 2026-11-29\n" in patched
    assert "Requests go through `app.py`." in patched and "one handler module per resource" not in patched
    before, after = _outside(text, patched, "request-path")
    assert before == after
    kb = load_kb({**example_files(), DOC: patched})
    section = kb.documents[0].section("request-path")
    assert section is not None and section.provenance is not None
    assert (section.provenance.source, section.provenance.updated) == ("curator", "2026-11-29")


def test_append_keeps_the_section_and_adds_to_it(text: str) -> None:
    patched = apply_section_patch(
        text,
        SectionPatch(
            "append",
            "errors",
            "Validation errors carry the field name.",
            url="https://github.com/example/billing/pull/70#discussion_r1",
        ),
        TODAY,
        DOC,
    )
    kb = load_kb({**example_files(), DOC: patched})
    section = kb.documents[0].section("errors")
    assert section is not None
    assert section.body.startswith("Handlers raise domain errors")
    assert section.body.endswith("Validation errors carry the field name.")
    assert section.provenance is not None and section.provenance.confidence == "80"


def test_add_inserts_a_new_section_after_another(text: str) -> None:
    patch = SectionPatch(
        "add", "auth", "Auth lives in `auth.py`.", heading="Authentication", after="request-path"
    )
    patched = apply_section_patch(text, patch, TODAY, DOC)
    kb = load_kb({**example_files(), DOC: patched})
    assert [s.id for s in kb.documents[0].sections] == ["request-path", "auth", "errors"]
    assert (
        patched.replace(
            "## Authentication {#auth}\n<!-- homeostat: source=curator updated=2026-11-29 -->\nAuth lives in `auth.py`.\n\n",
            "",
        ).replace("2026-11-29", "2026-11-12")
        == text
    )


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        (SectionPatch("replace", "missing", "x"), "no section {#missing} to replace"),
        (SectionPatch("append", "errors", "## Sneaky\nsplit"), "contains a # or ## heading"),
        (SectionPatch("replace", "errors", "```python\nopen fence"), "opens a code fence it never closes"),
        (SectionPatch("replace", "errors", "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b"), "conflict markers"),
        (SectionPatch("replace", "errors", "   "), "is empty"),
        (SectionPatch("add", "errors", "dup", heading="Again"), "already exists"),
        (SectionPatch("add", "fresh", "x", heading="Errors"), "a section headed 'Errors' already exists"),
        (SectionPatch("add", "fresh", "x"), "needs a one-line heading"),
        (SectionPatch("replace", "errors", "word " * 401), "would have 401 words (limit 400)"),
    ],
)
def test_patches_that_would_break_the_document_are_refused(
    text: str, patch: SectionPatch, reason: str
) -> None:
    with pytest.raises(
        PatchError,
        match=reason.replace("{", r"\{").replace("}", r"\}").replace("(", r"\(").replace(")", r"\)"),
    ):
        apply_section_patch(text, patch, TODAY, DOC)
