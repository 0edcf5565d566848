"""`homeostat sync`: carry this clone's pending lessons to `candidates/<member>` and bring back what
the daily run decided (see `homeostat.runs.sync`). The plugin's hooks run it with `--background`, so a
session never waits for it and never sees a network error; at a terminal it prints one line.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import asdict
from pathlib import Path

from homeostat.adapters.state.event_recorder import log_event
from homeostat.adapters.state.sync_store import SyncBusy, start_background_sync, sync_lock
from homeostat.cli_options import add_format_option, add_kb_option, camel_keys, emit_json
from homeostat.errors import KBReadError
from homeostat.runs.sync import SyncResult, finish, run_sync
from homeostat.workspace import Workspace

EXIT_OFFLINE = 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "sync",
        help="push pending lessons to candidates/<member>, clear the decided ones, update the clone",
        description=(
            "Fetch the base and state branches from the KB's origin, clear pending lessons the daily run "
            "decided, fast-forward a clean clone on the base branch, and push pending lessons and a "
            "heartbeat to candidates/<member> when they changed or the heartbeat is 12 hours old."
        ),
    )
    add_kb_option(parser)
    parser.add_argument(
        "--background", action="store_true", help="start the sync detached and return at once (for hooks)"
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    root = workspace.root
    if not (root / "homeostat.yaml").is_file():  # before anything is written: a mistyped --kb makes no folder
        raise KBReadError(f"{root}: no homeostat.yaml here; run sync in a KB clone or pass --kb")
    if args.background:
        started = start_background_sync(root)
        if args.format == "json":
            emit_json({"started": started})
        return 0
    return sync_now(root, as_json=args.format == "json")


def sync_now(root: Path, *, as_json: bool = False) -> int:
    try:
        with sync_lock(root):
            result = run_sync(root, os.environ)
            finish(root, result)
    except SyncBusy:
        result = SyncResult(outcome="busy", reason="another sync of this clone is running")
        log_event(root, "sync", result.event_data())
    except OSError as exc:
        result = SyncResult(outcome="error", error=f"{root}: cannot write .homeostat/ ({exc.strerror})")
    if result.outcome == "error":  # the command could not go on: one line on stderr, stdout stays empty
        print(summary(result), file=sys.stderr)
        return 2
    if as_json:
        emit_json(camel_keys(asdict(result)))
    else:
        print(summary(result), file=sys.stderr if result.outcome == "offline" else sys.stdout)
    return EXIT_OFFLINE if result.outcome == "offline" else 0


def summary(result: SyncResult) -> str:
    if result.outcome == "busy":
        return "homeostat: sync: another sync of this clone is running; nothing to do"
    if result.outcome == "offline":
        return f"homeostat: sync: could not reach origin ({result.error}); the next sync tries again"
    if result.outcome == "error":
        return f"homeostat: sync: {result.error}"
    parts = [f"{result.pending} pending"]
    if result.cleared:
        parts.append(f"{result.cleared} decided and cleared")
    parts.append(
        f"pushed to candidates/{result.member}" if result.pushed else f"nothing to push ({result.reason})"
    )
    if result.fast_forwarded:
        parts.append("clone fast-forwarded")
    elif result.behind:
        parts.append(f"clone {result.behind} commits behind origin")
    return "sync: " + "; ".join(parts)
