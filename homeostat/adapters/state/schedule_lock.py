"""`homeostat up`'s per-job locks on the state branch (`schedules/<job>.json`, see `homeostat.core.schedule.up`).

Every write is a commit on the tip just fetched, pushed without force: of two boxes taking one slot
exactly one push lands, and the loser refetches and reads the winner's lock. Renewing and finishing
first check that the tip still holds this box's lock, so a box never overwrites a lock another took.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Callable

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.run_claim import owner_alive
from homeostat.adapters.state.state_store import StateWriteError, fetch_state_tip, tracking_ref
from homeostat.core.schedule.up import (
    Run,
    ScheduleLock,
    Skip,
    dump_lock,
    lock_path,
    parse_lock,
    slot_decision,
)
from homeostat.core.state.branch import ClaimOwner

ATTEMPTS = 8


class SlotLocks:
    """Take, renew and finish slot locks on one remote's state branch."""

    def __init__(
        self, git: Git, *, remote: str, branch: str, pause: Callable[[float], None] = time.sleep
    ) -> None:
        self.git = git
        self.remote = remote
        self.branch = branch
        self.pause = pause

    def current(self, job: str) -> tuple[str | None, ScheduleLock | None]:
        tip = fetch_state_tip(self.git, self.remote, self.branch)
        data = self.git.read_file(tip, lock_path(job)) if tip else None
        return tip, parse_lock(lock_path(job), data, self.branch) if data else None

    def take(
        self, job: str, slot: dt.datetime, owner: ClaimOwner, now: dt.datetime, ttl: dt.timedelta
    ) -> tuple[ScheduleLock, Run] | Skip:
        """This box's lock on `slot`, or why another box has it."""
        for attempt in range(1, ATTEMPTS + 1):
            tip, lock = self.current(job)
            decision = slot_decision(lock, slot, now, lock is None or owner_alive(lock.owner))
            if isinstance(decision, Skip):
                return decision
            mine = ScheduleLock(
                job=job,  # type: ignore[arg-type]
                slot=slot,
                owner=owner,
                claimed_at=now,
                expires_at=now + ttl,
            )
            if self._push(tip, mine, f"homeostat: up takes {job} {slot.isoformat()} [skip ci]"):
                return mine, decision
            self.pause(random.uniform(0.05, 0.25) * attempt)
        raise StateWriteError(
            f"could not lock {job} on {self.remote}/{self.branch}: the branch moved under each of {ATTEMPTS} tries"
        )

    def write(self, lock: ScheduleLock, what: str) -> bool:
        """Write this box's newer copy of `lock` (a renewal, the end); False when another box took it."""
        for attempt in range(1, ATTEMPTS + 1):
            tip, current = self.current(lock.job)
            if current is None or (current.slot, current.claimed_at, current.owner) != (
                lock.slot,
                lock.claimed_at,
                lock.owner,
            ):
                return False
            if self._push(tip, lock, f"homeostat: up {what} {lock.job} {lock.slot.isoformat()} [skip ci]"):
                return True
            self.pause(random.uniform(0.05, 0.25) * attempt)
        raise StateWriteError(
            f"could not update the {lock.job} lock on {self.remote}/{self.branch}: the branch kept moving"
        )

    def _push(self, tip: str | None, lock: ScheduleLock, message: str) -> bool:
        commit = self.git.commit_files(tip, {lock_path(lock.job): dump_lock(lock)}, message)
        if not self.git.push(self.remote, commit, self.branch).ok:
            return False
        self.git.run("update-ref", tracking_ref(self.remote, self.branch), commit)
        return True
