"""What recording one usage event costs the process that records it, and what folding costs later.

    .venv/bin/python benchmarks/bench_events.py [--events 2000]

In one run, on one folder: appending an event to the journal (`adapters.state.event_recorder.log_event`,
what hooks and the MCP server do on every message or call), writing the same event straight into
SQLite as every call did before the journal (open the log, insert, close), and folding N journaled
events into SQLite (paid once by the next reader, per event). CPU and wall microseconds per event,
medians over the events; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.adapters.state.event_recorder import log_event
from homeostat.core.events import Event

DATA = {"tool": "search", "ms": 12, "dropped": 0}


def timed(count: int, step: Callable[[int], None]) -> tuple[float, float]:
    """Median (CPU µs, wall µs) of `count` calls of `step`."""
    cpu, wall = [], []
    for i in range(count):
        started_cpu, started = time.process_time(), time.perf_counter()
        step(i)
        cpu.append((time.process_time() - started_cpu) * 1e6)
        wall.append((time.perf_counter() - started) * 1e6)
    return statistics.median(cpu), statistics.median(wall)


def sqlite_write(root: Path) -> Callable[[int], None]:
    def step(i: int) -> None:
        with SqliteEventLog(events_path(root)) as log:
            log.record(Event("mcp-call", datetime.now(UTC), {**DATA, "seq": i}))

    return step


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=2000)
    args = parser.parse_args()
    count = args.events
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; {count} events each")
    with tempfile.TemporaryDirectory() as scratch:
        journal_root, sqlite_root = Path(scratch) / "journal", Path(scratch) / "sqlite"
        with SqliteEventLog(events_path(journal_root)), SqliteEventLog(events_path(sqlite_root)):
            pass  # both logs exist, as on a machine that has used Homeostat
        append = timed(count, lambda i: log_event(journal_root, "mcp-call", {**DATA, "seq": i}))
        direct = timed(max(1, count // 10), sqlite_write(sqlite_root))
        started_cpu, started = time.process_time(), time.perf_counter()
        with SqliteEventLog(events_path(journal_root)) as log:
            folded = len(log.query("mcp-call"))
        fold = ((time.process_time() - started_cpu) * 1e6, (time.perf_counter() - started) * 1e6)
        assert folded == count, folded
    print(f"  journal append, per event:     CPU {append[0]:8.0f} µs, wall {append[1]:8.0f} µs")
    print(f"  SQLite open+insert, per event: CPU {direct[0]:8.0f} µs, wall {direct[1]:8.0f} µs")
    print(
        f"  fold {count} events (next reader): CPU {fold[0] / count:8.0f} µs, "
        f"wall {fold[1] / count:8.0f} µs per event"
    )
    print(f"  append / SQLite write: CPU {append[0] / direct[0]:.3f}, wall {append[1] / direct[1]:.3f}")


if __name__ == "__main__":
    main()
