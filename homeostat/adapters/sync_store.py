"""The clone's own sync bookkeeping under `.homeostat/` (git-ignored, per machine).

- `sync.json`: the last sync's outcome (when, pushed or not, how far behind, the last heartbeat sent),
  which `homeostat status` shows and the prompt hook reads to sync at most every 3 hours;
- `notices.json`: one-time notices for the next session (the lessons the daily run decided), shown
  once and then dropped;
- `sync.lock`: held with `flock` while a sync runs, so two syncs of one clone never overlap and a
  killed sync leaves no stale lock behind (the kernel releases it with the process).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

STATE_DIR = ".homeostat"
SYNC_FILE = f"{STATE_DIR}/sync.json"
NOTICES_FILE = f"{STATE_DIR}/notices.json"
LOCK_FILE = f"{STATE_DIR}/sync.lock"
STARTED_FILE = f"{STATE_DIR}/sync-started"
LOG_LIMIT = 256 * 1024  # sync.log starts over past this size


class SyncBusy(Exception):
    """Another sync of this clone holds the lock."""


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def sync_lock(root: Path) -> Iterator[None]:
    """Hold the clone's sync lock, or raise `SyncBusy` at once (a second sync has nothing to add)."""
    import fcntl

    path = root / LOCK_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SyncBusy(str(path)) from None
        yield
    finally:
        os.close(handle)


def last_sync(root: Path) -> dict[str, Any]:
    data = _read_json(root / SYNC_FILE)
    return data if isinstance(data, dict) else {}


def record_sync(root: Path, data: Mapping[str, Any]) -> None:
    _write_atomic(root / SYNC_FILE, json.dumps(dict(data), indent=2, sort_keys=True) + "\n")


def mark_started(root: Path) -> None:
    """Touch the start mark: a hook that just started a sync does not start another one."""
    path = root / STARTED_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def seconds_since_started(root: Path) -> float | None:
    try:
        return time.time() - (root / STARTED_FILE).stat().st_mtime
    except OSError:
        return None


def add_notice(root: Path, text: str) -> None:
    if not text:
        return
    notices = pending_notices(root)
    notices.append(text)
    _write_atomic(root / NOTICES_FILE, json.dumps(notices, indent=2, ensure_ascii=False) + "\n")


def pending_notices(root: Path) -> list[str]:
    data = _read_json(root / NOTICES_FILE)
    return [str(item) for item in data] if isinstance(data, list) else []


def take_notices(root: Path) -> list[str]:
    """The notices not yet shown, taken by renaming the file away first, so each is shown once even
    when a sync adds one at the same moment."""
    path = root / NOTICES_FILE
    taken = path.with_name(f".{path.name}.{os.getpid()}.taken")
    try:
        os.replace(path, taken)
    except OSError:
        return []
    data = _read_json(taken)
    with contextlib.suppress(OSError):
        taken.unlink()
    return [str(item) for item in data] if isinstance(data, list) else []


def start_background_sync(root: Path) -> bool:
    """Start `homeostat sync` detached (its own session, no terminal, output to `.homeostat/sync.log`)
    and return at once: a session never waits for the network. False when it could not be started."""
    import sys

    log = root / STATE_DIR / "sync.log"
    try:
        mark_started(root)
        try:
            grown = log.stat().st_size > LOG_LIMIT
        except OSError:
            grown = False
        mode = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if grown else os.O_APPEND)
        argv = [sys.executable, "-m", "homeostat", "sync", "--kb", str(root.resolve())]
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, str(log), mode, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
    except OSError:
        return False
    return True
