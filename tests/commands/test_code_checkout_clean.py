"""Nothing Homeostat runs writes into a developer's code checkout.

Every case is the installed `homeostat` command run as a real process from inside a real git
checkout of a code repo, as a developer (or Claude Code, for the hooks and the MCP server) runs it;
the checkout's `git status --ignored` and its files outside `.git` must be what they were. A `--kb`
(or `$HOMEOSTAT_DIR`) that does not exist is refused in one line before anything is written, the
folder included; with a real KB the caches and the event log land in the KB clone.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gitfixtures import commit, git
from kbfactory import EXAMPLE

HOMEOSTAT = Path(sys.executable).parent / "homeostat"  # the installed entry point
RULE = "billing-api-integer-minor-units"  # a rule of examples/kb for the billing repo

# A command as a developer types it in the code checkout (`--kb` added per case); `export` is the one
# command meant to write into a checkout, so it is run where it finds no KB
COMMANDS = [
    ["context"],
    ["context", "--files", "src/billing/api/refunds.py"],
    ["search", "refund"],
    ["read", "billing"],
    ["docs"],
    ["explain", RULE],
    ["report"],
    ["status"],
    ["metrics"],
    ["events"],
    ["sync"],
    ["learn", "--title", "t", "--rule", "Use integers for money.", "--why", "floats round", "--area", "core"],
    ["validate"],
    ["validate", "--fix"],
    ["codeowners"],
    ["export", "--checkout", "."],
    ["daily", "--offline"],
    ["mcp"],
    ["doctor"],
    ["eval"],
    ["curate", "--dry-run"],
    ["deep-dive", "--dry-run"],
    ["digest", "--print"],
    ["review", "merge", "--all"],
    ["seed", "--checkout", ".", "--dry-run"],
    ["import", "--checkout", ".", "--dry-run"],
    ["bootstrap", "--dry-run"],
    ["dashboard", "--port", "0"],
    ["up", "--port", "0"],
]
HOOKS = ["session-start", "prompt", "stop"]


def snapshot(checkout: Path) -> tuple[str, list[str]]:
    """What a developer sees: `git status` (ignored files too) and every path outside .git."""
    status = git(checkout, "status", "--porcelain", "--ignored", "--untracked-files=all")
    paths = sorted(
        path.relative_to(checkout).as_posix()
        for path in checkout.rglob("*")
        if ".git" not in path.relative_to(checkout).parts
    )
    return status, paths


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A code repo's clone with a commit and one uncommitted change, origin the example KB's billing."""
    path = tmp_path / "billing"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    git(path, "remote", "add", "origin", "https://github.com/example/billing")
    commit(path, {"src/billing/api/refunds.py": "def refund():\n    pass\n", "README.md": "billing\n"})
    (path / "src" / "billing" / "api" / "refunds.py").write_text("def refund():\n    return 1\n")
    return path


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """The example KB as a clone of its own, with the .gitignore init writes."""
    path = tmp_path / "kb"
    shutil.copytree(EXAMPLE, path)
    (path / ".gitignore").write_text(".homeostat/\n")
    git(path, "init", "--quiet", "--initial-branch=main")
    commit(path, {})
    return path


def run(
    checkout: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(HOMEOSTAT), *args],
        cwd=checkout,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def hook_event(checkout: Path, name: str) -> str:
    events = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "stop": "Stop"}
    return json.dumps(
        {
            "session_id": "s-1",
            "cwd": str(checkout),
            "hook_event_name": events[name],
            "prompt": "how are refunds retried?",
            "transcript_path": str(checkout.parent / "transcript.jsonl"),
        }
    )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_a_command_that_finds_no_kb_writes_nothing_into_the_code_checkout(
    checkout: Path, command: list[str]
) -> None:
    before = snapshot(checkout)
    done = run(checkout, *command)
    assert snapshot(checkout) == before, done.stderr
    if command != ["events"]:  # the event log of a folder with none is empty, and says so
        assert done.returncode != 0, done.stdout


@pytest.mark.parametrize("name", HOOKS)
def test_a_hook_in_a_code_checkout_writes_nothing_there_with_no_kb_or_kb_dir_naming_the_checkout(
    checkout: Path, name: str
) -> None:
    before = snapshot(checkout)
    alone = run(checkout, "hook", name, stdin=hook_event(checkout, name))
    assert (alone.returncode, alone.stdout) == (0, "")
    # kb_dir set, by mistake, to the code checkout itself: no KB there, nothing written there either
    mistaken = run(
        checkout,
        "hook",
        name,
        stdin=hook_event(checkout, name),
        env={"CLAUDE_PLUGIN_OPTION_KB_DIR": str(checkout)},
    )
    assert (mistaken.returncode, mistaken.stdout) == (0, "")
    assert snapshot(checkout) == before


@pytest.mark.parametrize("command", [c for c in COMMANDS if c[0] != "export"], ids=lambda c: " ".join(c[:2]))
def test_a_kb_that_does_not_exist_is_refused_in_one_line_before_anything_is_written(
    checkout: Path, tmp_path: Path, command: list[str]
) -> None:
    missing = tmp_path / "no-such-kb"
    before = snapshot(checkout)
    done = run(checkout, *command, "--kb", str(missing))
    assert done.returncode == 2
    assert done.stderr == f"homeostat: --kb {missing} does not exist: give the folder of your KB clone\n"
    from_env = run(checkout, *command, env={"HOMEOSTAT_DIR": str(missing)})
    assert (
        from_env.stderr
        == f"homeostat: HOMEOSTAT_DIR={missing} does not exist: give the folder of your KB clone\n"
    )
    assert not missing.exists() and snapshot(checkout) == before


def test_hooks_mcp_and_read_commands_with_a_real_kb_keep_their_caches_in_the_kb_clone(
    checkout: Path, kb: Path
) -> None:
    before = snapshot(checkout)
    plugin = {"CLAUDE_PLUGIN_OPTION_KB_DIR": str(kb)}
    start = run(checkout, "hook", "session-start", stdin=hook_event(checkout, "session-start"), env=plugin)
    assert (
        "Keep amounts in integer minor units"
        in json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"]
    )
    for name in ("prompt", "stop"):
        assert run(checkout, "hook", name, stdin=hook_event(checkout, name), env=plugin).returncode == 0
    assert "Keep amounts in integer minor units" in run(checkout, "context", "--kb", str(kb)).stdout
    assert run(checkout, "search", "refund", "--kb", str(kb)).returncode == 0
    assert RULE in run(checkout, "explain", RULE, "--kb", str(kb)).stdout
    assert "refund" in mcp_call(checkout, kb, "search", {"query": "refund"}).lower()
    # `context` reads the checkout's branch and commits too, with git's read-only commands
    assert "Keep amounts in integer minor units" in mcp_call(
        checkout, kb, "context", {"files": ["src/billing/api/refunds.py"]}
    )

    assert snapshot(checkout) == before
    assert (kb / ".homeostat" / "identity.json").is_file() and (kb / ".homeostat" / "index").is_dir()
    assert git(kb, "status", "--porcelain") == ""  # the KB's own caches are git-ignored


def mcp_call(checkout: Path, kb: Path, tool: str, arguments: dict[str, object]) -> str:
    """`homeostat mcp` started in the checkout as a client starts it: a handshake, then one call."""
    server = subprocess.Popen(
        [str(HOMEOSTAT), "mcp", "--kb", str(kb)],
        cwd=checkout,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None

    def send(frame: dict[str, object]) -> None:
        assert server.stdin is not None
        server.stdin.write(json.dumps(frame) + "\n")
        server.stdin.flush()

    try:
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        }
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert json.loads(server.stdout.readline())["id"] == 1
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": tool, "arguments": arguments}
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        answer = json.loads(server.stdout.readline())
        assert answer["id"] == 2 and not answer["result"].get("isError"), answer
        return "".join(part.get("text", "") for part in answer["result"]["content"])
    finally:
        server.stdin.close()
        server.wait(timeout=60)
        server.stdout.close()
        if server.stderr:
            server.stderr.close()
