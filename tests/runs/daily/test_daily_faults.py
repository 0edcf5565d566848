"""The daily run's fault table (issue 30), end to end: each fault, then the next run a day later.

Every row runs `homeostat daily` over twelve merged PRs with one review thread each, against the
GitHub emulator and the model stub, then runs again "a day later" (the PRs left the default window:
`faultkit.age_out`). In every row no lesson is lost (each thread has a decision record) and no
question the model answered is paid for again, beyond the calls in flight when a run was stopped.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from dailyworld import DailyWorld
from faultkit import (
    DRAFTER,
    age_out,
    decided_urls,
    drafts_answered,
    lessons_world,
    lost,
    paid,
    second_run_while_waiting,
    set_concurrency,
)
from racekit import daily_env

from homeostat.adapters.models.pacing import MODEL_RETRY
from homeostat.core.state.checkpoints import read_checkpoints


@pytest.fixture
def world(world: DailyWorld) -> DailyWorld:
    daily = lessons_world(world, 12)
    set_concurrency(daily, 4)
    return daily


def drafts_of(numbers: range | tuple[int, ...]):  # type: ignore[no-untyped-def]
    """A stub predicate: the draft calls of the threads numbered `numbers`."""
    marks = tuple(f"validate_payload_{n}() before" for n in numbers)
    return lambda system, user: DRAFTER in system and any(mark in user for mark in marks)


def test_a_429_past_every_retry_on_half_the_drafts_loses_none_of_them(world: DailyWorld) -> None:
    # six drafts are refused as often as a call is tried (retry-after 1 s each time)
    world.stub.fail_when(drafts_of(range(0, 12, 2)), 429, times=MODEL_RETRY.attempts, retry_after="1")
    assert world.daily() == 0
    assert len(lost(world)) == 6
    [file] = read_checkpoints(world.bare().read_files("refs/heads/homeostat/state"), "daily")
    assert len(file.retry) == 6  # kept for the next run, with when their PRs merged
    before = paid(world)
    age_out(world)
    assert world.daily() == 0
    assert lost(world) == set()
    assert world.stub.paid_twice(before) == 0
    [file] = read_checkpoints(world.bare().read_files("refs/heads/homeostat/state"), "daily")
    assert file.retry == () and file.answers == ()  # every lesson decided: nothing left to keep


def test_a_429_asking_for_two_minutes_is_waited_out_by_the_call_that_got_it(anthropic_stub) -> None:  # type: ignore[no-untyped-def]
    from homeostat.adapters.models.askers import asker_for
    from homeostat.core.asker import RunStats
    from homeostat.core.config import AgentsConfig
    from homeostat.core.daily.judge import JudgeAnswer
    from homeostat.core.events import MemorySink

    sleeps: list[float] = []
    anthropic_stub.error(429, retry_after="120").answer({"ok": True, "problems": []})
    asker = asker_for(
        "judge",
        AgentsConfig(),
        RunStats(),
        sink=MemorySink(),
        env={"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": anthropic_stub.url},
        retry=dataclasses.replace(MODEL_RETRY, sleep=sleeps.append),
    )
    assert asker.ask("Judge it.", "Thread.", JudgeAnswer) == JudgeAnswer(ok=True, problems=[])
    assert sleeps == [120.0]


def test_529_four_times_in_a_row_is_retried_through(world: DailyWorld) -> None:
    world.stub.fail_when(drafts_of(range(12)), 529, times=4, retry_after="0")
    assert world.daily() == 0
    assert lost(world) == set()


def test_a_spending_cap_decides_what_it_drafted_and_the_next_runs_decide_the_rest(world: DailyWorld) -> None:
    world.stub.usage = (3000, 600, 0, 0)  # $0.024 a call on Opus 5.5 ($0.012 on the Sonnet judge)
    before = paid(world)
    decided_counts = []
    for _ in range(3):
        assert world.daily("--max-cost", "0.3") == 0
        # every draft paid for so far was decided: a capped run decides what it drafted
        assert len(decided_urls(world)) == drafts_answered(world)
        decided_counts.append(len(decided_urls(world)))
        age_out(world)
    assert 0 < decided_counts[0] < decided_counts[1] < decided_counts[2] == 12
    assert lost(world) == set()
    assert world.stub.paid_twice(before) == 0
    runs = sorted(world.state().runs.values(), key=lambda r: r.started_at)
    assert [r.capped is not None for r in runs] == [True, True, False]
    assert all(r.cost.usd <= 0.3 for r in runs)


def test_a_host_refusing_to_open_prs_fails_the_run_and_the_next_loses_nothing(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    # A refusal past every retry (a secondary limit is waited out instead: tests/adapters/hosts/test_host_limits.py)
    world.harness.fail_on("POST", "/pulls", 502, times=MODEL_RETRY.attempts)
    assert world.daily() == 1
    [report] = world.state().runs.values()
    assert report.failed is not None  # its window is read again
    before = paid(world)
    age_out(world)
    capsys.readouterr()
    assert world.daily() == 0, capsys.readouterr().out
    assert lost(world) == set()
    assert world.stub.paid_twice(before) == 0  # drafts, consolidations and verdicts recalled


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_run_stopped_mid_drafting_leaves_its_window_and_answers_to_the_next(
    world: DailyWorld, stop: signal.Signals
) -> None:
    world.stub.latency = 0.4
    process = subprocess.Popen(
        [sys.executable, "-m", "homeostat", "daily", "--kb", str(world.checkout())],
        env=daily_env(world),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while drafts_answered(world) < 5 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(stop)
    output, _ = process.communicate(timeout=120)
    assert process.returncode == 130, output
    [report] = world.state().runs.values()
    assert report.failed is not None and "interrupted" in report.failed.reason
    [file] = read_checkpoints(world.bare().read_files("refs/heads/homeostat/state"), "daily")
    assert len(file.answers) >= 5
    assert world.state().claims["daily"].released_at is not None
    world.stub.latency = 0.0
    before = paid(world)
    age_out(world)
    assert world.daily() == 0
    assert lost(world) == set()

    assert world.stub.paid_twice(before) <= 4  # at most the calls in flight when it stopped


def test_a_run_drafting_past_its_claims_hour_keeps_its_claim_and_a_second_run_stands_aside(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    from homeostat.cli import build_parser
    from homeostat.commands.ci import daily
    from homeostat.workspace import Workspace

    lessons_world(
        world, 4, first=12
    )  # sixteen threads, two at a time, a second each: eight seconds of drafting
    set_concurrency(world, 2)
    world.stub.latency = 1.0
    start, began = dt.datetime.now(dt.UTC), time.monotonic()

    def clock() -> dt.datetime:  # ten claim minutes a second: the drafting takes over an hour
        return start + dt.timedelta(minutes=10 * (time.monotonic() - began))

    world.env()
    first = build_parser("daily").parse_args(["daily", "--kb", str(world.checkout())])
    second = build_parser("daily").parse_args(["daily", "--kb", str(world.checkout())])
    codes: list[int] = []
    later = threading.Timer(
        7.0, lambda: codes.append(daily.run(second, Workspace.of(second), now=clock))
    )  # 70 minutes in
    later.start()
    assert daily.run(first, Workspace.of(first), now=clock) == 0
    later.join(120)
    assert codes == [0]
    assert "another run owns these lessons" in capsys.readouterr().out
    assert lost(world) == set()
    questions = [q for q, n in world.stub.answered.items() if DRAFTER in q]
    assert all(world.stub.answered[q] == 1 for q in questions)  # no thread drafted twice


def test_a_run_waiting_out_github_s_limit_past_its_claims_hour_renews_it_and_a_second_run_stands_aside(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub refuses the first PR with a secondary limit and `Retry-After` longer than a claim lives
    (the run's clock goes ten claim minutes a second: the 12 s wait is two hours). The waiting run
    renews its claim on the state branch as it waits, a second `homeostat daily` started 70 claim
    minutes into the wait stands aside, and the first run then publishes every lesson once."""
    from homeostat.commands.ci import daily

    world.harness.fail_on("POST", "/pulls", 403, times=1, retry_after=12)
    refused = world.harness.emulator.failures_on[-1]
    waited = second_run_while_waiting(world, "daily", daily.run, lambda: refused[4] == 0)  # PR refused

    assert waited.code == 0
    assert refused[4] == 0  # the limit was met
    assert len(set(waited.expiries)) >= 3 and waited.expiries == sorted(waited.expiries)  # (a) renewed
    assert waited.second == 0  # (b) the second run stood aside
    assert "another run owns these lessons" in capsys.readouterr().out
    assert lost(world) == set()  # (c) every lesson published, once
    urls = [r.source.url for r in world.state().records() if r.source.url]
    assert len(urls) == len(set(urls)) == 12
    questions = [q for q, n in world.stub.answered.items() if DRAFTER in q]
    assert all(world.stub.answered[q] == 1 for q in questions)


def test_a_run_killed_outright_leaves_its_window_with_its_claim(world: DailyWorld) -> None:
    """SIGKILL (a lost runner) writes nothing as it dies: the claim it took holds its window start."""
    world.stub.latency = 0.4
    process = subprocess.Popen(
        [sys.executable, "-m", "homeostat", "daily", "--kb", str(world.checkout())],
        env=daily_env(world),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while drafts_answered(world) < 3 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.kill()
    process.wait(60)
    state = world.state()
    assert state.runs == {} and state.claims["daily"].since is not None
    world.stub.latency = 0.0
    age_out(world)
    assert world.daily() == 0  # takes the dead run's claim over, and its window with it
    assert lost(world) == set()


@pytest.fixture
def bitbucket_world(
    bitbucket_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DailyWorld:  # type: ignore[no-untyped-def]
    daily = lessons_world(DailyWorld(bitbucket_harness, anthropic_stub, tmp_path, monkeypatch), 12)
    set_concurrency(daily, 4)
    return daily


def test_a_run_on_bitbucket_whose_hour_another_job_spent_waits_it_out_with_its_claim(
    bitbucket_world: DailyWorld, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another job on the run's account spends Bitbucket's rolling hour while the run drafts: Bitbucket
    then answers 429, text/plain, with no Retry-After, until the hour's requests age out. The run
    waits at least a minute before each try (reads and writes alike), renewing its claim, a second
    `homeostat daily` started meanwhile stands aside, and every lesson is published once.

    Time is scaled, not skipped: Bitbucket's clock runs 300 times real time (its hour is 12 s), the
    run's minute between tries is 0.2 s (`pace.MIN_LIMIT_WAIT`, the same factor) and the run's own
    clock ten claim minutes a second, so the hour's wait is two claim hours."""
    from homeostat.adapters.hosts import pace
    from homeostat.commands.ci import daily

    world = bitbucket_world
    emulator = world.harness.emulator
    began = time.monotonic()
    emulator.limit_clock = lambda: 300 * (time.monotonic() - began)
    emulator.counted.clear()
    monkeypatch.setattr(pace, "MIN_LIMIT_WAIT", 60 / 300)
    spent = threading.Event()
    answer = world.script.__call__

    def spend_then_answer(system: str, user: str) -> object:
        if DRAFTER in system and not spent.is_set():  # another job spends the hour mid-drafting
            spent.set()
            world.harness.spend_hour_on()
        return answer(system, user)

    world.stub.respond_with(spend_then_answer)
    waited = second_run_while_waiting(world, "daily", daily.run, spent.is_set)

    assert waited.code == 0
    # Bitbucket refused for the hour, and the run waited it out trying once a minute, not hammering it
    assert 0 < emulator.refused_requests <= 61
    assert time.monotonic() - began >= 12
    assert len(set(waited.expiries)) >= 3 and waited.expiries == sorted(waited.expiries)  # renewed
    assert waited.second == 0  # the second run stood aside
    assert "another run owns these lessons" in capsys.readouterr().out
    assert lost(world) == set()  # every lesson published, once
    urls = [r.source.url for r in world.state().records() if r.source.url]
    assert len(urls) == len(set(urls)) == 12
    questions = [q for q, n in world.stub.answered.items() if DRAFTER in q]
    assert len(questions) == 12 and all(world.stub.answered[q] == 1 for q in questions)
