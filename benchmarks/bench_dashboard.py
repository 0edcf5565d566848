"""The dashboard's page weights and render times on generated KBs of 1,000 and 5,000 rules.

    .venv/bin/python benchmarks/bench_dashboard.py [--sizes 1000,5000] [--runs 5]

Each KB is bench_validate's generated tree (two repos, ten areas, one document per 20 rules) with
`homeostat.yaml` committed 70 days ago, a state branch of that many days of daily runs (one a day
at its slot, a few failed, each deciding a handful of lessons: merged, sent to review, declined,
duplicates, some reviews still waiting), weekly deep dives, three members' heartbeats, and an
event log of sessions, turns and model calls, so every trend chart has eight weeks to draw.

Per page, over HTTP from a running `DashboardServer` (as a browser gets it): the body's size in KB,
and the median wall time of --runs requests; apart from that, the time to read the inputs
(`load_inputs`: KB, state branch, event log, accepted rule ids) for the first page, which parses
the whole KB, and the median for later pages, which parse only the files that changed (none here),
and the median time to lay a page out from inputs already read. Prints numbers only; nothing
asserts a time.

Before the KB was kept between pages and the entries were paged (issue 32), on the same machine:
1,000 rules 110-320 ms a page, the entries page 239 KB; 5,000 rules 1.4-1.9 s a page, the entries
page 1,190 KB (755 KB for a search matching one rule in ten).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_validate import generate  # noqa: E402

from homeostat.adapters.git.plumbing import Git  # noqa: E402
from homeostat.adapters.state.event_log import SqliteEventLog, events_path  # noqa: E402
from homeostat.core.dashboard import html  # noqa: E402
from homeostat.core.events import Event, ModelCall  # noqa: E402
from homeostat.core.state.branch import (  # noqa: E402
    Cost,
    DecisionRecord,
    DecisionsFile,
    Failed,
    Heartbeat,
    LessonSource,
    Outcome,
    PullRef,
    RunReport,
    dump_state,
    state_files,
)
from homeostat.dashboard.server import Dashboard, DashboardServer  # noqa: E402
from homeostat.runs.dashboard.inputs import load_inputs  # noqa: E402

PAGES = (
    "/",
    "/automation",
    "/performance",
    "/entries",
    "/entries?page=20",
    "/entries?q=ledger",
    "/members",
    "/coverage",
    "/events",
)
DAYS = 70
MEMBERS = ("ana", "bo", "cy")


def _git(root: Path, *args: str, when: dt.datetime | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com"}
    env.update(GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    if when is not None:
        env.update(GIT_AUTHOR_DATE=when.isoformat(), GIT_COMMITTER_DATE=when.isoformat())
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def _records(rng: random.Random, now: dt.datetime) -> dict[str, list[DecisionRecord]]:
    """A few lessons a day per member: most merged by the run, some reviewed, a few waiting."""
    records: dict[str, list[DecisionRecord]] = {m: [] for m in MEMBERS}
    for day in range(DAYS, 0, -1):
        at = (now - dt.timedelta(days=day)).replace(hour=6, minute=3, second=0, microsecond=0)
        for member in MEMBERS:
            for n in range(rng.randint(0, 3)):
                outcome: Outcome = rng.choice(
                    ("merged", "merged", "merged", "review", "declined", "duplicate")
                )
                opened = at if outcome == "review" else None
                waiting = outcome == "review" and day < 6 and rng.random() < 0.5
                settled = None if waiting else at + dt.timedelta(hours=rng.randint(1, 60))
                pr = PullRef(number=day * 10 + n + 1, url="https://github.com/example/kb/pull/1", branch="b")
                records[member].append(
                    DecisionRecord(
                        hash=f"{member}-{day}-{n}",
                        member=member,
                        kind="new",
                        title=f"Lesson {day}-{n} of {member}",
                        source=LessonSource(type="manual"),
                        outcome="merged" if outcome == "review" and not waiting else outcome,
                        state="in-review" if waiting else "settled",
                        confidence=rng.randint(40, 95),
                        review_opened_at=opened,
                        settled_at=settled,
                        pr=pr if opened else None,
                        at=at,
                    )
                )
    return records


def _runs(rng: random.Random, now: dt.datetime) -> list[RunReport]:
    runs = []
    for day in range(DAYS, 0, -1):
        start = (now - dt.timedelta(days=day)).replace(hour=6, minute=2, second=0, microsecond=0)
        failed = Failed(since=start, reason="the host refused the push") if rng.random() < 0.05 else None
        runs.append(
            RunReport(
                run_id=f"daily-{start:%Y%m%d}",
                kind="daily",
                started_at=start,
                finished_at=start + dt.timedelta(minutes=4),
                duration_seconds=240.0,
                decided={"merged": rng.randint(0, 6), "review": rng.randint(0, 2)},
                failed=failed,
                cost=Cost(usd=round(rng.uniform(0.2, 2.5), 2), estimated=False),
            )
        )
    return runs


def build(root: Path, rules: int) -> None:
    now = dt.datetime.now(dt.UTC)
    generate(root, rules, rules // 20)
    _git(root, "init", "--quiet", "--initial-branch=main")
    _git(root, "add", "-A")
    _git(root, "commit", "--quiet", "-m", "KB", when=now - dt.timedelta(days=DAYS))
    rng = random.Random(32)
    decisions = tuple(DecisionsFile(member=m, records=tuple(r)) for m, r in _records(rng, now).items())
    beats = tuple(
        Heartbeat(member=m, at=now - dt.timedelta(hours=5 + 30 * i), homeostat_version="0.2.0", pending=0)
        for i, m in enumerate(MEMBERS)
    )
    files = state_files(decisions, beats, ())
    for report in _runs(rng, now):
        files[f"runs/{report.started_at.date().isoformat()}.json"] = dump_state(report)
    git = Git(root)
    sha = git.commit_files(None, files, "state")
    git.run("update-ref", "refs/remotes/origin/homeostat/state", sha)
    with SqliteEventLog(events_path(root)) as log:
        for day in range(60):
            at = now - dt.timedelta(days=day, hours=2)
            for _ in range(rng.randint(2, 8)):
                log.record(Event("injection", at, {"source": "session-start", "ids": "a,b"}))
                log.record(Event("turn-usage", at, {"session": "s", "turn": 1, "lookedUp": True}))
            log.record(ModelCall("api", "claude", "curator", "ok", 1200, 300, cost_usd=0.1).to_event(at))


def median_of(runs: int, work: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def fetch(server: DashboardServer, path: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=120)
    connection.request("GET", path, headers={"Host": f"127.0.0.1:{server.app.port}"})
    response = connection.getresponse()
    body = response.read()
    connection.close()
    if response.status != 200:
        raise SystemExit(f"{path}: HTTP {response.status}: {body[:200]!r}")
    return body


def measure(rules: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-dashboard-") as tmp:
        root = Path(tmp) / "kb"
        root.mkdir()
        build(root, rules)
        app = Dashboard(root, env={})
        started = time.perf_counter()
        loaded = load_inputs(root)  # the first page parses the whole KB; later ones what changed
        cold = time.perf_counter() - started
        load = median_of(runs, lambda: load_inputs(root))
        overview = median_of(runs, lambda: html.overview(loaded.inputs))
        entries = median_of(runs, lambda: html.entries(loaded.inputs, "", "", "", ""))
        print(
            f"{rules} rules: reading the inputs {cold * 1000:.0f} ms for the first page, then "
            f"{load * 1000:.0f} ms a request; laying out the overview {overview * 1000:.1f} ms, the "
            f"entries page {entries * 1000:.1f} ms"
        )
        with DashboardServer(app) as server:
            for path in PAGES:
                body = fetch(server, path)
                took = median_of(runs, lambda path=path: fetch(server, path))  # type: ignore[misc]
                print(f"  {path:<22} {len(body) / 1024:8.1f} KB {took * 1000:8.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,5000")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in (int(part) for part in args.sizes.split(",")):
        measure(size, args.runs)


if __name__ == "__main__":
    main()
