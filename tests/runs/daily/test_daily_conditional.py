"""Reads that repeat from one run to the next are conditional: GitHub answers what did not change with
304 Not Modified, which its primary rate limit does not count (the emulator counts as GitHub does)."""

from __future__ import annotations

from pathlib import Path

import pytest
from dailyworld import DailyWorld
from hostkit import PullSpec, ThreadSpec

from homeostat.adapters.cache.http_etags import HTTP_CACHE_DIR


def merged(world: DailyWorld, repo: str, author: str, reviewer: str, body: str, path: str) -> None:
    thread = ThreadSpec(author=reviewer, body=body, path=path, followed_by_commit=True)
    spec = PullSpec(author, f"Change {path}", {path: "x = 1\n"}, world.hours_ago(3), threads=(thread,))
    world.merged_pull(repo, spec)


def a_day_with_lessons_in_review(world: DailyWorld) -> None:
    """A confident lesson, and lessons in the middle band: the run leaves review PRs open, so the
    next run lists the KB's open PRs to settle them."""
    merged(
        world,
        "billing",
        "bo",
        "ana",
        "Raise RefundDeclined from billing.errors, not None.",
        "src/billing/api/r.py",
    )
    merged(
        world,
        "storefront",
        "cy",
        "ana",
        "Use the Button primitive from web/components/ui.",
        "web/components/Cart.tsx",
    )
    merged(
        world,
        "billing",
        "bo",
        "dee",
        "Check refund limits with RefundPolicy.allows first.",
        "src/billing/api/l.py",
    )


def decide(world: DailyWorld, checkout: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, int, int]:
    """One dry run (it decides and prints, writing nothing) on `checkout`: its output, and the REST
    requests it sent and those GitHub counted."""
    from homeostat.cli import main

    world.env()
    sent, counted = len(world.harness.requests.entries), world.harness.emulator.counted_requests
    capsys.readouterr()
    assert main(["daily", "--kb", str(checkout), "--dry-run"]) == 0
    out = capsys.readouterr().out
    rest = [p for _m, p in world.harness.requests.entries[sent:] if "/graphql" not in p]
    return out, len(rest), world.harness.emulator.counted_requests - counted


def test_the_next_run_spends_fewer_counted_requests_and_decides_the_same(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    a_day_with_lessons_in_review(world)
    assert world.daily() == 0
    open_reviews = [p for p in world.pulls().values() if p.head_ref.startswith("homeostat/review-")]
    assert open_reviews, "the first day leaves review PRs open"
    merged(world, "billing", "bo", "ana", "Log refunds with the request id field.", "src/billing/api/log.py")
    box = world.checkout()  # a shared box: its checkout, and its `.homeostat/` cache, stay

    first, sent_first, counted_first = decide(world, box, capsys)
    assert (box / HTTP_CACHE_DIR).is_dir()
    second, sent_second, counted_second = decide(world, box, capsys)

    assert second == first  # the same lessons, the same decisions
    assert sent_second == sent_first  # the same reads, sent again...
    assert counted_second < counted_first  # ...but those that did not change cost no request
    assert world.harness.emulator.not_modified >= counted_first - counted_second


def test_a_changed_list_is_read_again(world: DailyWorld, capsys: pytest.CaptureFixture[str]) -> None:
    """A 304 is never trusted past a change: a review PR merged in between shows in the next run."""
    a_day_with_lessons_in_review(world)
    assert world.daily() == 0
    box = world.checkout()
    decide(world, box, capsys)
    review = next(n for n, p in world.pulls().items() if p.head_ref.startswith("homeostat/review-"))
    world.harness.merge_as(world.kb_repo, review, "ana")
    world.env()
    from homeostat.cli import main

    assert main(["daily", "--kb", str(box)]) == 0
    settled = [r for r in world.records().values() if r.pr is not None and r.pr.number == review]
    assert settled and all(r.state == "settled" and r.outcome == "merged" for r in settled)
