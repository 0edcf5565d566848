"""A KB clone with a lived-in state branch and event log, for the dashboard's tests.

On the GitHub emulator (via `DailyWorld`): the example KB plus a candidate rule whose title holds
markup, a `homeostat/state` branch with decisions (one waiting for review for days), heartbeats (one
member silent for three days), daily and deep-dive run reports and an `up` lock, fetched into the
clone; and the clone's `.homeostat/events.db` with injections, turn usage, document reads, a desire
path and model calls.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from dailyworld import DailyWorld
from gitfixtures import git

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.core.events import Event, ModelCall
from homeostat.core.state.branch import (
    DecisionRecord,
    DecisionsFile,
    Heartbeat,
    LessonSource,
    PullRef,
    RunReport,
    dump_state,
    state_files,
)

MARKUP_TITLE = "Escape <script>alert(1)</script> in page titles"
MARKUP_RULE = f"""---
id: escape-titles
title: {MARKUP_TITLE}
area: storefront/ui
scope: ["web/components/**"]
status: candidate
kind: convention
source:
  type: manual
  author: cy
created: 2026-11-20
lastConfirmed: 2026-11-20
---
## Rule
Render titles through the escaping helper in `web/components/Title.tsx`.

## Why
A title holding markup ran as a script in the preview.
"""
QUEUED_TITLE = "Wrap <b>money</b> in Decimal"


def record(member: str, title: str, outcome: str, at: dt.datetime, **extra: Any) -> DecisionRecord:
    fields: dict[str, Any] = {
        "hash": f"{member}-{abs(hash(title)) % 10**8}",
        "member": member,
        "kind": "new",
        "title": title,
        "source": LessonSource(type="manual"),
        "outcome": outcome,
        "state": "settled",
        "confidence": 72,
        "settled_at": at,
        "at": at,
    }
    fields.update(extra)
    return DecisionRecord(**fields)


def run_report(kind: str, started: dt.datetime, **extra: Any) -> RunReport:
    fields: dict[str, Any] = {
        "run_id": f"{kind}-{started:%Y%m%d%H%M}",
        "kind": kind,
        "started_at": started,
        "finished_at": started + dt.timedelta(minutes=3),
        "duration_seconds": 180.0,
        "cost": {"usd": 0.42, "estimated": True},
    }
    fields.update(extra)
    return RunReport(**fields)


class DashboardWorld(DailyWorld):
    """`DailyWorld` with the dashboard's fixture state and events; `self.work` is the clone it reads."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        (self.work / "knowledge/storefront/ui/escape-titles.md").write_text(MARKUP_RULE)
        git(self.work, "add", "-A")
        git(self.work, "commit", "--quiet", "-m", "a rule with markup in its title")
        git(self.work, "push", "--quiet", "origin", "HEAD:main")
        self.write_state()
        self.write_events()

    def write_state(self) -> None:
        now = self.now
        pr = PullRef(number=7, url="https://github.com/example/kb/pull/7", branch="homeostat/review-bo-x")
        decisions = (
            DecisionsFile(
                member="ana",
                records=(record("ana", "Log with fields", "merged", now - dt.timedelta(days=1)),),
            ),
            DecisionsFile(
                member="bo",
                records=(
                    record(
                        "bo",
                        QUEUED_TITLE,
                        "review",
                        now - dt.timedelta(days=5),
                        state="in-review",
                        settled_at=None,
                        confidence=55,
                        pr=pr,
                        review_opened_at=now - dt.timedelta(days=5),
                    ),
                    record(
                        "bo",
                        "Retry idempotent calls only",
                        "merged",
                        now - dt.timedelta(days=2),
                        confidence=64,
                        review_opened_at=now - dt.timedelta(days=3),
                    ),
                ),
            ),
        )
        heartbeats = (
            Heartbeat(
                member="ana", at=now - dt.timedelta(hours=2), homeostat_version="0.2.0", pending=1, behind=0
            ),
            Heartbeat(
                member="bo", at=now - dt.timedelta(days=3), homeostat_version="0.1.9", pending=4, behind=12
            ),
        )
        runs = (
            run_report("daily", now - dt.timedelta(hours=5), decided={"merged": 3, "review": 1}),
            run_report("deep-dive", now - dt.timedelta(days=2), decided={"retired": 1}),
        )
        files = state_files(decisions, heartbeats, runs)
        failed = run_report(
            "daily",
            now - dt.timedelta(days=1, hours=5),
            failed={"since": now - dt.timedelta(days=1, hours=5), "reason": "the host refused the push"},
        )
        # A second run on one UTC date gets `-2`, as merging the state does; near midnight the
        # failed run falls on the deep dive's date.
        path = f"runs/{failed.started_at.date().isoformat()}.json"
        files[path if path not in files else path.replace(".json", "-2.json")] = dump_state(failed)
        lock = {
            "version": 1,
            "job": "daily",
            "slot": (now - dt.timedelta(hours=5)).replace(minute=0, second=0, microsecond=0).isoformat(),
            "owner": {"host": "box-1", "pid": 4242, "machine": "", "processStart": 0},
            "claimedAt": (now - dt.timedelta(hours=5)).isoformat(),
            "expiresAt": (now - dt.timedelta(hours=2)).isoformat(),
            "finishedAt": (now - dt.timedelta(hours=4, minutes=55)).isoformat(),
            "exitCode": 0,
        }
        files["schedules/daily.json"] = (json.dumps(lock, indent=2) + "\n").encode()
        bare = Git(self.harness.bare_path(self.kb_repo))
        sha = bare.commit_files(None, files, "state")
        bare.run("update-ref", "refs/heads/homeostat/state", sha)
        git(
            self.work,
            "fetch",
            "--quiet",
            "origin",
            "+refs/heads/homeostat/state:refs/remotes/origin/homeostat/state",
        )

    def write_events(self) -> None:
        at = self.now - dt.timedelta(hours=1)
        with SqliteEventLog(events_path(self.work)) as log:
            for event in (
                Event(
                    "injection", at, {"source": "session-start", "ids": "log-with-fields,use-theme-spacing"}
                ),
                Event("injection", at, {"source": "prompt", "ids": "log-with-fields"}),
                Event(
                    "turn-usage",
                    at,
                    {"session": "s1", "turn": 1, "lookedUp": True, "credited": "log-with-fields"},
                ),
                Event("doc-read", at, {"source": "cli", "sections": 1, "ids": "billing/api/overview#errors"}),
                Event("desire-path", at, {"asked": "get_rules<img src=x>", "tool": "context"}),
            ):
                log.record(event)
            call = ModelCall("api", "claude-opus-5-5", "curator", "ok", 1200, 300, cost_usd=0.12)
            log.record(call.to_event(at))

    def host_env(self) -> dict[str, str]:
        """The environment a person's shell gives the dashboard to open PRs on the emulator."""
        return {"GITHUB_TOKEN": self.harness.token, "GITHUB_API_URL": self.harness.emulator.api_url}
