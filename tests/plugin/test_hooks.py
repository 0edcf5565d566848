"""The plugin's hooks as Claude Code runs them: a real process per event, fixture JSON on stdin.

The fixtures under tests/fixtures/hooks/ follow the input shapes in Claude Code's hooks reference
(code.claude.com/docs/en/hooks); every answer is checked against the output shape Claude Code reads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

import pytest
from gitfixtures import git
from kbfactory import example_files, write_files
from kit import FIXTURES, REPO

from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.core.render.view import REMINDER

HOOK_FIXTURES = FIXTURES / "hooks"
PLUGIN = REPO / "plugin"
EVENT_NAMES = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "stop": "Stop"}


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = write_files(tmp_path / "kb", {**example_files(), ".gitignore": ".homeostat/\n"})  # type: ignore[arg-type]
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "KB")
    return root


def fixture(name: str, kb: Path, transcript: Path | None = None, **changes: Any) -> str:
    text = (HOOK_FIXTURES / f"{name}.json").read_text()
    text = text.replace("@CWD@", str(kb)).replace("@TRANSCRIPT@", str(transcript or kb / "none.jsonl"))
    data = json.loads(text)
    data.update(changes)
    return json.dumps(data)


def run_hook(event: str, stdin: str, *, env: dict[str, str] | None = None, launcher: bool = False) -> Any:
    command = [str(PLUGIN / "bin" / "homeostat")] if launcher else [sys.executable, "-m", "homeostat"]
    full = {**os.environ, "HOMEOSTAT_BIN": str(Path(sys.executable).parent / "homeostat"), **(env or {})}
    done = subprocess.run(
        [*command, "hook", event], input=stdin, capture_output=True, text=True, env=full, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done


def answer(done: Any, event: str) -> str:
    """The additionalContext of a well-formed answer, checked against the shape Claude Code reads."""
    data = json.loads(done.stdout)
    assert set(data) == {"hookSpecificOutput"}
    specific = data["hookSpecificOutput"]
    assert set(specific) == {"hookEventName", "additionalContext"}
    assert specific["hookEventName"] == EVENT_NAMES[event]
    assert isinstance(specific["additionalContext"], str) and len(specific["additionalContext"]) <= 10_000
    return str(specific["additionalContext"])


def events(kb: Path, kind: str, *, wait: bool = False) -> list[Any]:
    """The KB's events of a kind; with `wait`, polled until some are in the log (up to 10 s)."""
    for _ in range(200 if wait else 1):
        with SqliteEventLog(events_path(kb)) as log:
            found = log.query(kind)
        if found:
            return found
        time.sleep(0.05)
    return []


def test_session_start_sends_the_context_view_and_starts_a_background_sync(kb: Path) -> None:
    done = run_hook("session-start", fixture("session-start", kb), launcher=True)
    text = answer(done, "session-start")
    assert text.startswith("# Team rules for these files (Homeostat)")
    assert "> From Homeostat (<id>)" in text
    [injection] = events(kb, "injection", wait=True)
    assert injection.data["source"] == "session-start"
    assert (kb / ".homeostat/sync-started").is_file()  # the sync itself runs detached


def test_the_prompt_gets_the_reminder_and_matches_once_per_session(kb: Path) -> None:
    run_hook("session-start", fixture("session-start", kb))
    first = answer(run_hook("prompt", fixture("prompt", kb)), "prompt")
    assert REMINDER in first and count_tokens(REMINDER) < 80
    assert "Team knowledge matching this message" in first
    again = answer(run_hook("prompt", fixture("prompt", kb)), "prompt")
    assert again.strip() == REMINDER  # the same matches are never sent twice in a session


def test_a_rule_merged_during_the_session_arrives_on_the_next_prompt(kb: Path) -> None:
    run_hook("session-start", fixture("session-start", kb))
    rule = (kb / "knowledge/core/log-with-fields.md").read_text()
    new = (
        rule.replace("id: log-with-fields", "id: log-request-ids")
        .replace("title: ", "title: Request ids and ", 1)
        .replace('scope: ["**/*.py", "**/*.ts"]', 'scope: ["**"]')
    )
    (kb / "knowledge/core/log-request-ids.md").write_text(new)
    text = answer(run_hook("prompt", fixture("prompt", kb, prompt="ok, carry on")), "prompt")
    assert "New team rules since this session started" in text and "Request ids and" in text


@pytest.mark.parametrize("event", list(EVENT_NAMES))
@pytest.mark.parametrize(
    "stdin",
    ["", "not json", "[1, 2]", '{"hook_event_name": "PreToolUse", "cwd": "."}', '{"cwd": 7}'],
    ids=["empty", "text", "array", "other-event", "wrong-type"],
)
def test_a_malformed_event_prints_nothing_and_exits_zero(kb: Path, event: str, stdin: str) -> None:
    done = run_hook(event, stdin, env={"HOMEOSTAT_DIR": str(kb)})
    assert done.stdout == ""
    assert "homeostat hook" in done.stderr


@pytest.mark.parametrize("event", list(EVENT_NAMES))
def test_a_broken_homeostat_yaml_prints_nothing_and_logs_why(kb: Path, event: str) -> None:
    (kb / "homeostat.yaml").write_text("team: [unclosed\n")
    done = run_hook(event, fixture(event, kb, HOOK_FIXTURES / "transcript.jsonl"))
    assert done.stdout == ""
    [error] = events(kb, "hook-error")
    assert error.data["hook"] == event and "homeostat.yaml" in str(error.data["message"])


def test_outside_a_kb_the_hooks_stay_silent(tmp_path: Path) -> None:
    for event in EVENT_NAMES:
        done = run_hook(event, fixture(event, tmp_path))
        assert done.stdout == "" and done.stderr == ""


def test_homeostats_own_agent_runs_are_left_alone(kb: Path) -> None:
    done = run_hook("session-start", fixture("session-start", kb), env={"HOMEOSTAT_AGENT": "1"})
    assert done.stdout == "" and not (kb / ".homeostat").exists()


# --- Stop: turn usage and the handoff note ----------------------------------------------------------


def transcript_prefix(tmp_path: Path, lines: int) -> Path:
    target = tmp_path / "transcript.jsonl"
    target.write_text("".join((HOOK_FIXTURES / "transcript.jsonl").read_text().splitlines(True)[:lines]))
    return target


def test_turn_usage_is_one_event_per_turn_replaced_when_the_transcript_catches_up(
    kb: Path, tmp_path: Path
) -> None:
    transcript = transcript_prefix(tmp_path, 8)  # turn 2 is still being written
    first = run_hook("stop", fixture("stop", kb, transcript, last_assistant_message="Working on it."))
    assert first.stdout == ""  # three edits so far: no handoff request yet
    turns = {e.data["turn"]: e.data for e in events(kb, "turn-usage")}
    assert set(turns) == {1, 2} and turns[2]["edits"] == 2

    shutil.copy(HOOK_FIXTURES / "transcript.jsonl", transcript)
    second = run_hook("stop", fixture("stop", kb, transcript))
    usage = events(kb, "turn-usage")
    assert sorted(e.data["turn"] for e in usage) == [1, 2]  # replaced, not duplicated
    by_turn = {e.data["turn"]: e.data for e in usage}
    assert by_turn[1] == {
        "session": "0b7e0e3a-8f1c-4d52-9c11-3c2d8a6f4e01",
        "turn": 1,
        "tools": "search",
        "toolCalls": 1,
        "lookedUp": True,
        "retrieved": True,
        "credited": "billing-api-error-status-table,billing/api/overview#errors",
        "credits": 2,
        "edits": 0,
    }
    # turn 2: the sidechain's edit and the made-up id are left out; the current reply's credit counts
    assert by_turn[2]["edits"] == 5 and by_turn[2]["tools"] == "read" and not by_turn[2]["retrieved"]
    assert by_turn[2]["credited"] == "log-with-fields"
    assert not any("refund" in json.dumps(e.data).lower() for e in usage)  # ids and counts, never text

    request = answer(second, "stop")
    assert "--source agent-handoff" in request and "5 edits" in request
    third = run_hook("stop", fixture("stop", kb, transcript))
    assert third.stdout == ""  # asked once per session


def test_a_stop_appends_to_the_journal_without_the_event_database_or_the_corpus(
    kb: Path, tmp_path: Path
) -> None:
    """Stop runs after every turn: its usage goes to the event journal as one append, so it imports
    neither SQLite, the event model, logging nor the corpus's selection and rendering."""
    transcript = transcript_prefix(tmp_path, 100)
    run_hook("session-start", fixture("session-start", kb))  # builds the index, as a session's start does
    run_hook("stop", fixture("stop", kb, transcript))  # reads homeostat.yaml's settings once
    script = (
        "import sys\nfrom homeostat.cli import main\nmain(['hook', 'stop'])\n"
        "heavy = ('sqlite3', 'logging', 'dataclasses', 'argparse', 'homeostat.core.events',"
        " 'homeostat.adapters.state.event_log', 'homeostat.core.render.view', 'homeostat.runs.session',"
        " 'homeostat.commands.agent.context')\n"
        "print('HEAVY', [m for m in heavy if m in sys.modules])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=fixture("stop", kb, transcript),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout
    assert not (kb / ".homeostat" / "events.db").exists()
    journal = (kb / ".homeostat" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert sum('"turn-usage"' in line for line in journal) == 3  # turns 1 and 2, then 2 re-read
    assert sorted(e.data["turn"] for e in events(kb, "turn-usage")) == [1, 2]  # folded by the next reader


# typing too (~3 ms): the warm path's modules take TYPE_CHECKING and cast from core.type_hints
WARM_PATH_LEAVES_OUT = ("pathlib", "urllib.parse", "ipaddress", "argparse", "logging", "subprocess", "typing")


@pytest.mark.parametrize("event", ["session-start", "prompt"])
def test_a_warm_hook_imports_no_pathlib_urllib_or_ipaddress(kb: Path, event: str) -> None:
    """A warm session start or message works in path strings and reads its checkout's origin URL
    itself: pathlib (with urllib.parse and ipaddress) cost a hook more than the joins it did. Run
    without site (-S) and with the packages on the path, as an installed package starts: the editable
    install's import finder would import pathlib itself."""
    run_hook("session-start", fixture("session-start", kb))  # builds the index, starts a sync
    git(kb, "remote", "add", "origin", "https://github.com/example/kb.git")  # an origin URL to read
    run_hook(event, fixture(event, kb))  # and the identity cache is written again
    script = (
        f"import sys\nfrom homeostat.cli import main\nmain(['hook', {event!r}])\n"
        f"print('HEAVY', [m for m in {WARM_PATH_LEAVES_OUT!r} if m in sys.modules])\n"
    )
    source = str(REPO)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        input=fixture(event, kb),
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": os.pathsep.join([source, sysconfig.get_paths()["purelib"]])},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stdout, done.stdout
    assert "additionalContext" in done.stdout


def test_turn_usage_can_be_turned_off(kb: Path, tmp_path: Path) -> None:
    transcript = transcript_prefix(tmp_path, 100)
    run_hook("stop", fixture("stop", kb, transcript), env={"HOMEOSTAT_NO_TURN_USAGE": "1"})
    assert events(kb, "turn-usage") == []


def test_a_stop_the_hook_already_continued_never_asks_again(kb: Path, tmp_path: Path) -> None:
    transcript = transcript_prefix(tmp_path, 100)
    done = run_hook("stop", fixture("stop", kb, transcript, stop_hook_active=True))
    assert done.stdout == ""


def test_a_new_pending_lesson_starts_a_sync_at_stop(kb: Path, tmp_path: Path) -> None:
    run_hook("session-start", fixture("session-start", kb))
    (kb / ".homeostat/sync-started").unlink()
    run_hook("stop", fixture("stop", kb, tmp_path / "none.jsonl"))
    assert not (kb / ".homeostat/sync-started").exists()  # nothing changed
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
            "--title",
            "Use X",
            "--rule",
            "Use X in `web/`.",
            "--why",
            "Because.",
            "--area",
            "storefront/ui",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    run_hook("stop", fixture("stop", kb, tmp_path / "none.jsonl"))
    assert (kb / ".homeostat/sync-started").is_file()


# --- the plugin's files --------------------------------------------------------------------------------


def test_the_plugin_files_have_the_shapes_claude_code_reads() -> None:
    from homeostat import VERSION

    manifest = json.loads((PLUGIN / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "homeostat" and manifest["version"] == VERSION
    market = json.loads((PLUGIN.parent / ".claude-plugin/marketplace.json").read_text())
    assert {"name", "owner", "plugins"} <= set(market)
    [entry] = market["plugins"]
    assert entry["name"] == "homeostat" and entry["source"] == "./plugin"
    hooks = json.loads((PLUGIN / "hooks/hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "Stop"}
    for name, groups in hooks.items():
        [group] = groups
        [handler] = group["hooks"]
        assert handler["type"] == "command" and handler["command"].startswith(
            '"${CLAUDE_PLUGIN_ROOT}/bin/homeostat"'
        )
        assert handler["command"].endswith(
            {"SessionStart": "session-start", "UserPromptSubmit": "prompt", "Stop": "stop"}[name]
        )
    server = json.loads((PLUGIN / ".mcp.json").read_text())["mcpServers"]["homeostat"]
    assert server["command"] == "${CLAUDE_PLUGIN_ROOT}/bin/homeostat"  # an absolute path once substituted
    assert server["env"] == {
        "CLAUDE_PLUGIN_OPTION_KB_DIR": "${user_config.kb_dir}"
    }  # hooks only get it otherwise
    for skill in ("learn", "explain"):
        text = (PLUGIN / "skills" / skill / "SKILL.md").read_text()
        head = text.split("---")[1]
        assert f"name: {skill}" in head and "description: " in head
    assert os.access(PLUGIN / "bin/homeostat", os.X_OK)


def test_the_hook_hands_over_to_the_version_the_kb_pins(kb: Path, tmp_path: Path) -> None:
    workflow = kb / ".github/workflows/homeostat-daily.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("steps:\n  - uses: homeostat/homeostat/actions/daily@v9.8.7\n")
    versions = tmp_path / "versions"
    runner = versions / "9.8.7" / "bin" / "homeostat"
    runner.parent.mkdir(parents=True)
    runner.write_text('#!/bin/sh\ncat > "$0.stdin"\necho "{\\"pinned\\": \\"$1 $2 $HOMEOSTAT_PINNED\\"}"\n')
    runner.chmod(0o755)
    stdin = fixture("prompt", kb)
    done = run_hook("prompt", stdin, env={"HOMEOSTAT_VERSIONS_DIR": str(versions)}, launcher=True)
    assert json.loads(done.stdout) == {"pinned": "hook prompt 1"}
    assert Path(f"{runner}.stdin").read_text() == stdin  # the event reaches it whole
    runner.unlink()  # the pinned version is not installed: the plugin runs its own
    done = run_hook("prompt", stdin, env={"HOMEOSTAT_VERSIONS_DIR": str(versions)}, launcher=True)
    assert REMINDER in answer(done, "prompt")


# --- the launcher: which Homeostat a session runs ---------------------------------------------------


def launch(args: list[str], home: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    """The plugin's launcher as Claude Code starts it: CLAUDE_PLUGIN_DATA always set, no homeostat on
    PATH and no HOMEOSTAT_* unless given."""
    full = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "CLAUDE_PLUGIN_DATA": str(home / ".claude/plugins/data/homeostat-homeostat"),
        "CLAUDE_PLUGIN_ROOT": str(PLUGIN),
        **env,
    }
    return subprocess.run(
        [str(PLUGIN / "bin" / "homeostat"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        timeout=60,
    )


def recorder(path: Path) -> Path:
    """A stand-in Homeostat that prints the arguments it was given, one per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('#!/bin/sh\nfor a do printf "%s\\n" "$a"; done\n')
    path.chmod(0o755)
    return path


def test_the_launcher_finds_the_documented_install_while_claude_code_sets_plugin_data(tmp_path: Path) -> None:
    """docs/plugin.md installs into ~/.local/share/homeostat/versions/<version>; Claude Code always sets
    CLAUDE_PLUGIN_DATA, whose versions folder is looked in first and is empty here."""
    from homeostat import VERSION

    recorder(tmp_path / f".local/share/homeostat/versions/{VERSION}/bin/homeostat")
    (tmp_path / ".claude/plugins/data/homeostat-homeostat/versions").mkdir(parents=True)
    done = launch(["hook", "prompt"], tmp_path)
    assert done.returncode == 0 and done.stdout.splitlines() == ["hook", "prompt"], done.stderr
    recorder(tmp_path / f".claude/plugins/data/homeostat-homeostat/versions/{VERSION}/bin/homeostat")
    (tmp_path / ".claude/plugins/data/homeostat-homeostat/versions" / VERSION / "bin/homeostat").write_text(
        "#!/bin/sh\necho plugin-data\n"
    )
    assert launch(["hook", "prompt"], tmp_path).stdout == "plugin-data\n"  # the earlier folder wins


def test_with_no_homeostat_only_session_start_says_so_to_the_user_and_the_model(tmp_path: Path) -> None:
    from homeostat import VERSION

    done = launch(["hook", "session-start"], tmp_path, stdin="{}")
    assert done.returncode == 0
    said = json.loads(done.stdout)
    assert set(said) == {"systemMessage", "hookSpecificOutput"}
    assert said["systemMessage"].startswith(f"Homeostat {VERSION} is not installed")
    assert "docs/plugin.md" in said["systemMessage"]
    specific = said["hookSpecificOutput"]
    assert specific["hookEventName"] == "SessionStart"
    assert said["systemMessage"] in specific["additionalContext"]
    for event in ("prompt", "stop"):  # once a session: the other hooks stay silent
        done = launch(["hook", event], tmp_path, stdin="{}")
        assert done.returncode == 0 and done.stdout == ""
    done = launch(["mcp", "--checkout", str(tmp_path)], tmp_path)
    assert done.returncode == 127 and "not installed" in done.stderr


def test_a_kb_placeholder_left_unfilled_is_dropped_and_a_filled_one_kept(tmp_path: Path) -> None:
    """The skills pass --kb '${user_config.kb_dir}': filled in by Claude Code when kb_dir is set, left
    as written when it is not."""
    program = str(recorder(tmp_path / "bin" / "homeostat"))
    placeholder = "${user_config.kb_dir}"
    done = launch(["explain", "x", "--kb", placeholder, "--files", "a b"], tmp_path, HOMEOSTAT_BIN=program)
    assert done.stdout.splitlines() == ["explain", "x", "--files", "a b"]
    done = launch(["search", f"--kb={placeholder}", "q"], tmp_path, HOMEOSTAT_BIN=program)
    assert done.stdout.splitlines() == ["search", "q"]
    done = launch(["explain", "x", "--kb", "/kb clone", ""], tmp_path, HOMEOSTAT_BIN=program)
    assert done.stdout.splitlines() == ["explain", "x", "--kb", "/kb clone", ""]


def test_the_pinned_version_is_found_in_the_documented_folder_too(kb: Path, tmp_path: Path) -> None:
    """The hand-over looks in every versions folder, as the launcher does: Claude Code's
    CLAUDE_PLUGIN_DATA is set and holds other versions, the pinned one is under ~/.local/share."""
    workflow = kb / ".github/workflows/homeostat-daily.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("steps:\n  - uses: homeostat/homeostat/actions/daily@v9.8.7\n")
    data = tmp_path / "data"
    recorder(data / "versions" / "9.0.0" / "bin" / "homeostat")
    runner = tmp_path / "home/.local/share/homeostat/versions/9.8.7/bin/homeostat"
    runner.parent.mkdir(parents=True)
    runner.write_text('#!/bin/sh\ncat > /dev/null\necho "{\\"pinned\\": \\"$1 $2\\"}"\n')
    runner.chmod(0o755)
    env = {"CLAUDE_PLUGIN_DATA": str(data), "HOME": str(tmp_path / "home")}
    done = run_hook("prompt", fixture("prompt", kb), env=env, launcher=True)
    assert json.loads(done.stdout) == {"pinned": "hook prompt"}
