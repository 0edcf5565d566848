"""The daily run at organisation scale (issue 30): wall time with model calls in flight at once, and the
fault table replayed.

    .venv/bin/python benchmarks/bench_daily_scale.py --lessons 20 60 150 --latency 2      # the grid
    .venv/bin/python benchmarks/bench_daily_scale.py --lessons 500 --latency 8            # the goal: < 10 min
    .venv/bin/python benchmarks/bench_daily_scale.py --lessons 60 --latency 2 --workers 1 # one at a time
    .venv/bin/python benchmarks/bench_daily_scale.py --faults [--retry-after 120] [--only SIGINT] # the fault table
    .venv/bin/python benchmarks/bench_daily_scale.py --lessons 500 --latency 8 --shards 8 # 8 draft jobs + merge
    .venv/bin/python benchmarks/bench_daily_scale.py --lessons 500 --latency 8 --shards 8 --runners 2
                                                     # each draft job as on its own runner, 2 at a time

1. `--lessons N`: N merged PRs, one review thread each, by 20 members, against the GitHub emulator
   and the model stub, which answers every call after `--latency` seconds. Prints the run's wall
   time; the part of it the run spent waiting between host writes (paced under 80 a minute and 500
   an hour: item 4 of the issue); the model calls by agent; and the most calls the stub was answering
   at once. `--workers` sets `agents.concurrency.api` (default: the setting's default). Then the
   run's floor: the drafts' rounds of calls, then the judge's (it waits for every draft), then the
   waits the host writes need (80 a minute, 500 an hour), whatever the code did; with
   `--timeline`, every 30 s the calls in flight, answered by agent, and the host writes sent.
   `--shards N` spreads the PRs over `--repos` code repos (64) and runs the sharded daily run: N
   `homeostat curate --shard i/N` processes side by side (a CI matrix), then `homeostat daily
   --merge-shards N`; it prints the slowest shard's wall time, the merge job's, their sum (the
   workflow's critical path), the calls each paid (the shards' judge calls are the verdicts they
   judged ahead) and the questions the merge job paid again (0).
   `--shards 1` is the same world as one unsharded run, to compare. With N > 1 it prints the largest
   shard's floor, the merge job's and the critical path's, and the merge job's timeline.
   All N draft jobs side by side on one machine measure the machine (on 2 cores, 8 jobs and the
   merge job's emulator share them); `--runners K` runs them as a CI matrix does, each job a process
   of its own on its own runner: at most K at once (match K to the cores; 1 runs each alone), each
   timed from its start to its end with the calls it paid (from its `--format json` summary), then
   the merge job alone; the critical path is the slowest draft job plus the merge job.
   `--profile FOLDER` (with `--runners`) writes a cProfile of each draft job and of the merge job
   there and prints the merge job's and the slowest draft job's.
2. `--faults`: each row of the issue's table, then the next run a day later (the PRs out of the
   default window); prints the lessons lost (of 12) and the questions paid for twice per row.

Runs `homeostat daily` in-process (the SIGINT row as its own process) over local servers on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from dailyworld import DailyWorld  # noqa: E402
from emulators.anthropic_stub import AnthropicStub  # noqa: E402
from emulators.github_server import GitHubEmulator, GitHubHarness  # noqa: E402
from faultkit import (  # noqa: E402
    DRAFTER,
    age_out,
    drafts_answered,
    edit_config,
    lessons_world,
    lost,
    paid,
    set_concurrency,
)
from racekit import Env, daily_env  # noqa: E402

from homeostat.adapters.hosts.pace import GITHUB_WRITE_MARGIN  # noqa: E402

MEMBERS = 20


def world(folder: Path) -> tuple[DailyWorld, Callable[[], None]]:
    emulator = GitHubEmulator(folder / "github")
    emulator.start()
    stub = AnthropicStub().start()
    daily = DailyWorld(GitHubHarness(emulator), stub, folder, Env())  # type: ignore[arg-type]

    def close() -> None:
        stub.stop()
        emulator.stop()

    return daily, close


def team(w: DailyWorld) -> list[str]:
    handles = [f"dev{n:02d}" for n in range(MEMBERS)]
    extra = "".join(f"    - {{handle: {h}, role: member, teams: [payments]}}\n" for h in handles)
    edit_config(
        w,
        lambda text: text.replace(
            "  teams:\n    - name: payments", extra + "  teams:\n    - name: payments", 1
        ),
    )
    for handle in handles:
        w.harness.add_member(handle, ("payments",))
    return handles


class Sleeps:
    """Counts the seconds the run waits between host writes while it sleeps them."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._real = time.sleep

    def __enter__(self) -> Sleeps:
        real, counted = self._real, self

        def sleep(seconds: float) -> None:
            if threading.current_thread() is threading.main_thread() and seconds >= 0.5:
                counted.seconds += seconds
            real(seconds)

        time.sleep = sleep
        return self

    def __exit__(self, *exc: object) -> None:
        time.sleep = self._real


class Timeline:
    """Samples, once a second, the calls the stub is answering and the host writes sent so far; prints
    per `bucket` seconds the mean and most calls in flight, the calls answered by agent and the writes,
    so a run's sequential phases and its waits between writes show."""

    def __init__(self, w: DailyWorld, bucket: float = 30.0) -> None:
        self.w, self.bucket = w, bucket
        self.samples: list[tuple[float, int, int, Counter[str]]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> Timeline:
        self.started = time.perf_counter()
        self.before = agents_of(self.w.stub)
        self.writes_before = writes_since(self.w, 0)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while not self._stop.wait(1.0):
            stub = self.w.stub
            writes = writes_since(self.w, 0)
            self.samples.append(
                (time.perf_counter() - self.started, stub._in_flight, writes, agents_of(stub))  # noqa: SLF001
            )

    def print(self) -> None:
        last_writes, last_calls, start = self.writes_before, self.before, 0.0
        while self.samples and start < self.samples[-1][0]:
            inside = [s for s in self.samples if start <= s[0] < start + self.bucket]
            if inside:
                flights = [s[1] for s in inside]
                calls = inside[-1][3] - last_calls
                print(
                    f"  {start:5.0f}-{start + self.bucket:<5.0f} s: in flight mean {sum(flights) / len(flights):4.1f} "
                    f"max {max(flights):2d}; answered {dict(calls)}; host writes {inside[-1][2] - last_writes}",
                    flush=True,
                )
                last_writes, last_calls = inside[-1][2], inside[-1][3]
            start += self.bucket


MINUTE = 60.0 + GITHUB_WRITE_MARGIN  # the adapter's pacing: 80 writes in any minute, 500 in any hour


def writes_since(w: DailyWorld, start: int) -> int:
    """Content-creating requests (GraphQL reads are POSTs too, and not counted by GitHub as writes)."""
    return sum(
        1
        for method, path in list(w.harness.requests.entries)[start:]
        if method in ("POST", "PUT", "PATCH", "DELETE") and not path.startswith("/api/graphql")
    )


def floor(calls: Counter[str], writes: int, latency: float, workers: int) -> str:
    """The least wall time the host's and the model's limits allow: the drafts, then the judge (it
    waits for every draft: the lessons' order decides which are judged under its cap), then the
    writes' waits: at most 80 a minute and 500 an hour (the requests' own time is not counted)."""
    drafting = -(-(calls["draft"] + calls["doc-check"]) // workers) * latency
    deciding = -(-(calls["consolidate"] + calls["judge"]) // workers) * latency
    paced = max(0, (writes - 1) // 80 * MINUTE, (writes - 1) // 500 * (3600.0 + GITHUB_WRITE_MARGIN))
    return (
        f"floor {drafting + deciding + paced:.0f} s = drafts {drafting:.0f} s + judge/consolidation "
        f"{deciding:.0f} s ({workers} workers at {latency:g} s) + {writes} host writes {paced:.0f} s"
    )


def agents_of(stub: AnthropicStub) -> Counter[str]:
    names = {
        DRAFTER: "draft",
        "reference documents true": "doc-check",
        "free of near-duplicates": "consolidate",
        "before it reaches every": "judge",
    }
    counts: Counter[str] = Counter()
    for question, n in stub.answered.items():
        counts[next((name for mark, name in names.items() if mark in question), "other")] += n
    return counts


def at_scale(lessons: int, latency: float, workers: int | None, timeline_on: bool = False) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        w, close = world(Path(scratch))
        try:
            handles = team(w)
            if workers is not None:
                set_concurrency(w, workers)
            built = time.perf_counter()
            lessons_world(w, lessons, authors=handles, reviewers=handles)
            built = time.perf_counter() - built
            w.stub.latency = latency
            requests = len(w.harness.requests.entries)
            serving = w.harness.emulator.seconds_serving
            started = time.perf_counter()
            with Sleeps() as sleeps, Timeline(w) as timeline:
                code = w.daily("--max-cost", "100")  # the example KB's $2 would stop a large run
            wall = time.perf_counter() - started
            serving = w.harness.emulator.seconds_serving - serving
            records = w.state().records()
            decided = Counter(r.outcome for r in records)
            print(
                f"{lessons} lessons at {latency:g} s a call, {workers or 'default'} workers: exit {code}, "
                f"{wall:.1f} s wall ({wall / 60:.1f} min), {sleeps.seconds:.0f} s of it between host writes; "
                f"{sum(w.stub.answered.values())} model calls {dict(agents_of(w.stub))}, at most "
                f"{w.stub.max_in_flight} in flight; {len(w.harness.requests.entries) - requests} host requests; "
                f"decided {dict(decided)}; building the PRs {built:.0f} s (not counted)",
                flush=True,
            )
            from homeostat.core.config import Concurrency

            calls = agents_of(w.stub)
            print("  " + floor(calls, writes_since(w, requests), latency, workers or Concurrency().api))
            print(
                f"  the emulator spent {serving:.0f} s of it answering the run's host requests; "
                f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
                flush=True,
            )
            if timeline_on:
                timeline.print()
        finally:
            close()


# --- a sharded run ----------------------------------------------------------------------------------


def spread(w: DailyWorld, count: int) -> list[str]:
    """`count` code repos shaped like billing (its areas, auto-merged), in homeostat.yaml and on the host."""
    names = ["billing", *(f"billing{n}" for n in range(1, count))]
    entries = "".join(
        f"  - name: {name}\n    url: https://github.com/example/{name}\n    topics: [errors, money]\n"
        f'    areas:\n      - name: api\n        paths: ["src/billing/api/**"]\n        owner: payments\n'
        for name in names[1:]
    )
    merged = ", ".join(f"{name}/api" for name in names[1:])
    edit_config(
        w,
        lambda text: text.replace("repos:\n", "repos:\n" + entries, 1).replace(
            "areas: [billing/api,", f"areas: [billing/api, {merged},", 1
        ),
    )
    for name in names[1:]:
        w.repos[name] = w.harness.create_repo("example", name)
    return names


def sharded(
    lessons: int, latency: float, shards: int, repos: int, runners: int = 0, profile: Path | None = None
) -> None:
    from homeostat.core.daily.shards import shard_index
    from homeostat.core.hosts import HostKind, RepoRef

    with tempfile.TemporaryDirectory() as scratch:
        w, close = world(Path(scratch))
        try:
            handles = team(w)
            names = spread(w, repos)
            lessons_world(w, lessons, authors=handles, reviewers=handles, repos=names)
            sizes = Counter(shard_index(RepoRef(HostKind.GITHUB, "example", n), shards) for n in names)
            w.stub.latency = latency
            started = time.perf_counter()
            if shards == 1:
                with Sleeps() as sleeps:
                    code = w.daily("--max-cost", "100")
                wall = time.perf_counter() - started
                print(
                    f"{lessons} lessons over {repos} repos at {latency:g} s a call, one job: exit {code}, "
                    f"{wall:.1f} s ({wall / 60:.1f} min), {sleeps.seconds:.0f} s of it between host writes; "
                    f"{sum(w.stub.answered.values())} calls "
                    f"{dict(agents_of(w.stub))}; decided {dict(Counter(r.outcome for r in w.state().records()))}",
                    flush=True,
                )
                return
            env = daily_env(w)
            if runners:
                runner_jobs(w, env, lessons, latency, shards, repos, runners, sizes, profile)
                return
            jobs = {
                i: subprocess.Popen(
                    [sys.executable, "-m", "homeostat", "curate", "--kb", str(w.checkout())]
                    + ["--shard", f"{i}/{shards}", "--max-cost", "100"],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for i in range(1, shards + 1)
            }
            walls: dict[int, float] = {}
            serving = w.harness.emulator.seconds_serving
            with Timeline(w) as shard_timeline:
                while len(walls) < len(jobs):
                    for i, job in jobs.items():
                        if i not in walls and job.poll() is not None:
                            walls[i] = time.perf_counter() - started
                    time.sleep(0.1)
            drafted = agents_of(w.stub)
            in_flight = w.stub.max_in_flight
            before = paid(w)
            shards_served = w.harness.emulator.seconds_serving - serving
            merge_started = time.perf_counter()
            merge_requests = len(w.harness.requests.entries)
            serving = w.harness.emulator.seconds_serving
            with Sleeps() as sleeps, Timeline(w) as timeline:
                code = w.daily("--merge-shards", str(shards), "--max-cost", "100")
            merge = time.perf_counter() - merge_started
            merge_served = w.harness.emulator.seconds_serving - serving
            slowest = max(walls.values())
            merge_calls = agents_of(w.stub) - drafted
            print(
                f"{lessons} lessons over {repos} repos at {latency:g} s a call, {shards} shards "
                f"(repos per shard {[sizes[i] for i in range(1, shards + 1)]}): shards exit "
                f"{[jobs[i].returncode for i in sorted(jobs)]}, slowest {slowest:.1f} s, fastest "
                f"{min(walls.values()):.1f} s, {dict(drafted)} calls, at most {in_flight} in flight; merge job exit "
                f"{code}, {merge:.1f} s ({sleeps.seconds:.0f} s of it between host writes), {dict(merge_calls)} "
                f"calls, paid twice {w.stub.paid_twice(before)}; "
                f"critical path {slowest + merge:.1f} s ({(slowest + merge) / 60:.1f} min); "
                f"decided {dict(Counter(r.outcome for r in w.state().records()))}",
                flush=True,
            )
            print(
                f"  the emulator (one process, serving every job's requests one at a time; GitHub's servers "
                f"on a real run) spent {shards_served:.0f} s answering the draft jobs and {merge_served:.0f} s "
                f"the merge job; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
                flush=True,
            )
            from homeostat.core.config import Concurrency

            workers = Concurrency().api
            largest = Counter({k: -(-n * max(sizes.values()) // len(names)) for k, n in drafted.items()})
            shard_floor = floor(largest, 0, latency, workers).split(" = ")[0].removeprefix("floor ")
            merge_floor = floor(merge_calls, writes_since(w, merge_requests), latency, workers)
            print(
                f"  the largest shard's {floor(largest, 0, latency, workers)}\n  the merge job's {merge_floor}\n"
                f"  critical path floor {float(shard_floor.rstrip(' s')) + float(merge_floor.split()[1]):.0f} s",
                flush=True,
            )
            print("  the draft jobs:")
            shard_timeline.print()
            print("  the merge job:")
            timeline.print()
        finally:
            close()


def shard_job(
    w: DailyWorld, env: dict[str, str], i: int, shards: int, profile: Path | None = None
) -> subprocess.Popen[bytes]:
    profiled = [] if profile is None else ["-m", "cProfile", "-o", str(profile / f"shard-{i}.prof")]
    return subprocess.Popen(
        [
            sys.executable,
            *profiled,
            "-m",
            "homeostat",
            "curate",
            "--kb",
            str(w.checkout()),
            "--format",
            "json",
        ]
        + ["--shard", f"{i}/{shards}", "--max-cost", "100"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def runner_jobs(
    w: DailyWorld,
    env: dict[str, str],
    lessons: int,
    latency: float,
    shards: int,
    repos: int,
    runners: int,
    sizes: Counter[int],
    profile: Path | None = None,
) -> None:
    """The draft jobs as CI runs them, each on its own runner: at most `runners` of them at once (1:
    each alone, one after the other), each its own process against the one emulator and stub, timed
    from its start to its end; then the merge job alone. The critical path is the slowest draft job
    plus the merge job, as on a CI whose matrix jobs each get a machine."""
    walls: dict[int, float] = {}
    calls: dict[int, str] = {}
    waiting = list(range(1, shards + 1))
    running: dict[int, tuple[subprocess.Popen[bytes], float]] = {}
    started = time.perf_counter()
    while waiting or running:
        while waiting and len(running) < runners:
            i = waiting.pop(0)
            running[i] = (shard_job(w, env, i, shards, profile), time.perf_counter())
        for i, (job, began) in list(running.items()):
            if job.poll() is None:
                continue
            walls[i] = time.perf_counter() - began
            out = job.stdout.read() if job.stdout is not None else b""
            try:
                data = json.loads(out)
                calls[i] = f"{data['counts']['modelCalls']} calls + {data['shard']['judged']} verdicts"
            except (ValueError, KeyError):
                calls[i] = "no summary"
            print(
                f"  shard {i}/{shards} ({sizes[i]} repos): exit {job.returncode}, {walls[i]:.1f} s, "
                f"{calls[i]}; load average {os.getloadavg()[0]:.1f}",
                flush=True,
            )
            del running[i]
        time.sleep(0.1)
    drafting = time.perf_counter() - started
    drafted = agents_of(w.stub)
    before = paid(w)
    merge_requests = len(w.harness.requests.entries)
    merge_started = time.perf_counter()
    serving = w.harness.emulator.seconds_serving
    profiled = [] if profile is None else ["-m", "cProfile", "-o", str(profile / "merge.prof")]
    with Timeline(w) as timeline:  # the merge job on its own runner too: a process of its own
        code = subprocess.run(
            [sys.executable, *profiled, "-m", "homeostat", "daily", "--kb", str(w.checkout())]
            + ["--merge-shards", str(shards), "--max-cost", "100"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ).returncode
    merge = time.perf_counter() - merge_started
    served = w.harness.emulator.seconds_serving - serving
    merge_calls = agents_of(w.stub) - drafted
    slowest = max(walls, key=lambda i: walls[i])
    print(
        f"{lessons} lessons over {repos} repos at {latency:g} s a call, {shards} draft jobs, {runners} at "
        f"once: slowest shard {slowest} {walls[slowest]:.1f} s, fastest {min(walls.values()):.1f} s "
        f"(all drafting {drafting:.0f} s here); {dict(drafted)} calls in the draft jobs; merge job exit "
        f"{code}, {merge:.1f} s ({served:.0f} s of it the emulator answering its requests, "
        f"{writes_since(w, merge_requests)} host writes), {dict(merge_calls)} calls, paid twice "
        f"{w.stub.paid_twice(before)}; critical path {walls[slowest] + merge:.1f} s "
        f"({(walls[slowest] + merge) / 60:.1f} min) = slowest shard + merge; "
        f"decided {dict(Counter(r.outcome for r in w.state().records()))}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores",
        flush=True,
    )
    print("  the merge job:")
    timeline.print()
    if profile is not None:
        for name in ("merge.prof", f"shard-{slowest}.prof"):
            print(f"  profile of {name} (its main thread; the emulator's time is a wait there):")
            pstats.Stats(str(profile / name)).sort_stats("cumulative").print_stats(30)


# --- the fault table ---------------------------------------------------------------------------------


def fresh(folder: Path) -> tuple[DailyWorld, Callable[[], None]]:
    w, close = world(folder)
    lessons_world(w, 12)
    set_concurrency(w, 8)
    return w, close


def drafts_of(numbers: range) -> Callable[[str, str], bool]:
    marks = tuple(f"validate_payload_{n}() before" for n in numbers)
    return lambda system, user: DRAFTER in system and any(mark in user for mark in marks)


def row(name: str, folder: Path, fault: Callable[[DailyWorld], int | None]) -> None:
    """`fault` returns the calls in flight when it stopped the run (answered after the signal), for
    a row that stops it: their answers came after the run was gone, so the next run pays for them
    again (the issue's goal allows the last unfinished batch)."""
    w, close = fresh(folder)
    started = time.perf_counter()
    try:
        before = paid(w)
        in_flight = fault(w) or 0
        w.stub.faults.clear()
        w.harness.emulator.failures_on.clear()
        first_decided = 12 - len(lost(w))
        repaid_by = paid(w)
        age_out(w)
        w.daily()
        print(
            f"{name:<58} first run decided {first_decided:>2} of 12; after the next run: lost "
            f"{len(lost(w))} of 12, paid twice {w.stub.paid_twice(repaid_by)} "
            f"(of {sum(repaid_by.values()) - sum(before.values())} calls the faulty run paid; "
            f"{in_flight} in flight when it stopped, so "
            f"{max(0, w.stub.paid_twice(repaid_by) - in_flight)} beyond them); "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )
    finally:
        close()


def faults(retry_after: str, only: str = "") -> None:
    def rate_limited(w: DailyWorld) -> int | None:
        w.stub.fail_when(drafts_of(range(0, 12, 2)), 429, times=1, retry_after=retry_after)
        w.daily()
        return None

    def overloaded(w: DailyWorld) -> int | None:
        w.stub.fail_when(drafts_of(range(12)), 529, times=4)
        w.daily()
        return None

    def capped(w: DailyWorld) -> int | None:
        w.stub.usage = (3000, 600, 0, 0)  # $0.024 a call on Opus 5.5
        w.daily("--max-cost", "0.5")
        return None

    def secondary_limit(w: DailyWorld) -> int | None:
        w.harness.fail_on("POST", "/pulls", 403, times=6, retry_after=1)
        w.daily()
        return None

    def interrupted(w: DailyWorld) -> int | None:
        w.stub.latency = 0.5
        process = subprocess.Popen(
            [sys.executable, "-m", "homeostat", "daily", "--kb", str(w.checkout())],
            env=daily_env(w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while drafts_answered(w) < 6 and process.poll() is None:
            time.sleep(0.05)
        time.sleep(0.25)  # half a call: the run has read the answers the stub counted, the next are out
        signalled = sum(w.stub.answered.values())
        process.send_signal(signal.SIGINT)
        process.wait(120)
        w.stub.latency = 0.0
        return sum(w.stub.answered.values()) - signalled  # sent before the signal, answered after it

    def overlong(w: DailyWorld) -> int | None:
        from homeostat.cli import build_parser
        from homeostat.commands.ci import daily
        from homeostat.workspace import Workspace

        set_concurrency(w, 2)
        w.stub.latency = 1.0
        start, began = dt.datetime.now(dt.UTC), time.monotonic()

        def clock() -> dt.datetime:  # ten claim minutes a second: twelve drafts take an hour
            return start + dt.timedelta(minutes=10 * (time.monotonic() - began))

        w.env()
        parse = build_parser("daily").parse_args

        def args() -> argparse.Namespace:
            return parse(["daily", "--kb", str(w.checkout())])

        second = threading.Timer(6.5, lambda: daily.run(args(), Workspace.of(args()), now=clock))
        second.start()
        daily.run(args(), Workspace.of(args()), now=clock)
        second.join()
        w.stub.latency = 0.0
        return None

    rows: list[tuple[str, Callable[[DailyWorld], int | None]]] = [
        (f"Anthropic 429 with retry-after: {retry_after} on 6 of 12 drafts", rate_limited),
        ("529 four times in a row on every draft", overloaded),
        ("spending cap $0.50 (~$0.024 a call)", capped),
        ("GitHub 403 secondary limit while publishing", secondary_limit),
        ("SIGINT mid-drafting (a real process)", interrupted),
        ("a run drafting > 60 min (its claim's hour), a second run at 65", overlong),
    ]
    with tempfile.TemporaryDirectory() as scratch:
        for n, (name, fault) in enumerate(rows):
            if only.lower() in name.lower():
                row(name, Path(scratch) / f"row{n}", fault)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lessons", type=int, nargs="*", default=[20, 60, 150])
    parser.add_argument("--latency", type=float, nargs="*", default=[2.0])
    parser.add_argument(
        "--workers", type=int, default=None, help="agents.concurrency.api (default: its default)"
    )
    parser.add_argument("--faults", action="store_true", help="replay the fault table")
    parser.add_argument(
        "--shards", type=int, default=0, help="a sharded run: N draft processes, then the merge"
    )
    parser.add_argument(
        "--repos", type=int, default=64, help="code repos the PRs spread over (with --shards)"
    )
    parser.add_argument(
        "--runners",
        type=int,
        default=0,
        help="with --shards: the draft jobs each a process on its own runner, at most this many at once "
        "(1: each alone); 0: all side by side",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="with --runners: cProfile the draft jobs and the merge job into this folder, print the "
        "merge job's and the slowest draft job's",
    )
    parser.add_argument(
        "--timeline", action="store_true", help="print calls in flight and host writes every 30 s"
    )
    parser.add_argument("--retry-after", default="120", help="the 429 row's retry-after, seconds")
    parser.add_argument("--only", default="", help="with --faults: the rows whose name holds this text")
    args = parser.parse_args()
    if args.faults:
        faults(args.retry_after, args.only)
        return
    for latency in args.latency:
        for lessons in args.lessons:
            if args.shards:
                sharded(lessons, latency, args.shards, args.repos, args.runners, args.profile)
            else:
                at_scale(lessons, latency, args.workers, args.timeline)


if __name__ == "__main__":
    main()
