"""`homeostat up`: cron slots, the per-job lock, two boxes on a fast fake clock, SIGTERM between jobs,
and the command end to end against the GitHub emulator."""

from __future__ import annotations

import datetime as dt
import http.client
import importlib.util
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld
from gitfixtures import git

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.job_process import JobProcess
from homeostat.adapters.state.run_claim import this_process
from homeostat.adapters.state.schedule_lock import SlotLocks
from homeostat.commands import module_name
from homeostat.core.config import Schedules
from homeostat.core.schedule.cron import parse_cron
from homeostat.core.schedule.host_schedules import CronError
from homeostat.core.schedule.up import (
    CATCH_UP,
    Job,
    Run,
    ScheduleLock,
    Skip,
    parse_lock,
    parsed_jobs,
    slot_decision,
)
from homeostat.core.state.branch import ClaimOwner
from homeostat.errors import ConfigError
from homeostat.runs.up import Scheduler, Stop, UpDeps

UTC = dt.UTC


def at(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


# --- cron ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cron", "now", "latest", "following"),
    [
        ("0 6 * * *", "2026-12-01T07:30", "2026-12-01T06:00", "2026-12-02T06:00"),
        ("0 6 * * *", "2026-12-01T06:00", "2026-12-01T06:00", "2026-12-02T06:00"),
        ("0 7 * * 1", "2026-12-03T12:00", "2026-11-30T07:00", "2026-12-07T07:00"),
        ("0 7 * * MON", "2026-12-03T12:00", "2026-11-30T07:00", "2026-12-07T07:00"),
        ("*/15 * * * *", "2026-12-01T10:44", "2026-12-01T10:30", "2026-12-01T10:45"),
        ("30 5 1,15 * *", "2026-12-10T00:00", "2026-12-01T05:30", "2026-12-15T05:30"),
        ("0 0 * * 0", "2026-12-01T00:00", "2026-11-29T00:00", "2026-12-06T00:00"),
        ("0 0 * * 7", "2026-12-01T00:00", "2026-11-29T00:00", "2026-12-06T00:00"),
        ("0 9 1 * 1", "2026-12-02T00:00", "2026-12-01T09:00", "2026-12-07T09:00"),  # day OR weekday
        ("0 12 * 1-3 *", "2026-12-01T00:00", "2026-03-31T12:00", "2027-01-01T12:00"),
    ],
)
def test_cron_slots(cron: str, now: str, latest: str, following: str) -> None:
    parsed = parse_cron(cron)
    assert parsed.latest_slot(at(now), at(now) - dt.timedelta(days=300)) == at(latest)
    assert parsed.next_slot(at(now)) == at(following)


def test_latest_slot_is_only_after_the_last_one_seen() -> None:
    daily = parse_cron("0 6 * * *")
    assert daily.latest_slot(at("2026-12-01T07:00"), at("2026-12-01T06:00")) is None
    assert daily.latest_slot(at("2026-12-02T07:00"), at("2026-12-01T06:00")) == at("2026-12-02T06:00")


@pytest.mark.parametrize(
    ("cron", "message"),
    [
        ("0 6 * *", "is not a five-field cron"),
        ("61 6 * * *", "minute '61' is outside 0-59"),
        ("0 6 * * FUNDAY", "day of week 'FUNDAY' is not a number"),
        ("*/0 * * * *", "step '0' is not a positive number"),
    ],
)
def test_broken_cron_lines_say_which_field(cron: str, message: str) -> None:
    with pytest.raises(CronError, match=message):
        parse_cron(cron)


def test_a_broken_schedule_names_its_key() -> None:
    with pytest.raises(ConfigError, match=r"agents\.schedules\.deepDive: .*hour '25'"):
        parsed_jobs(Schedules(deep_dive="0 25 * * 1"))


# --- the lock ------------------------------------------------------------------------------------

OWNER = ClaimOwner(host="box-1", pid=4242)
SLOT = at("2026-12-01T06:00")
NOW = at("2026-12-01T06:01")


def lock(
    slot: dt.datetime = SLOT, *, finished: bool = False, expires: dt.datetime | None = None
) -> ScheduleLock:
    return ScheduleLock(
        job="daily",
        slot=slot,
        owner=OWNER,
        claimed_at=slot,
        expires_at=expires or slot + dt.timedelta(hours=3),
        finished_at=slot + dt.timedelta(minutes=5) if finished else None,
        exit_code=0 if finished else None,
    )


@pytest.mark.parametrize(
    ("current", "alive", "expected"),
    [
        (None, True, Run()),
        (lock(finished=True), True, Skip("already run by box-1 (pid 4242), exit 0")),
        (lock(), True, Skip("running on box-1 (pid 4242)")),
        (lock(), False, Run(retake=True)),  # its owner died on this machine
        (lock(expires=SLOT + dt.timedelta(seconds=30)), True, Run(retake=True)),  # expired elsewhere
        (
            lock(SLOT + dt.timedelta(days=1), finished=True),
            True,
            Skip("a later slot (2026-12-02 06:00Z) was already taken by box-1 (pid 4242)"),
        ),
        (
            lock(SLOT - dt.timedelta(days=1), expires=NOW + dt.timedelta(hours=1)),  # renewed: still going
            True,
            Skip("the run of 2026-11-30 06:00Z is still going on box-1 (pid 4242)"),
        ),
        (lock(SLOT - dt.timedelta(days=1), finished=True), True, Run()),
    ],
)
def test_slot_decision(current: ScheduleLock | None, alive: bool, expected: Run | Skip) -> None:
    assert slot_decision(current, SLOT, NOW, alive) == expected


# --- two boxes on a fast fake clock --------------------------------------------------------------

START = at("2026-12-07T00:00:30")  # a Monday
END = at("2026-12-07T00:30:30")
SPEED = 300.0  # fake seconds per real second: a ten-minute slot every 2 s
FAST = Schedules(daily="*/10 * * * *", deep_dive="*/30 * * * *", digest="0 * * * *")


def kb_origin(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "--quiet", str(origin), str(seed))
    (seed / "homeostat.yaml").write_text("version: 0.2.0\n")
    git(seed, "add", "-A")
    git(seed, "commit", "--quiet", "-m", "KB")
    git(seed, "push", "--quiet", "origin", "HEAD:main")
    return origin


def box(origin: Path, name: str) -> Path:
    path = origin.parent / name
    git(origin.parent, "clone", "--quiet", str(origin), str(path))
    return path


class FakeClock:
    """Fake time from START, SPEED times faster than real time (from `t0`, shared by both boxes)."""

    def __init__(self, t0: float) -> None:
        self.t0 = t0

    def now(self) -> dt.datetime:
        fake = START + dt.timedelta(seconds=(time.monotonic() - self.t0) * SPEED)
        return min(fake, END)

    def sleep(self, seconds: float) -> None:
        time.sleep(min(seconds / SPEED, 0.02))


def _box_main(clone: str, runs: str, t0: float, stop_event: Any) -> None:
    clock = FakeClock(t0)
    stop = Stop()

    def run_job(job: Job, slot: dt.datetime, renew: Callable[[], None]) -> int:
        with open(runs, "a") as out:
            out.write(json.dumps({"job": job.name, "slot": slot.isoformat(), "pid": os.getpid()}) + "\n")
        time.sleep(0.03)
        return 0

    def sleep(seconds: float) -> None:
        if stop_event.is_set():
            stop.request()
        clock.sleep(seconds)

    deps = UpDeps(
        locks=SlotLocks(Git(clone), remote="origin", branch="homeostat/state", pause=lambda _: None),
        owner=this_process(),
        jobs=lambda: parsed_jobs(FAST),
        run_job=run_job,
        now=clock.now,
        sleep=sleep,
        log=open(os.devnull, "w"),  # noqa: SIM115 - the child's own stream
        stop=stop,
    )
    Scheduler(deps).loop()


def expected_slots() -> set[tuple[str, str]]:
    """Each job's slot caught up at the start, then every slot up to the end."""
    slots = set()
    for job in parsed_jobs(FAST):
        slot = job.cron.latest_slot(START, START - CATCH_UP)
        while slot is not None and slot <= END:
            slots.add((job.name, slot.isoformat()))
            slot = job.cron.next_slot(slot)
    return slots


def test_two_boxes_run_each_slot_once(tmp_path: Path) -> None:
    origin = kb_origin(tmp_path)
    runs = tmp_path / "runs.jsonl"
    runs.touch()
    context = multiprocessing.get_context("fork")
    stop = context.Event()
    t0 = time.monotonic()
    boxes = [
        context.Process(target=_box_main, args=(str(box(origin, name)), str(runs), t0, stop))
        for name in ("a", "b")
    ]
    for process in boxes:
        process.start()
    expected = expected_slots()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        seen = {(r["job"], r["slot"]) for r in map(json.loads, runs.read_text().splitlines())}
        if seen >= expected and FakeClock(t0).now() >= END:
            break
        time.sleep(0.1)
    time.sleep(0.3)  # a twin, if there were one, would land now
    stop.set()
    for process in boxes:
        process.join(timeout=30)
        assert process.exitcode == 0
    records = [json.loads(line) for line in runs.read_text().splitlines()]
    ran = [(r["job"], r["slot"]) for r in records]
    assert sorted(ran) == sorted(set(ran)), "a slot ran twice"
    assert set(ran) == expected
    assert len([r for r in ran if r[0] == "daily"]) == 4  # 00:00 (caught up) to 00:30, every 10 minutes
    data = Git(origin).read_file("refs/heads/homeostat/state", "schedules/digest.json")
    assert data is not None
    final = parse_lock("schedules/digest.json", data, "homeostat/state")
    assert final.slot == at("2026-12-07T00:00") and final.exit_code == 0 and final.finished_at is not None


# --- stopping --------------------------------------------------------------------------------------


class SlowJob(JobProcess):
    """A job that takes a while: a child process sleeping (or writing `done` when it is not cut off),
    its pid in `<marks>.pid`."""

    def __init__(self, root: Path, seconds: float, marks: Path) -> None:
        super().__init__(root)
        self.seconds = seconds
        self.marks = marks

    def command(self, job: Job) -> list[str]:
        script = (
            f"import os, time, pathlib; p = pathlib.Path({str(self.marks)!r}); "
            "p.with_suffix('.pid').write_text(str(os.getpid())); p.write_text('started'); "
            f"time.sleep({self.seconds}); p.write_text('done')"
        )
        return [sys.executable, "-c", script]


EVERY_MINUTE = "* * * * *"


def _stoppable_box(clone: str, marks: str, seconds: float, log: str, daily: str) -> None:
    from homeostat.commands.ci.up import _on_signals

    process = SlowJob(Path(clone), seconds, Path(marks))
    stop = Stop()
    _on_signals(stop, process.interrupt)
    with open(log, "w") as out:
        deps = UpDeps(
            locks=SlotLocks(Git(clone), remote="origin", branch="homeostat/state"),
            owner=this_process(),
            jobs=lambda: parsed_jobs(Schedules(daily=daily, deep_dive="0 0 1 1 *", digest="0 0 1 1 *")),
            run_job=process.run,
            now=lambda: dt.datetime.now(UTC),
            sleep=stop.event.wait,
            log=out,
            stop=stop,
        )
        Scheduler(deps).loop()


def _start_stoppable(
    tmp_path: Path, seconds: float, daily: str = EVERY_MINUTE, origin: Path | None = None, name: str = "box"
) -> tuple[Any, Path, Path, Path]:
    origin = origin or kb_origin(tmp_path)
    clone = box(origin, name)
    marks, log = tmp_path / f"{name}.marks", tmp_path / f"{name}.log"
    child = multiprocessing.get_context("fork").Process(
        target=_stoppable_box, args=(str(clone), str(marks), seconds, str(log), daily)
    )
    child.start()
    deadline = time.monotonic() + 30
    while not (marks.exists() and marks.read_text() == "started") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marks.exists(), "the job never started"
    return child, origin, marks, log


def daily_lock(origin: Path) -> ScheduleLock:
    data = Git(origin).read_file("refs/heads/homeostat/state", "schedules/daily.json")
    assert data is not None, "no daily lock on the state branch"
    return parse_lock("schedules/daily.json", data, "homeostat/state")


def test_sigterm_stops_between_jobs_after_the_running_one_ends(tmp_path: Path) -> None:
    child, origin, marks, log = _start_stoppable(tmp_path, 1.5)
    os.kill(child.pid, signal.SIGTERM)
    child.join(timeout=30)
    assert child.exitcode == 0
    assert marks.read_text() == "done"  # the job ran to its end
    text = log.read_text()
    assert "finished, exit 0" in text and text.rstrip().endswith("homeostat: up: stopped")
    assert daily_lock(origin).exit_code == 0


def test_a_second_sigterm_stops_the_running_job_too(tmp_path: Path) -> None:
    child, _, marks, log = _start_stoppable(tmp_path, 60)
    os.kill(child.pid, signal.SIGTERM)
    time.sleep(0.3)
    os.kill(child.pid, signal.SIGTERM)
    child.join(timeout=30)
    assert child.exitcode == 0
    assert marks.read_text() == "started"
    assert f"finished, exit {-signal.SIGTERM}" in log.read_text()


def test_a_box_killed_mid_job_leaves_its_slot_to_the_next_box(tmp_path: Path) -> None:
    ten_minutes_ago = dt.datetime.now(UTC) - dt.timedelta(minutes=10)
    hourly = f"{ten_minutes_ago.minute} * * * *"  # its latest slot is ten minutes old: no rollover here
    first, origin, marks, _ = _start_stoppable(tmp_path, 60, hourly, name="box-1")
    os.kill(first.pid, signal.SIGKILL)  # the box went down mid-job, and its job with it
    first.join(timeout=30)
    os.kill(int(marks.with_suffix(".pid").read_text()), signal.SIGKILL)
    taken = daily_lock(origin)
    assert taken.finished_at is None and taken.owner.pid == first.pid  # still says "running"

    second, _, again, log = _start_stoppable(tmp_path, 0.2, hourly, origin=origin, name="box-2")
    deadline = time.monotonic() + 30
    while "finished" not in log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(second.pid, signal.SIGTERM)
    second.join(timeout=30)
    assert second.exitcode == 0 and again.read_text() == "done"
    text = log.read_text()
    assert "running again (its earlier run died)" in text and "finished, exit 0" in text, text
    done = daily_lock(origin)
    assert (done.slot, done.owner.pid, done.exit_code) == (taken.slot, second.pid, 0)
    assert done.finished_at is not None


# --- the command, end to end ---------------------------------------------------------------------


def test_up_runs_the_daily_run_serves_the_dashboard_and_stops(world: DailyWorld) -> None:
    now = dt.datetime.now(UTC)
    config = world.work / "homeostat.yaml"
    config.write_text(
        config.read_text().replace(
            "agents:\n",
            f'agents:\n  schedules:\n    daily: "{now.minute} {now.hour} * * *"\n'
            '    deepDive: "0 0 1 1 *"\n    digest: "0 0 1 1 *"\n',
            1,
        )
    )
    git(world.work, "commit", "--quiet", "-am", "up's schedules")
    git(world.work, "push", "--quiet", "origin", "HEAD:main")
    clone = world.checkout()
    world.env()
    child = subprocess.Popen(
        [sys.executable, "-m", "homeostat", "up", "--port", "0", "--kb", str(clone)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    lines: list[str] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = child.stderr.readline()
        lines.append(line)
        if "daily" in line and "finished" in line or not line:
            break
    assert any("finished, exit 0" in line for line in lines), "".join(lines)
    for job in ("deep-dive", "digest"):  # a job this release lacks is named, not run and failed
        installed = importlib.util.find_spec(module_name(job)) is not None
        assert installed or any(f"{job}: not in this release" in line for line in lines), "".join(lines)
    [url] = [line.split("dashboard at ", 1)[1].split(" ", 1)[0] for line in lines if "dashboard at " in line]
    connection = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/")), timeout=30)
    connection.request("GET", "/")
    overview = connection.getresponse().read().decode()
    child.send_signal(signal.SIGTERM)
    rest = child.stderr.read()
    assert child.wait(timeout=60) == 0, rest
    assert "homeostat: up: stopped" in rest
    state = world.state()
    assert state.last_run("daily") is not None
    lock = parse_lock(
        "schedules/daily.json",
        world.bare().read_file("refs/heads/homeostat/state", "schedules/daily.json") or b"",
        "s",
    )
    assert lock.exit_code == 0 and lock.finished_at is not None
    logs = list((clone / ".homeostat" / "up").glob("daily-*.log"))
    assert len(logs) == 1 and logs[0].stat().st_size > 0
    assert "ran on" in overview or "running on" in overview
