"""`homeostat up`'s schedule: the jobs, their slots, and the lock that makes a slot run once.

A shared box (or two, for safety) runs the daily run, the deep dive and the digest on the cron lines
of `agents.schedules`. Each job keeps one lock file on the state branch, `schedules/<job>.json`,
naming the latest slot taken, by whom, and how it ended. A box runs a slot only after pushing the
lock for it without force on the tip it just read, so of two boxes that see a slot at once exactly one
runs it; the other reads the winner's lock and skips. A lock whose owner died before finishing is
taken over (the job's own claim and journal make a rerun safe); a later slot never runs while an
earlier one is still going.

The file is a state file only this command reads and writes: other writers of the state branch keep
files they do not know, so it needs no change to the state format.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import ValidationError

from homeostat.core.config import Schedules
from homeostat.core.schedule.cron import Cron, parse_cron
from homeostat.core.schedule.host_schedules import CronError
from homeostat.core.state.branch import STATE_VERSION, ClaimOwner, StateFileError, StateModel, UtcDatetime
from homeostat.errors import ConfigError

JobName = Literal["daily", "deep-dive", "digest"]
LOCK_FILE = re.compile(r"^schedules/(daily|deep-dive|digest)\.json$")
LOCK_TTL = dt.timedelta(hours=3)
RENEW_EVERY = dt.timedelta(minutes=10)
CATCH_UP = dt.timedelta(hours=1)  # a slot missed by less than this (the box was restarting) still runs


@dataclass(frozen=True)
class Job:
    """One scheduled job: its name (also the subcommand it runs) and its cron line."""

    name: JobName
    key: str  # the agents.schedules key
    cron: Cron


def parsed_jobs(schedules: Schedules) -> tuple[Job, ...]:
    """The three jobs from `agents.schedules`, cron lines parsed; a broken one is an error naming its key."""
    jobs: list[Job] = []
    for name, key, line in (
        ("daily", "daily", schedules.daily),
        ("deep-dive", "deepDive", schedules.deep_dive),
        ("digest", "digest", schedules.digest),
    ):
        try:
            jobs.append(Job(name, key, parse_cron(line)))  # type: ignore[arg-type]
        except CronError as exc:
            raise ConfigError(f"homeostat.yaml: agents.schedules.{key}: {exc}") from None
    return tuple(jobs)


class ScheduleLock(StateModel):
    """`schedules/<job>.json`: the latest slot of a job a box took, and how its run ended."""

    version: Literal[1] = STATE_VERSION
    job: JobName
    slot: UtcDatetime
    owner: ClaimOwner
    claimed_at: UtcDatetime
    expires_at: UtcDatetime
    finished_at: UtcDatetime | None = None
    exit_code: int | None = None

    def held(self, now: dt.datetime) -> bool:
        return self.finished_at is None and self.expires_at > now


def lock_path(job: str) -> str:
    return f"schedules/{job}.json"


def dump_lock(lock: ScheduleLock) -> bytes:
    data = lock.model_dump(mode="json", by_alias=True)
    return (json.dumps(data, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def parse_lock(path: str, data: bytes, branch: str) -> ScheduleLock:
    try:
        return ScheduleLock.model_validate_json(data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise StateFileError(f"{branch}:{path}: {key}: {first['msg']}; delete it on that branch") from None


def schedule_locks(other: Mapping[str, bytes], branch: str) -> dict[str, ScheduleLock]:
    """The locks among a state snapshot's files it does not know itself (`StateSnapshot.other`)."""
    found: dict[str, ScheduleLock] = {}
    for path, data in other.items():
        match = LOCK_FILE.match(path)
        if match:
            found[match.group(1)] = parse_lock(path, data, branch)
    return found


@dataclass(frozen=True)
class Run:
    """Take the slot: `retake` when an earlier owner died while running it."""

    retake: bool = False


@dataclass(frozen=True)
class Skip:
    reason: str


def slot_decision(
    lock: ScheduleLock | None, slot: dt.datetime, now: dt.datetime, owner_alive: bool
) -> Run | Skip:
    """Whether a box may run `slot` given the job's current lock."""
    if lock is None:
        return Run()
    who = f"{lock.owner.host} (pid {lock.owner.pid})"
    running = lock.held(now) and owner_alive
    if lock.slot > slot:
        return Skip(f"a later slot ({stamp(lock.slot)}) was already taken by {who}")
    if lock.slot == slot:
        if lock.finished_at is not None:
            return Skip(f"already run by {who}, exit {lock.exit_code}")
        if running:
            return Skip(f"running on {who}")
        return Run(retake=True)
    if running:
        return Skip(f"the run of {stamp(lock.slot)} is still going on {who}")
    return Run()


def stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%MZ")
