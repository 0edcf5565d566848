"""The plugin in the real Claude Code (npm, 2.1.332), headless against the Anthropic stub, and the MCP
server under the real MCP Inspector CLI (2.12.0). What reaches the model is read from the requests
the stub recorded; nothing may reach anything but the stub (`claudekit.EgressSink`)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from claudekit import (
    PLUGIN,
    PLUGIN_TOOL_PREFIX,
    REPO,
    ClaudeCode,
    Script,
    claude_code,
    flat,
    tool_results,
    tool_use,
)
from gitfixtures import git

from homeostat import VERSION
from homeostat.adapters.state.pending_store import list_pending

EXAMPLE = REPO / "examples" / "kb"
HOMEOSTAT = Path(sys.executable).with_name("homeostat")  # this checkout's, as pip installs it
SEARCH = PLUGIN_TOOL_PREFIX + "search"
RULES_HEADING = "# Team rules for these files (Homeostat)"


@pytest.fixture
def claude(tmp_path: Path) -> Iterator[ClaudeCode]:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Cy Moreau\n\temail = cy@example.com\n"
    )  # the developer
    yield from claude_code(home)


@pytest.fixture
def kb(claude: ClaudeCode) -> Path:
    """The team's KB clone where docs/plugin.md puts it: ~/src/acme-kb."""
    root = claude.home / "src" / "acme-kb"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns(".homeostat"))
    config = root / "homeostat.yaml"  # the developer's entry knows their git email, as setup.md asks
    text = config.read_text().replace("name: Cy Moreau\n", "name: Cy Moreau\n      email: cy@example.com\n")
    assert "cy@example.com" in text
    config.write_text(text)
    return root


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A developer's code checkout of the storefront repo, committed and clean."""
    work = tmp_path / "shop"
    (work / "web" / "components").mkdir(parents=True)
    (work / "web" / "components" / "Card.tsx").write_text("export const Card = () => null;\n")
    git(work, "init", "--quiet")
    git(work, "remote", "add", "origin", "git@github.com:example/storefront.git")
    git(work, "add", "-A")
    git(work, "commit", "--quiet", "-m", "start")
    return work


def untracked(checkout: Path) -> list[str]:
    """What `git status` shows in the checkout, ignored files included: all of it is news to the user."""
    return git(checkout, "status", "--porcelain", "--ignored", "--untracked-files=all").splitlines()


def first_turn(claude: ClaudeCode) -> str:
    turns = claude.turns()
    assert turns, f"no request of the agent reached the stub: {[r.path for r in claude.stub.requests]}"
    return flat(turns[0].json.get("messages"))


def the_install_steps() -> tuple[list[str], list[str]]:
    """The two shell blocks of docs/plugin.md's Install section, line by line, as a user copies them."""
    section = (REPO / "docs" / "plugin.md").read_text().split("## Install", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "docs/plugin.md's Install section has changed shape: follow it here too"
    steps = [[line.strip() for line in block.splitlines() if line.strip()] for block in blocks]
    return steps[0], steps[1]


def shell(claude: ClaudeCode, line: str) -> None:
    """One line of the docs, run by sh as a user's terminal would, with `claude` on PATH."""
    env = claude.env()
    env["PATH"] = f"{claude.tools.claude.parent}:{env['PATH']}"
    done = subprocess.run(["sh", "-c", line], cwd=claude.home, env=env, capture_output=True, text=True)
    assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"


def search_then_answer(query: str) -> Script:
    """The model loads the deferred search tool through ToolSearch, calls it, then answers."""
    return Script(
        [
            [tool_use("ToolSearch", {"query": f"select:{SEARCH}", "max_results": 1}, "toolu_find")],
            [tool_use(SEARCH, {"query": query}, "toolu_search")],
        ]
    )


def skill_command(pattern: str, fill: dict[str, str]) -> Script:
    """The model runs, through Bash, the skill's own command (found by `pattern` in what Claude Code
    sent it, so the command is the SKILL.md's, with Claude Code's substitutions), with `fill` applied."""

    def run(request: object) -> list[dict[str, object]]:
        sent = flat(request.json.get("messages"))  # type: ignore[attr-defined]
        found = re.search(pattern, sent)
        assert found, f"the skill's command is not in the request: {pattern}"
        command = found.group(1)
        for placeholder, value in fill.items():
            command = command.replace(placeholder, value)
        return [tool_use("Bash", {"command": command}, "toolu_skill")]

    return Script([run])


# --- installed exactly as docs/plugin.md says ------------------------------------------------------


def test_installed_as_the_docs_say_a_session_gets_the_rules_the_tools_and_the_skills(
    claude: ClaudeCode, kb: Path, shop: Path, tmp_path: Path
) -> None:
    """docs/plugin.md, line by line: Homeostat in ~/.local/share/homeostat/versions/<version>, the
    marketplace added from a clone of this repository and the plugin installed with `kb_dir`, and no
    variable the docs do not ask for: the hooks find Homeostat although Claude Code sets
    CLAUDE_PLUGIN_DATA, and the MCP server and the skills find the KB from `kb_dir` alone."""
    homeostat_steps, plugin_steps = the_install_steps()
    venv = f"~/.local/share/homeostat/versions/{VERSION}"
    assert homeostat_steps == [f"python3 -m venv {venv}", f"{venv}/bin/pip install homeostat-kb=={VERSION}"]
    shell(claude, homeostat_steps[0])
    # The second line installs the package this checkout builds; put this build's program in its place.
    installed = claude.home / ".local/share/homeostat/versions" / VERSION / "bin" / "homeostat"
    installed.unlink(missing_ok=True)
    installed.symlink_to(HOMEOSTAT)

    clone = tmp_path / "homeostat"  # "a clone of this repository": the marketplace and the plugin
    shutil.copytree(REPO / ".claude-plugin", clone / ".claude-plugin")
    shutil.copytree(PLUGIN, clone / "plugin")
    for target in (clone, clone / "plugin"):
        checked = claude.run("plugin", "validate", str(target), cwd=claude.home)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.rstrip().endswith("✔ Validation passed"), checked.stdout
    assert plugin_steps == [
        "claude plugin marketplace add homeostat/homeostat",
        'claude plugin install homeostat@homeostat --config kb_dir="$HOME/src/acme-kb"',
    ]
    shell(claude, plugin_steps[0].replace("homeostat/homeostat", str(clone)))
    shell(claude, plugin_steps[1])
    before = untracked(shop)

    claude.stub.converse(search_then_answer("theme spacing"))
    claude.ask("Add structured logging with fields to the card", cwd=shop, args=["--allowedTools", SEARCH])
    sent = first_turn(claude)
    assert sent.count(f"SessionStart hook additional context: {RULES_HEADING}") == 1
    assert "(use-theme-spacing)" in sent  # the storefront rule for the checkout
    prompt_context = sent.split("UserPromptSubmit hook additional context:", 1)[1]
    assert "(log-with-fields)" in prompt_context  # the rule the prompt matches
    assert SEARCH in sent and PLUGIN_TOOL_PREFIX + "context" in sent  # offered, as deferred tools
    results = tool_results(claude.turns()[-1])
    assert "(use-theme-spacing)" in results["toolu_search"]  # the MCP server read the KB from kb_dir

    claude.stub.requests.clear()
    claude.stub.converse(skill_command(r'`("[^"`]+/bin/homeostat" explain [^`]*)`', {}))
    claude.ask("/homeostat:explain use-theme-spacing", cwd=shop, args=["--allowedTools", "Bash"])
    explained = tool_results(claude.turns()[-1])["toolu_skill"]
    assert explained.startswith("use-theme-spacing: Take spacing and colours from the theme"), explained
    assert "owner: web" in explained

    claude.stub.requests.clear()
    lesson = {
        '"…" --rule "…" --why "…" --area <area>': (
            '"Lay out pages with Grid" --rule "Lay out pages with the Grid component." '
            '--why "Reviewers asked twice." --area storefront/ui'
        )
    }
    claude.stub.converse(skill_command(r'`("[^"`]+/bin/homeostat" learn --title [^`]*)`', lesson))
    claude.ask("/homeostat:learn use Grid for page layout", cwd=shop, args=["--allowedTools", "Bash"])
    saved = tool_results(claude.turns()[-1])["toolu_skill"]
    assert "Lay out pages with Grid" in [entry.title for _, entry in list_pending(kb)], saved

    assert untracked(shop) == before == []
    assert claude.left_the_machine() == []


# --- one-off sessions with --plugin-dir ------------------------------------------------------------


def test_a_busy_session_is_asked_for_a_handoff_note_once(claude: ClaudeCode, kb: Path, shop: Path) -> None:
    def write(n: int) -> list[dict[str, object]]:  # the model writes one new file per turn
        content = {"file_path": str(shop / f"web/part{n}.ts"), "content": f"export const p{n} = {n};\n"}
        return [tool_use("Write", content, f"toolu_w{n}")]

    claude.stub.converse(Script([write(n) for n in range(5)]))
    claude.ask(
        "Split the card into five parts",
        cwd=shop,
        args=["--plugin-dir", str(PLUGIN), "--allowedTools", "Write"],
        env={"HOMEOSTAT_BIN": str(HOMEOSTAT), "HOMEOSTAT_DIR": str(kb)},
    )
    turns = claude.turns()
    asked = "Homeostat: this session made 5 edits."
    first_asked = next(number for number, turn in enumerate(turns) if asked in flat(turn.json["messages"]))
    assert first_asked == 6  # after the five edits and the answer that ended the turn
    assert flat(turns[-1].json["messages"]).count(asked) == 1 and len(turns) == 7  # asked once, then done
    assert f"learn --kb {json.dumps(str(kb.resolve()))} --source agent-handoff" in flat(
        turns[-1].json["messages"]
    )
    assert sorted(untracked(shop)) == [f"?? web/part{n}.ts" for n in range(5)]  # the agent's, nothing else
    assert claude.left_the_machine() == []


def test_a_session_with_no_homeostat_to_run_says_so_once(claude: ClaudeCode, kb: Path, shop: Path) -> None:
    claude.stub.converse(Script([]))
    claude.ask("hello", cwd=shop, args=["--plugin-dir", str(PLUGIN)], env={"HOMEOSTAT_DIR": str(kb)})
    sent = first_turn(claude)
    assert sent.count(f"Homeostat {VERSION} is not installed") == 1
    assert "docs/plugin.md" in sent and RULES_HEADING not in sent
    assert untracked(shop) == []
    assert claude.left_the_machine() == []


def test_the_egress_watch_sees_a_request_for_anywhere_but_the_stub(claude: ClaudeCode, shop: Path) -> None:
    """What makes `left_the_machine() == []` mean something: with its non-essential traffic allowed,
    Claude Code tries to reach its own hosts, and the refusing proxy records it."""
    claude.stub.converse(Script([]))
    allowed = {
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "",
        "DISABLE_TELEMETRY": "",
        "DISABLE_ERROR_REPORTING": "",
    }
    claude.ask("hello", cwd=shop, env=allowed)
    for _ in range(100):  # sent in the background: it may land after the answer
        if claude.sink.attempts:
            break
        time.sleep(0.05)
    assert any(line.startswith("proxy: CONNECT ") for line in claude.left_the_machine()), claude.sink.attempts


def test_with_homeostat_dir_instead_of_kb_dir_the_mcp_server_and_skills_find_the_kb(
    claude: ClaudeCode, kb: Path, shop: Path
) -> None:
    """The other documented way to name the KB: `kb_dir` unset (an empty value reaches the MCP server,
    and the skills' `--kb` placeholder stays unfilled), $HOMEOSTAT_DIR set."""
    env = {"HOMEOSTAT_BIN": str(HOMEOSTAT), "HOMEOSTAT_DIR": str(kb)}
    claude.stub.converse(search_then_answer("theme spacing"))
    claude.ask(
        "Fix the card's spacing",
        cwd=shop,
        args=["--plugin-dir", str(PLUGIN), "--allowedTools", SEARCH],
        env=env,
    )
    assert "(use-theme-spacing)" in tool_results(claude.turns()[-1])["toolu_search"]

    claude.stub.requests.clear()
    claude.stub.converse(skill_command(r'`("[^"`]+/bin/homeostat" explain [^`]*)`', {}))
    claude.ask(
        "/homeostat:explain use-theme-spacing",
        cwd=shop,
        args=["--plugin-dir", str(PLUGIN), "--allowedTools", "Bash"],
        env=env,
    )
    result = tool_results(claude.turns()[-1])["toolu_skill"]
    assert result.startswith("use-theme-spacing: Take spacing and colours from the theme"), result
    assert untracked(shop) == []
    assert claude.left_the_machine() == []


# --- the MCP server under the MCP Inspector CLI ----------------------------------------------------


def test_the_mcp_inspector_lists_and_calls_the_tools_through_the_launcher(
    claude: ClaudeCode, kb: Path, shop: Path, tmp_path: Path
) -> None:
    """Started as .mcp.json starts it: the launcher, the checkout, and the KB only in the environment
    entry .mcp.json gives it."""
    server = [str(PLUGIN / "bin" / "homeostat"), "mcp", "--checkout", str(shop)]
    env = {
        "CLAUDE_PLUGIN_OPTION_KB_DIR": str(kb),
        "CLAUDE_PLUGIN_DATA": str(tmp_path / "plugin-data"),
        "HOMEOSTAT_BIN": str(HOMEOSTAT),
    }
    listed = claude.inspector(server, "--method", "tools/list", "--strict", cwd=shop, env=env)
    names = sorted(tool["name"] for tool in listed["tools"])
    assert names == ["context", "docs", "explain", "read", "report", "search"]
    assert all("\n" not in tool["description"] for tool in listed["tools"])
    called = claude.inspector(
        server,
        *("--method", "tools/call", "--tool-name", "read"),
        *("--tool-arg", "target=use-theme-spacing"),
        cwd=shop,
        env=env,
    )
    assert not called.get("isError") and "(use-theme-spacing)" in called["content"][0]["text"]
    git(shop, "switch", "--quiet", "-c", "feature/card-spacing")  # `context` reads the branch too
    called = claude.inspector(
        *(server, "--method", "tools/call", "--tool-name", "context"),
        *("--tool-arg", "files=web/components/Card.tsx", "--tool-arg", "task=tighten card padding"),
        cwd=shop,
        env=env,
    )
    assert not called.get("isError") and "(use-theme-spacing)" in called["content"][0]["text"]
    called = claude.inspector(
        *(server, "--method", "tools/call", "--tool-name", "search", "--tool-arg", "limit=many"),
        cwd=shop,
        env=env,
        exit_code=5,  # the Inspector's exit for a tool error
    )
    assert called["isError"] is True
    assert called["content"][0]["text"].startswith("Invalid arguments for search: `limit`")
    assert untracked(shop) == []
