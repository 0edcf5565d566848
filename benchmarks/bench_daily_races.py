"""The daily run under overlaps and crashes, at a larger count than the suite, and what the claim costs.

    .venv/bin/python benchmarks/bench_daily_races.py [--rounds 30] [--kills 2] [--hosts github,bitbucket]

1. Races: `--rounds` rounds of 2 and of 3 `homeostat daily` processes started together over one
   seeded world (tests/racekit.py: one lesson to merge, two to review).
2. Kills: each step boundary of tests/killpoint.py, `--kills` times, on each host: the run is
   SIGKILLed there, then rerun once.
   Every world's end state is compared with one clean run's: duplicates (extra PRs or records),
   lost records, orphans (branches or open PRs a clean run does not leave), empty commits on main,
   and a claim left held; all must be 0.
3. The claim's cost on a run with nothing to do: wall time of such a run, and the time spent taking
   the claim and reconciling, with the host requests and git pushes they add.

Real processes, the emulators on 127.0.0.1 and real git; prints numbers only.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from racekit import (  # noqa: E402
    BITBUCKET_KILL_POINTS,
    KILL_POINTS,
    EndState,
    concurrent_round,
    end_state,
    fresh_world,
    killed_then_rerun,
    seed,
)

from homeostat.adapters.git.plumbing import Git  # noqa: E402
from homeostat.runs.daily import claim, recover  # noqa: E402

Tally = Counter[str]


def compare(state: EndState, clean: EndState, tally: Tally) -> None:
    tally["worlds"] += 1
    extra_pulls = Counter(state.pulls) - Counter(clean.pulls)
    tally["duplicates"] += sum(n for (_, pr_state), n in extra_pulls.items() if pr_state != "open")
    tally["duplicates"] += max(0, len(state.records) - len(clean.records))
    tally["lost records"] += len(set(clean.records) - set(state.records))
    tally["orphans"] += len(set(state.branches) - set(clean.branches))
    tally["orphans"] += sum(n for (_, pr_state), n in extra_pulls.items() if pr_state == "open")
    tally["empty commits"] += state.empty_commits
    tally["claims left held"] += int(state.claim_held)
    tally["differs from a clean run"] += int(state.pulls != clean.pulls or state.main != clean.main)


def clean_state(folder: Path, host: str) -> EndState:
    world = fresh_world(folder, host)
    try:
        seed(world.daily)
        with contextlib.redirect_stdout(io.StringIO()):
            assert world.daily.daily() == 0
        return end_state(world.daily)
    finally:
        world.close()


def races(folder: Path, host: str, clean: EndState, rounds: int) -> None:
    for runs in (2, 3):
        tally: Tally = Counter()
        started = time.perf_counter()
        for n in range(rounds):
            state, codes, outputs = concurrent_round(folder / f"race-{runs}-{n}", host, runs)
            compare(state, clean, tally)
            tally["runs"] += runs
            tally["exited non-zero"] += sum(1 for code in codes if code != 0)
            tally["stood aside"] += sum("another run owns these lessons" in out for out in outputs)
        report(f"{host}: {rounds} rounds x {runs} concurrent runs", tally, time.perf_counter() - started)


def kills(folder: Path, host: str, clean: EndState, repeat: int) -> None:
    points = KILL_POINTS if host == "github" else BITBUCKET_KILL_POINTS
    tally: Tally = Counter()
    started = time.perf_counter()
    for n in range(repeat):
        for point in points:
            with contextlib.redirect_stdout(io.StringIO()):
                state, killed, rerun = killed_then_rerun(folder / f"kill-{point}-{n}", host, point)
            compare(state, clean, tally)
            tally["not killed"] += int(killed != -9)
            tally["rerun exited non-zero"] += int(rerun != 0)
    report(
        f"{host}: SIGKILL at {len(points)} boundaries x {repeat}, then rerun",
        tally,
        time.perf_counter() - started,
    )


def report(title: str, tally: Tally, seconds: float) -> None:
    print(f"{title} ({seconds:.0f} s)")
    for key in ("worlds", "runs", "stood aside", "duplicates", "lost records", "orphans", "empty commits"):
        if key in tally or key in ("duplicates", "lost records", "orphans", "empty commits"):
            print(f"  {key:28} {tally[key]}")
    for key in (
        "claims left held",
        "differs from a clean run",
        "exited non-zero",
        "not killed",
        "rerun exited non-zero",
    ):
        if tally[key]:
            print(f"  {key:28} {tally[key]}")


def timed(owner: Any, name: str, spent: list[float]) -> None:
    original: Callable[..., Any] = getattr(owner, name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - started)

    setattr(owner, name, wrapped)


def claim_cost(folder: Path, repeat: int) -> None:
    """A run with nothing to do, repeated: its wall time and the part the claim and reconcile take."""
    world = fresh_world(folder, "github")
    try:
        seed(world.daily)
        with contextlib.redirect_stdout(io.StringIO()):
            assert world.daily.daily() == 0
        spent: list[float] = []
        timed(claim.RunClaim, "take", spent)
        timed(recover, "reconcile", spent)
        pushes: list[float] = []
        timed(Git, "push", pushes)
        log = world.daily.harness.requests
        reconcile_requests: list[int] = []
        original = recover.reconcile

        def counted(*args: Any, **kwargs: Any) -> Any:
            before = log.count()
            try:
                return original(*args, **kwargs)
            finally:
                reconcile_requests.append(log.count() - before)

        recover.reconcile = counted  # type: ignore[assignment]
        walls: list[float] = []
        shares: list[float] = []
        requests: list[int] = []
        for _ in range(repeat):
            spent.clear()
            pushes.clear()
            log.clear()
            started = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                assert world.daily.daily() == 0
            walls.append(time.perf_counter() - started)
            shares.append(sum(spent))
            requests.append(log.count())
        print(f"a run with nothing to do, x{repeat} (github)")
        print(f"  wall time, median             {statistics.median(walls) * 1000:.0f} ms")
        print(f"  claim + reconcile, median     {statistics.median(shares) * 1000:.0f} ms")
        print(f"  share of the run              {statistics.median(shares) / statistics.median(walls):.0%}")
        print(
            f"  git pushes per run            {len(pushes)} (the claim, and the state write that releases it)"
        )
        print(
            f"  host API requests per run     {statistics.median(requests):.0f}"
            f" (reconcile: {statistics.median(reconcile_requests):.0f})"
        )
    finally:
        world.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--kills", type=int, default=2)
    parser.add_argument("--hosts", default="github,bitbucket")
    parser.add_argument("--idle-runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-races-") as tmp:
        folder = Path(tmp)
        for host in args.hosts.split(","):
            clean = clean_state(folder / f"clean-{host}", host)
            races(folder / host, host, clean, args.rounds)
            kills(folder / host, host, clean, args.kills)
        claim_cost(folder / "idle", args.idle_runs)


if __name__ == "__main__":
    main()
