"""How long the daily run's state write takes, and how much it writes, for a large team.

Writes 200 members' decisions (20 records each), heartbeats and a run report into a fresh bare
origin, then an update that settles a quarter of the reviews and adds a record per member, then a
no-op rewrite. Prints wall time, the JSON bytes handed over and the bytes the origin grew by.

    .venv/bin/python benchmarks/bench_write_state.py [--members 200] [--records 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import read_state, write_state
from homeostat.core.state.branch import (
    Cost,
    DecisionRecord,
    DecisionsFile,
    Heartbeat,
    LessonSource,
    PullRef,
    RunReport,
    state_files,
)

T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def run_git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=True, text=True).stdout


def make_record(member: str, number: int, at: datetime, settled: bool) -> DecisionRecord:
    return DecisionRecord(
        hash=f"{member}-{number:04d}-" + "5e" * 28,
        member=member,
        kind="review-thread" if number % 3 else "new",
        title=f"Rule {number} for {member}: prefer explicit timeouts on outbound HTTP calls",
        rule_id=f"{member}-rule-{number}",
        area="app/api",
        source=LessonSource(
            type="review-change", url=f"https://github.test/acme/app/pull/{number}#r{number}"
        ),
        outcome="merged" if settled else "review",
        state="settled" if settled else "in-review",
        confidence=55 + number % 40,
        breakdown={"base": 50, "role": 6, "specific": 5, "vague title": -2},
        reason="middle band: a person reviews it" if not settled else "at or above accept (70)",
        pr=PullRef(number=1000 + number, url=f"https://github.test/acme/kb/pull/{1000 + number}", branch="b"),
        review_opened_at=at - timedelta(hours=1),
        settled_at=at if settled else None,
        at=at,
    )


def team_state(members: int, records: int, at: datetime, settle_every: int, extra: int) -> dict[str, bytes]:
    names = [f"member{index:03d}" for index in range(members)]
    decisions = tuple(
        DecisionsFile(
            member=name,
            records=tuple(
                make_record(name, number, at, settled=number % settle_every == 0)
                for number in range(records + extra)
            ),
        )
        for name in names
    )
    heartbeats = tuple(
        Heartbeat(member=name, at=at, homeostat_version="0.2.0", pending=3, behind=1) for name in names
    )
    report = RunReport(
        run_id=f"bench-{at.isoformat()}",
        kind="daily",
        started_at=at,
        finished_at=at + timedelta(minutes=5),
        duration_seconds=300.0,
        decided={"merged": members * records // 2, "review": members * records // 2},
        health={"rules": members * records},
        cost=Cost(usd=3.5, estimated=True),
    )
    return state_files(decisions=decisions, heartbeats=heartbeats, runs=(report,))


def origin_bytes(origin: Path) -> int:
    """Bytes of objects stored in the origin (loose and packed)."""
    total = 0
    for path in (origin / "objects").rglob("*"):
        if path.is_file():
            total += path.stat().st_size
    return total


def timed_write(label: str, repo: Git, origin: Path, files: dict[str, bytes]) -> None:
    before = origin_bytes(origin)
    start = time.perf_counter()
    write_state(repo, files)
    elapsed = time.perf_counter() - start
    json_bytes = sum(len(data) for data in files.values())
    grown = origin_bytes(origin) - before
    print(
        f"{label:<34} {elapsed:7.3f} s   {len(files):4d} files   {json_bytes / 1024:8.1f} KiB JSON   "
        f"origin +{grown / 1024:8.1f} KiB"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=200)
    parser.add_argument("--records", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-state-") as scratch_dir:
        scratch = Path(scratch_dir)
        os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
        os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.invalid")
        os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
        os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.invalid")
        origin = scratch / "origin.git"
        run_git(scratch, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
        run_git(scratch, "clone", "--quiet", str(origin), str(scratch / "clone"))
        repo = Git(scratch / "clone")
        print(
            f"{args.members} members x {args.records} records, git {run_git(scratch, 'version').split()[-1]}"
        )

        first = team_state(args.members, args.records, T0, settle_every=2, extra=0)
        timed_write("first write (orphan branch)", repo, origin, first)

        later = T0 + timedelta(days=1)
        update = team_state(args.members, args.records, later, settle_every=1, extra=1)
        timed_write("update (settle all, +1 record each)", repo, origin, update)
        timed_write("same update again (no-op)", repo, origin, update)

        start = time.perf_counter()
        state = read_state(repo)
        print(
            f"{'read_state':<34} {time.perf_counter() - start:7.3f} s   "
            f"{len(state.records())} records, {len(state.heartbeats)} heartbeats, {len(state.runs)} runs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
