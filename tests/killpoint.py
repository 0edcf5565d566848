"""Run the homeostat CLI and SIGKILL this process at one step boundary of a run: the daily run, the deep
dive, the digest or review merge.

    python tests/killpoint.py after-merge daily --kb DIR

A test harness for the crash tests (tests/runs/daily/test_daily_races.py, tests/runs/deep_dive/test_deep_dive_races.py): it
wraps Homeostat's own steps (never a client library) so the process dies exactly where a CI runner
could lose it.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from homeostat.adapters import slack
from homeostat.adapters.git import plumbing as git
from homeostat.adapters.hosts import bitbucket
from homeostat.cli import main
from homeostat.runs import publish
from homeostat.runs.daily import claim, record, review
from homeostat.runs.deep_dive import record as deep_dive_record

seen: dict[str, int] = {}


def die() -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def wrap(
    owner: Any, name: str, *, before: bool = False, when: Callable[..., bool] = lambda *a, **k: True
) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if before and when(*args, **kwargs):
            die()
        result = original(*args, **kwargs)
        if not before and when(*args, **kwargs):
            die()
        return result

    setattr(owner, name, wrapped)


def _state_push(_self: Any, _remote: str, _sha: str, branch: str, **_: Any) -> bool:
    return branch.startswith("homeostat/state") and seen.get("final", 0) > 0


def _final_write(*args: Any, **kwargs: Any) -> Any:
    seen["final"] = 1
    return _original_write(*args, **kwargs)


_original_write = record.write_run_state

POINTS: dict[str, Callable[[], None]] = {
    "after-claim": lambda: wrap(claim.RunClaim, "take"),
    "after-journal": lambda: wrap(claim.RunClaim, "write_ahead"),
    "after-push": lambda: wrap(publish.Publisher, "push"),
    "after-open": lambda: wrap(publish.Publisher, "open"),
    "during-merge": lambda: wrap(bitbucket.BitbucketHost, "_await_merge", before=True),
    "after-merge": lambda: wrap(publish.Publisher, "merge"),
    "after-daily": lambda: wrap(publish.Publisher, "land"),
    "after-review-push": lambda: wrap(
        publish.Publisher, "push", when=lambda _s, branch, _sha, **_: branch.startswith("homeostat/review-")
    ),
    "after-reviews": lambda: wrap(review, "open_review_prs"),
    "before-disputes": lambda: wrap(review, "open_dispute_prs", before=True),
    "before-state": lambda: wrap(record, "write_run_state", before=True),
    "before-deep-dive-state": lambda: wrap(deep_dive_record, "write", before=True),
    "after-rebuilt-push": lambda: wrap(publish.Publisher, "push_rebuilt"),
    "digest-before-post": lambda: wrap(slack.SlackNotifier, "post", before=True),
    "digest-after-post": lambda: wrap(slack.SlackNotifier, "post"),
    "during-state": lambda: (
        setattr(record, "write_run_state", _final_write),
        wrap(git.Git, "push", before=True, when=_state_push),
    ),
}


if __name__ == "__main__":
    point = sys.argv[1]
    POINTS[point]()
    sys.exit(main(sys.argv[2:]))
