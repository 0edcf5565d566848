"""What the plugin's hooks remember about one Claude Code session between events, and the few KB
settings the Stop hook and the MCP server's start need, cached so neither parses homeostat.yaml
while it is unchanged.

Per session (`.homeostat/sessions/<id>.hook.json`, pruned with the session's other files after 14
days): the pending lesson names seen last (to sync when they change), where the previous turn starts
in the transcript and its number (to re-read it), each turn's edit count, and whether the handoff
note was asked for.
"""

from __future__ import annotations

import json
import os
import re

from homeostat.adapters.plain_files import read_kb_text, read_text, write_atomic
from homeostat.core.text import sha256
from homeostat.core.type_hints import TYPE_CHECKING

SESSIONS_DIR = ".homeostat/sessions"
SETTINGS_FILE = ".homeostat/index/hook-settings.json"
_SETTINGS = ("minEdits", "mcpWrites", "mcpWriteLimit")  # what SETTINGS_FILE holds
_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,80}$")

if TYPE_CHECKING:
    from typing import Any

    from homeostat.adapters.plain_files import StrPath


def _path(root: StrPath, session: str) -> str:
    name = session if _SAFE.match(session) else sha256(session.encode()).hexdigest()[:32]
    return os.path.join(root, SESSIONS_DIR, f"{name}.hook.json")


def _write_json(path: str, data: dict[str, Any]) -> None:
    write_atomic(path, json.dumps(data, sort_keys=True))


def load_hook_state(root: StrPath, session: str) -> dict[str, Any]:
    try:
        data = json.loads(read_text(_path(root, session)))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_hook_state(root: StrPath, session: str, data: dict[str, Any]) -> None:
    _write_json(_path(root, session), data)


def min_edits(root: StrPath, default: int = 5) -> int:
    """`handoff.minEdits`; the default when homeostat.yaml is missing or does not parse."""
    settings = kb_settings(root)
    return int(settings["minEdits"]) if settings is not None else default


def kb_settings(root: StrPath) -> dict[str, int | bool] | None:
    """`handoff.minEdits`, `security.mcpWrites` and `security.mcpWriteLimit`, read from homeostat.yaml
    only when the file changed since last time (its size, mtime and inode): the Stop hook and the MCP
    server's tool list need these three, and parsing the config costs them more than their answer.
    None when homeostat.yaml is missing or does not parse (loading the KB says why)."""
    config = os.path.join(root, "homeostat.yaml")
    try:
        st = os.stat(config)
    except OSError:
        return None
    stamp = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    cache = os.path.join(root, SETTINGS_FILE)
    try:
        cached = json.loads(read_text(cache))
        if isinstance(cached, dict) and cached.get("stamp") == stamp:
            held = cached.get("settings")
            if held is None or (isinstance(held, dict) and set(held) == set(_SETTINGS)):
                return held
    except (OSError, ValueError):
        pass
    from homeostat.core.kb import load_config

    try:
        parsed, _, _ = load_config(read_kb_text(config, "homeostat.yaml"))
    except (OSError, UnicodeDecodeError):
        return None
    settings: dict[str, int | bool] | None = None
    if parsed is not None:
        settings = {
            "minEdits": parsed.handoff.min_edits,
            "mcpWrites": parsed.security.mcp_writes,
            "mcpWriteLimit": parsed.security.mcp_write_limit,
        }
    try:
        _write_json(cache, {"stamp": stamp, "settings": settings})
    except OSError:
        pass
    return settings
