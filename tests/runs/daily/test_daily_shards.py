"""A sharded daily run (issue 30, item 7): `homeostat curate --shard i/N` jobs as separate processes,
then one `homeostat daily --merge-shards N`, decide the bytes one unsharded run decides, pay for no
draft twice, and a shard that fails leaves its repos to the next run without holding up the others.

On the GitHub emulator `example/billing` is shard 2 of 2 and `example/storefront` shard 1 of 2
(a stable hash of each repo; `test_the_example_repos_split_between_two_shards` pins it).
"""

from __future__ import annotations

import datetime as dt
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld
from faultkit import DRAFTER, age_out, drafts_answered, lessons_world, lost, paid, set_concurrency
from hostkit import PullSpec, ThreadSpec
from racekit import daily_env, fresh_world

from homeostat.core.daily.judge import JUDGE_SYSTEM
from homeostat.core.daily.shards import shard_index
from homeostat.core.hosts import HostKind, RepoRef
from homeostat.core.state.checkpoints import read_checkpoints
from runs.daily.test_daily_e2e import build_a_busy_day, one_confident_pr, pr, thread
from runs.daily.test_daily_scale import _unported, _untimed, outcome_of


def curate_shard(world: DailyWorld, shard: str, *extra: str) -> subprocess.Popen[str]:
    """`homeostat curate --shard` on its own CI checkout, as a matrix job runs it."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "homeostat",
            "curate",
            "--kb",
            str(world.checkout()),
            "--shard",
            shard,
            *extra,
        ],
        env=daily_env(world),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def busy(world: DailyWorld) -> DailyWorld:
    build_a_busy_day(world)
    return lessons_world(world, 6)


REFUND_LIMITS = "Check refund limits with RefundPolicy.allows before posting."
BUTTONS = "Use the Button primitive from web/components/ui for every clickable control."
EDGE = "Round refund amounts with Money.round_half_even before comparing them."


def drafts_paid(world: DailyWorld) -> dict[str, int]:
    return {q: n for q, n in world.stub.answered.items() if DRAFTER in q}


def verdicts_paid(world: DailyWorld) -> dict[str, int]:
    return {q: n for q, n in world.stub.answered.items() if JUDGE_SYSTEM[:60] in q}


def test_the_example_repos_split_between_two_shards() -> None:
    assert shard_index(RepoRef(HostKind.GITHUB, "example", "billing"), 2) == 2
    assert shard_index(RepoRef(HostKind.GITHUB, "Example", "Storefront"), 2) == 1


def test_two_shard_jobs_and_a_merge_job_decide_the_same_bytes_as_one_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = fresh_world(tmp_path / "one", "github", monkeypatch)
    try:
        assert busy(one.daily).daily() == 0
        unsharded = outcome_of(one.daily)
        judged_by_one = verdicts_paid(one.daily)
    finally:
        one.close()
    sharded = fresh_world(tmp_path / "sharded", "github", monkeypatch)
    try:
        world = busy(sharded.daily)
        jobs = [curate_shard(world, shard) for shard in ("1/2", "2/2")]  # side by side
        for job in jobs:
            output, _ = job.communicate(timeout=300)
            assert job.returncode == 0, output
        drafted, judged = drafts_paid(world), verdicts_paid(world)
        assert drafted  # the shards drafted the day's threads
        assert judged and set(judged) <= set(judged_by_one)  # and judged ahead what one run judges
        files = world.bare().read_files("refs/heads/homeostat/state")
        slots = {file.slot: file for file in read_checkpoints(files, "daily")}
        assert {"shard-1-of-2", "shard-2-of-2"} <= set(slots)
        assert all(
            slots[s].shard is not None and slots[s].shard.finished for s in ("shard-1-of-2", "shard-2-of-2")
        )
        assert world.pulls() == {}  # a shard decides and opens nothing
        assert world.daily("--merge-shards", "2") == 0
        assert drafts_paid(world) == drafted  # the merge job recalled every draft: none paid twice
        assert verdicts_paid(world) == judged_by_one  # it recalled the verdicts, judged only the rest
        assert outcome_of(world) == unsharded
        assert len(unsharded["records"]) >= 10
    finally:
        sharded.close()


def test_a_failed_shard_leaves_its_repos_for_the_next_run_and_blocks_none(
    github_harness: Any,
    anthropic_stub: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    world = busy(DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch))
    good = curate_shard(world, "2/2")  # billing
    output, _ = good.communicate(timeout=300)
    assert good.returncode == 0, output
    failing = curate_shard(world, "1/2", "--max-cost", "0")  # storefront: capped after its first call
    output, _ = failing.communicate(timeout=300)
    assert failing.returncode == 1, output
    assert "shard 1/2 did not finish" in output
    capsys.readouterr()
    assert world.daily("--merge-shards", "2") == 0
    printed = capsys.readouterr().out
    assert "shard 1/2 stopped: spending cap" in printed
    state = world.state()
    [report] = state.runs.values()
    assert report.unread is not None and "shard 1/2" in report.unread.reason
    repos = {r.source.url.split("/pull/")[0].rsplit("/", 1)[-1] for r in state.records() if r.source.url}
    assert "billing" in repos and "storefront" not in repos  # billing decided; storefront waits
    before = paid(world)
    age_out(world)  # a day later: only the unread window reaches the storefront PRs
    assert world.daily() == 0
    urls = [r.source.url for r in world.state().records() if r.source.url]
    assert any("/storefront/" in url for url in urls)  # the unread shard's lessons, decided a day later
    assert len(urls) == len(set(urls))  # and none twice
    assert world.stub.paid_twice(before) <= 1  # at most the one call the capped shard paid for


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["curate", "--shard", "3/2"], "--shard 3/2: shards count from 1, so i must be 1 to 2, not 3"),
        (["curate", "--shard", "0/0"], "--shard 0/0: the shard count must be 1 to 64, not 0"),
        (["curate", "--shard", "junk"], "--shard 'junk' is not i/N"),
        (["daily", "--merge-shards", "0"], "--merge-shards '0': give the number of shards"),
        (["daily", "--merge-shards", "x"], "--merge-shards 'x': give the number of shards"),
    ],
)
def test_a_bad_shard_is_answered_in_one_line(
    args: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from homeostat.cli import main

    assert main([*args, "--kb", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err
    assert len(err.splitlines()) == 1


def test_a_shard_stopped_by_sigterm_writes_what_it_paid_for_and_its_rerun_recalls_it(
    github_harness: Any, anthropic_stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = busy(DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch))
    set_concurrency(world, 2)
    world.stub.latency = 0.4
    job = curate_shard(world, "2/2")  # billing: the busy day's and the six numbered PRs
    deadline = time.monotonic() + 120
    while drafts_answered(world) < 3 and time.monotonic() < deadline and job.poll() is None:
        time.sleep(0.05)
    job.send_signal(signal.SIGTERM)  # a cancelled matrix job
    output, _ = job.communicate(timeout=120)
    assert job.returncode == 130, output
    files = world.bare().read_files("refs/heads/homeostat/state")
    [slot] = [f for f in read_checkpoints(files, "daily") if f.slot == "shard-2-of-2"]
    assert slot.shard is not None and not slot.shard.finished and "interrupted" in slot.shard.reason
    assert len(slot.answers) >= 3
    world.stub.latency = 0.0
    before = paid(world)
    again = curate_shard(world, "2/2")
    output, _ = again.communicate(timeout=300)
    assert again.returncode == 0, output
    assert world.stub.paid_twice(before) <= 2  # at most the calls in flight when it stopped


def bitbucket_day(world: DailyWorld) -> None:
    one_confident_pr(world)
    pr(world, "billing", "bo", "Refund limits", thread("dee", REFUND_LIMITS, "src/billing/api/limits.py"))
    pr(world, "storefront", "cy", "Buttons", thread("ana", BUTTONS, "web/components/Cart.tsx"))


def decided_bytes(world: DailyWorld) -> tuple[list[str], dict[str, str]]:
    records = sorted(
        _untimed(_unported(r.model_dump_json(exclude={"hash", "at", "review_opened_at", "settled_at"})))
        for r in world.state().records()
    )
    main = {p: _unported(text) for p, text in world.main_files().items() if p != "homeostat.yaml"}
    return records, main


def test_three_shards_on_bitbucket_decide_what_one_run_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    one = fresh_world(tmp_path / "one", "bitbucket", monkeypatch)
    try:
        bitbucket_day(one.daily)
        assert one.daily.daily() == 0
        unsharded = decided_bytes(one.daily)
    finally:
        one.close()
    sharded = fresh_world(tmp_path / "sharded", "bitbucket", monkeypatch)
    try:
        world = sharded.daily
        bitbucket_day(world)
        jobs = [curate_shard(world, f"{i}/3") for i in (1, 2, 3)]  # on Bitbucket shard 2 holds no repo
        outputs = [job.communicate(timeout=300)[0] for job in jobs]
        assert [job.returncode for job in jobs] == [0, 0, 0], outputs
        assert "Shard 2/3 holds none of the code repos" in outputs[1]
        drafted = drafts_paid(world)
        assert world.daily("--merge-shards", "3") == 0
        assert drafts_paid(world) == drafted
        assert decided_bytes(world) == unsharded
        assert len(unsharded[0]) == 3
    finally:
        sharded.close()


def test_a_shard_counts_only_when_it_finished_after_the_last_finished_run() -> None:
    import datetime as dt

    from homeostat.core.daily.shards import Shard, shard_status
    from homeostat.core.state.checkpoints import CheckpointFile, ShardMark, checkpoint_bytes

    at = dt.datetime(2026, 12, 3, 6, tzinfo=dt.UTC)

    def slot(index: int, finished: bool, until: dt.datetime) -> tuple[str, bytes]:
        mark = ShardMark(shard=f"{index}/3", since=at - dt.timedelta(days=1), until=until, finished=finished)
        file = CheckpointFile(kind="daily", slot=Shard(index, 3).slot, shard=mark)
        return f"checkpoints/daily/{Shard(index, 3).slot}.json", checkpoint_bytes(file)

    files = dict([slot(1, True, at), slot(2, False, at)])
    status = shard_status(files, 3, last_run=at - dt.timedelta(hours=1))
    assert status[Shard(1, 3)] == ""
    assert status[Shard(2, 3)].startswith("stopped")
    assert status[Shard(3, 3)].startswith("left no drafts")
    assert shard_status(files, 3, last_run=at)[Shard(1, 3)] == "did not run since the last daily run"


def test_a_thread_only_the_merge_job_s_window_reaches_is_drafted_once_by_it(
    github_harness: Any, anthropic_stub: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Why a sharded run's merge job drafts a thread itself (bench_daily_scale: 1 of 500): each draft
    job opens its window `lookbackHours` before it starts, and the merge job opens its own where the
    earliest draft job's opened, so it reads every thread any shard drafted. A thread merged at the
    window's trailing edge, in the repo of a shard that started later (its window had moved past
    it), was read by no draft job: the merge job drafts it, once, and pays for nothing twice."""
    from homeostat.core.state.checkpoints import read_checkpoints as slots_of

    world = lessons_world(DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch), 4)  # billing
    first = curate_shard(world, "1/2")  # storefront: its window opens first
    output, _ = first.communicate(timeout=300)
    assert first.returncode == 0, output
    files = world.bare().read_files("refs/heads/homeostat/state")
    [mark] = [f.shard for f in slots_of(files, "daily") if f.slot == "shard-1-of-2"]
    assert mark is not None
    edge = mark.since + dt.timedelta(seconds=1)  # inside shard 1's window, at its trailing edge
    world.merged_pull(
        "billing",
        PullSpec(
            author="bo",
            title="At the edge",
            files={"src/billing/api/edge.py": "x = 1\n"},
            merged_at=edge,
            threads=(ThreadSpec("ana", EDGE, "src/billing/api/edge.py", followed_by_commit=True),),
        ),
    )
    while dt.datetime.now(dt.UTC) - dt.timedelta(hours=26) <= edge + dt.timedelta(seconds=1):
        time.sleep(0.1)  # billing's draft job starts once its window has moved past the edge
    second = curate_shard(world, "2/2")
    output, _ = second.communicate(timeout=300)
    assert second.returncode == 0, output
    drafted = drafts_paid(world)
    assert len(drafted) == 4 and not any(EDGE in q for q in drafted)  # no draft job read the edge

    before = paid(world)
    assert world.daily("--merge-shards", "2") == 0

    merge_drafts = {q: n for q, n in drafts_paid(world).items() if n > drafted.get(q, 0)}
    assert [EDGE in q for q in merge_drafts] == [True] and list(merge_drafts.values()) == [1]
    assert world.stub.paid_twice(before) == 0
    assert lost(world) == set()  # the edge thread and the four the shard drafted, each decided once
    urls = [r.source.url for r in world.state().records() if r.source.url]
    assert len(urls) == len(set(urls)) == 5
