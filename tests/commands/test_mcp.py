"""The MCP server through a real MCP client (the SDK's): in process, and over stdio as a subprocess."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from gitfixtures import git
from kit import FIXTURES
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcpkit import in_process

from homeostat import VERSION
from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.adapters.state.pending_store import list_pending
from homeostat.cli import main as homeostat
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.errors import HomeostatError
from homeostat.mcp_server import arguments_model, build_server

CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


@pytest.fixture
def web(tmp_path: Path) -> Path:
    work = tmp_path / "shop"
    work.mkdir()
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", "git@github.com:example/storefront.git")
    git(work, "config", "user.name", "Cy Moreau")  # a member: lessons are filed under them
    return work


def allow_writes(kb: Path, limit: int = 2) -> None:
    config = kb / "homeostat.yaml"
    text = config.read_text(encoding="utf-8").replace(
        "security:\n", f"security:\n  mcpWrites: true\n  mcpWriteLimit: {limit}\n"
    )
    config.write_text(text, encoding="utf-8")


def session(kb: Path, checkout: Path, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        async with Client(in_process(build_server(str(kb), checkout))) as client:
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


def test_start_up_reads_only_the_config_and_follows_its_edits(kb: Path, web: Path) -> None:
    """The tool list comes from security.mcpWrites alone: no corpus is built before the first call,
    a later start sees an edited homeostat.yaml, and a broken one still stops the server at start."""
    script = (
        f"import sys\nfrom pathlib import Path\nfrom homeostat.mcp_server import build_server\n"
        f"build_server({str(kb)!r}, Path({str(web)!r}))\n"
        "print('HEAVY', [m for m in sys.modules if m.startswith(('homeostat.core.selection',"
        " 'homeostat.adapters.cache.corpus_cache', 'homeostat.runs.session', 'homeostat.commands.agent.context'))])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "HEAVY []" in done.stdout, done.stderr
    server = build_server(str(kb), web)
    assert server.service.loaded is None and not list((kb / ".homeostat").glob("index/corpus-*"))
    assert not server.writes
    allow_writes(kb, limit=3)
    server = build_server(str(kb), web)
    assert server.writes and server.service.write_limit == 3 and server.service.loaded is None

    async def body(client: Client) -> None:
        assert {"learn", "flag"} <= {t.name for t in (await client.list_tools()).tools}
        assert "(use-theme-spacing)" in await call(client, "search", {"query": "theme spacing"})

    session(kb, web, body)
    config = kb / "homeostat.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "team: [\n", encoding="utf-8")
    with pytest.raises(HomeostatError, match="homeostat.yaml"):
        build_server(str(kb), web)


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
        assert "Saved as a pending new lesson" in text and "1 write left" in text
        assert "unknown area 'web': use one of billing/api" in await call(
            client, "learn", {"title": "t", "rule": "r", "area": "web"}
        )
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
            rule = kb / "knowledge/storefront/ui/use-theme-spacing.md"  # edited between two calls
            rule.write_text(rule.read_text(encoding="utf-8").replace("no pixel values", "no quokka values"))
            assert "no quokka values" in await call(client, "read", {"target": "use-theme-spacing"})

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


def test_an_unknown_tool_is_a_protocol_error_naming_the_tools(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("no_such_tool", {})
        assert raised.value.error.code == -32602
        assert "Unknown tool 'no_such_tool'; the tools are: context, search" in raised.value.error.message

    session(kb, web, body)


def test_claude_codes_own_tool_names_resolve(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        assert "(use-theme-spacing)" in await call(
            client, "mcp__homeostat__search", {"query": "theme spacing"}
        )
        assert "(use-theme-spacing)" in await call(
            client, "mcp__homeostat__read", {"target": "use-theme-spacing"}
        )

    session(kb, web, body)


def test_the_server_names_its_version_and_advertises_only_tools(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        assert client.server_info is not None
        assert (client.server_info.name, client.server_info.version) == ("homeostat", VERSION)
        capabilities = client.server_capabilities
        assert capabilities.tools is not None
        assert capabilities.prompts is None and capabilities.resources is None
        with pytest.raises(MCPError) as raised:
            await client.list_prompts()
        assert raised.value.error.code == -32601  # method not found

    session(kb, web, body)


def test_learns_schema_keeps_its_title_argument(kb: Path, web: Path) -> None:
    allow_writes(kb)

    async def body(client: Client) -> None:
        learn = next(t for t in (await client.list_tools()).tools if t.name == "learn")
        schema = learn.input_schema
        assert {"title", "rule", "area", "why", "topic", "scope", "kind"} <= set(schema["properties"])
        assert set(schema["required"]) == {"title", "rule", "area"}
        assert all("title" not in prop for prop in schema["properties"].values())
        assert "title" not in schema

    session(kb, web, body)


def test_a_budget_or_limit_out_of_range_is_clamped_and_said(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        text = await call(client, "context", {"files": ["web/components/Card.tsx"], "budget": 5})
        assert text.startswith("(budget 5 is outside 100 to 100000 tokens; used 100.)\n")
        text = await call(client, "search", {"query": "theme spacing", "limit": 0})
        assert text.startswith("(limit 0 is outside 1 to 50; used 1.)\n")
        text = await call(client, "report", {"days": 10**7})
        assert text.startswith("(days 10000000 is outside 1 to 3650; used 3650.)\n")

    session(kb, web, body)


def test_arguments_of_the_wrong_type_are_named_without_pydantic_internals(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        result = await client.call_tool("search", {"query": "x", "limit": "many"})
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith("Invalid arguments for search: `limit`: Input should be a valid integer")
        assert "pydantic" not in text and "validation error" not in text and "type=" not in text
        result = await client.call_tool("read", {})
        assert result.content[0].text == "Invalid arguments for read: `target`: missing."  # type: ignore[union-attr]

    session(kb, web, body)


def test_a_path_holding_a_nul_is_named_not_a_failure(kb: Path, web: Path) -> None:
    """No file's path holds a NUL and the OS refuses to look one up: `context` says so of the path
    it was given (the fuzz run found it answering "could not answer ... embedded null byte")."""

    async def body(client: Client) -> None:
        result = await client.call_tool("context", {"files": ["src/ok.py", "src/a\x00b.py"]})
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert text == "files: 'src/a\\x00b.py' holds a NUL character, which no path can"

    session(kb, web, body)


def test_a_kb_broken_mid_session_answers_with_its_message_and_no_traceback(
    kb: Path, web: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "homeostat", "mcp", "--kb", str(kb)], cwd=str(web), env=env
    )
    errors = tmp_path / "stderr.txt"
    config = kb / "homeostat.yaml"

    async def main() -> None:
        with errors.open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                assert "(use-theme-spacing)" in await call(client, "search", {"query": "theme spacing"})
                config.write_text(config.read_text(encoding="utf-8") + "team: [\n", encoding="utf-8")
                for name, args in (("search", {"query": "x"}), ("context", {}), ("docs", {}), ("report", {})):
                    result = await client.call_tool(name, args)
                    assert result.is_error
                    text = result.content[0].text  # type: ignore[union-attr]
                    assert text.startswith("homeostat.yaml:") and "invalid YAML" in text, text

    anyio.run(main)
    assert "Traceback" not in errors.read_text()


def test_learn_refuses_a_stranger_and_asks_for_the_topic_its_area_needs(kb: Path, web: Path) -> None:
    allow_writes(kb, limit=5)
    stranger = web.parent / "stranger"
    shutil.copytree(web, stranger)
    git(stranger, "config", "user.name", "Somebody Else")
    lesson = {"title": "Return problem+json", "rule": "Return errors as problem+json.", "area": "billing/api"}

    async def as_stranger(client: Client) -> None:
        assert "git user (Somebody Else) is not in team.members" in await call(client, "learn", lesson)
        assert "is not in team.members" in await call(
            client, "flag", {"id": "use-theme-spacing", "reason": "x"}
        )

    session(kb, stranger, as_stranger)

    async def as_member(client: Client) -> None:
        text = await call(client, "learn", lesson)
        assert (
            text
            == "Not saved: area billing/api groups rules by topic: pass `topic` with one of errors, money."
        )
        text = await call(client, "learn", {**lesson, "topic": "nope"})
        assert "unknown topic 'nope' for billing/api: use one of errors, money (`topic`)" in text
        assert "Saved as a pending new lesson" in await call(client, "learn", {**lesson, "topic": "errors"})

    session(kb, web, as_member)
    assert [lesson.author for _, lesson in list_pending(kb)] == ["cy"]


def test_the_corpus_is_kept_between_calls_until_the_kb_changes(kb: Path, web: Path) -> None:
    """The server holds what it loaded while the KB's key is unchanged; an edit is seen on the next
    call, by search (the corpus) and by explain and report (the KB itself)."""
    server = build_server(str(kb), web)
    rule = kb / "knowledge/storefront/ui/use-theme-spacing.md"

    async def main() -> None:
        async with Client(in_process(server)) as client:
            await call(client, "search", {"query": "theme spacing"})
            before = await call(client, "explain", {"id": "use-theme-spacing"})
            report = await call(client, "report")
            await call(client, "search", {"query": "theme spacing"})
            assert server.service.loaded is not None and server.service.loaded.reason == "kept"
            kept_kb = server.service.kb_of(server.service.session())

            text = rule.read_text(encoding="utf-8").replace(
                "title: Take spacing", "title: Take zebrapixel spacing"
            )
            rule.write_text(text, encoding="utf-8")
            assert "(use-theme-spacing)" in await call(client, "search", {"query": "zebrapixel"})
            assert server.service.loaded.reason != "kept"
            assert "zebrapixel" in await call(client, "explain", {"id": "use-theme-spacing"})
            assert "zebrapixel" not in before
            assert server.service.kb_of(server.service.session()) is not kept_kb

            rule.unlink()
            assert "No rule" in await call(client, "explain", {"id": "use-theme-spacing"})
            assert await call(client, "report") != report
            assert "(use-theme-spacing)" not in await call(client, "search", {"query": "zebrapixel"})

    anyio.run(main)


def test_a_pull_into_a_git_kb_is_seen_by_the_next_call(kb: Path, web: Path) -> None:
    """A KB in git: the key is git's tree, so a commit (as a pull makes) replaces what the server holds."""
    git(kb, "init", "--quiet")
    git(kb, "add", "-A")
    git(kb, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "kb")
    rule = kb / "knowledge/storefront/ui/use-theme-spacing.md"

    async def body(client: Client) -> None:
        assert "quokka" not in await call(client, "explain", {"id": "use-theme-spacing"})
        assert "no pixel values" in await call(client, "read", {"target": "use-theme-spacing"})
        text = rule.read_text(encoding="utf-8").replace("no pixel values", "no quokka values")
        rule.write_text(text.replace("title: Take spacing", "title: Take quokka spacing"), encoding="utf-8")
        git(kb, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-am", "pull")
        assert "no quokka values" in await call(client, "read", {"target": "use-theme-spacing"})
        assert "Take quokka spacing" in await call(client, "explain", {"id": "use-theme-spacing"})

    session(kb, web, body)


def test_a_broken_rule_is_counted_and_a_huge_one_is_cut_for_agents_too(kb: Path, web: Path) -> None:
    rule = kb / "knowledge/core/log-with-fields.md"
    rule.write_text(rule.read_text(encoding="utf-8") + "\n## Example\n" + "log.info('x', a=1)\n" * 100_000)
    broken = kb / "knowledge/storefront/ui/no-router-rewrite.md"
    broken.write_text(broken.read_text(encoding="utf-8").replace("title: Do not", "title: [Do not"))

    async def body(client: Client) -> None:
        text = await call(client, "read", {"target": "log-with-fields"})
        assert text.rstrip().endswith("(cut at 4000 tokens; read a section)") and len(text) < 20_000
        text = await call(client, "report", {})
        assert (
            "Unreadable, left out of what agents read: 1 (knowledge/storefront/ui/no-router-rewrite.md:4:"
            in text
        )

    session(kb, web, body)


def test_a_checkout_that_matches_no_repo_is_said_first(kb: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    git(elsewhere, "init", "--quiet")
    git(elsewhere, "remote", "add", "origin", "https://github.com/example/unknown")

    async def body(client: Client) -> None:
        for name, args in (("search", {"query": "theme spacing"}), ("docs", {}), ("read", {"target": "x"})):
            first = (await call(client, name, args)).splitlines()[0]
            assert first.startswith(
                "(The checkout (origin https://github.com/example/unknown) matches no repo"
            ), name
            assert "repos: billing, storefront" in first and "repos[].url" in first, name

    session(kb, elsewhere, body)


def test_while_nothing_changes_the_key_is_not_worked_out_and_any_change_is_seen(
    kb: Path, web: Path, tmp_path: Path
) -> None:
    """The server trusts the kernel's watches between edits (no git, no stat of every file), and an
    edit of any kind — in place, by rename, a new folder, a pending lesson, a deleted folder — is
    answered from on the next call."""
    server = build_server(str(kb), web)
    rule = kb / "knowledge/storefront/ui/use-theme-spacing.md"
    original = rule.read_text(encoding="utf-8")

    async def main() -> None:
        async with Client(in_process(server)) as client:
            await call(client, "search", {"query": "theme spacing"})
            held = server.service.session()
            if server.service.watch is None:
                pytest.skip("no inotify here: every call works the key out")
            for _ in range(3):
                await call(client, "docs")
                assert server.service.session() is held
            (kb / "README.md").write_text("notes", encoding="utf-8")  # not part of the KB
            await call(client, "search", {"query": "theme spacing"})
            assert server.service.session() is held

            renamed = tmp_path / "edited.md"  # an editor's atomic save
            renamed.write_text(original.replace("title: Take spacing", "title: Take wombat spacing"))
            os.replace(renamed, rule)
            assert "(use-theme-spacing)" in await call(client, "search", {"query": "wombat"})

            folder = kb / "knowledge/storefront/ux"
            folder.mkdir()
            (folder / "tidy-forms.md").write_text(
                original.replace("id: use-theme-spacing", "id: tidy-forms")
                .replace("area: storefront/ui", "area: storefront/ux")
                .replace("title: Take spacing", "title: Take narwhal spacing"),
                encoding="utf-8",
            )
            assert "(tidy-forms)" in await call(client, "search", {"query": "narwhal"})
            added = folder / "tidy-forms.md"  # in place (same file), in the new folder
            added.write_text(added.read_text().replace("no pixel values", "no ocelot values"))
            assert "ocelot" in await call(client, "read", {"target": "tidy-forms"})
            shutil.rmtree(folder)
            assert "No rule" in await call(client, "explain", {"id": "tidy-forms"})

    anyio.run(main)


def test_a_pending_lesson_written_by_another_process_is_served_on_the_next_call(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        assert "quagga" not in await call(client, "context", {"files": ["web/components/Card.tsx"]})
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "homeostat",
                "learn",
                "--kb",
                str(kb),
                "--author",
                "cy",
                "--area",
                "storefront/ui",
                "--scope",
                "web/components/**",
                "--title",
                "Name quagga props after the theme",
                "--rule",
                "Name quagga props after the theme tokens they take.",
                "--why",
                "Reviewers asked for it twice.",
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "quagga" in await call(client, "context", {"files": ["web/components/Card.tsx"]})

    session(kb, web, body)


def test_explain_names_contradictions_and_near_duplicates_the_same_on_every_call(kb: Path, web: Path) -> None:
    """explain keeps each rule's words with the loaded KB: its conflicts read the same on the first
    call, the next, and from the command line, and follow an edit."""
    ui = kb / "knowledge/storefront/ui"
    original = (ui / "use-theme-spacing.md").read_text(encoding="utf-8")
    (ui / "theme-spacing-again.md").write_text(
        original.replace("id: use-theme-spacing", "id: theme-spacing-again"), encoding="utf-8"
    )
    (ui / "pixel-spacing.md").write_text(
        original.replace("id: use-theme-spacing", "id: pixel-spacing\ncontradicts: [use-theme-spacing]")
        .replace("title: Take spacing and colours from the theme", "title: Pixel spacing is fine in emails")
        .replace(
            "Use `theme.space` and `theme.color` in components under `web/components/`; no pixel values or "
            "hex colours in styles.",
            "Email templates take fixed pixel sizes inline: mail clients drop stylesheets.",
        ),
        encoding="utf-8",
    )
    expected = "  conflicts: ['contradicted by pixel-spacing', 'near-duplicate of theme-spacing-again']"
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "homeostat",
            "explain",
            "use-theme-spacing",
            "--kb",
            str(kb),
            "--checkout",
            str(web),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert expected in cli.stdout.splitlines(), cli.stdout + cli.stderr

    async def body(client: Client) -> None:
        first = await call(client, "explain", {"id": "use-theme-spacing"})
        assert expected in first.splitlines()
        assert first == cli.stdout
        assert await call(client, "explain", {"id": "use-theme-spacing"}) == first
        assert (
            "  conflicts: ['contradicts use-theme-spacing']"
            in (await call(client, "explain", {"id": "pixel-spacing"})).splitlines()
        )
        (ui / "theme-spacing-again.md").unlink()
        assert (
            "  conflicts: ['contradicted by pixel-spacing']"
            in (await call(client, "explain", {"id": "use-theme-spacing"})).splitlines()
        )

    session(kb, web, body)


# --- the protocol, as a client meets it over stdio --------------------------------------------------


def start_stdio(kb: Path, checkout: Path) -> subprocess.Popen[bytes]:
    """The server as a client starts it; its reply lines are read into `server.replies` (a queue)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    server = subprocess.Popen(
        [sys.executable, "-m", "homeostat", "mcp", "--kb", str(kb)],
        cwd=checkout,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    replies: queue.Queue[bytes] = queue.Queue()
    assert server.stdout is not None
    threading.Thread(target=lambda: [replies.put(line) for line in server.stdout or ()], daemon=True).start()
    server.replies = replies  # type: ignore[attr-defined]
    return server


def exchange(server: subprocess.Popen[bytes], line: bytes) -> dict[str, Any]:
    """Send one line and read the next reply; a server that never answers fails the test (in 60 s)."""
    assert server.stdin is not None
    server.stdin.write(line + b"\n")
    server.stdin.flush()
    try:
        reply = json.loads(server.replies.get(timeout=60))  # type: ignore[attr-defined]
    except queue.Empty:
        pytest.fail(f"no reply to {line[:60]!r}")
    assert isinstance(reply, dict)
    return reply


INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
).encode()


def test_every_malformed_frame_gets_its_json_rpc_error_and_the_session_goes_on(kb: Path, web: Path) -> None:
    server = start_stdio(kb, web)
    try:
        assert exchange(server, INITIALIZE)["result"]["protocolVersion"] == "2025-11-25"
        assert server.stdin is not None
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')  # never answered
        for line, code in (
            (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/li', -32700),
            (b"\xff\xfe not utf-8", -32700),
            (b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', -32600),  # batches left MCP in 2025-06-18
            (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
            (b'{"jsonrpc": "2.0", "id": 3}', -32600),
            (b'{"jsonrpc": "2.0", "id": 4, "method": "prompts/list"}', -32601),
            (b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}}', -32602),
            (b'{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": ["search"]}', -32602),
        ):
            reply = exchange(server, line)
            assert reply["error"]["code"] == code, (line, reply)
        reply = exchange(server, b'{"jsonrpc": "2.0", "id": "p", "method": "ping"}')
        assert reply == {"jsonrpc": "2.0", "id": "p", "result": {}}
    finally:
        server.kill()
        server.wait()


def test_sigint_ends_the_server_while_stdin_is_still_open(kb: Path, web: Path) -> None:
    """Claude Code ends a session with SIGINT and only then SIGTERM: the server goes on the first."""
    server = start_stdio(kb, web)
    try:
        assert "result" in exchange(server, INITIALIZE)
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0
        assert server.stderr is not None and b"Traceback" not in server.stderr.read()
    finally:
        server.kill()
        server.wait()


def test_the_handshake_and_tool_list_load_neither_the_sdk_nor_pydantic(kb: Path, web: Path) -> None:
    """What a client waits for before a session's first turn is answered from our own code, once the
    KB's settings are cached (the first start after an edit of homeostat.yaml parses it); the first
    call loads pydantic to check its arguments."""
    build_server(str(kb), web)
    script = (
        "import sys\nfrom pathlib import Path\nfrom homeostat.mcp_server import build_server\n"
        "from homeostat.mcp_stdio import answer_line\n"
        f"server = build_server({str(kb)!r}, Path({str(web)!r}))\n"
        f"answer_line(server, {INITIALIZE!r})\n"
        'answer_line(server, \'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\')\n'
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'mcp_types', 'pydantic'}))\n"
        "print('GIT', 'homeostat.adapters.git.branch_task' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "LOADED []" in done.stdout, done.stdout + done.stderr
    assert "GIT False" in done.stdout  # the checkout's branch is read by the first call that ranks


def test_the_tool_schemas_are_the_ones_pydantic_checks_the_arguments_with(kb: Path, web: Path) -> None:
    """The tool list's schemas are written from the signatures without pydantic; each equals the
    schema of the model the call's arguments are validated with (less pydantic's titles)."""
    allow_writes(kb)
    server = build_server(str(kb), web)

    def untitled(schema: Any) -> Any:
        if isinstance(schema, dict):
            return {
                k: {n: untitled(v) for n, v in v.items()} if k == "properties" else untitled(v)
                for k, v in schema.items()
                if not (k == "title" and isinstance(v, str))
            }
        return [untitled(v) for v in schema] if isinstance(schema, list) else schema

    assert len(server.tools) == 8
    for tool in server.tools.values():
        assert tool.input_schema == untitled(arguments_model(tool.fn).model_json_schema()), tool.name


def test_descriptions_are_one_line_without_the_source_indentation(kb: Path, web: Path) -> None:
    allow_writes(kb)

    async def body(client: Client) -> None:
        for tool in (await client.list_tools()).tools:
            assert tool.description and "\n" not in tool.description and "  " not in tool.description

    session(kb, web, body)


def test_arguments_that_are_not_an_object_are_a_tool_error_the_model_can_correct(kb: Path, web: Path) -> None:
    server = start_stdio(kb, web)
    try:
        assert "result" in exchange(server, INITIALIZE)
        for arguments in ('"theme spacing"', "[1, 2]", "7", '"{\\"query\\": 1"'):
            line = f'{{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{"name": "search", "arguments": {arguments}}}}}'
            result = exchange(server, line.encode())["result"]
            assert result["isError"] is True, arguments
            assert result["content"][0]["text"].startswith("Invalid arguments for search: send an object")
        line = '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": "{\\"query\\": \\"theme spacing\\"}"}}'
        result = exchange(server, line.encode())["result"]  # the object sent as a JSON string is read
        assert "isError" not in result and "(use-theme-spacing)" in result["content"][0]["text"]
    finally:
        server.kill()
        server.wait()


def test_claude_codes_plugin_tool_names_resolve(kb: Path, web: Path) -> None:
    async def body(client: Client) -> None:
        text = await call(client, "mcp__plugin_homeostat_homeostat__search", {"query": "theme spacing"})
        assert "(use-theme-spacing)" in text

    session(kb, web, body)
    with SqliteEventLog(events_path(kb)) as log:
        asked = [(e.data["asked"], e.data["tool"]) for e in log.query("desire-path")]
    assert asked == [("mcp__plugin_homeostat_homeostat__search", "search")]


# --- the task signal: what the checkout says the agent is working on -------------------------------

REVIEWS = FIXTURES / "reviews"  # rules written from real pip and Flask review threads
UNPACKING = "src/pip/_internal/utils/unpacking.py"
COMMONPATH = "commonpath-not-commonprefix"  # a `**/*.py` rule: "Use os.path.commonpath, never commonprefix"


@pytest.fixture
def reviews(tmp_path: Path) -> Path:
    root = tmp_path / "reviews"
    shutil.copytree(REVIEWS, root, ignore=CLONE_STATE)
    return root


@pytest.fixture
def pip(tmp_path: Path) -> Path:
    """A clone of pip (found by its origin) whose main ends in a merge, as a contributor's does."""
    work = tmp_path / "pip"
    (work / UNPACKING).parent.mkdir(parents=True)
    git(work, "init", "--quiet", "--initial-branch=main")
    git(work, "remote", "add", "origin", "https://github.com/pypa/pip.git")
    (work / UNPACKING).write_text("def untar_file(): ...\n", encoding="utf-8")
    git(work, "add", "--all")
    git(work, "commit", "--quiet", "-m", "Merge pull request #1 from upstream/main")
    return work


def work_on(checkout: Path, branch: str, subject: str) -> None:
    git(checkout, "switch", "--quiet", "-c", branch)
    with (checkout / UNPACKING).open("a", encoding="utf-8") as edit:
        edit.write(f"# {branch}\n")
    git(checkout, "commit", "--quiet", "--all", "-m", subject)


def rule_ids(view: str) -> list[str]:
    """The rules a view serves, in order: each rule's bold title line ends with its id."""
    return [line.rsplit("(", 1)[1].rstrip(")") for line in view.splitlines() if line.startswith("**")]


def test_context_ranks_by_the_checkouts_branch_and_commits_as_the_session_start_does(
    reviews: Path, pip: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A client that sends only `files` (Cursor, Codex, a script) is served what the session hook
    serves for the same work: on a branch about commonpath, the KB's rule about it comes first; on
    a branch about something else the same files leave it out. The next call sees the switch."""
    work_on(pip, "download-progress", "Show download progress while fetching")

    async def body(client: Client) -> None:
        elsewhere = await call(client, "context", {"files": [UNPACKING], "budget": 600})
        assert rule_ids(elsewhere) and COMMONPATH not in rule_ids(elsewhere)
        work_on(pip, "commonpath", "Use os.path.commonpath() instead of commonprefix()")
        on_topic = await call(client, "context", {"files": [UNPACKING], "budget": 600})
        assert rule_ids(on_topic)[0] == COMMONPATH
        why = await call(client, "explain", {"id": COMMONPATH, "files": [UNPACKING]})
        assert "for these files: #1 of" in why and "lifted by the task" in why

        code, hook, _ = run_cli(
            capsys, "context", "--kb", str(reviews), "--checkout", str(pip), "--budget", "600"
        )
        assert code == 0 and on_topic.startswith(hook)  # the session start's view, files and words from git

    session(reviews, pip, body)


def test_task_text_ranks_without_git_and_a_detached_head_still_counts_its_commits(
    reviews: Path, pip: Path, tmp_path: Path
) -> None:
    """What the tool description promises: `task` alone lifts the rule it names, in a folder with no
    git at all (the repo then comes from the folder's name); a detached HEAD keeps its commits."""
    plain = tmp_path / "elsewhere" / "pip"
    (plain / UNPACKING).parent.mkdir(parents=True)

    async def no_git(client: Client) -> None:
        bare = await call(client, "context", {"files": [UNPACKING], "budget": 600})
        assert rule_ids(bare) and COMMONPATH not in rule_ids(bare)
        told = await call(
            client,
            "context",
            {"files": [UNPACKING], "budget": 600, "task": "swap commonprefix for commonpath"},
        )
        assert rule_ids(told)[0] == COMMONPATH

    session(reviews, plain, no_git)
    work_on(pip, "commonpath", "Use os.path.commonpath() instead of commonprefix()")
    git(pip, "switch", "--quiet", "--detach")

    async def detached(client: Client) -> None:
        served = await call(client, "context", {"files": [UNPACKING], "budget": 600})
        assert rule_ids(served)[0] == COMMONPATH

    session(reviews, pip, detached)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = homeostat(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_learn_refuses_a_scope_naming_no_language(kb: Path, web: Path) -> None:
    allow_writes(kb, limit=5)
    lesson = {"title": "Log in fields", "rule": "Pass values as fields.", "area": "storefront/ui"}

    async def as_member(client: Client) -> None:
        text = await call(client, "learn", {**lesson, "scope": ["lang:cobol"]})
        assert text.startswith("Not saved: `scope` 'lang:cobol' names no language: use one of c, cpp,"), text
        assert "Saved as a pending new lesson" in await call(
            client, "learn", {**lesson, "scope": ["lang:ts"]}
        )

    session(kb, web, as_member)
    assert [lesson.scope for _, lesson in list_pending(kb)] == [("lang:ts",)]
