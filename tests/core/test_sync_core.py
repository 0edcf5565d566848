"""The pure rules behind sync and the plugin: when to push, what a pin says, how credits are read."""

from __future__ import annotations

import datetime as dt

import pytest

from homeostat.core.measure.transcript import credited_ids, homeostat_tool
from homeostat.core.setup.pins import pinned_version
from homeostat.core.state.sync import HEARTBEAT_FILE, candidate_changes, push_check

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
PENDING = {".homeostat/pending/a.json": b"{}"}


@pytest.mark.parametrize(
    ("theirs", "sent_hours_ago", "needed", "reason"),
    [
        (None, None, True, "no candidates branch yet"),
        ({}, 1, True, "the pending lessons changed"),
        ({".homeostat/pending/a.json": b"{ }"}, 1, True, "the pending lessons changed"),
        (PENDING, None, True, "no heartbeat yet"),
        (PENDING, 12, True, "the heartbeat is 12 hours old"),
        (PENDING, 11.9, False, "nothing changed"),
    ],
)
def test_push_check(
    theirs: dict[str, bytes] | None, sent_hours_ago: float | None, needed: bool, reason: str
) -> None:
    sent = None if sent_hours_ago is None else NOW - dt.timedelta(hours=sent_hours_ago)
    check = push_check(PENDING, theirs, sent, NOW)
    assert (check.needed, check.reason) == (needed, reason)


def test_the_candidates_tree_drops_stray_homeostat_files_of_the_base() -> None:
    changes = candidate_changes([".homeostat/pending/old.json", ".homeostat/x"], PENDING, b"beat")
    assert changes == {
        ".homeostat/pending/old.json": None,
        ".homeostat/x": None,
        ".homeostat/pending/a.json": b"{}",
        HEARTBEAT_FILE: b"beat",
    }


@pytest.mark.parametrize(
    ("files", "pin"),
    [
        ({".github/workflows/d.yml": "uses: homeostat/homeostat/actions/daily@v0.2.1\n"}, "0.2.1"),
        ({".github/workflows/d.yml": "uses: homeostat/daily@v0.2.1\n"}, "0.2.1"),
        ({".github/workflows/d.yml": "uses: homeostat/daily@" + "a1" * 20 + " # v0.2.1\n"}, "0.2.1"),
        ({"bitbucket-pipelines.yml": "image: ghcr.io/homeostat/homeostat:0.2.1@sha256:" + "0" * 64}, "0.2.1"),
        ({"bitbucket-pipelines.yml": "image: ghcr.io/homeostat/homeostat:0.3.0\n"}, "0.3.0"),
        (
            {
                ".github/workflows/a.yml": "uses: homeostat/homeostat/actions/daily@v0.2.1",
                ".github/workflows/b.yml": "uses: homeostat/homeostat/actions/validate@v0.2.0",
            },
            None,  # two versions: nothing is pinned for sure
        ),
        ({".github/workflows/a.yml": "uses: homeostat/homeostat/actions/daily@main"}, None),
        ({}, None),
    ],
)
def test_pinned_version(files: dict[str, str], pin: str | None) -> None:
    assert pinned_version(files) == pin


def test_credit_lines_and_tool_names() -> None:
    assert credited_ids("ok\n> From Homeostat (a-rule, area/doc#sec)\n> From Homeostat (`b`)") == [
        "a-rule",
        "area/doc#sec",
        "b",
    ]
    assert homeostat_tool("mcp__plugin_homeostat_homeostat__search", {}) == "search"
    assert homeostat_tool("mcp__homeostat__read", {}) == "read"
    assert homeostat_tool("mcp__other__search", {}) is None
    assert homeostat_tool("Bash", {"command": "cd x && /opt/bin/homeostat explain r1"}) == "explain"
    assert homeostat_tool("Bash", {"command": '"/p/bin/homeostat" search "x"'}) == "search"
    assert homeostat_tool("Bash", {"command": "grep homeostat search.log"}) is None
