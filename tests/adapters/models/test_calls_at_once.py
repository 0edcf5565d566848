"""Model calls at once on a real transport: `claude -p` processes side by side, and the api runtime
paced by Anthropic's rate-limit headers (over the model stub and the fake claude CLI)."""

from __future__ import annotations

import threading
from pathlib import Path

from emulators.anthropic_stub import AnthropicStub, FakeClaude
from pydantic import BaseModel

from homeostat.adapters.models.askers import asker_for
from homeostat.adapters.models.claude_code import stop_running
from homeostat.core.asker import ModelCallError, Question, RunStats, ask_each
from homeostat.core.config import Config
from homeostat.core.events import MemorySink
from homeostat.runs.model_pool import ModelPool, PooledAsker

EXAMPLE_CONFIG = {"version": "0.2.0", "team": {"members": [{"handle": "ana", "role": "lead"}]}}


class Verdict(BaseModel):
    ok: bool
    reason: str


def config(**agents: object) -> Config:
    return Config.model_validate({**EXAMPLE_CONFIG, "agents": agents})


def test_claude_code_runs_its_calls_as_processes_side_by_side(
    fake_claude: FakeClaude, tmp_path: Path
) -> None:
    meeting = tmp_path / "together"
    meeting.mkdir()
    for n in range(5):
        fake_claude.answer({"ok": True, "reason": f"answer {n}"})
    stats, settings = RunStats(), config(runtime="claude-code", model="claude-sonnet-5-5")
    first = asker_for("judge", settings, stats, sink=MemorySink(), env=fake_claude.env())
    first.ask("Judge.", "The first thread.", Verdict)  # an agent's first call goes alone, to be priced
    asker = asker_for(
        "judge", settings, stats, sink=MemorySink(), env=fake_claude.env(FAKE_CLAUDE_TOGETHER=f"{meeting}:4")
    )
    pooled = PooledAsker(asker, ModelPool(4))
    outcomes = ask_each(pooled, [Question("Judge.", f"Thread {n}.", Verdict) for n in range(4)])
    # each call waited for the other three to be running: one at a time, none would have answered
    assert sorted(o.get().reason for o in outcomes) == [f"answer {n}" for n in range(1, 5)]  # type: ignore[union-attr]
    assert stats.ledger.max_in_flight == 4
    assert sorted(call["stdin"] for call in fake_claude.calls)[1:] == [f"Thread {n}." for n in range(4)]


def test_a_stopped_run_ends_the_claude_processes_it_left_running(fake_claude: FakeClaude) -> None:
    fake_claude.slow(60, {"ok": True, "reason": "too late"})
    fake_claude.answer({"ok": True, "reason": "priced"})  # the agent's first call, priced
    asker = asker_for(
        "judge",
        config(runtime="claude-code", model="claude-sonnet-5-5"),
        RunStats(),
        sink=MemorySink(),
        env=fake_claude.env(),
    )
    failed: list[BaseException] = []

    def call() -> None:
        try:
            asker.ask("Judge.", "Thread.", Verdict)
        except ModelCallError as exc:
            failed.append(exc)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    while stop_running() == 0:  # until the process has started, then once more it is killed
        worker.join(0.05)
    worker.join(30)
    assert not worker.is_alive()
    assert failed and "exited with -9" in str(failed[0])


def test_the_api_runtime_waits_for_the_rate_limit_window_instead_of_being_refused(
    anthropic_stub: AnthropicStub,
) -> None:
    anthropic_stub.rate_limit(requests=3, per_seconds=1.0)
    anthropic_stub.respond_with(lambda system, user: {"ok": True, "reason": user})
    stats = RunStats()
    asker = asker_for(
        "judge",
        config(runtime="api", model="claude-sonnet-5-5", maxCostUsd=100),
        stats,
        sink=MemorySink(),
        env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": anthropic_stub.url},
    )
    pooled = PooledAsker(asker, ModelPool(8))
    outcomes = ask_each(pooled, [Question("Judge.", f"Thread {n}.", Verdict) for n in range(10)])
    assert [o.get().reason for o in outcomes] == [f"Thread {n}." for n in range(10)]  # type: ignore[union-attr]
    assert anthropic_stub.limited == 0  # never refused: each call waited for the window's reset
    assert stats.total.calls == 10
