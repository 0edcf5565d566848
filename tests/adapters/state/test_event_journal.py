"""The event journal: hooks and the MCP server append one line per event, and whoever opens the log
next folds the lines into SQLite, losing none and counting none twice, with real processes racing."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from datetime import UTC, datetime
from pathlib import Path

import pytest
from kit import TESTS

from homeostat.adapters.state.event_log import (
    SqliteEventLog,
    events_path,
    journal_path,
    log_exists,
    log_summary,
)
from homeostat.adapters.state.event_recorder import log_event, log_events
from homeostat.core.events import Event

WORKER = TESTS / "journal_worker.py"


def worker(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(WORKER), *args], stderr=subprocess.PIPE)


def seen(root: Path) -> list[tuple[object, object]]:
    with SqliteEventLog(events_path(root)) as log:
        return [(e.data["writer"], e.data["seq"]) for e in log.query("mcp-call")]


def test_an_event_is_one_appended_line_that_the_next_reader_folds_in(tmp_path: Path) -> None:
    log_event(tmp_path, "mcp-call", {"tool": "search", "ms": 12})
    log_events(tmp_path, [("injection", {"rules": 3}), ("doc-read", {"sections": 1})])
    journal = journal_path(events_path(tmp_path))
    assert journal == tmp_path / ".homeostat" / "events.jsonl"
    assert len(journal.read_bytes().splitlines()) == 3
    assert not events_path(tmp_path).exists() and log_exists(events_path(tmp_path))
    assert log_summary(events_path(tmp_path))[0] == 3  # counted without folding anything
    assert journal.is_file()

    with SqliteEventLog(events_path(tmp_path)) as log:
        events = log.query()
    assert [(e.kind, e.data) for e in events] == [
        ("mcp-call", {"ms": 12, "tool": "search"}),
        ("injection", {"rules": 3}),
        ("doc-read", {"sections": 1}),
    ]
    assert not journal.exists() and not list(journal.parent.glob("*.folding"))
    assert log_summary(events_path(tmp_path))[0] == 3


def test_an_open_log_sees_events_journaled_after_it_opened(tmp_path: Path) -> None:
    with SqliteEventLog(events_path(tmp_path)) as log:
        assert log.query() == []
        log_event(tmp_path, "mcp-call", {"tool": "docs"})
        assert [e.data["tool"] for e in log.query("mcp-call")] == ["docs"]


def test_replace_sees_a_journaled_event_it_replaces(tmp_path: Path) -> None:
    log_event(tmp_path, "turn-usage", {"session": "s1", "turn": 1, "tokens": 10})
    with SqliteEventLog(events_path(tmp_path)) as log:
        log.replace(
            Event("turn-usage", datetime.now(UTC), {"session": "s1", "turn": 1, "tokens": 25}),
            ("session", "turn"),
        )
        assert [e.data["tokens"] for e in log.query("turn-usage")] == [25]


def test_a_journaled_replacement_stands_in_for_earlier_events_and_never_for_a_later_one(
    tmp_path: Path,
) -> None:
    """The Stop hook journals each turn's usage as a replacement: folded, the last reading of a turn
    is the one kept, whether the earlier one was already in SQLite or still in a journal, and a
    journal renamed aside by a killed fold (folded later, in name order) never undoes a later one."""
    usage = [("turn-usage", {"session": "s1", "turn": 1, "tokens": 10})]
    log_events(tmp_path, usage, replaces=("session", "turn"))
    with SqliteEventLog(events_path(tmp_path)) as log:
        assert [e.data["tokens"] for e in log.query("turn-usage")] == [10]
    log_events(tmp_path, [("turn-usage", {"session": "s1", "turn": 1, "tokens": 25})], ("session", "turn"))
    log_events(tmp_path, [("turn-usage", {"session": "s1", "turn": 2, "tokens": 5})], ("session", "turn"))
    log_events(tmp_path, [("turn-usage", {"session": "s2", "turn": 1, "tokens": 7})])  # no replacement
    journal = journal_path(events_path(tmp_path))
    late = journal.with_name(f"{journal.name}.zz-late.folding")  # folds last, holds an older reading
    older = {"session": "s1", "turn": 2, "tokens": 1}
    line = {"kind": "turn-usage", "at": time.time() - 60, "data": older, "replaces": ["session", "turn"]}
    late.write_text(json.dumps(line) + "\n")
    with SqliteEventLog(events_path(tmp_path)) as log:
        got = sorted((e.data["session"], e.data["turn"], e.data["tokens"]) for e in log.query("turn-usage"))
    assert got == [("s1", 1, 25), ("s1", 2, 5), ("s2", 1, 7)]


def test_a_torn_line_is_skipped_with_a_warning_and_the_rest_are_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log_event(tmp_path, "mcp-call", {"writer": "a", "seq": 0})
    journal = journal_path(events_path(tmp_path))
    with journal.open("ab") as handle:
        handle.write(b'{"kind":"mcp-call","at":17\n')
    log_event(tmp_path, "mcp-call", {"writer": "a", "seq": 1})
    with caplog.at_level(logging.WARNING, logger="homeostat.events"):
        assert seen(tmp_path) == [("a", 0), ("a", 1)]
    assert len(caplog.messages) == 1 and "events.jsonl" in caplog.messages[0] and ":2:" in caplog.messages[0]


def test_writers_and_folders_racing_lose_nothing_and_count_nothing_twice(tmp_path: Path) -> None:
    stop = tmp_path / "stop"
    ready = [tmp_path / f"ready-{i}" for i in range(2)]
    folders = [worker("folds", str(tmp_path), str(stop), str(flag)) for flag in ready]
    deadline = time.monotonic() + 60
    while not all(flag.exists() for flag in ready) and time.monotonic() < deadline:
        time.sleep(0.01)
    writers = [worker("write", str(tmp_path), f"w{i}", "150") for i in range(4)]
    for process in writers:
        assert process.wait(timeout=120) == 0, process.stderr.read() if process.stderr else ""
    stop.touch()
    for process in folders:
        assert process.wait(timeout=120) == 0, process.stderr.read() if process.stderr else ""
    with closing(sqlite3.connect(events_path(tmp_path))) as db:
        folds = db.execute("SELECT COUNT(*) FROM folded").fetchone()[0]
    assert folds > 1  # the folders did fold while the writers wrote
    found = seen(tmp_path)
    assert sorted(found) == sorted((f"w{i}", seq) for i in range(4) for seq in range(150))


@pytest.mark.parametrize("point", ["after-rename", "after-commit"])
def test_a_fold_killed_midway_is_finished_by_the_next_without_counting_twice(
    tmp_path: Path, point: str
) -> None:
    for seq in range(5):
        log_event(tmp_path, "mcp-call", {"writer": "a", "seq": seq})
    killed = worker("fold", str(tmp_path), point)
    assert killed.wait(timeout=60) == -9
    left = list((tmp_path / ".homeostat").glob("events.jsonl.*.folding"))
    assert len(left) == 1  # the renamed journal, folded (after-commit) or not yet (after-rename)
    log_event(tmp_path, "mcp-call", {"writer": "b", "seq": 0})
    assert sorted(seen(tmp_path)) == [*(("a", seq) for seq in range(5)), ("b", 0)]
    assert not list((tmp_path / ".homeostat").glob("events.jsonl*"))
    assert sorted(seen(tmp_path)) == [*(("a", seq) for seq in range(5)), ("b", 0)]


def test_an_unwritable_journal_never_fails_the_caller(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / ".homeostat").write_text("not a folder", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="homeostat.events"):
        log_event(tmp_path, "mcp-call", {"tool": "docs"})
    assert "could not record 1 events" in caplog.text and os.fspath(tmp_path) in caplog.text
