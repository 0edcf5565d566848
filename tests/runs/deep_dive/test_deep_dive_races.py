"""`homeostat deep-dive` run twice at once, or killed at a step boundary and rerun: one deep-dive PR
for the week, as one clean run leaves it. Real processes (tests/killpoint.py), the emulators, real git."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest
from deepdiveworld import LAYOUT_DOC, STALE, STALE_ID, DeepDiveWorld, duplicate_files
from faultkit import second_run_while_waiting
from racekit import KILLPOINT, daily_env

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import write_state
from homeostat.core.state.branch import Claim, ClaimOwner, claim_path, dump_state

DEEP_DIVE_KILL_POINTS = ("after-claim", "after-push", "after-open", "before-deep-dive-state")


def spawn(dd: DeepDiveWorld, kill_at: str = "") -> subprocess.Popen[str]:
    """`homeostat deep-dive` on a fresh CI checkout, as its own process (killed at `kill_at`)."""
    args = [str(KILLPOINT), kill_at] if kill_at else ["-m", "homeostat"]
    return subprocess.Popen(
        [sys.executable, *args, "deep-dive", "--kb", str(dd.world.checkout())],
        env=daily_env(dd.world),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def every_deep_dive_pull(dd: DeepDiveWorld) -> list[tuple[str, str]]:
    """(head branch, state) of every deep-dive PR the host holds, open or not, on either host."""
    harness = dd.world.harness
    if dd.world.host == "bitbucket":
        repo = harness.emulator.repo("example", "kb")
        with harness.emulator.lock:
            pulls = [(p.source, p.state.lower()) for p in repo.pulls.values()]
    else:
        pulls = [(p.head_ref, "merged" if p.merged_at else p.state) for p in dd.world.pulls().values()]
    return sorted(p for p in pulls if p[0].startswith("homeostat/deep-dive-"))


def homeostat_branches(dd: DeepDiveWorld) -> list[str]:
    refs = dd.world.bare().run("for-each-ref", "--format=%(refname:short)", "refs/heads/homeostat/")
    return sorted(b for b in refs.stdout.decode().split() if not b.startswith("homeostat/state"))


def assert_one_clean_pr(dd: DeepDiveWorld) -> None:
    [(branch, state)] = every_deep_dive_pull(dd)
    assert state == "open"
    assert homeostat_branches(dd) == [branch]
    files = {p: d.decode() for p, d in dd.world.bare().read_files(f"refs/heads/{branch}").items()}
    assert "status: retired" in files["knowledge/storefront/ui/cart-totals-hook-again.md"]
    runs = dd.deep_dive_runs()
    assert runs and all(len(r.pulls) == 1 for r in runs if r.pulls)
    claim = dd.world.state().claims.get("deep-dive")
    assert claim is None or claim.released_at is not None


def test_two_deep_dives_at_once_leave_one_pr(any_host_dd: DeepDiveWorld) -> None:
    dd = any_host_dd
    dd.add(duplicate_files())
    runs = [spawn(dd) for _ in range(2)]
    outputs = [run.communicate(timeout=600)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert_one_clean_pr(dd)
    # Each run either opened (or rebuilt) the week's PR or stood aside for the other, in one line.
    for out in outputs:
        assert "(a person merges it)" in out or "another deep dive is running" in out, out


@pytest.mark.parametrize("point", DEEP_DIVE_KILL_POINTS)
def test_a_deep_dive_killed_at_a_step_boundary_then_rerun_leaves_one_pr(
    point: str, dd: DeepDiveWorld
) -> None:
    dd.add(duplicate_files())
    killed = spawn(dd, kill_at=point)
    out = killed.communicate(timeout=600)[0]
    assert killed.returncode == -9, out
    assert dd.run() == 0
    assert_one_clean_pr(dd)
    [report] = [r for r in dd.deep_dive_runs() if r.pulls]
    assert report.decided == {"duplicate": 1}


# --- a claim from elsewhere --------------------------------------------------------------------------


def plant_claim(dd: DeepDiveWorld, *, expires_in: dt.timedelta) -> None:
    """Another machine's deep dive holds the claim (its process cannot be checked from here)."""
    now = dt.datetime.now(dt.UTC)
    claim = Claim(
        run_id="20261201T060000-abcdef",
        kind="deep-dive",
        owner=ClaimOwner(host="runner-7", pid=4242, machine="another-machine"),
        claimed_at=now - dt.timedelta(minutes=20),
        expires_at=now + expires_in,
    )
    write_state(Git(dd.world.checkout()), {claim_path("deep-dive"): dump_state(claim)})


def test_a_live_deep_dive_claim_makes_this_run_stand_aside_without_asking_or_writing(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add(duplicate_files())
    plant_claim(dd, expires_in=dt.timedelta(minutes=30))
    capsys.readouterr()
    assert dd.run() == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "another deep dive is running: run 20261201T060000-abcdef" in out
    assert "pid 4242 on runner-7" in out
    assert dd.script.calls == [] and every_deep_dive_pull(dd) == [] and dd.deep_dive_runs() == []
    assert dd.world.state().claims["deep-dive"].run_id == "20261201T060000-abcdef"


def test_an_expired_deep_dive_claim_is_taken_over_and_released_at_the_end(dd: DeepDiveWorld) -> None:
    dd.add(duplicate_files())
    plant_claim(dd, expires_in=-dt.timedelta(minutes=1))
    assert dd.run() == 0
    assert_one_clean_pr(dd)
    assert dd.world.state().claims["deep-dive"].released_at is not None


def test_a_daily_run_and_a_deep_dive_hold_their_own_claims(dd: DeepDiveWorld) -> None:
    plant_claim(dd, expires_in=dt.timedelta(minutes=30))
    assert dd.world.daily() == 0
    assert "daily" in dd.world.state().claims and dd.world.state().claims["daily"].released_at is not None


def test_a_run_whose_claim_another_run_took_over_stops_before_it_opens_anything(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import homeostat.runs.daily.claim as claims

    monkeypatch.setattr(claims, "RENEW_AFTER", dt.timedelta(0))  # renew before every model call
    dd.add(duplicate_files())
    dd.add(
        {
            "knowledge/storefront/ui/docs/layout.md": LAYOUT_DOC,
            f"knowledge/storefront/ui/{STALE_ID}.md": STALE,
        }
    )
    answer = dd.script.__call__

    def take_over_then_answer(system: str, user: str) -> object:
        if not dd.script.calls:  # while the run waits on its first call, another run takes over
            bare = dd.world.bare()
            tip = bare.rev_parse("refs/heads/homeostat/state")
            assert tip is not None
            other = Claim(
                run_id="20261201T070000-fedcba",
                kind="deep-dive",
                owner=ClaimOwner(host="runner-9", pid=99, machine="another-machine"),
                claimed_at=dt.datetime.now(dt.UTC),
                expires_at=dt.datetime.now(dt.UTC) + dt.timedelta(minutes=60),
            )
            sha = bare.commit_files(tip, {claim_path("deep-dive"): dump_state(other)}, "taken over")
            bare.run("update-ref", "refs/heads/homeostat/state", sha)
        return answer(system, user)

    dd.world.stub.respond_with(take_over_then_answer)
    capsys.readouterr()
    assert dd.run() == 1
    err = capsys.readouterr().err
    assert "was taken over by run 20261201T070000-fedcba" in err and len(err.strip().splitlines()) == 1
    assert [agent for agent, _ in dd.script.calls] == ["same"]  # no call after the claim was lost
    assert every_deep_dive_pull(dd) == [] and homeostat_branches(dd) == [] and dd.deep_dive_runs() == []
    assert dd.world.state().claims["deep-dive"].run_id == "20261201T070000-fedcba"


# --- a deep dive waiting on the host ---------------------------------------------------------------


def test_a_deep_dive_waiting_out_github_s_limit_past_its_claims_hour_renews_it_and_a_second_stands_aside(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub refuses the deep dive's PR with a secondary limit and a `Retry-After` longer than a claim
    lives (the run's clock goes ten claim minutes a second: the 12 s wait is two hours). The waiting run
    renews its claim on the state branch as it waits, a second `homeostat deep-dive` started 70 claim
    minutes into the wait stands aside, and the first then opens the week's one PR."""
    from homeostat.commands.ci import deep_dive

    dd.add(duplicate_files())
    dd.world.harness.fail_on("POST", "/pulls", 403, times=1, retry_after=12)
    refused = dd.world.harness.emulator.failures_on[-1]
    waited = second_run_while_waiting(dd.world, "deep-dive", deep_dive.run, lambda: refused[4] == 0)

    assert waited.code == 0
    assert refused[4] == 0  # the limit was met
    assert len(set(waited.expiries)) >= 3 and waited.expiries == sorted(waited.expiries)  # renewed
    assert waited.second == 0  # the second run stood aside
    out = capsys.readouterr().out
    assert out.count("another deep dive is running") == 1, out
    assert_one_clean_pr(dd)
    assert len(dd.script.asked("same")) == 1  # the pair was asked once, by the first run
