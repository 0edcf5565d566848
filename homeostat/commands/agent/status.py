"""`homeostat status`: this clone at a glance, with no network call.

The KB version its CI files pin (and the one running), where the clone stands against the base branch
as of the last fetch, pending lessons, the last sync and the last heartbeat it sent, and the notices
waiting for the next session.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from homeostat import VERSION
from homeostat.adapters.git import clone
from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.runner import kb_pin
from homeostat.adapters.state.pending_store import list_pending
from homeostat.adapters.state.state_store import tracking_ref
from homeostat.adapters.state.sync_store import last_sync, pending_notices
from homeostat.cli_options import add_format_option, add_kb_option
from homeostat.errors import GitError, KBReadError
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status",
        help="this clone: pinned version, behind/ahead, pending lessons, last sync and heartbeat, notices",
        description="Show this KB clone's state without any network call.",
    )
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def clone_status(root: Path) -> dict[str, Any]:
    if not (root / "homeostat.yaml").is_file():
        raise KBReadError(f"{root}: no homeostat.yaml here; run status in a KB clone or pass --kb")
    synced = last_sync(root)
    pin = kb_pin(root)
    data: dict[str, Any] = {
        "kb": str(root.resolve()),
        "version": VERSION,
        "pinned": pin,
        "pending": len(list_pending(root)),
        "branch": None,
        "behind": None,
        "ahead": None,
        "lastSync": {k: synced.get(k) for k in ("at", "outcome", "pushed", "reason", "error", "member")}
        if synced
        else None,
        "lastHeartbeat": synced.get("heartbeat_at") or None,
        "notices": pending_notices(root),
    }
    try:
        base = _base_branch(root)
        upstream = tracking_ref("origin", base)
        if Git(root).rev_parse(upstream) is not None:
            where = clone.position(root, upstream)
            data.update(branch=where.branch, behind=where.behind, ahead=where.ahead, base=base)
    except GitError:
        pass
    return data


def _base_branch(root: Path) -> str:
    from homeostat.runs.sync import read_config

    return read_config(root).sources.base_branch


def render(data: dict[str, Any]) -> str:
    pin = data["pinned"]
    version = f"{data['version']}" + (
        "" if pin in (None, data["version"]) else f" (the KB pins {pin}: install it, see docs/plugin.md)"
    )
    lines = [
        f"KB: {data['kb']}",
        f"Homeostat: {version}" if pin else f"Homeostat: {version} (no version pinned)",
    ]
    if data["behind"] is not None:
        lines.append(
            f"Clone: on {data['branch'] or 'a detached HEAD'}, {data['behind']} behind and {data['ahead']} "
            f"ahead of origin/{data['base']} (as of the last fetch)"
        )
    lines.append(f"Pending lessons: {data['pending']}")
    sync = data["lastSync"]
    if sync:
        detail = sync.get("error") or sync.get("reason") or ""
        lines.append(f"Last sync: {sync['at']} {sync['outcome']}" + (f" ({detail})" if detail else ""))
    else:
        lines.append("Last sync: never (the plugin's hooks run it; or run homeostat sync)")
    lines.append(f"Last heartbeat: {data['lastHeartbeat'] or 'none sent'}")
    for notice in data["notices"]:
        lines.append("Notice: " + notice.replace("\n", "\n  "))
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    data = clone_status(workspace.root)
    workspace.out.write(
        json.dumps(data, indent=2, ensure_ascii=False) + "\n" if args.format == "json" else render(data)
    )
    return 0
