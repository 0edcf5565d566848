"""The local event log: record, query, 90-day pruning, and model calls logged by size only."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from emulators.anthropic_stub import AnthropicStub
from pydantic import BaseModel

from homeostat.adapters.models.askers import asker_for
from homeostat.adapters.state.event_log import LoggingSink, SqliteEventLog, event_sink, events_path
from homeostat.core.asker import RunStats
from homeostat.core.config import AgentsConfig
from homeostat.core.events import MODEL_CALL, Event, ModelCall

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


class Verdict(BaseModel):
    ok: bool
    reason: str


def call(outcome: str = "ok", **sizes: int) -> ModelCall:
    return ModelCall(
        **{
            "runtime": "api",
            "model": "claude-opus-5-5",
            "agent": "judge",
            "input_tokens": 1200,
            "output_tokens": 80,
            "cost_usd": 0.0064,
            "estimated": True,
            "duration_ms": 950,
            "outcome": outcome,
            **sizes,
        }
    )


def test_the_log_lives_under_dot_homeostat(tmp_path: Path) -> None:
    assert events_path(tmp_path) == tmp_path / ".homeostat" / "events.db"
    with SqliteEventLog(events_path(tmp_path)):
        pass
    assert (tmp_path / ".homeostat" / "events.db").is_file()


def test_events_round_trip_and_filter_by_kind_and_time(tmp_path: Path) -> None:
    with SqliteEventLog(events_path(tmp_path), now=lambda: NOW) as log:
        log.record(call().to_event(NOW - timedelta(days=2)))
        log.record(Event(kind="injection", at=NOW - timedelta(days=1), data={"chars": 3100, "ms": 41}))
        log.record(call("refusal").to_event(NOW))
        assert [ModelCall.from_event(e).outcome for e in log.query(MODEL_CALL)] == ["ok", "refusal"]
        assert [e.kind for e in log.query(since=NOW - timedelta(days=1))] == ["injection", MODEL_CALL]
        assert log.query(MODEL_CALL, since=NOW) == [call("refusal").to_event(NOW)]
        assert log.query("flag") == []


def test_events_older_than_90_days_are_pruned_on_open(tmp_path: Path) -> None:
    path = events_path(tmp_path)
    with SqliteEventLog(path, now=lambda: NOW) as log:
        for days in (120, 91, 89, 1):
            log.record(call(input_tokens=days).to_event(NOW - timedelta(days=days)))
        assert log.prune() == 2
        assert [ModelCall.from_event(e).input_tokens for e in log.query(MODEL_CALL)] == [89, 1]
    later = NOW + timedelta(days=5)  # 89 days ago is now 94: it goes too
    with SqliteEventLog(path, now=lambda: later) as log:
        assert [ModelCall.from_event(e).input_tokens for e in log.query(MODEL_CALL)] == [1]


def test_prune_reports_how_many_went(tmp_path: Path) -> None:
    clock = [NOW]
    with SqliteEventLog(events_path(tmp_path), now=lambda: clock[0]) as log:
        log.record(call().to_event(NOW))
        clock[0] = NOW + timedelta(days=90, seconds=1)
        assert log.prune() == 1
        assert log.query() == []


def test_two_processes_can_share_the_log(tmp_path: Path) -> None:
    path = events_path(tmp_path)
    with SqliteEventLog(path, now=lambda: NOW) as first, SqliteEventLog(path, now=lambda: NOW) as second:
        first.record(call().to_event(NOW))
        second.record(call("error").to_event(NOW))
        assert len(first.query(MODEL_CALL)) == 2


def test_an_event_needs_a_timezone_and_a_kebab_case_kind() -> None:
    with pytest.raises(ValueError, match="needs a timezone"):
        Event(kind=MODEL_CALL, at=datetime(2026, 11, 29))
    with pytest.raises(ValueError, match="is not lower-case words"):
        Event(kind="Model Call", at=NOW)


def test_model_calls_reach_the_database_with_sizes_only(
    tmp_path: Path, anthropic_stub: AnthropicStub
) -> None:
    anthropic_stub.answer({"ok": False, "reason": "ANSWER-MARKER-7f3a"})
    path = events_path(tmp_path)
    with SqliteEventLog(path) as log:
        config = AgentsConfig(endpoint=anthropic_stub.url)
        asker = asker_for("judge", config, RunStats(), sink=log, env={"ANTHROPIC_API_KEY": "k"})
        asker.ask("SYSTEM-MARKER-7f3a", "USER-MARKER-7f3a", Verdict)
        [event] = log.query(MODEL_CALL)
    recorded = ModelCall.from_event(event)
    assert recorded == ModelCall(
        runtime="api",
        model="claude-sonnet-5-5",
        agent="judge",
        input_tokens=120,
        output_tokens=40,
        cost_usd=recorded.cost_usd,
        estimated=True,
        duration_ms=recorded.duration_ms,
        outcome="ok",
    )
    assert recorded.cost_usd == pytest.approx((120 * 2 + 40 * 10) / 1e6)
    stored = b"".join(p.read_bytes() for p in path.parent.iterdir() if p.name.startswith("events.db"))
    assert b"MARKER-7f3a" not in stored
    assert b"model-call" in stored  # the check above read the right files


def test_the_ci_sink_logs_one_line_of_sizes(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="homeostat.events"):
        LoggingSink().record(call().to_event(NOW))
    assert caplog.messages == [
        "model-call agent=judge cache_creation_tokens=0 cache_read_tokens=0 cost_usd=0.0064 duration_ms=950 "
        "estimated=True input_tokens=1200 model=claude-opus-5-5 outcome=ok output_tokens=80 runtime=api"
    ]


def test_ci_logs_events_and_a_machine_keeps_them(tmp_path: Path) -> None:
    assert isinstance(event_sink(tmp_path, {"GITHUB_ACTIONS": "true"}), LoggingSink)
    assert isinstance(event_sink(tmp_path, {"BITBUCKET_BUILD_NUMBER": "17"}), LoggingSink)
    assert not (tmp_path / ".homeostat").exists()
    local = event_sink(tmp_path, {})
    assert isinstance(local, SqliteEventLog) and local.path == tmp_path / ".homeostat" / "events.db"
    local.close()
