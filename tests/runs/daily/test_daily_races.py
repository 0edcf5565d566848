"""`homeostat daily` run twice at once, or killed at a step boundary and rerun: the same end state as
one clean run. Real processes, the emulators and real git (larger matrices: benchmarks/bench_daily_races.py)."""

from __future__ import annotations

import datetime as dt
import io
import subprocess
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld
from racekit import (
    BITBUCKET_KILL_POINTS,
    KILL_POINTS,
    EndState,
    concurrent_round,
    end_state,
    fresh_world,
    killed_then_rerun,
    problems,
    seed,
)

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import write_state
from homeostat.core.state.branch import Claim, ClaimOwner, claim_path, dump_state
from homeostat.runs.publish import Change, Publisher

ROUNDS = {2: 4, 3: 3}  # ten rounds with Bitbucket's three; the benchmark runs thirty of each
BITBUCKET_ROUNDS = 3


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EndState]:
    """One clean run's end state over the seeded world, per host."""
    states: dict[str, EndState] = {}
    with pytest.MonkeyPatch.context() as env:
        for host in ("github", "bitbucket"):
            world = fresh_world(tmp_path_factory.mktemp(f"clean-{host}"), host, env)
            try:
                seed(world.daily)
                assert world.daily.daily() == 0
                states[host] = end_state(world.daily)
            finally:
                world.close()
    return states


@pytest.mark.parametrize("runs", sorted(ROUNDS))
def test_concurrent_runs_open_one_pr_each_and_decide_every_lesson_once(
    runs: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean: dict[str, EndState]
) -> None:
    for round_ in range(ROUNDS[runs]):
        state, codes, outputs = concurrent_round(tmp_path / f"round-{round_}", "github", runs, monkeypatch)
        assert codes == [0] * runs, outputs
        assert problems(state, clean["github"]) == [], f"round {round_}"
        stood_aside = [o for o in outputs if "another run owns these lessons" in o]
        assert len(stood_aside) == runs - 1, outputs
        assert all("decided by an overlapping run" in o for o in stood_aside)


def test_concurrent_runs_on_bitbucket_with_its_asynchronous_merge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean: dict[str, EndState]
) -> None:
    for round_ in range(BITBUCKET_ROUNDS):
        state, codes, outputs = concurrent_round(tmp_path / f"round-{round_}", "bitbucket", 2, monkeypatch)
        assert codes == [0, 0], outputs
        assert problems(state, clean["bitbucket"]) == [], f"round {round_}"


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_run_killed_at_a_step_boundary_then_rerun_ends_as_one_clean_run(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean: dict[str, EndState]
) -> None:
    state, killed, rerun = killed_then_rerun(tmp_path, "github", point, monkeypatch)
    assert (killed, rerun) == (-9, 0)
    assert problems(state, clean["github"]) == []


@pytest.mark.parametrize("point", BITBUCKET_KILL_POINTS)
def test_a_run_killed_on_bitbucket_then_rerun_ends_as_one_clean_run(
    point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean: dict[str, EndState]
) -> None:
    state, killed, rerun = killed_then_rerun(tmp_path, "bitbucket", point, monkeypatch)
    assert (killed, rerun) == (-9, 0)
    assert problems(state, clean["bitbucket"]) == []


# --- claims from elsewhere, and what no record explains -------------------------------------------


def plant_claim(world: DailyWorld, *, expires_in: dt.timedelta) -> None:
    """Another machine's daily run holds the claim (its process cannot be checked from here)."""
    now = dt.datetime.now(dt.UTC)
    claim = Claim(
        run_id="20261201T060000-abcdef",
        kind="daily",
        owner=ClaimOwner(host="runner-7", pid=4242, machine="another-machine"),
        claimed_at=now - dt.timedelta(hours=2),
        expires_at=now + expires_in,
    )
    write_state(Git(world.checkout()), {claim_path("daily"): dump_state(claim)})


def test_a_live_claim_of_another_run_makes_this_one_stand_aside(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    seed(world)
    plant_claim(world, expires_in=dt.timedelta(minutes=30))
    assert world.daily() == 0
    out = capsys.readouterr().out
    assert "another run owns these lessons" in out and "pid 4242 on runner-7" in out
    assert world.pulls() == {} and world.records() == {}
    [report] = world.state().runs.values()
    assert [n.kind for n in report.notices] == ["overlap"]
    assert world.state().last_run() is None  # a run that stood aside never hides a capped run's window
    assert world.state().claims["daily"].run_id == "20261201T060000-abcdef"


def test_an_expired_claim_is_taken_over_and_released_at_the_end(world: DailyWorld) -> None:
    seed(world)
    plant_claim(world, expires_in=-dt.timedelta(minutes=1))
    assert world.daily() == 0
    state = end_state(world)
    assert state.counts == {"merged": 1, "review": 2} and not state.claim_held


def test_open_prs_and_branches_no_record_explains_are_closed_deleted_and_reported(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    harness, repo = world.harness, world.kb_repo
    harness.push_commit(repo, "homeostat/daily-bo-2026-11-30", {"knowledge/x.md": "x\n"})
    stray = harness.adapter().open_pull(repo, "homeostat/daily-bo-2026-11-30", "main", "Homeostat daily", "")
    bare = world.bare()
    tree = bare.run("rev-parse", "main^{tree}").stdout.decode().strip()
    old = bare.run(
        "commit-tree",
        tree,
        "-p",
        "main",
        "-m",
        "old",
        env={"GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z"},
    ).stdout.decode()
    bare.run("update-ref", "refs/heads/homeostat/review-cy-2026-01-01", old.strip())
    assert world.daily() == 0
    out = capsys.readouterr().out
    assert f"closed PR #{stray.number} (homeostat/daily-bo-2026-11-30): no record explains it" in out
    assert "deleted homeostat/review-cy-2026-01-01: no open PR uses it" in out
    assert world.pull_state(stray.number)["state"] == "closed"
    assert end_state(world).branches == ()
    [report] = world.state().runs.values()
    assert [n.kind for n in report.notices].count("reconciled") == 2


def test_a_change_the_base_already_holds_is_closed_not_merged(world: DailyWorld) -> None:
    checkout = world.checkout()
    git = Git(checkout)
    git.fetch("origin", ["+refs/heads/main:refs/remotes/origin/main"])
    publisher = Publisher(git, world.harness.adapter(), world.kb_repo, remote="origin", out=io.StringIO())
    base = publisher.base_tip("main")
    same = world.main_files()["homeostat.yaml"]
    published = publisher.open(Change("main", base, {"homeostat.yaml": same}, "homeostat/daily-x", "T", "b"))
    result = publisher.land(published, "T (#1)", "nothing")
    assert result.merged and "closed, not merged" in result.reason
    assert world.bare().rev_parse("refs/heads/main") == base
    assert world.pull_state(published.pull.number)["state"] == "closed"


def test_a_claim_is_replaced_only_by_its_own_runs_copy() -> None:
    from homeostat.core.state.branch import merge_state_files, parse_state_file

    now = dt.datetime(2026, 12, 1, 6, tzinfo=dt.UTC)
    owner = ClaimOwner(host="runner", pid=7)
    mine = Claim(
        run_id="run-a", kind="daily", owner=owner, claimed_at=now, expires_at=now + dt.timedelta(hours=1)
    )
    theirs = mine.model_copy(update={"run_id": "run-b"})
    released = mine.model_copy(update={"released_at": now + dt.timedelta(minutes=5)})
    path = claim_path("daily")
    assert merge_state_files({path: dump_state(theirs)}, {path: dump_state(released)})[path] == dump_state(
        theirs
    )
    assert merge_state_files({path: dump_state(mine)}, {path: dump_state(released)})[path] == dump_state(
        released
    )
    assert parse_state_file(path, dump_state(released)) == released


def test_a_claim_of_a_process_gone_from_this_machine_is_dead_and_elsewhere_only_expiry_tells() -> None:
    import subprocess

    from homeostat.adapters.state.run_claim import owner_alive, this_process

    me = this_process()
    assert owner_alive(me)
    child = subprocess.Popen(["sleep", "0"])
    child.wait()
    assert not owner_alive(me.model_copy(update={"pid": child.pid}))
    assert owner_alive(me.model_copy(update={"pid": child.pid, "machine": "another-machine"}))


def test_a_deleted_pr_branch_is_never_read_stale_from_an_earlier_fetch(world: DailyWorld) -> None:
    checkout = Git(world.checkout())
    world.harness.push_commit(world.kb_repo, "homeostat/review-cy-2026-11-30", {"knowledge/x.md": "x\n"})
    spec = "+refs/heads/homeostat/review-*:refs/remotes/origin/homeostat/review-*"
    checkout.fetch("origin", [spec])
    assert checkout.rev_parse("refs/remotes/origin/homeostat/review-cy-2026-11-30")
    world.bare().run("update-ref", "-d", "refs/heads/homeostat/review-cy-2026-11-30")
    checkout.fetch("origin", [spec])
    assert checkout.rev_parse("refs/remotes/origin/homeostat/review-cy-2026-11-30") is None


def _claim_repos(tmp_path: Path) -> tuple[Git, Git]:
    """A bare origin and a clone of it with no state branch yet."""
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "origin.git")], check=True)
    subprocess.run(["git", "init", "-q", str(tmp_path / "clone")], check=True)
    subprocess.run(
        ["git", "-C", str(tmp_path / "clone"), "remote", "add", "origin", str(tmp_path / "origin.git")],
        check=True,
    )
    return Git(tmp_path / "origin.git"), Git(tmp_path / "clone")


def test_a_claim_write_on_a_state_branch_that_moved_keeps_the_other_write_and_a_takeover_stops_it(
    tmp_path: Path,
) -> None:
    """The run writes its claim on the commit its last write left without fetching; where another
    writer moved the branch since, that write is kept, and where another run took over, it stops."""
    from homeostat.adapters.state.run_claim import ClaimLost, Taken, take_claim, update_claim
    from homeostat.core.state.branch import Heartbeat, heartbeat_path, parse_state

    origin, clone = _claim_repos(tmp_path)
    now = dt.datetime.now(dt.UTC)
    mine = Claim(
        run_id="20261201T060000-aaaaaa",
        kind="daily",
        owner=ClaimOwner(host="runner-1", pid=1, machine="another-machine"),
        claimed_at=now,
        expires_at=now + dt.timedelta(hours=1),
    )
    where: dict[str, Any] = {"remote": "origin", "branch": "homeostat/state", "path": claim_path("daily")}
    taken = take_claim(clone, mine, live=lambda other: True, **where)
    assert isinstance(taken, Taken) and taken.written is not None
    renewed = mine.model_copy(update={"expires_at": now + dt.timedelta(hours=2)})
    written = update_claim(clone, renewed, last=taken.written, **where)
    assert origin.rev_parse("refs/heads/homeostat/state") == written.commit

    subprocess.run(["git", "clone", "-q", str(tmp_path / "origin.git"), str(tmp_path / "other")], check=True)
    other = Git(tmp_path / "other")  # another writer (a member's sync, a digest) records a heartbeat
    beat = Heartbeat(member="bo", at=now, homeostat_version="0.2.0", pending=1)
    write_state(other, {heartbeat_path("bo"): dump_state(beat)}, branch="homeostat/state")
    later = renewed.model_copy(update={"expires_at": now + dt.timedelta(hours=3)})
    after = update_claim(clone, later, last=written, **where)
    tip = origin.rev_parse("refs/heads/homeostat/state")
    state = parse_state(origin.read_files("refs/heads/homeostat/state"), tip, branch="homeostat/state")
    assert after.commit == tip and "bo" in state.heartbeats
    assert state.claims["daily"].expires_at == later.expires_at

    thief = mine.model_copy(update={"run_id": "20261201T070000-bbbbbb"})
    sha = origin.commit_files(tip, {claim_path("daily"): dump_state(thief)}, "taken over")
    origin.run("update-ref", "refs/heads/homeostat/state", sha)
    for again in (later, later.model_copy(update={"expires_at": now + dt.timedelta(hours=4)})):
        with pytest.raises(ClaimLost, match="taken over by run 20261201T070000-bbbbbb"):
            update_claim(clone, again, last=after, **where)
    assert origin.rev_parse("refs/heads/homeostat/state") == sha
