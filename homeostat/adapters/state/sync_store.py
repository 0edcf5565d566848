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

from homeostat.adapters.plain_files import read_text, write_atomic
from homeostat.core.type_hints import TYPE_CHECKING

STATE_DIR = ".homeostat"
SYNC_FILE = f"{STATE_DIR}/sync.json"
NOTICES_FILE = f"{STATE_DIR}/notices.json"
LOCK_FILE = f"{STATE_DIR}/sync.lock"
STARTED_FILE = f"{STATE_DIR}/sync-started"
LOG_LIMIT = 256 * 1024  # sync.log starts over past this size


if TYPE_CHECKING:
    from typing import Any

    from homeostat.adapters.plain_files import StrPath


class SyncBusy(Exception):
    """Another sync of this clone holds the lock."""


def _read_json(path: str) -> Any:
    try:
        return json.loads(read_text(path))
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def sync_lock(root: StrPath) -> Iterator[None]:
    """Hold the clone's sync lock, or raise `SyncBusy` at once (a second sync has nothing to add)."""
    import fcntl

    path = os.path.join(root, LOCK_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SyncBusy(str(path)) from None
        yield
    finally:
        os.close(handle)


def last_sync(root: StrPath) -> dict[str, Any]:
    data = _read_json(os.path.join(root, SYNC_FILE))
    return data if isinstance(data, dict) else {}


def record_sync(root: StrPath, data: Mapping[str, Any]) -> None:
    write_atomic(os.path.join(root, SYNC_FILE), json.dumps(dict(data), indent=2, sort_keys=True) + "\n")


def mark_started(root: StrPath) -> None:
    """Touch the start mark: a hook that just started a sync does not start another one."""
    path = os.path.join(root, STARTED_FILE)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        os.utime(path)
    except OSError:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o666))


def seconds_since_started(root: StrPath) -> float | None:
    try:
        return time.time() - os.stat(os.path.join(root, STARTED_FILE)).st_mtime
    except OSError:
        return None


def add_notice(root: StrPath, text: str) -> None:
    if not text:
        return
    notices = pending_notices(root)
    notices.append(text)
    write_atomic(os.path.join(root, NOTICES_FILE), json.dumps(notices, indent=2, ensure_ascii=False) + "\n")


def pending_notices(root: StrPath) -> list[str]:
    data = _read_json(os.path.join(root, NOTICES_FILE))
    return [str(item) for item in data] if isinstance(data, list) else []


def take_notices(root: StrPath) -> list[str]:
    """The notices not yet shown, taken by renaming the file away first, so each is shown once even
    when a sync adds one at the same moment."""
    path = os.path.join(root, NOTICES_FILE)
    folder, name = os.path.split(path)
    taken = os.path.join(folder, f".{name}.{os.getpid()}.taken")
    try:
        os.replace(path, taken)
    except OSError:
        return []
    data = _read_json(taken)
    with contextlib.suppress(OSError):
        os.unlink(taken)
    return [str(item) for item in data] if isinstance(data, list) else []


def start_background_sync(root: StrPath) -> bool:
    """Start `homeostat sync` detached (its own session, no terminal, output to `.homeostat/sync.log`)
    and return at once: a session never waits for the network. False when it could not be started."""
    import sys

    log = os.path.join(root, STATE_DIR, "sync.log")
    try:
        mark_started(root)
        try:
            grown = os.stat(log).st_size > LOG_LIMIT
        except OSError:
            grown = False
        mode = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if grown else os.O_APPEND)
        argv = [sys.executable, "-m", "homeostat", "sync", "--kb", os.path.realpath(root)]
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, log, mode, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
        ]
        os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions, setsid=True)
    except OSError:
        return False
    return True
