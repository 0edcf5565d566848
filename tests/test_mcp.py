"""The MCP server through a real MCP client: in process, and once over stdio as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from homeostat.adapters.event_log import SqliteEventLog, events_path
from homeostat.adapters.pending_store import list_pending
from homeostat.core.tokens import count_tokens
from homeostat.mcp_server import build_server

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "kb"
CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


def git(cwd: Path, *args: str) -> None:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    assert done.returncode == 0, done.stderr.decode()


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=CLONE_STATE)
    return root


@pytest.fixture
def web(tmp_path: Path) -> Path:
    work = tmp_path / "shop"
    work.mkdir()
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", "git@github.com:example/storefront.git")
    return work


def allow_writes(kb: Path, limit: int = 2) -> None:
    config = kb / "homeostat.yaml"
    text = config.read_text(encoding="utf-8").replace(
        "security:\n", f"security:\n  mcpWrites: true\n  mcpWriteLimit: {limit}\n"
    )
    config.write_text(text, encoding="utf-8")


def session(kb: Path, checkout: Path, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(build_server(str(kb), checkout)) as client:
            await body(client)

    anyio.run(main)


async def call(client: Client, name: str, args: dict[str, Any] | None = None) -> str:
    result = await client.call_tool(name, args or {})
    assert not result.is_error, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    assert isinstance(text, str)
    return text


def tool_list_tokens(tools: list[Any]) -> int:
    return count_tokens(
        json.dumps([t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools])
    )


def test_read_tools_only_by_default_with_honest_annotations(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        tools = (await client.list_tools()).tools
        assert sorted(t.name for t in tools) == ["context", "docs", "explain", "read", "report", "search"]
        for tool in tools:
            assert tool.annotations is not None
            assert tool.annotations.read_only_hint is True and tool.annotations.open_world_hint is False
        assert tool_list_tokens(tools) <= 1200

    session(kb, web, body)


def test_writes_when_allowed_with_annotations_and_a_small_tool_list(kb: Path, web: Path) -> None:
    allow_writes(kb)

    async def body(client: Client) -> None:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert {"learn", "flag"} <= set(tools)
        learn, flag = tools["learn"].annotations, tools["flag"].annotations
        assert learn is not None and learn.read_only_hint is False and learn.destructive_hint is False
        assert flag is not None and flag.destructive_hint is True and flag.open_world_hint is False
        assert tool_list_tokens(list(tools.values())) <= 1200

    session(kb, web, body)


def test_instructions_name_the_moments_and_the_credit_line(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        instructions = client.instructions or ""
        assert "> From Homeostat (<id>)" in instructions
        for moment in ("a bug report", "writing a test", "new code", "before a commit"):
            assert moment in instructions
        search = next(t for t in (await client.list_tools()).tools if t.name == "search")
        assert "a bug report" in (search.description or "")

    session(kb, web, body)


def test_the_repo_comes_from_the_checkout_never_from_an_argument(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        text = await call(
            client,
            "context",
            {"files": ["web/components/Card.tsx", "src/billing/api/app.py"], "repo": "billing"},
        )
        assert "(use-theme-spacing)" in text and "billing-api" not in text
        hits = await call(client, "search", {"query": "float money minor units", "repo": "billing"})
        assert "billing-api-integer-minor-units" not in hits

    session(kb, web, body)


def test_guessed_names_resolve_and_are_logged_as_desire_paths(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        text = await call(client, "get_rules", {"paths": '["web/components/Card.tsx"]', "verbose": True})
        assert "(use-theme-spacing)" in text
        assert "(use-theme-spacing)" in await call(client, "open", {"id": "use-theme-spacing"})
        assert "(use-theme-spacing)" in await call(client, "Homeostat.Read", {"target": "use-theme-spacing"})
        assert "MCP writes are off" in await call(client, "remember", {"title": "x", "rule": "y"})

    session(kb, web, body)
    with SqliteEventLog(events_path(kb)) as log:
        asked = [(e.data["asked"], e.data["tool"]) for e in log.query("desire-path")]
        calls = [e.data["tool"] for e in log.query("mcp-call")]
    assert ("get_rules", "context") in asked and ("open", "read") in asked and ("remember", "") in asked
    assert calls.count("context") == 1 and "read" in calls


def test_unknown_arguments_are_dropped_and_json_strings_parsed(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        text = await call(client, "context", {"files": '["web/components/Card.tsx"]', "mode": "fast", "x": 1})
        assert "(use-theme-spacing)" in text
        text = await call(client, "context", {"files": "web/components/Card.tsx, web/routes/legacy/a.tsx"})
        assert "(no-router-rewrite)" in text and "Rejected decisions: do not propose or do these" in text
        assert "(use-theme-spacing)" in await call(client, "search", {"q": "theme spacing", "limit": "3"})

    session(kb, web, body)


def test_expected_misses_are_normal_results(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        assert "Nothing named 'nowhere'" in await call(client, "read", {"target": "nowhere"})
        assert "No rules or document sections match" in await call(client, "search", {"query": "zzqx"})
        assert "No rule 'nope'" in await call(client, "explain", {"id": "nope"})
        assert "No documents" in await call(client, "docs")
        result = await client.call_tool("no_such_tool", {})
        assert not result.is_error and "Tools: context" in result.content[0].text  # type: ignore[union-attr]

    session(kb, web, body)


def test_the_kb_is_re_read_on_every_call(kb: Path, web: Path) -> None:
    rule = kb / "knowledge/storefront/ui/use-theme-spacing.md"

    async def body(client: Client) -> None:
        assert "no pixel values" in await call(client, "read", {"target": "use-theme-spacing"})
        rule.write_text(rule.read_text(encoding="utf-8").replace("no pixel values", "no raw pixel values"))
        assert "no raw pixel values" in await call(client, "read", {"target": "use-theme-spacing"})

    session(kb, web, body)


def test_learn_and_flag_write_pending_lessons_up_to_the_limit(kb: Path, web: Path) -> None:
    allow_writes(kb, limit=2)

    async def body(client: Client) -> None:
        text = await call(
            client,
            "learn",
            {
                "title": "Use the Grid component",
                "rule": "Lay out pages with `Grid`.",
                "area": "storefront/ui",
                "scope": '["web/components/**"]',
            },
        )
        assert "Saved as a pending new lesson" in text and "1 writes left" in text
        assert "Unknown area 'web'" in await call(client, "learn", {"title": "t", "rule": "r", "area": "web"})
        assert "No rule 'billing-api-error-status-table'" in await call(
            client, "flag", {"id": "billing-api-error-status-table", "reason": "other repo"}
        )
        assert "Saved as a pending flag" in await call(
            client, "dispute", {"rule": "use-theme-spacing", "why": "tokens renamed"}
        )
        assert "used its 2 MCP writes" in await call(
            client, "flag", {"id": "use-theme-spacing", "reason": "again"}
        )
        context = await call(client, "context", {"files": ["web/components/Card.tsx"]})
        assert "Use the Grid component" in context and "pending review" in context

    session(kb, web, body)
    lessons = [lesson for _, lesson in list_pending(kb)]
    assert sorted(lesson.kind for lesson in lessons) == ["flag", "new"]
    assert all(lesson.source == "agent-handoff" for lesson in lessons)


def test_over_stdio(kb: Path, web: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "homeostat", "mcp", "--kb", str(kb)], cwd=str(web), env=env
    )

    async def main() -> None:
        async with Client(params) as client:
            names = sorted(t.name for t in (await client.list_tools()).tools)
            assert names == ["context", "docs", "explain", "read", "report", "search"]
            assert "(use-theme-spacing)" in await call(client, "search", {"query": "theme spacing colours"})

    anyio.run(main)


def test_an_agent_cannot_write_a_secret_into_a_pending_lesson(kb: Path, web: Path) -> None:
    allow_writes(kb, limit=3)
    token = "gh" + "p_" + "Zq8Lm2Np5Rt7Vx9Bc4Df6Gh1Jk3Wy0Ue8Io2"

    async def body(client: Client) -> None:
        text = await call(
            client,
            "learn",
            {
                "title": "Call the API with the team token",
                "rule": f"Use `{token}` for the API.",
                "area": "storefront/ui",
            },
        )
        assert text.startswith("Not saved: the rule holds what looks like a secret (github-pat)")
        assert token not in text
        text = await call(
            client,
            "learn",
            {
                "title": "Scope it",
                "rule": "Keep it small.",
                "area": "storefront/ui",
                "scope": [f"web/{token}/**"],
            },
        )
        assert text.startswith("Not saved: the scope holds what looks like a secret (github-pat)")

    session(kb, web, body)
    assert list_pending(kb) == []
