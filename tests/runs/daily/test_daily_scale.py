"""The daily run with several model calls at once decides exactly what one call at a time decides.

Two identical worlds (their own emulator and model stub each), one run with `agents.concurrency.api:
1`, one with 8; the stub answers each call after a random few milliseconds, so answers come back in
another order than they were asked. The decisions, their records, every PR body and the KB on main
must be the same bytes (once the emulators' ports and the clock are taken out).
"""

from __future__ import annotations

import random
import re
import threading
from pathlib import Path
from typing import Any

import pytest
from dailyworld import DailyWorld
from faultkit import lessons_world, set_concurrency
from racekit import fresh_world

from runs.daily.test_daily_e2e import build_a_busy_day


def _unported(text: str) -> str:
    return re.sub(r"http://127\.0\.0\.1:\d+", "http://emulator", text)


def _untimed(text: str) -> str:
    return re.sub(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?", "<time>", text)


def run_with(folder: Path, workers: int, monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, Any], int]:
    world = fresh_world(folder, "github", monkeypatch)
    try:
        daily = world.daily
        build_a_busy_day(daily)
        lessons_world(daily, 8)
        set_concurrency(daily, workers)
        rng, lock = random.Random(workers), threading.Lock()
        script = daily.script

        def jittered(system: str, user: str) -> Any:
            with lock:
                pause = rng.uniform(0.0, 0.04)
            threading.Event().wait(pause)  # answers come back shuffled
            return script(system, user)

        daily.stub.respond_with(jittered)
        assert daily.daily() == 0
        return outcome_of(daily), daily.stub.max_in_flight
    finally:
        world.close()


def outcome_of(daily: DailyWorld) -> dict[str, Any]:
    """What a user sees of a run: the decision records, every PR's title and body, the KB on main."""
    state = daily.state()
    records = sorted(  # a record's hash is its thread URL's, which holds the emulator's port
        _untimed(_unported(r.model_dump_json(exclude={"hash", "at", "review_opened_at", "settled_at"})))
        for r in state.records()
    )
    bodies = sorted(
        (
            _unported(p.head_ref.rsplit("-", 3)[0]),
            _untimed(_unported(p.title)),
            _untimed(_unported(p.body)),
        )
        for p in daily.pulls().values()
    )
    main = {p: _unported(text) for p, text in daily.main_files().items() if p != "homeostat.yaml"}
    return {"records": records, "bodies": bodies, "main": main}


def test_eight_calls_at_once_decide_the_same_bytes_as_one_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    one, one_in_flight = run_with(tmp_path / "one", 1, monkeypatch)
    eight, eight_in_flight = run_with(tmp_path / "eight", 8, monkeypatch)
    assert one_in_flight == 1
    assert eight_in_flight > 1
    assert len(one["records"]) >= 16
    assert one["records"] == eight["records"]
    assert one["bodies"] == eight["bodies"]
    assert one["main"] == eight["main"]
