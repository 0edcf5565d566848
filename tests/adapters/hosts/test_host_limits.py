"""Host limits: writes paced under GitHub's secondary limits (80 a minute, 500 an hour), Bitbucket's
hourly request budget, and a limit the host declares anyway waited out instead of failing the run.

The emulators keep the host's real limits on a clock the test controls; the adapters pace on the same
clock, so an hour of waiting takes no time."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from emulators.bitbucket_server import BOT, BitbucketEmulator, BitbucketHarness
from emulators.github_server import GitHubEmulator, GitHubHarness
from hostkit import PullSpec, ThreadSpec

from homeostat.adapters.hosts.bitbucket import BitbucketHost
from homeostat.adapters.hosts.github import GitHubHost
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.adapters.hosts.pace import (
    BITBUCKET_REQUESTS,
    GITHUB_WRITE_MARGIN,
    GITHUB_WRITES,
    WAKE_EVERY,
    Pacer,
    Window,
)
from homeostat.core.hosts import RepoRef
from homeostat.errors import RateLimitError


class FakeClock:
    """Time that passes only when someone sleeps (`after_sleep` runs after each)."""

    def __init__(self) -> None:
        self.now = 1_000_000.0
        self.slept: list[float] = []
        self.after_sleep: Callable[[], None] = lambda: None

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        self.after_sleep()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def harness(tmp_path: Path, clock: FakeClock) -> Iterator[GitHubHarness]:
    emulator = GitHubEmulator(tmp_path / "github")
    emulator.clock = clock
    emulator.start()
    try:
        yield GitHubHarness(emulator)
    finally:
        emulator.stop()


def github(
    harness: GitHubHarness, clock: FakeClock, windows: tuple[Window, ...] = GITHUB_WRITES
) -> GitHubHost:
    """The adapter as a run builds it (its default waits for a limit), on the test's clock."""
    retry = RetryPolicy(
        attempts=4, base_delay=0.01, sleep=clock.sleep, max_rate_wait=900, max_rate_total=3600
    )
    writes = Pacer(windows, clock=clock, sleep=clock.sleep, name="GitHub writes")
    return GitHubHost(harness.emulator.api_url, harness.token, retry=retry, timeout=10, writes=writes)


@pytest.fixture
def pull(harness: GitHubHarness) -> tuple[RepoRef, int]:
    repo = harness.create_repo("acme", "kb")
    spec = PullSpec(
        "dev", "Change", {"a.py": "x\n"}, datetime.now(UTC), threads=(ThreadSpec("rita", "Hm.", "a.py"),)
    )
    return repo, harness.merged_pull(repo, spec)


def test_writes_are_paced_under_github_s_minute_and_hour_limits(
    harness: GitHubHarness, clock: FakeClock, pull: tuple[RepoRef, int]
) -> None:
    repo, number = pull
    host = github(harness, clock)
    start = clock.now

    for n in range(520):
        host.add_comment(repo, number, f"note {n}")

    assert harness.emulator.refused_writes == 0
    assert len(harness.open_pull_state(repo, number)["comments"]) == 520  # type: ignore[arg-type]
    # 500 fit in the first hour (80 a minute), the 501st waits for the hour to roll over
    assert 3600 <= clock.now - start < 3600 + 120


def test_a_wait_for_the_next_hour_s_writes_wakes_the_run_every_few_minutes(
    harness: GitHubHarness, clock: FakeClock, pull: tuple[RepoRef, int]
) -> None:
    """A run whose writes pass 500 waits most of an hour for the next one; its claim on the lessons
    lasts an hour from its last renewal, so the wait wakes it at least every few minutes to renew it."""
    repo, number = pull
    host = github(harness, clock)
    woken: list[float] = []
    host.while_paced(lambda: woken.append(clock.now))
    start = clock.now

    for n in range(501):
        host.add_comment(repo, number, f"note {n}")

    assert harness.emulator.refused_writes == 0
    assert clock.now - start >= 3600
    # the 500 go in the first minutes (80 a minute), then the wait for the hour, woken every second
    gaps = [b - a for a, b in zip(woken, [*woken[1:], clock.now], strict=True)]
    assert len(woken) >= 10 and max(gaps) <= WAKE_EVERY


def test_the_adapter_sends_80_writes_back_to_back_then_waits_out_the_minute(
    harness: GitHubHarness, clock: FakeClock, pull: tuple[RepoRef, int]
) -> None:
    """GitHub's limit is 80 content-creating requests a minute, not one a second: a run's 80 writes
    (a sharded run's merge job opens and merges 40 PRs) go at once, and the 81st waits for the
    minute to roll over (and a margin for the host counting a request only when it arrives)."""
    repo, number = pull
    host = GitHubHost(harness.emulator.api_url, harness.token, timeout=10)  # its own pacing, as a run has
    host.writes.clock, host.writes.sleep = clock, clock.sleep
    start = clock.now

    for n in range(160):
        host.add_comment(repo, number, f"note {n}")

    assert harness.emulator.refused_writes == 0
    assert len(harness.open_pull_state(repo, number)["comments"]) == 160  # type: ignore[arg-type]
    assert clock.slept == [60 + GITHUB_WRITE_MARGIN]  # one wait, after the first 80
    assert clock.now - start == 60 + GITHUB_WRITE_MARGIN


def test_without_pacing_github_refuses_past_80_writes_a_minute(
    harness: GitHubHarness, clock: FakeClock, pull: tuple[RepoRef, int]
) -> None:
    """What the pacing prevents (and what the emulator models): the 81st write in a minute is refused."""
    repo, number = pull
    host = github(harness, clock, windows=())
    harness.emulator.limit_retry_after = 60

    for n in range(81):
        host.add_comment(repo, number, f"note {n}")

    assert harness.emulator.refused_writes == 1
    assert clock.slept == [60]  # the refused one waited the Retry-After out, then landed


@pytest.mark.parametrize(("retry_after", "waited"), [(120, 120.0), (None, 60.0)])
def test_a_secondary_limit_while_publishing_is_waited_out(
    harness: GitHubHarness,
    clock: FakeClock,
    pull: tuple[RepoRef, int],
    retry_after: int | None,
    waited: float,
) -> None:
    """A 403 secondary limit (another process on the token) holds the writes for its Retry-After, or at
    least a minute when it names none, then the write lands: the run goes on instead of failing."""
    repo, number = pull
    host = github(harness, clock)
    harness.emulator.limit_retry_after = retry_after
    harness.emulator.write_limits = [(0, 60.0)]  # the token's budget is spent elsewhere for a minute

    def reopen() -> None:
        harness.emulator.write_limits = [(80, 60.0), (500, 3600.0)]

    clock.after_sleep = reopen

    host.add_comment(repo, number, "lands after the wait")

    assert clock.slept == [waited]
    assert harness.open_pull_state(repo, number)["comments"] == ["lands after the wait"]


def test_a_limit_that_outlasts_the_run_s_waits_is_a_rate_limit_error(
    harness: GitHubHarness, clock: FakeClock, pull: tuple[RepoRef, int]
) -> None:
    repo, number = pull
    host = github(harness, clock)
    harness.emulator.write_limits = [(0, 60.0)]  # never lifts

    with pytest.raises(RateLimitError) as raised:
        host.add_comment(repo, number, "never lands")

    assert str(raised.value) == (
        f"GitHub still refused to comment on PR #{number} of acme/kb (rate limited (403)) after this run "
        "waited 3600s of the 3600s it allows for a rate limit: nothing was half-done; rerun later"
    )
    assert sum(clock.slept) == 3600


# --- Bitbucket: the rolling hour ---------------------------------------------------------------------


@pytest.fixture
def bitbucket(tmp_path: Path, clock: FakeClock) -> Iterator[BitbucketHarness]:
    emulator = BitbucketEmulator(tmp_path / "bitbucket")
    emulator.limit_clock = clock
    emulator.serve()
    try:
        yield BitbucketHarness(emulator, emulator.root)
    finally:
        emulator.shutdown()


def bitbucket_host(harness: BitbucketHarness, clock: FakeClock) -> BitbucketHost:
    retry = RetryPolicy(
        attempts=4, base_delay=0.01, sleep=clock.sleep, max_rate_wait=900, max_rate_total=3600
    )
    host = harness.adapter(retry=retry)
    host.api.pacer = Pacer(BITBUCKET_REQUESTS, clock=clock, sleep=clock.sleep, name="Bitbucket requests")
    return host


def test_bitbucket_requests_are_paced_under_the_hourly_limit_it_states(
    bitbucket: BitbucketHarness, clock: FakeClock
) -> None:
    """The workspace's limit (here 40 an hour, told in X-RateLimit-Limit) replaces the default 1,000:
    the 41st request waits for the rolling hour instead of being refused."""
    repo = bitbucket.create_repo("acme", "kb")
    number = bitbucket.open_as(repo, BOT, "homeostat/daily-alice", "Daily lessons", {"kb/rules.md": "rule\n"})
    bitbucket.emulator.request_limit = 40
    bitbucket.emulator.counted.clear()
    host = bitbucket_host(bitbucket, clock)
    start = clock.now

    for _ in range(45):
        assert host.get_pull(repo, number).number == number

    assert bitbucket.emulator.refused_requests == 0
    assert 3600 <= clock.now - start < 3700


@pytest.mark.parametrize(("retry_after", "waited"), [(90, 90.0), (None, 60.0)])
def test_a_bitbucket_429_holds_the_requests_and_is_waited_out(
    bitbucket: BitbucketHarness, clock: FakeClock, retry_after: int | None, waited: float
) -> None:
    repo = bitbucket.create_repo("acme", "kb")
    number = bitbucket.open_as(repo, BOT, "homeostat/daily-alice", "Daily lessons", {"kb/rules.md": "rule\n"})
    host = bitbucket_host(bitbucket, clock)
    bitbucket.emulator.limit_retry_after = retry_after
    bitbucket.emulator.request_limit = 0  # another process spent the hour

    def reopen() -> None:
        bitbucket.emulator.request_limit = 1000

    clock.after_sleep = reopen

    host.add_comment(repo, number, "lands after the wait")

    assert clock.slept == [waited]
    assert bitbucket.open_pull_state(repo, number)["comments"] == ["lands after the wait"]
