"""A daily run on a state branch holding thousands of decisions skips exactly the lessons already
decided: those in the archive's index, those still in `decisions/`, and on a branch an earlier
Homeostat wrote before the archive as on one it migrated."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from dailyworld import DailyWorld

from homeostat.core.pending import PendingLesson
from homeostat.core.state.archive import RECENT, compact
from homeostat.core.state.branch import DecisionRecord, DecisionsFile, LessonSource, dump_state


def decision(hash: str, member: str, at: dt.datetime) -> DecisionRecord:
    return DecisionRecord(
        hash=hash,
        member=member,
        kind="new",
        title=f"Rule {hash}",
        source=LessonSource(type="by-hand"),
        outcome="merged",
        state="settled",
        confidence=72,
        reason="at or above accept (70)",
        at=at,
        settled_at=at,
    )


def lesson(world: DailyWorld, member: str, n: int) -> PendingLesson:
    return world.pending(
        member,
        title=f"Close the HTTP client {n} in every storefront handler",
        rule=f"Close `client_{n}` in `web/components/` handlers before returning.",
        why=f"Handler {n} leaked sockets under load.",
        area="storefront/ui",
    )


def state_with_many_decisions(
    world: DailyWorld, archived: PendingLesson, live: PendingLesson
) -> dict[str, bytes]:
    """Three months of cy's decisions (3,000 of them, `archived` among them), dee's recent ones
    (`live` among them, and one hash in a form older records may have)."""
    rng = random.Random(30)
    old = [
        decision(f"{rng.getrandbits(64):016x}", "cy", world.now - dt.timedelta(days=rng.uniform(20, 110)))
        for _ in range(3000)
    ]
    old.append(decision(archived.content_key(), "cy", world.now - dt.timedelta(days=60)))
    recent = [
        decision(live.content_key(), "dee", world.now - dt.timedelta(hours=20)),
        decision("legacy-hash-1", "dee", world.now - dt.timedelta(hours=30)),
    ]
    return {
        "decisions/cy.json": dump_state(
            DecisionsFile(member="cy", records=tuple(sorted(old, key=lambda r: r.at)))
        ),
        "decisions/dee.json": dump_state(DecisionsFile(member="dee", records=tuple(recent))),
    }


@pytest.mark.parametrize("layout", ["archived", "before the archive"])
def test_a_run_on_thousands_of_decisions_drafts_exactly_the_undecided_lessons(
    world: DailyWorld, layout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    archived, live = lesson(world, "cy", 1), lesson(world, "dee", 2)
    fresh = [lesson(world, "cy", 3), lesson(world, "dee", 4)]
    files = state_with_many_decisions(world, archived, live)
    if layout == "archived":
        moved = compact(files, world.now - RECENT, lambda paths: {})
        files = {p: d for p, d in {**files, **moved.changes}.items() if d is not None}
        assert "decisions/cy.json" not in files and any(p.startswith("index/") for p in files)
    bare = world.bare()
    bare.run("update-ref", "refs/heads/homeostat/state", bare.commit_files(None, files, "a year of state"))

    assert world.daily() == 0, capsys.readouterr().out

    state = world.state()
    this_run = {r.hash for r in state.live_records() if r.at > world.now}
    assert this_run == {pending.content_key() for pending in fresh}
    titles = {r.title for r in state.live_records() if r.at > world.now}
    assert titles == {pending.title for pending in fresh}
    bodies = "\n".join(p.body for p in world.pulls().values())
    assert archived.title not in bodies and live.title not in bodies
