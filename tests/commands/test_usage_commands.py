"""`homeostat events`, `status` and `metrics`, and the metrics computation the dashboard will share."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from gitfixtures import git
from kbfactory import example_files, write_files

from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.core.events import Event
from homeostat.core.measure.metrics import compute_metrics, render_metrics
from homeostat.core.state.branch import (
    DecisionRecord,
    DecisionsFile,
    Heartbeat,
    LessonSource,
    PullRef,
    StateSnapshot,
)

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


def homeostat(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "homeostat", *args], capture_output=True, text=True, env=os.environ
    )


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "--initial-branch=main", str(origin))
    root = write_files(tmp_path / "kb", {**example_files(), ".gitignore": ".homeostat/\n"})  # type: ignore[arg-type]
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "KB")
    git(root, "remote", "add", "origin", str(origin))
    git(root, "push", "--quiet", "origin", "main")
    return root


def record(root: Path, kind: str, at: dt.datetime, **data: Any) -> None:
    with SqliteEventLog(events_path(root), now=lambda: at) as log:
        log.record(Event(kind, at, data))


def test_events_lists_filters_and_prunes_after_90_days(kb: Path) -> None:
    now = dt.datetime.now(dt.UTC)
    record(kb, "injection", now - dt.timedelta(days=100), source="session-start", rules=2)
    record(kb, "injection", now - dt.timedelta(days=3), source="prompt", rules=1, ids="a,b")
    record(kb, "sync", now - dt.timedelta(hours=1), outcome="ok", pushed=True)
    done = homeostat("events", "--kb", str(kb), "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["events"]
    assert [(e["kind"], e["data"].get("source")) for e in listed] == [("injection", "prompt"), ("sync", None)]
    assert homeostat("events", "--kb", str(kb), "--kind", "sync").stdout.count("\n") == 1
    recent = homeostat("events", "--kb", str(kb), "--since", "1d").stdout
    assert "sync" in recent and "injection" not in recent and "outcome=ok" in recent
    bad = homeostat("events", "--kb", str(kb), "--since", "last tuesday")
    assert bad.returncode == 2 and "neither an age (90m, 24h, 7d, 2w) nor an ISO date" in bad.stderr


def test_status_shows_the_clone_without_a_network_call(kb: Path) -> None:
    workflow = kb / ".github/workflows/homeostat-daily.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(
        "jobs:\n  daily:\n    steps:\n      - uses: homeostat/homeostat/actions/daily@v0.1.9\n"
    )
    env = {**os.environ, "HOMEOSTAT_MEMBER": "cy"}
    subprocess.run([sys.executable, "-m", "homeostat", "sync", "--kb", str(kb)], env=env, check=True)
    git(kb, "commit", "--quiet", "--allow-empty", "-m", "local work")
    done = homeostat("status", "--kb", str(kb), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["pinned"] == "0.1.9" and data["pending"] == 0
    assert (data["branch"], data["behind"], data["ahead"]) == ("main", 0, 1)
    assert data["lastSync"]["outcome"] == "ok" and data["lastHeartbeat"]
    text = homeostat("status", "--kb", str(kb)).stdout
    assert "the KB pins 0.1.9" in text and "Last sync:" in text


def reviewed(n: int, confidence: int, outcome: str, hours: float) -> DecisionRecord:
    opened = NOW - dt.timedelta(days=2)
    return DecisionRecord(
        hash=f"h{n}",
        member="cy",
        kind="new",
        title=f"Lesson {n}",
        source=LessonSource(type="manual"),
        outcome=outcome,  # type: ignore[arg-type]
        state="settled",
        confidence=confidence,
        pr=PullRef(number=n, url=f"https://github.com/example/kb/pull/{n}", branch=f"b{n}"),
        review_opened_at=opened,
        settled_at=opened + dt.timedelta(hours=hours),
        at=opened + dt.timedelta(hours=hours),
    )


def test_metrics_from_the_state_branch_and_the_event_log() -> None:
    auto = reviewed(1, 85, "merged", 0).model_copy(update={"review_opened_at": None, "pr": None})
    records = (
        auto,
        reviewed(2, 55, "merged", 10),
        reviewed(3, 58, "declined", 30),
        reviewed(4, 72, "merged", 20),
    )
    snapshot = StateSnapshot(
        decisions={"cy": DecisionsFile(member="cy", records=records)},
        heartbeats={
            "cy": Heartbeat(member="cy", at=NOW - dt.timedelta(days=1), homeostat_version="0.2.0", pending=0),
            "dee": Heartbeat(
                member="dee", at=NOW - dt.timedelta(days=9), homeostat_version="0.2.0", pending=0
            ),
            # three days ago: past the 48 hours the dashboard calls "not syncing" (never 7 days here)
            "ed": Heartbeat(member="ed", at=NOW - dt.timedelta(days=3), homeostat_version="0.2.0", pending=0),
        },
    )
    at = NOW - dt.timedelta(hours=3)
    events = [
        Event("injection", at, {"source": "session-start", "ids": "r1,r2,r3"}),
        Event("injection", at, {"source": "prompt", "ids": "r4"}),
        Event("turn-usage", at, {"turn": 1, "lookedUp": True, "credited": "r1,a/doc#s"}),
        Event("turn-usage", at, {"turn": 2, "lookedUp": False, "credited": ""}),
        Event(
            "model-call", at, {"agent": "curator", "input_tokens": 100, "output_tokens": 20, "cost_usd": 0.5}
        ),
        Event(
            "model-call", at, {"agent": "curator", "input_tokens": 50, "output_tokens": 10, "cost_usd": 0.25}
        ),
        Event("injection", NOW - dt.timedelta(days=40), {"source": "session-start", "ids": "old"}),
    ]
    members = ["cy", "dee", "fay"]  # team.members: fay has no heartbeat yet, ed is no longer listed
    metrics = compute_metrics(
        snapshot, events, NOW, 30, accepted=frozenset({"r1", "r2", "r4"}), members=members
    )
    d, u = metrics.decisions, metrics.usage
    assert (d.decided, d.auto_merged, d.sent_to_review) == (4, 1, 3)
    assert d.merged_without_a_person == 0.25
    assert [(b.band, b.reviewed, b.merged) for b in d.calibration] == [("50-59", 2, 1), ("70-79", 1, 1)]
    assert (d.review_hours_median, d.review_hours_p90) == (20.0, 30.0)
    assert (u.sessions, u.prompt_matches, u.rules_served) == (1, 1, 4)
    assert (u.turns, u.turns_looked_up, u.turns_credited) == (2, 1, 1)
    assert (u.rules_credited, u.sections_credited) == (1, 1)
    assert u.served_never_credited == ("r2", "r4")  # r3 is no longer an accepted rule
    [step] = metrics.steps
    assert (step.name, step.calls, step.input_tokens, step.usd) == ("curator", 2, 150, 0.75)
    assert (metrics.members_syncing, metrics.members) == (1, 4)
    data = metrics.to_data()
    assert data["decisions"]["mergedWithoutAPerson"] == 0.25  # type: ignore[index]
    assert data["usage"]["lookedUpShare"] == 0.5  # type: ignore[index]
    text = render_metrics(metrics)
    assert "merged without a person 25%" in text and "50-59: 50% of 2" in text
    assert "1 of 4 members synced in the last 48 hours" in text
    assert "Served but never credited: r2, r4" in text


def test_metrics_with_nothing_yet(kb: Path) -> None:
    done = homeostat("metrics", "--kb", str(kb), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["decisions"]["decided"] == 0 and data["decisions"]["mergedWithoutAPerson"] is None
    assert "Decisions: 0; merged without a person n/a" in homeostat("metrics", "--kb", str(kb)).stdout
