"""Conditional reads: the GitHub adapter sends `If-None-Match` with the ETag it kept from the last run,
and takes the kept body when GitHub answers 304 Not Modified, which the primary rate limit does not count."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from emulators.github_server import FAST_RETRY, GitHubHarness
from hostkit import PullSpec, ThreadSpec

from homeostat.adapters.cache.http_etags import HTTP_CACHE_DIR, KEEP, MAX_BODY, Cached, EtagCache
from homeostat.adapters.hosts.github import GitHubHost, github_host_from_env
from homeostat.core.hosts import RepoRef

NOW = datetime.now(UTC).replace(microsecond=0)


def merged(harness: GitHubHarness, repo: RepoRef, n: int) -> None:
    thread = ThreadSpec("rita", f"Guard edge case {n}.", f"src/m{n}.py", 1, followed_by_commit=True)
    spec = PullSpec(
        "dev", f"Change {n}", {f"src/m{n}.py": "a = 1\n"}, NOW - timedelta(hours=n + 1), threads=(thread,)
    )
    harness.merged_pull(repo, spec)


def host(harness: GitHubHarness, checkout: Path) -> GitHubHost:
    etags = EtagCache.for_host(checkout, harness.emulator.api_url, harness.token)
    return GitHubHost(harness.emulator.api_url, harness.token, retry=FAST_RETRY, etags=etags)


def read(adapter: GitHubHost, repo: RepoRef) -> tuple[object, ...]:
    pulls = adapter.list_merged_pulls(repo, NOW - timedelta(hours=26))
    return (
        pulls,
        [adapter.review_threads(pull) for pull in pulls],
        adapter.list_open_pulls(repo, ""),
        adapter.code_tree(repo),
        adapter.file_text(repo, "src/m1.py"),
    )


def test_a_second_run_reads_the_same_and_is_counted_only_for_what_changed(
    github_harness: GitHubHarness, tmp_path: Path
) -> None:
    harness = github_harness
    for member in ("rita", "dev"):
        harness.add_member(member)
    repo = harness.create_repo("acme", "ledger")
    for n in range(1, 3):
        merged(harness, repo, n)
    emulator = harness.emulator

    counted = emulator.counted_requests
    first = read(host(harness, tmp_path), repo)
    first_cost = emulator.counted_requests - counted
    assert (tmp_path / HTTP_CACHE_DIR / ".gitignore").read_text() == "*\n"

    sent, counted = len(harness.requests.entries), emulator.counted_requests
    again = host(harness, tmp_path)  # the next run: a new client, the same checkout
    assert read(again, repo) == first
    assert len(harness.requests.entries) - sent == first_cost  # every read sent again...
    assert emulator.counted_requests - counted < first_cost / 2  # ...most answered 304, not counted
    assert again.etags.hits == emulator.not_modified > 0

    merged(harness, repo, 3)  # a change: the list is read whole again, with the new PR
    pulls = host(harness, tmp_path).list_merged_pulls(repo, NOW - timedelta(hours=26))
    assert [pull.number for pull in pulls] == [pull.number for pull in first[0]] + [3]  # type: ignore[index]


def test_without_a_checkout_nothing_is_kept_and_every_read_counts(
    github_harness: GitHubHarness, tmp_path: Path
) -> None:
    harness = github_harness
    repo = harness.create_repo("acme", "ledger")
    env = {"GITHUB_TOKEN": harness.token, "GITHUB_API_URL": harness.emulator.api_url}
    for _ in range(2):
        github_host_from_env(env, retry=FAST_RETRY).list_open_pulls(repo, "")
    assert harness.emulator.not_modified == 0
    assert harness.emulator.counted_requests == 2
    assert not (tmp_path / HTTP_CACHE_DIR).exists()


def test_an_unreadable_cache_entry_is_asked_for_unconditionally(
    github_harness: GitHubHarness, tmp_path: Path
) -> None:
    harness = github_harness
    repo = harness.create_repo("acme", "ledger")
    host(harness, tmp_path).list_open_pulls(repo, "")
    for entry in (tmp_path / HTTP_CACHE_DIR).rglob("*.json"):
        entry.write_text("{not json")
    assert host(harness, tmp_path).list_open_pulls(repo, "") == []
    assert harness.emulator.not_modified == 0


def test_an_entry_whose_body_is_not_what_the_adapter_keeps_is_asked_for_unconditionally(
    github_harness: GitHubHarness, tmp_path: Path
) -> None:
    """A 304 to an entry without its body would leave nothing to answer with: the file would read as missing."""
    harness = github_harness
    repo = harness.create_repo("acme", "ledger")
    merged(harness, repo, 1)
    first = host(harness, tmp_path).file_text(repo, "src/m1.py")
    assert first is not None and first.startswith("a = 1\n")
    for entry in (tmp_path / HTTP_CACHE_DIR).rglob("*.json"):
        kept = json.loads(entry.read_text())
        entry.write_text(json.dumps({**kept, "body": "not the body"}))
    assert host(harness, tmp_path).file_text(repo, "src/m1.py") == first
    assert harness.emulator.not_modified == 0


def test_entries_no_run_used_for_eight_days_are_dropped(tmp_path: Path) -> None:
    now = [1_000_000.0]
    cache = EtagCache(tmp_path / "http" / "token", clock=lambda: now[0])
    cache.store("/repos/a/b/pulls", 'W/"1"', {"json": []}, 2)
    cache.store("/repos/a/c/pulls", 'W/"2"', {"json": []}, 2)
    stale = cache._path("/repos/a/b/pulls")
    assert stale is not None
    os.utime(stale, (now[0] - KEEP - 60, now[0] - KEEP - 60))
    now[0] += 1
    later = EtagCache(tmp_path / "http" / "token", clock=lambda: now[0])
    later.store("/repos/a/d/pulls", 'W/"3"', {"json": []}, 2)  # a run's first write prunes
    assert later.lookup("/repos/a/b/pulls") is None
    assert later.lookup("/repos/a/c/pulls") == Cached('W/"2"', {"json": []})
    later.store("/repos/a/e/pulls", 'W/"4"', "x" * 10, MAX_BODY + 1)  # too large to keep
    assert later.lookup("/repos/a/e/pulls") is None
