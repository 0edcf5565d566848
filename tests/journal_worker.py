"""A process that appends events to a KB's journal or folds it, for the event journal's race tests.

    python tests/journal_worker.py write ROOT WRITER COUNT
    python tests/journal_worker.py fold ROOT [after-rename|after-commit]   (SIGKILLed at that step)
    python tests/journal_worker.py folds ROOT STOP READY   (folds until STOP exists; READY after its first fold)

It wraps Homeostat's own steps only, so a fold dies exactly where a killed command would.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from homeostat.adapters.state.event_log import SqliteEventLog, events_path
from homeostat.adapters.state.event_recorder import log_event


def die_before(name: str) -> None:
    original = getattr(SqliteEventLog, name)

    def wrapped(self: SqliteEventLog, *args: Any) -> Any:
        os.kill(os.getpid(), signal.SIGKILL)
        return original(self, *args)

    setattr(SqliteEventLog, name, wrapped)


def main(command: str, root: Path, *rest: str) -> None:
    if command == "write":
        writer, count = rest[0], int(rest[1])
        for seq in range(count):
            log_event(root, "mcp-call", {"writer": writer, "seq": seq})
            time.sleep(0.002)  # spread over the folders' loops
    elif command == "fold":
        point = rest[0] if rest else ""
        if point:
            die_before({"after-rename": "_fold_file", "after-commit": "_forget"}[point])
        with SqliteEventLog(events_path(root)):
            pass
    elif command == "folds":
        stop, ready = Path(rest[0]), Path(rest[1])
        while not stop.exists():
            with SqliteEventLog(events_path(root)):
                pass
            ready.touch()
            time.sleep(0.001)


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), *sys.argv[3:])
