"""Host API requests per merged PR, counted at the local emulator, and the cost of reading 500 PRs.

    .venv/bin/python benchmarks/bench_host_requests.py [--prs 500] [--host github|bitbucket|all]
    .venv/bin/python benchmarks/bench_host_requests.py --org [--repos 200] [--prs 500] [--members 1000]

For a merged PR with review threads, written in one review round and followed by fixes, it counts the
requests `review_threads` makes with 1, 10 and 30 comments, both as one thread (a root and its replies)
and as that many one-comment threads on their own files. The target is at most 4, the same for every
count up to one page of comments. Then it reads a window of `--prs` merged PRs, each with two threads,
the way the daily run does (`list_merged_pulls`, then `review_threads` per PR), and prints the total
requests and the wall time, split into the emulator's own time (git subprocesses) and the rest.

`--org`: a daily run's host traffic for an organisation (GitHub): the reads of `--prs` merged PRs spread
over `--repos` repos (counted at the emulator), the requests a daily run makes per member with lessons
(counted over a real daily run of 12 members against the emulator and the model stub), the review PRs it
settles, and the writes against GitHub's limits (5,000 requests an hour; 80 content-creating requests a
minute and 500 an hour): how long the paced writes take, simulated with the adapter's own pacer.
It also reads the window over REST and each repo's file list twice on one checkout, the second time
with the ETags the first kept (`.homeostat/cache/http/`) on a day nothing changed: requests sent, and
those GitHub's primary limit counts (a 304 Not Modified is not counted).
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
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "benchmarks")]

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
    emulator.request_limit = 10_000  # a workspace with the most seats: 500 PRs read within its hour
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


def org_reads(repos: int, prs: int) -> tuple[int, int, int, int, int, int]:
    """Requests to read `prs` merged PRs (two threads each) spread over `repos` repos over REST (to
    list, for threads), the PRs read, and over GraphQL as the daily run reads them (queries, and REST
    requests for what GraphQL could not give whole)."""
    with tempfile.TemporaryDirectory() as scratch, github_world(Path(scratch)) as (harness, _serving):
        for member in ("rita", "omar", "dev"):
            harness.add_member(member)
        refs = [harness.create_repo("acme", f"svc-{n:03d}") for n in range(repos)]
        for index in range(prs):
            harness.merged_pull(refs[index % repos], daily_pull(index))
        host = harness.adapter()
        harness.requests.clear()
        pulls = [pull for repo in refs for pull in host.list_merged_pulls(repo, NOW - timedelta(hours=26))]
        listed = len(harness.requests.entries)
        rest = [host.review_threads(pull) for pull in pulls]
        threads = len(harness.requests.entries) - listed
        harness.requests.clear()
        host = harness.adapter()
        host.prefetch_merged(refs, NOW - timedelta(hours=26))
        again = [
            host.review_threads(pull)
            for repo in refs
            for pull in host.list_merged_pulls(repo, NOW - timedelta(hours=26))
        ]
        assert again == rest, "GraphQL read other threads than REST"
        queries = harness.requests.count("POST", "/api/graphql")
        points = harness.emulator.graphql.points_used
        rest_left = len(harness.requests.entries) - queries
        print("  " + conditional_days(harness, refs, Path(scratch) / "kb"))
        return listed, threads, len(pulls), queries, rest_left, points


def conditional_days(harness: Any, refs: list[RepoRef], checkout: Path) -> str:
    """Two runs' REST reads on one checkout (its `.homeostat/cache/http/` kept): the window over REST
    (the daily run's reads when GraphQL fails, and Bitbucket's shape) and each repo's file list (the
    deep dive's code check), sent and counted against the primary limit, on a day nothing changed."""
    from emulators.github_server import FAST_RETRY

    from homeostat.adapters.cache.http_etags import EtagCache
    from homeostat.adapters.hosts.github import GitHubHost

    emulator = harness.emulator
    costs = []
    for _day in range(2):
        etags = EtagCache.for_host(checkout, emulator.api_url, harness.token)
        host = GitHubHost(emulator.api_url, harness.token, retry=FAST_RETRY, etags=etags)
        sent, counted = len(harness.requests.entries), emulator.counted_requests
        for repo in refs:
            for pull in host.list_merged_pulls(repo, NOW - timedelta(hours=26)):
                host.review_threads(pull)
            host.code_tree(repo)
        costs.append((len(harness.requests.entries) - sent, emulator.counted_requests - counted))
    (sent1, counted1), (sent2, counted2) = costs
    return (
        f"conditional requests (REST window + file lists of {len(refs)} repos): first run {sent1} sent, "
        f"{counted1} counted; next run, nothing changed: {sent2} sent, {counted2} counted "
        f"({sent2 - counted2} answered 304 Not Modified)"
    )


def org_per_member() -> tuple[float, float, int, float]:
    """Reads and writes per member with lessons, over one real daily run of 12 members (one merged PR
    each, a reviewed thread on it) with the review PRs of the run before it to settle."""
    from bench_daily import world

    with tempfile.TemporaryDirectory() as scratch:
        w, emulator, stub = world(Path(scratch))
        try:
            handles = [f"dev{n:02d}" for n in range(12)]
            config = w.work / "homeostat.yaml"
            # every other member a junior: their reviews land in the middle band, so a review PR opens
            extra = "".join(
                f"    - {{handle: {h}, role: {'junior' if n % 2 else 'member'}, teams: [payments]}}\n"
                for n, h in enumerate(handles)
            )
            config.write_text(
                config.read_text().replace(
                    "  teams:\n    - name: payments", extra + "  teams:\n    - name: payments", 1
                )
            )
            import os

            os.system(f"cd {w.work} && git add -A && git commit -qm team && git push -q origin HEAD:main")
            for handle in handles:
                w.harness.add_member(handle, ("payments",))
            for n, handle in enumerate(handles):
                w.merged_pull(
                    "billing",
                    PullSpec(
                        handle,
                        f"Change {n}",
                        {f"src/billing/api/mod_{n}.py": "x\n"},
                        w.hours_ago(1 + n * 0.1),
                        threads=(
                            ThreadSpec(
                                handles[(n + 1) % 12],
                                f"Call validate_payload_{n}() before saving record {n}.",
                                f"src/billing/api/mod_{n}.py",
                                followed_by_commit=True,
                            ),
                        ),
                    ),
                )
            w.harness.requests.clear()
            assert w.daily() == 0
            entries = w.harness.requests.entries
            kb = [(m, p) for m, p in entries if "/repos/example/kb" in p]
            ours = [p for p in w.pulls().values() if p.head_ref.startswith("homeostat/")]
            members = len({p.head_ref.split("-")[1] for p in ours})
            reviews = sum(1 for p in ours if p.head_ref.startswith("homeostat/review-"))
            reads = sum(1 for m, _ in kb if m == "GET")
            return reads / members, (len(kb) - reads) / members, members, reviews / members
        finally:
            stub.stop()
            emulator.stop()


def paced_minutes(writes: int) -> float:
    """Minutes the adapter's pacer needs to send `writes` content-creating requests under 80 a minute
    and 500 an hour, as the GitHub adapter paces them (simulated: a fake clock; the requests' own
    time is not counted)."""
    from homeostat.adapters.hosts.pace import GITHUB_WRITE_MARGIN, GITHUB_WRITES, Pacer

    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    pacer = Pacer(
        GITHUB_WRITES, margin=GITHUB_WRITE_MARGIN, clock=lambda: now[0], sleep=sleep, name="simulated writes"
    )
    for _ in range(writes):
        pacer.before()
    return now[0] / 60


def org(repos: int, prs: int, members: int) -> None:
    import math

    print(f"github, {repos} repos x {prs} merged PRs x {members} members:")
    listed, threads, read, queries, rest_left, points = org_reads(repos, prs)
    print(
        f"  reading the window ({read} PRs): over REST {listed} requests to list and {threads} for threads; "
        f"over GraphQL (what the run does) {queries} queries ({points} of GitHub's 5,000 points an hour) "
        f"and {rest_left} REST requests"
    )
    reads_each, writes_each, sample, reviews_each = org_per_member()
    authors = round(members * (1 - math.exp(-prs / members)))  # distinct authors of the window's PRs
    print(
        f"  publishing: {reads_each:.1f} reads and {writes_each:.1f} writes per member with lessons "
        f"(measured over {sample}, {reviews_each:.2f} review PRs each); the PRs have ~{authors} distinct authors"
    )
    settle = round(reviews_each * authors)  # at most: one per review PR of the day before, if all settled
    reads = queries + rest_left + settle + round(reads_each * authors)
    writes = round(writes_each * authors)
    minutes = paced_minutes(writes)
    print(
        f"  a run: {reads + writes} requests ({reads} reads, at most {settle} of them settling review PRs; "
        f"{writes} writes): {100 * (reads + writes) / 5000:.0f}% of 5,000 an hour"
    )
    print(
        f"  writes paced under 80 a minute and 500 an hour: {minutes:.0f} min "
        f"({'within one hour' if minutes <= 60 else f'{math.ceil(writes / 500)} hourly windows'})"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prs", type=int, default=500)
    parser.add_argument("--host", choices=[*WORLDS, "all"], default="github")
    parser.add_argument("--org", action="store_true", help="a daily run's host traffic for an organisation")
    parser.add_argument("--repos", type=int, default=200)
    parser.add_argument("--members", type=int, default=1000)
    args = parser.parse_args(argv)
    if args.org:
        org(args.repos, args.prs, args.members)
        return 0
    for name in WORLDS if args.host == "all" else [args.host]:
        print(name)
        per_pr(name)
        daily(name, args.prs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
