"""Fuzzing: the loader, validate, the section patcher and the MCP tool arguments never crash.

Each property runs twice: a short run (`SMOKE` cases) in the default suite, so CI keeps every target
and its harness working, and the full run marked `slow` (left out of the default run; `pytest -m
slow` runs it) with a few thousand generated inputs, `HOMEOSTAT_FUZZ_EXAMPLES` apiece (default
2,000). What counts as a crash:
any exception but the ones the code promises (`KBReadError` for a missing KB, `PatchError` for a
refused patch, an MCP error result). The counts and the crashes found are in
docs/dev/fuzzing.md.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kbfactory import example_files

from homeostat.core.format.patch import PatchError, SectionPatch, apply_section_patch
from homeostat.core.kb import load_kb
from homeostat.core.validate import validate_kb

EXAMPLES = int(os.environ.get("HOMEOSTAT_FUZZ_EXAMPLES", "2000"))
SMOKE = 25
RUNS = pytest.mark.parametrize(
    "examples", [SMOKE, pytest.param(EXAMPLES, marks=pytest.mark.slow)], ids=["smoke", "full"]
)
FUZZ = settings(
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
    database=None,
)
TODAY = dt.date(2026, 11, 29)
BASE = example_files()
DOC = "knowledge/billing/api/docs/overview.md"

# Pieces of KB files: real lines from the example, the shapes the parsers branch on, and junk.
REAL_LINES = sorted({line for text in BASE.values() for line in text.splitlines()})
EDGE = [
    "---",
    "",
    "## Rule",
    "## Why",
    "## Example",
    "### Rule",
    "## Title {#an-id}",
    "## {#}",
    "<!-- homeostat",
    "<!-- homeostat: source=manual updated=2026-13-45 confidence=x -->",
    "-->",
    "```",
    "~~~",
    "<!--",
    "id: x",
    "id: [x",
    'title: "a\tb"',
    "updated: 2026-01-01T25:00:00",
    'scope: ["**"]',
    "scope: *alias",
    "source:",
    "  type: pr-feedback",
    "  url: https://[github.com/x/y/pull/1",
    "  url: https://github.com/example/billing/pull/0#discussion_r0",
    "status: accepted",
    "area: core",
    "area: billing/api",
    "topic: errors",
    "approvedBy: [nobody]",
    "created: 0000-01-01",
    "<<<<<<< HEAD",
    "=======",
    ">>>>>>> b",
    "\u202e\u200b",
    "a" * 300,
    "- [ ] item",
    "key: {a: [b, {c: d}]}",
    "? complex",
    "&anchor x",
    "!!python/object:os.system",
]
LINE = st.one_of(st.sampled_from(REAL_LINES), st.sampled_from(EDGE), st.text(max_size=40))
TEXT = st.lists(LINE, max_size=30).map("\n".join)
PATHS = st.sampled_from(
    [
        "knowledge/core/fuzz.md",
        "knowledge/billing/api/fuzz.md",
        "knowledge/billing/api/errors.md",
        "knowledge/billing/api/docs/fuzz.md",
        DOC,
        "knowledge/storefront/ui/use-theme-spacing.md",
        "knowledge/fuzz.md",
        "knowledge/billing/docs/x/y.md",
        "homeostat.yaml",
        "knowledge/core/image.png",
    ]
)
CONTENT = st.one_of(TEXT, TEXT.map(lambda t: "---\n" + t), st.binary(max_size=64))


@st.composite
def kb_files(draw: st.DrawFn) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = dict(BASE)
    for path, content in draw(st.lists(st.tuples(PATHS, CONTENT), min_size=1, max_size=4)):
        if path == "homeostat.yaml" and draw(st.booleans()):  # a mangled config, not a missing one
            content = BASE["homeostat.yaml"] + (content if isinstance(content, str) else "")
        files[path] = content
    return files


COUNTS: dict[str, int] = {}


def _count(target: str) -> None:
    COUNTS[target] = COUNTS.get(target, 0) + 1


@RUNS
def test_the_loader_and_validate_never_crash(examples: int) -> None:
    @settings(FUZZ, max_examples=examples)
    @given(kb_files())
    def check(files: dict[str, str | bytes]) -> None:
        kb = load_kb(files)
        _count("loader")
        result = validate_kb(kb, TODAY)
        _count("validate")
        assert all(f.line >= 1 and f.file for f in result.findings)
        for unreadable in kb.unreadable:
            assert unreadable.file in files

    check()


SECTION_IDS = st.sampled_from(["errors", "request-path", "new-one", "x", "", "bad id", "errors#", "é"])
BODIES = st.one_of(TEXT, st.sampled_from(["## split", "```\nopen", "<!-- homeostat -->", "x\n=======", "ok"]))


@RUNS
def test_the_section_patcher_applies_or_refuses_and_never_crashes(examples: int) -> None:
    @settings(FUZZ, max_examples=examples)
    @given(
        st.one_of(
            st.just(BASE[DOC]), TEXT.map(lambda t: BASE[DOC] + "\n" + t), TEXT.map(lambda t: "---\n" + t)
        ),
        st.sampled_from(["replace", "append", "add"]),
        SECTION_IDS,
        BODIES,
        st.text(max_size=30),
        st.sampled_from(["", "errors", "missing"]),
    )
    def check(text: str, op: Any, section: str, body: str, heading: str, after: str) -> None:
        patch = SectionPatch(op, section, body, heading=heading, after=after)
        try:
            patched = apply_section_patch(text, patch, TODAY, DOC)
        except PatchError as exc:
            assert str(exc)
            _count("patch")
            return
        _count("patch")
        document = load_kb({**BASE, DOC: patched}).document("billing/api/overview")
        assert document is not None and document.section(section) is not None

    check()


TOOLS = st.sampled_from(
    [
        "context",
        "search",
        "read",
        "docs",
        "explain",
        "report",
        "learn",
        "flag",
        "get_rules",
        "mcp__homeostat__read",
    ]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(['["a.py"]', "{", "billing/api/overview#errors", "web/**", "../../etc/passwd", "\x00"]),
    st.lists(st.text(max_size=10), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
)
ARGUMENT_NAMES = st.sampled_from(
    ["files", "paths", "budget", "query", "q", "limit", "group", "topic", "target", "id", "days", "title",
     "rule", "area", "why", "scope", "kind", "reason", "x", ""]
)  # fmt: skip


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    import shutil
    import subprocess

    from kbfactory import EXAMPLE

    from homeostat.mcp_server import build_server

    root = tmp_path_factory.mktemp("fuzz")
    kb = root / "kb"
    shutil.copytree(EXAMPLE, kb, ignore=shutil.ignore_patterns(".homeostat"))
    config = kb / "homeostat.yaml"
    config.write_text(
        config.read_text().replace("security:\n", "security:\n  mcpWrites: true\n  mcpWriteLimit: 3\n")
    )
    web = root / "shop"
    web.mkdir()
    for args in (["init", "-q"], ["remote", "add", "origin", "git@github.com:example/storefront.git"]):
        subprocess.run(["git", *args], cwd=web, check=True, capture_output=True)
    subprocess.run(["git", "config", "user.name", "Cy Moreau"], cwd=web, check=True)
    return build_server(str(kb), web)


@RUNS
def test_mcp_tools_answer_any_arguments_without_crashing(server: Any, examples: int) -> None:
    @settings(FUZZ, max_examples=examples)
    @given(TOOLS, st.one_of(st.dictionaries(ARGUMENT_NAMES, VALUES, max_size=5), VALUES))
    def check(tool: str, arguments: Any) -> None:
        result = server.call(tool, arguments)
        _count("mcp")
        assert set(result) <= {"content", "isError"} and result.get("isError", True) is True
        [content] = result["content"]
        assert content["type"] == "text" and isinstance(content["text"], str)
        text = content["text"]
        assert "Traceback" not in text
        assert not (result.get("isError") and text.startswith("Homeostat could not answer")), text

    check()


@pytest.mark.slow
def test_report_the_counts() -> None:
    """Runs last in this file: the counts a fuzz run reached, for the record."""
    print("fuzz cases:", ", ".join(f"{k} {v:,}" for k, v in sorted(COUNTS.items())))
