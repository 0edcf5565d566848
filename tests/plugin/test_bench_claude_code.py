"""`homeostat bench` end to end with the real Claude Code CLI (npm, 2.1.332) against the Anthropic stub.

The plugin is installed as docs/plugin.md says; the checkout is the example billing repo of
examples/bench; the tasks are examples/bench/tasks.yaml. The stub plays a model that follows the
team's rules when a request carries them (and fixes its code when the hidden tests fail), and a judge
that scores an answer by whether it says what the reference says, so the plugin-on condition scores
higher exactly when the plugin delivered the rules. Every request Claude Code sent is read back.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from claudekit import REPO, ClaudeCode, claude_code, flat, is_turn, text, tool_use, turns_done
from emulators.anthropic_stub import Recorded, Scripted
from gitfixtures import git

from homeostat import VERSION
from homeostat.core.bench.tasks import parse_tasks
from homeostat.core.cost.pricing import call_cost
from plugin.test_claude_code import RULES_HEADING, shell, the_install_steps

HOMEOSTAT = Path(sys.executable).with_name("homeostat")
EXAMPLES = REPO / "examples" / "bench"
TASKS = parse_tasks((EXAMPLES / "tasks.yaml").read_text(), "tasks.yaml")
AGENT_MODEL = "claude-sonnet-5-5"
JUDGE_MODEL = "claude-opus-5-5"  # the default judge for a Sonnet agent
PLACE = re.compile(r"Primary working directory: \S*/(off|on)-([a-z0-9.-]+?)-(\d+)\b")
CORRECTION = "The change does not pass the tests yet."
# What a right answer says, per task: the judge looks for it, the model says it when it saw the rule.
KEY = {
    "money-representation": 'Money(1999, "EUR")',
    "declined-card-status": "STATUS_BY_ERROR",
    "log-invoice-paid": "invoice_id=iid",
    "card-margin": "theme.space",
    "legacy-cart-route": "not to migrate legacy routes",
    "refund-too-large": "RefundTooLarge",
}
RULE = {task.id: task.rules[0] for task in TASKS.tasks}
REFERENCE = {task.id: task.reference or "" for task in TASKS.tasks}
WRONG = "Whatever is quickest: a float amount, an f-string log line, a status code in the handler."

PARSE_RIGHT = """

def parse_amount(text: str, currency: str) -> Money:
    from decimal import Decimal, InvalidOperation

    try:
        value = Decimal(text.strip())
    except InvalidOperation:
        raise ValueError(f"not an amount: {text!r}") from None
    return Money(int(value * 100), currency)
"""
PARSE_WRONG = """

def parse_amount(text: str, currency: str) -> float:
    return float(text)
"""


# --- the stub's model and judge ---------------------------------------------------------------------


def tokens_of(request: Recorded) -> int:
    return max(1, len(request.body) // 4)  # about what the API would count for this request


def place_of(request: Recorded) -> tuple[str, str, int] | None:
    """(condition, task, repeat) of the bench folder the session works in, from Claude Code's
    "Primary working directory" line."""
    found = PLACE.search(flat(request.json.get("system")) + flat(request.json.get("messages")))
    return (found.group(1), found.group(2), int(found.group(3))) if found else None


def folder_of(request: Recorded) -> Path:
    found = PLACE.search(flat(request.json.get("system")) + flat(request.json.get("messages")))
    assert found is not None
    return Path(found.group(0).split(": ", 1)[1])


def last_message(request: Recorded) -> str:
    """The last thing the user (or the bench's correction) said."""
    users = [m for m in request.json["messages"] if m.get("role") == "user"]
    return flat(users[-1].get("content")) if users else ""


def answered_a_tool(request: Recorded) -> bool:
    """Whether the conversation's last user message is a tool's result (Claude Code adds system
    messages after it, such as the budget left)."""
    users = [m for m in request.json["messages"] if m.get("role") == "user"]
    content = users[-1].get("content") if users else None
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def is_judge(request: Recorded) -> bool:
    names = {tool.get("name") for tool in request.json.get("tools") or []}
    return "StructuredOutput" in names and "Bash" not in names


def judge(request: Recorded) -> list[dict[str, Any]]:
    sent = flat(request.json.get("messages"))
    task = next(t for t in TASKS.tasks if " ".join(t.prompt.split()[:8]) in " ".join(sent.split()))
    answer = sent.split("<answer>", 1)[1]
    score = 2 if KEY[task.id] in answer else 0
    return [
        tool_use(
            "StructuredOutput", {"score": score, "reason": "as the reference" if score else "no"}, "toolu_v"
        )
    ]


def edits(task: str, cwd: Path, right: bool, turn: int) -> list[dict[str, Any]]:
    """The files the model writes for a coding task, right or wrong (tool ids unique in the session)."""
    if task == "parse-amount":
        money = cwd / "src/billing/money.py"
        content = money.read_text() + (PARSE_RIGHT if right else PARSE_WRONG)
        return [tool_use("Write", {"file_path": str(money), "content": content}, f"toolu_w1_{turn}")]
    handler = cwd / "src/billing/api/handlers/refunds.py"
    if not right:
        content = handler.read_text().replace(
            "    return {",
            '    if amount.amount_minor > charge.amount_minor:\n        return {"status": 422}\n    return {',
        )
        return [tool_use("Write", {"file_path": str(handler), "content": content}, f"toolu_w1_{turn}")]
    errors, table = cwd / "src/billing/errors.py", cwd / "src/billing/api/errors.py"
    new_errors = (
        errors.read_text() + '\n\nclass RefundTooLarge(BillingError):\n    """More than the charge."""\n'
    )
    new_table = (
        table.read_text()
        .replace("ChargeNotFound\n", "ChargeNotFound, RefundTooLarge\n")
        .replace("    ChargeNotFound: 404,\n", "    ChargeNotFound: 404,\n    RefundTooLarge: 422,\n")
    )
    return [
        tool_use("Write", {"file_path": str(errors), "content": new_errors}, f"toolu_w1_{turn}"),
        tool_use("Write", {"file_path": str(table), "content": new_table}, f"toolu_w2_{turn}"),
    ]


class Model:
    """The stub's answers: agent turns, judge calls, Claude Code's side calls. `before(request)` may
    return a Scripted (an error) to send instead, for the tests that stop a run."""

    def __init__(self) -> None:
        self.before: Any = None

    def __call__(self, request: Recorded) -> Scripted:
        if self.before is not None:
            early = self.before(request)
            if early is not None:
                return early
        return Scripted("blocks", self.blocks(request), usage=(tokens_of(request), 60, 0, 0))

    def blocks(self, request: Recorded) -> list[dict[str, Any]]:
        if is_judge(request):
            return judge(request)
        place = place_of(request)
        if not is_turn(request) or place is None:
            return [text("ok")]
        if answered_a_tool(request):
            return [text("Done.")]
        task = place[1]
        saw_rule = f"({RULE[task]})" in flat(request.json.get("messages"))
        if task in ("parse-amount", "refund-too-large"):
            right = saw_rule or CORRECTION in last_message(request)
            return edits(task, folder_of(request), right=right, turn=turns_done(request))
        return [text(REFERENCE[task] if saw_rule else WRONG)]


# --- the world ---------------------------------------------------------------------------------------


@pytest.fixture
def claude(tmp_path: Path) -> Iterator[ClaudeCode]:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Cy Moreau\n\temail = cy@example.com\n")
    yield from claude_code(home)


@pytest.fixture
def kb(claude: ClaudeCode, tmp_path: Path) -> Path:
    """The team's KB clone, with the plugin installed for it exactly as docs/plugin.md says."""
    root = claude.home / "src" / "acme-kb"
    shutil.copytree(REPO / "examples" / "kb", root, ignore=shutil.ignore_patterns(".homeostat"))
    homeostat_steps, plugin_steps = the_install_steps()
    shell(claude, homeostat_steps[0])
    installed = claude.home / ".local/share/homeostat/versions" / VERSION / "bin" / "homeostat"
    installed.unlink(missing_ok=True)
    installed.symlink_to(HOMEOSTAT)  # the second line installs this checkout's build: link it in place
    clone = tmp_path / "homeostat"
    shutil.copytree(REPO / ".claude-plugin", clone / ".claude-plugin")
    shutil.copytree(REPO / "plugin", clone / "plugin")
    shell(claude, plugin_steps[0].replace("homeostat/homeostat", str(clone)))
    shell(claude, plugin_steps[1])
    return root


@pytest.fixture
def billing(claude: ClaudeCode) -> Path:
    """examples/bench's billing and storefront made checkouts in ~/bench, as docs/bench.md's block
    says (run by sh from this repository, where `examples/` is); the billing one is returned."""
    section = (REPO / "docs" / "bench.md").read_text().split("## Try it on the example", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block and block.group(1).startswith("mkdir -p ~/bench\n"), (
        "docs/bench.md's example has changed shape"
    )
    done = subprocess.run(
        ["sh", "-ec", block.group(1)], cwd=REPO, env=claude.env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return claude.home / "bench" / "billing"


def bench(
    claude: ClaudeCode, *args: str, wait: bool = True
) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    """`homeostat bench …` as a user runs it: `claude` on PATH, the user's HOME and API settings."""
    env = claude.env()
    env["PATH"] = f"{claude.tools.claude.parent}{os.pathsep}{env['PATH']}"
    command = [str(HOMEOSTAT), "bench", *args]
    if not wait:
        return subprocess.Popen(
            command, cwd=claude.home, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True,
        )  # fmt: skip
    return subprocess.run(command, cwd=claude.home, env=env, capture_output=True, text=True, timeout=900)


def records(out: Path, condition: str) -> list[dict[str, Any]]:
    path = out / f"{condition}.jsonl"
    return (
        [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []
    )


def units(out: Path, condition: str) -> list[tuple[str, int]]:
    return [(r["task"], r["repeat"]) for r in records(out, condition)]


def sessions_started(claude: ClaudeCode) -> list[tuple[str, str, int]]:
    """(condition, task, repeat) of every agent session's first request, in order."""
    found = [place_of(request) for request in claude.turns() if _first_of_session(request)]
    return list(dict.fromkeys(place for place in found if place is not None))


def _first_of_session(request: Recorded) -> bool:
    return not any(m.get("role") == "assistant" for m in request.json.get("messages", []))


def small_tasks(tmp_path: Path, ids: tuple[str, ...], repeats: int) -> Path:
    """A task file holding some of the example's tasks (their hidden tests beside it)."""
    import yaml

    data = yaml.safe_load((EXAMPLES / "tasks.yaml").read_text())
    data["tasks"] = [task for task in data["tasks"] if task["id"] in ids]
    data["repeats"] = repeats
    folder = tmp_path / "tasks"
    shutil.copytree(EXAMPLES / "hidden", folder / "hidden")
    (folder / "tasks.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder / "tasks.yaml"


def run_args(kb: Path, billing: Path, out: Path, tasks: Path, *more: str) -> list[str]:
    return [
        "run", "--kb", str(kb), "--tasks", str(tasks), "--checkout", f"billing={billing}",
        "--checkout", f"storefront={billing.with_name('storefront')}", "--out", str(out),
        "--model", AGENT_MODEL, "--format", "json", *more,
    ]  # fmt: skip


# --- the tests ---------------------------------------------------------------------------------------


def test_the_example_tasks_run_with_the_plugin_off_and_on_and_the_rules_reach_only_the_on_sessions(
    claude: ClaudeCode, kb: Path, billing: Path, tmp_path: Path
) -> None:
    claude.stub.converse(Model())
    out = tmp_path / "results"
    done = bench(
        claude, *run_args(kb, billing, out, EXAMPLES / "tasks.yaml", "--budget", "5", "--repeats", "1")
    )
    assert isinstance(done, subprocess.CompletedProcess)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["planned"] == summary["done"] == 14 and summary["stopped"] is None

    # What each condition's sessions sent: the rules with the plugin on, and nothing of it off.
    by_condition: dict[str, list[Recorded]] = {"off": [], "on": []}
    for request in claude.turns():
        place = place_of(request)
        assert place is not None, "an agent session outside the bench's folders"
        by_condition[place[0]].append(request)
    for request in by_condition["off"]:
        sent = flat(request.json.get("messages"))
        assert "Homeostat" not in sent and "hook additional context" not in sent
        assert not [t["name"] for t in request.json.get("tools", []) if "homeostat" in t["name"]]
    for request in by_condition["on"]:
        sent = flat(request.json.get("messages"))
        assert "hook additional context: " in sent and "mcp__plugin_homeostat_homeostat__search" in sent
    on_billing = [
        r
        for r in by_condition["on"]
        if (p := place_of(r)) and p[1] in ("money-representation", "parse-amount")
    ]
    assert all(
        f"SessionStart hook additional context: {RULES_HEADING}" in flat(r.json["messages"])
        for r in on_billing
    )

    off, on = records(out, "off"), records(out, "on")
    assert sorted(units(out, "off")) == sorted(units(out, "on")) == sorted((t.id, 1) for t in TASKS.tasks)
    score = {(c, r["task"]): r["score"] for c, rs in (("off", off), ("on", on)) for r in rs}
    assert all(score[("on", t.id)] == 2 for t in TASKS.tasks)
    assert score[("off", "parse-amount")] == 1  # the hidden tests failed, passed after one correction
    assert all(score[("off", t.id)] == 0 for t in TASKS.tasks if t.id != "parse-amount")
    parse_off = next(r for r in off if r["task"] == "parse-amount")
    assert [c["role"] for c in parse_off["calls"]] == ["agent", "correction"] and parse_off[
        "passedAfter"
    ] == 1

    # The cost read from Claude Code's envelopes is what the stub's token counts cost at list price,
    # the correction round (a resumed session, whose envelope reports the whole session) included.
    spent = sum(
        call_cost(r.model, input_tokens=tokens_of(r), output_tokens=60)
        for r in claude.stub.requests
        if r.dialect == "api" and (is_turn(r) or is_judge(r))
    )
    assert summary["costUsd"] == pytest.approx(spent, rel=1e-3)
    assert (
        summary["calls"] == sum(len(r["calls"]) for r in off + on) == 14 + 1 + 12
    )  # agents, a correction, judges
    judged = [r for r in claude.stub.requests if r.dialect == "api" and is_judge(r)]
    assert {r.model for r in judged} == {JUDGE_MODEL}
    assert not [r for r in judged if "hook additional context" in flat(r.json.get("messages"))]

    report = bench(claude, "report", "--kb", str(kb), "--out", str(out), "--format", "json")
    assert isinstance(report, subprocess.CompletedProcess) and report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    assert set(data) == {
        "out",
        "seed",
        "resamples",
        "level",
        "conditions",
        "difference",
        "tasks",
        "skippedLines",
    }
    assert set(data["conditions"]["on"]) == {
        "runs", "unjudged", "calls", "agentCalls", "corrections", "judgeCalls", "inputTokens", "outputTokens",
        "cacheCreationTokens", "cacheReadTokens", "costUsd", "estimateUsd", "score",
    }  # fmt: skip
    assert data["conditions"]["on"]["score"]["mean"] == 2.0
    assert data["difference"]["low"] > 0 and data["difference"]["tasks"] == 7
    for task in TASKS.tasks:  # aggregates only: no prompt, reference or answer reaches the JSON
        for words in (task.prompt, task.reference, WRONG):
            assert not words or words[:30] not in report.stdout
    assert "Money(1999" not in report.stdout

    assert len(git(billing, "worktree", "list").splitlines()) == 1  # every worktree removed
    assert git(billing, "status", "--porcelain", "--ignored") == ""  # the checkout untouched
    assert claude.left_the_machine() == []
    print(f"\nbench numbers: {json.dumps(summary)}\nreport: {json.dumps(data['conditions'])}")


def test_a_run_killed_part_way_resumes_without_repeating_a_finished_task(
    claude: ClaudeCode, kb: Path, billing: Path, tmp_path: Path
) -> None:
    model = Model()
    claude.stub.converse(model)
    out = tmp_path / "results"
    tasks = small_tasks(tmp_path, ("money-representation", "log-invoice-paid"), repeats=2)
    process = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "5"), wait=False)
    assert isinstance(process, subprocess.Popen)
    started: list[tuple[str, str, int]] = []
    lock = threading.Lock()

    def kill_at_the_fifth_session(request: Recorded) -> Scripted | None:
        place = place_of(request)
        if place is not None and is_turn(request) and _first_of_session(request):
            with lock:
                if place not in started:
                    started.append(place)
                if len(started) == 5:
                    os.killpg(process.pid, signal.SIGKILL)  # the bench and the claude it started
        return None

    model.before = kill_at_the_fifth_session
    process.wait(timeout=600)
    assert process.returncode == -signal.SIGKILL
    assert len(git(billing, "worktree", "list").splitlines()) == 2  # the run in progress left its worktree
    finished = {c: units(out, c) for c in ("off", "on")}
    assert sum(len(u) for u in finished.values()) == 4  # the four runs before the fifth, each whole

    model.before = None
    claude.stub.requests.clear()
    done = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "5"))
    assert isinstance(done, subprocess.CompletedProcess) and done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["alreadyDone"] == 4
    again = sessions_started(claude)
    assert len(again) == 4 and not [p for p in again if (p[1], p[2]) in finished[p[0]]]
    for condition in ("off", "on"):
        assert sorted(units(out, condition)) == sorted(
            (task, repeat) for task in ("money-representation", "log-invoice-paid") for repeat in (1, 2)
        )
    assert len(git(billing, "worktree", "list").splitlines()) == 1


def test_the_budget_stop_leaves_a_file_the_next_run_goes_on_from(
    claude: ClaudeCode, kb: Path, billing: Path, tmp_path: Path
) -> None:
    claude.stub.converse(Model())
    out = tmp_path / "results"
    tasks = small_tasks(tmp_path, ("money-representation", "parse-amount"), repeats=1)
    done = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "0.1"))
    assert isinstance(done, subprocess.CompletedProcess) and done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["stopped"]["reason"] == "budget" and 0 < summary["done"] < 4
    assert summary["costUsd"] <= 0.1
    first = {c: units(out, c) for c in ("off", "on")}

    claude.stub.requests.clear()
    done = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "5", "--format", "text"))
    assert isinstance(done, subprocess.CompletedProcess) and done.returncode == 0, done.stderr
    assert f"{summary['done']} already done" in done.stdout
    assert not [p for p in sessions_started(claude) if (p[1], p[2]) in first[p[0]]]
    for condition in ("off", "on"):
        assert sorted(units(out, condition)) == [("money-representation", 1), ("parse-amount", 1)]


def test_a_rate_limit_stops_the_run_cleanly_and_the_next_run_goes_on(
    claude: ClaudeCode, kb: Path, billing: Path, tmp_path: Path
) -> None:
    model = Model()
    claude.stub.converse(model)
    out = tmp_path / "results"
    tasks = small_tasks(tmp_path, ("money-representation", "log-invoice-paid"), repeats=1)

    def limited_from_the_third_session(request: Recorded) -> Scripted | None:
        place = place_of(request)
        if place is not None and place[1] == "log-invoice-paid":  # the third and fourth runs
            return Scripted("error", "Number of requests has exceeded your rate limit", status=429,
                            headers=(("retry-after", "7200"),))  # fmt: skip
        return None

    model.before = limited_from_the_third_session
    done = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "5"))
    assert isinstance(done, subprocess.CompletedProcess) and done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["stopped"]["reason"] == "rate-limit" and summary["done"] == 2 and summary["left"] == 2
    assert "429" in summary["stopped"]["message"]
    assert units(out, "off") == units(out, "on") == [("money-representation", 1)]

    def judge_limited(request: Recorded) -> Scripted | None:  # now the judge's calls hit the limit
        if is_judge(request):
            return Scripted("error", "rate limited", status=429, headers=(("retry-after", "7200"),))
        return None

    model.before = judge_limited
    done = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "5"))
    assert isinstance(done, subprocess.CompletedProcess) and done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert summary["stopped"]["reason"] == "rate-limit" and summary["done"] == 0
    assert summary["stopped"]["message"].startswith("the judge call failed: the claude-code runtime is rate")
    assert units(out, "off") == units(out, "on") == [("money-representation", 1)]

    model.before = None
    done = bench(claude, *run_args(kb, billing, out, tasks, "--budget", "5"))
    assert isinstance(done, subprocess.CompletedProcess) and done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["alreadyDone"] == 2
    assert units(out, "off") == units(out, "on") == [("money-representation", 1), ("log-invoice-paid", 1)]
