"""One review lesson and one taught lesson for the tests that decide, gate or judge a lesson without a host.

A confident review lesson, as the daily run drafts it from bo's comment on cy's billing pull request,
enacted by cy's change after the comment: it merges unread in the example KB unless a test changes
what it is about. The taught lesson is the same rule as bo writes it by hand into `candidates/bo`.
Tests change only the fields their case is about (`review_lesson(rule=…)`), so a new field on
`Lesson` is added here once instead of in every test that builds one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from homeostat.core.daily.lessons import Lesson
from homeostat.core.hosts import FollowUp

CREATED = dt.datetime(2026, 11, 28, 12, tzinfo=dt.UTC)


def review_lesson(**changes: Any) -> Lesson:
    """The lesson with `changes` applied."""
    base = Lesson(
        key="k1",
        origin="review",
        kind="new",
        member="cy",
        originator="bo",
        source="pr-feedback",
        created=CREATED,
        title="Round refunds with Money.round_half_even",
        rule="Round refund amounts with `Money.round_half_even()` in `src/billing/api/refunds.py`.",
        why="Banker's rounding matches the ledger.",
        area="billing/api",
        topic="money",
        scope=("src/billing/api/**",),
        url="https://github.com/example/billing/pull/80#discussion_r1",
        thread="bo: please round half-even here, the ledger does",
        follow_up=FollowUp(("cy",), ("    return Money(amount).round_half_even()",)),
    )
    return base.with_changes(**changes)


def taught_lesson(**changes: Any) -> Lesson:
    """The rule as bo teaches it by hand (a pending lesson, source `manual`), with `changes` applied:
    it has no review thread, pull request link or change after a comment, as a pending file has none."""
    taught = review_lesson(origin="pending", source="manual", member="bo", url="", thread="", follow_up=None)
    return taught.with_changes(**changes)
