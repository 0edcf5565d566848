"""Host API requests per merged PR, counted at the local emulator, and the cost of reading 500 PRs.

    .venv/bin/python benchmarks/bench_host_requests.py [--prs 500] [--host github|bitbucket|all]

For a merged PR with review threads, written in one review round and followed by fixes, it counts the
requests `review_threads` makes with 1, 10 and 30 comments, both as one thread (a root and its replies)
and as that many one-comment threads on their own files. The target is at most 4, the same for every
count up to one page of comments. Then it reads a window of `--prs` merged PRs, each with two threads,
the way the daily run does (`list_merged_pulls`, then `review_threads` per PR), and prints the total
requests and the wall time, split into the emulator's own time (git subprocesses) and the rest.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from hostkit import PullSpec, ReplySpec, ThreadSpec  # noqa: E402

from homeostat.core.hosts import RepoRef  # noqa: E402

NOW = datetime.now(UTC).replace(microsecond=0)
COUNTS = (1, 10, 30)


@contextmanager
def github_world(root: Path) -> Iterator[tuple[Any, Callable[[], float | None]]]:
    from emulators.github_server import GitHubEmulator, GitHubHarness

    emulator = GitHubEmulator(root)
    emulator.start()
    try:
        yield GitHubHarness(emulator), lambda: emulator.seconds_serving
    finally:
        emulator.stop()


@contextmanager
def bitbucket_world(root: Path) -> Iterator[tuple[Any, Callable[[], float | None]]]:
    from emulators.bitbucket_server import BitbucketEmulator, BitbucketHarness

    emulator = BitbucketEmulator(root)
    emulator.serve()
    try:
        yield BitbucketHarness(emulator, root), lambda: getattr(emulator, "seconds_serving", None)
    finally:
        emulator.shutdown()


WORLDS = {"github": github_world, "bitbucket": bitbucket_world}


def one_thread(comments: int) -> PullSpec:
    replies = tuple(ReplySpec("dev" if i % 2 == 0 else "rita", f"Reply {i}.") for i in range(comments - 1))
    thread = ThreadSpec("rita", "Use Decimal for money.", "src/money.py", 3, replies, followed_by_commit=True)
    return PullSpec(
        "dev",
        "Settle invoices",
        {"src/money.py": "amount = 1.0\n"},
        NOW - timedelta(hours=3),
        threads=(thread,),
    )


def many_threads(comments: int) -> PullSpec:
    threads = tuple(
        ThreadSpec(
            "rita",
            f"Comment {i}.",
            f"src/mod_{i}.py",
            1,
            followed_by_commit=i % 2 == 0,
            touch_other_file=i % 2 == 1,
        )
        for i in range(comments)
    )
    files = {f"src/mod_{i}.py": f"value = {i}\n" for i in range(comments)}
    return PullSpec("dev", "Split the ledger", files, NOW - timedelta(hours=3), threads=threads)


def daily_pull(index: int) -> PullSpec:
    threads = (
        ThreadSpec(
            "rita",
            f"Guard the edge case {index}.",
            f"src/svc_{index}.py",
            2,
            (ReplySpec("dev", "Done."),),
            True,
        ),
        ThreadSpec(
            "omar",
            f"Rename {index}?",
            f"src/util_{index}.py",
            1,
            (ReplySpec("dev", "Later."),),
            touch_other_file=True,
        ),
    )
    files = {f"src/svc_{index}.py": "a = 1\n", f"src/util_{index}.py": "b = 1\n"}
    merged_at = NOW - timedelta(hours=2) - timedelta(seconds=150 * index)  # all inside a 26-hour window
    return PullSpec("dev", f"Change {index}", files, merged_at, threads=threads)


def requests_for(harness: Any, repo: RepoRef, spec: PullSpec) -> int:
    harness.merged_pull(repo, spec)
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(hours=26))
    harness.requests.clear()
    threads = host.review_threads(pull)
    assert sum(len(thread.comments) for thread in threads) == sum(1 + len(t.replies) for t in spec.threads)
    return len(harness.requests.entries)


def per_pr(name: str) -> None:
    print("  review_threads requests per merged PR (one review round, fixes pushed after it):")
    print("    comments   one thread   separate threads")
    with tempfile.TemporaryDirectory() as scratch, WORLDS[name](Path(scratch)) as (harness, _serving):
        for member in ("rita", "omar", "dev"):
            harness.add_member(member)
        for count in COUNTS:
            single = requests_for(harness, harness.create_repo("acme", f"one-{count}"), one_thread(count))
            spread = requests_for(harness, harness.create_repo("acme", f"many-{count}"), many_threads(count))
            print(f"    {count:>8}   {single:>10}   {spread:>16}")


def daily(name: str, prs: int) -> None:
    with tempfile.TemporaryDirectory() as scratch, WORLDS[name](Path(scratch)) as (harness, serving):
        for member in ("rita", "omar", "dev"):
            harness.add_member(member)
        repo = harness.create_repo("acme", "ledger")
        started = time.perf_counter()
        for index in range(prs):
            harness.merged_pull(repo, daily_pull(index))
        setup = time.perf_counter() - started
        host = harness.adapter()
        harness.requests.clear()
        served_before = serving()
        started = time.perf_counter()
        pulls = host.list_merged_pulls(repo, NOW - timedelta(hours=26))
        listed = len(harness.requests.entries)
        threads = [thread for pull in pulls for thread in host.review_threads(pull)]
        wall = time.perf_counter() - started
        total = len(harness.requests.entries)
        followed = sum(thread.followed_by_commit for thread in threads)
        served_after = serving()
        print(f"  {len(pulls)} merged PRs, {len(threads)} threads ({followed} followed by a commit):")
        share = total / max(prs, 1)
        print(
            f"    requests: {listed} to list, {total - listed} for threads, {total} in all ({share:.2f} a PR)"
        )
        if served_before is not None and served_after is not None:
            server = served_after - served_before
            rest = wall - server
            print(f"    wall time: {wall:.1f} s (emulator {server:.1f} s, adapter and HTTP {rest:.1f} s)")
        else:
            print(f"    wall time: {wall:.1f} s")
        print(f"    (building the {prs} PRs with git took {setup:.1f} s, not counted)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=500)
    parser.add_argument("--host", choices=[*WORLDS, "all"], default="github")
    args = parser.parse_args(argv)
    for name in WORLDS if args.host == "all" else [args.host]:
        print(name)
        per_pr(name)
        daily(name, args.prs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
