"""What the plugin's hooks remember about one Claude Code session between events, and the few KB
settings the Stop hook needs, cached so a warm hook never parses homeostat.yaml.

Per session (`.homeostat/sessions/<id>.hook.json`, pruned with the session's other files after 14
days): the pending lesson names seen last (to sync when they change), where the previous turn starts
in the transcript and its number (to re-read it), each turn's edit count, and whether the handoff
note was asked for.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from homeostat.core.text import sha256

SESSIONS_DIR = ".homeostat/sessions"
SETTINGS_FILE = ".homeostat/index/hook-settings.json"
_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,80}$")


def _path(root: Path, session: str) -> Path:
    name = session if _SAFE.match(session) else sha256(session.encode()).hexdigest()[:32]
    return root / SESSIONS_DIR / f"{name}.hook.json"


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(temp, path)


def load_hook_state(root: Path, session: str) -> dict[str, Any]:
    try:
        data = json.loads(_path(root, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_hook_state(root: Path, session: str, data: dict[str, Any]) -> None:
    _write_atomic(_path(root, session), data)


def min_edits(root: Path, default: int = 5) -> int:
    """`handoff.minEdits`, read from homeostat.yaml only when the file changed since last time."""
    config = root / "homeostat.yaml"
    try:
        st = config.stat()
    except OSError:
        return default
    stamp = f"{st.st_size}:{st.st_mtime_ns}"
    cache = root / SETTINGS_FILE
    try:
        cached = json.loads(cache.read_text(encoding="utf-8"))
        if isinstance(cached, dict) and cached.get("stamp") == stamp:
            return int(cached["minEdits"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    from homeostat.core.kb import load_config

    parsed, _, _ = load_config(config.read_text(encoding="utf-8"))
    value = parsed.handoff.min_edits if parsed is not None else default
    try:
        _write_atomic(cache, {"stamp": stamp, "minEdits": value})
    except OSError:
        pass
    return value
