"""The daily run at scale and under faults: a world of review lessons, and what a fault costs.

    world = lessons_world(daily_world, count=12)   # 12 merged PRs, one kept review thread each
    set_concurrency(world, 8)                      # agents.concurrency.api on main
    before = paid(world)                           # the questions the stub answered so far
    world.daily(...)
    age_out(world)                                 # "the next run, a day later": the PRs leave the default window
    lost(world), world.stub.paid_twice(before)     # threads never decided; questions paid for again
    second_run_while_waiting(world, "daily", daily.run, is_waiting)  # a second run while one waits

Used by tests/runs/daily/test_daily_faults.py, tests/runs/daily/test_daily_scale.py,
tests/runs/deep_dive/test_deep_dive_races.py and benchmarks/bench_daily_scale.py.
"""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dailyworld import DailyWorld
from gitfixtures import git
from hostkit import PullSpec, ThreadSpec

DRAFTER = "into at most one short rule"
REVIEWERS = ("ana", "bo")  # lead and senior of payments: their lessons are confident, so judged


def lessons_world(
    world: DailyWorld,
    count: int = 12,
    *,
    first: int = 0,
    authors: Sequence[str] = ("bo", "ana"),
    reviewers: Sequence[str] = REVIEWERS,
    repos: Sequence[str] = ("billing",),
) -> DailyWorld:
    """`count` merged PRs on billing (numbered from `first`; or on each of `repos` in turn), each with
    one review thread a commit followed, by one of `authors` and reviewed by the next of `reviewers`
    who is not its author."""
    for n in range(first, first + count):
        author = authors[n % len(authors)]
        reviewer = next(r for k in range(1, 3) if (r := reviewers[(n + k) % len(reviewers)]) != author)
        world.merged_pull(
            repos[n % len(repos)],
            PullSpec(
                author=author,
                title=f"Change {n}",
                files={f"src/billing/api/mod_{n}.py": "x = 1\n"},
                merged_at=world.hours_ago(3 + n * 0.05),
                threads=(
                    ThreadSpec(
                        author=reviewer,
                        body=f"Call validate_payload_{n}() before saving ledger record {n} in this handler.",
                        path=f"src/billing/api/mod_{n}.py",
                        followed_by_commit=True,
                    ),
                ),
            ),
        )
    return world


def edit_config(world: DailyWorld, edit: Any) -> None:
    """Change homeostat.yaml on main (`edit(text) -> text`), as a person's commit would."""
    path = world.work / "homeostat.yaml"
    git(world.work, "pull", "--quiet", "--rebase", "origin", "main")
    before = path.read_text()
    if edit(before) == before:
        return
    path.write_text(edit(before))
    git(world.work, "commit", "--quiet", "-am", "settings")
    git(world.work, "push", "--quiet", "origin", "HEAD:main")


def set_concurrency(world: DailyWorld, workers: int) -> None:
    def edit(text: str) -> str:
        text = re.sub(r"\n  concurrency:\n    api: \d+\n", "\n", text)
        return text.replace("\nagents:\n", f"\nagents:\n  concurrency:\n    api: {workers}\n", 1)

    edit_config(world, edit)


def age_out(world: DailyWorld) -> None:
    """The next run a day later: the PRs are older than its default window (`lookbackHours: 1`), so
    only what the last run carried over (a capped or failed window, the retry list) reaches them."""
    edit_config(world, lambda text: re.sub(r"lookbackHours: \d+", "lookbackHours: 1", text))


def lesson_urls(world: DailyWorld) -> set[str]:
    """Every review thread of the world's merged PRs (as their decision records cite them)."""
    emulator = world.harness.emulator
    if world.host == "bitbucket":
        with emulator.lock:
            pulls = emulator.repo("example", "billing").pulls.values()
            return {
                f"https://bitbucket.org/example/billing/pull-requests/{pull.id}#comment-{comment.id}"
                for pull in pulls
                for comment in pull.comments
                if comment.parent is None
            }
    repo = emulator.repo("example", "billing")
    return {
        str(emulator.review_comment_json(repo, comment)["html_url"])
        for pull in repo.pulls.values()
        for comment in pull.review_comments
        if comment.in_reply_to is None
    }


def decided_urls(world: DailyWorld) -> set[str]:
    return {r.source.url for r in world.state().records() if r.source.url}


def lost(world: DailyWorld) -> set[str]:
    """Threads no run decided (the lessons a fault lost)."""
    return lesson_urls(world) - decided_urls(world)


def paid(world: DailyWorld) -> Counter[str]:
    return Counter(world.stub.answered)


def drafts_answered(world: DailyWorld) -> int:
    return sum(n for question, n in world.stub.answered.items() if DRAFTER in question)


@dataclass(frozen=True)
class Waited:
    """What `second_run_while_waiting` saw: the first run's exit code, its claim's expiry on the state
    branch sampled while it waited, and the second run's exit code (None if it never started)."""

    code: int
    expiries: list[dt.datetime]
    second: int | None


def second_run_while_waiting(
    world: DailyWorld, command: str, run: Callable[..., int], waiting: Callable[[], bool]
) -> Waited:
    """Run `homeostat <command>` (`run`, e.g. `homeostat.commands.ci.daily.run`) in this process on a
    clock going ten claim minutes a second, so a wait of 12 s is two claim hours. Once `waiting()` says
    the run is waiting on the host (polled for up to 300 s), read its claim's expiry every half second
    for 7 s (70 claim minutes: past a claim's hour, short of the wait), then start a second run of the
    same command, as a second CI job would: it should find the claim renewed and stand aside."""
    from homeostat.cli import build_parser
    from homeostat.workspace import Workspace

    start, began = dt.datetime.now(dt.UTC), time.monotonic()

    def clock() -> dt.datetime:
        return start + dt.timedelta(minutes=10 * (time.monotonic() - began))

    world.env()
    first, second = [
        build_parser(command).parse_args([command, "--kb", str(world.checkout())]) for _ in range(2)
    ]
    expiries: list[dt.datetime] = []
    codes: list[int] = []

    def during_the_wait() -> None:
        deadline = time.monotonic() + 300
        while not waiting() and time.monotonic() < deadline:
            time.sleep(0.05)
        waiting_at = time.monotonic()
        while time.monotonic() < waiting_at + 7.0:
            expiries.append(world.state().claims[command].expires_at)
            time.sleep(0.5)
        codes.append(run(second, Workspace.of(second), now=clock))

    watcher = threading.Thread(target=during_the_wait)
    watcher.start()
    code = run(first, Workspace.of(first), now=clock)
    watcher.join(300)
    return Waited(code, expiries, codes[0] if codes else None)
