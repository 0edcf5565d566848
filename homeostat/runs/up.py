"""`homeostat up`'s scheduler: run each job once per due slot, across every box that runs `up`.

Each tick reads `agents.schedules` from the clone (a merged settings PR moves a schedule without a
restart), finds each job's latest slot since the last tick (a slot missed by less than `CATCH_UP`
while the box restarted still counts), takes the slot's lock on the state branch and runs the job's
command. Jobs run one at a time, each to its end: a stop request (SIGTERM) is honoured between jobs,
never inside one, and a second one passes the signal on to the running job.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from homeostat.adapters.state.schedule_lock import SlotLocks
from homeostat.core.schedule.up import CATCH_UP, LOCK_TTL, RENEW_EVERY, Job, ScheduleLock, Skip, stamp
from homeostat.core.state.branch import ClaimOwner
from homeostat.errors import HomeostatError

MAX_SLEEP = 60.0  # seconds: a tick at least each minute, so a schedule changed in the clone is seen


class Stop:
    """A stop request (SIGTERM, SIGINT) the scheduler checks between jobs and while it sleeps."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.requests = 0

    def request(self) -> None:
        self.requests += 1
        self.event.set()

    @property
    def requested(self) -> bool:
        return self.event.is_set()


@dataclass
class UpDeps:
    locks: SlotLocks
    owner: ClaimOwner
    jobs: Callable[[], tuple[Job, ...]]  # re-read every tick
    run_job: Callable[[Job, dt.datetime, Callable[[], None]], int]  # the job, its slot, a renewal hook
    now: Callable[[], dt.datetime]
    sleep: Callable[[float], object]  # waits up to that many seconds (returns early on a stop)
    log: TextIO
    stop: Stop = field(default_factory=Stop)


@dataclass
class Scheduler:
    deps: UpDeps
    started: dt.datetime | None = None
    seen: dict[str, dt.datetime] = field(default_factory=dict)  # job -> latest slot looked at
    ran: list[tuple[str, dt.datetime, int]] = field(default_factory=list)

    def loop(self) -> None:
        """Tick until a stop is requested."""
        self.started = self.deps.now()
        self.say(f"scheduler started; catching up slots since {stamp(self.started - CATCH_UP)}")
        while not self.deps.stop.requested:
            jobs = self.tick()
            if self.deps.stop.requested:
                break
            self.deps.sleep(self.pause(jobs))
        self.say("stopped")

    def tick(self) -> tuple[Job, ...]:
        try:
            jobs = self.deps.jobs()
        except HomeostatError as exc:
            self.say(f"cannot read the schedules ({exc}); trying again in a minute")
            return ()
        for job in jobs:
            if self.deps.stop.requested:
                break
            slot = self.due(job)
            if slot is not None:
                self.run_slot(job, slot)
        return jobs

    def due(self, job: Job) -> dt.datetime | None:
        assert self.started is not None
        after = self.seen.get(job.name, self.started - CATCH_UP)
        slot = job.cron.latest_slot(self.deps.now(), after)
        if slot is not None:
            self.seen[job.name] = slot
        return slot

    def pause(self, jobs: tuple[Job, ...]) -> float:
        """Seconds until the next slot of any job (at most `MAX_SLEEP`)."""
        now = self.deps.now()
        nearest = min((job.cron.next_slot(now) for job in jobs), default=None)
        if nearest is None:
            return MAX_SLEEP
        return max(0.0, min(MAX_SLEEP, (nearest - now).total_seconds()))

    def run_slot(self, job: Job, slot: dt.datetime) -> None:
        try:
            taken = self.deps.locks.take(job.name, slot, self.deps.owner, self.deps.now(), LOCK_TTL)
        except HomeostatError as exc:
            self.say(f"{job.name} {stamp(slot)}: could not take its lock ({exc}); skipped")
            return
        if isinstance(taken, Skip):
            self.say(f"{job.name} {stamp(slot)}: skipped, {taken.reason}")
            return
        lock, decision = taken
        again = " again (its earlier run died)" if decision.retake else ""
        self.say(f"{job.name} {stamp(slot)}: running{again}")
        holder = _Holder(self, lock)
        code = self.deps.run_job(job, slot, holder.renew)
        self.ran.append((job.name, slot, code))
        self.say(f"{job.name} {stamp(slot)}: finished, exit {code}")
        holder.finish(code)

    def say(self, line: str) -> None:
        print(f"homeostat: up: {line}", file=self.deps.log, flush=True)


@dataclass
class _Holder:
    """Keeps a running slot's lock alive and writes how it ended."""

    scheduler: Scheduler
    lock: ScheduleLock

    def renew(self) -> None:
        deps = self.scheduler.deps
        now = deps.now()
        if self.lock.expires_at - now > LOCK_TTL - RENEW_EVERY:
            return  # renewed less than RENEW_EVERY ago
        renewed = self.lock.model_copy(update={"expires_at": now + LOCK_TTL})
        if self._write(renewed, "renews"):
            self.lock = renewed

    def finish(self, code: int) -> None:
        done = self.lock.model_copy(update={"finished_at": self.scheduler.deps.now(), "exit_code": code})
        self._write(done, "finishes")

    def _write(self, lock: ScheduleLock, what: str) -> bool:
        try:
            if self.scheduler.deps.locks.write(lock, what):
                return True
            self.scheduler.say(f"{lock.job} {stamp(lock.slot)}: another box took this lock over")
        except HomeostatError as exc:
            self.scheduler.say(f"{lock.job} {stamp(lock.slot)}: could not write its lock ({exc})")
        return False
