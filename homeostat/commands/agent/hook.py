"""`homeostat hook session-start|prompt|stop`: the Claude Code plugin's hook entrypoints.

Each reads the event JSON Claude Code writes to stdin and answers in the shape Claude Code reads for
that event (code.claude.com/docs/en/hooks): `hookSpecificOutput.additionalContext` for SessionStart
and UserPromptSubmit, and for Stop the same field once, to ask for a handoff note. A hook never makes
a network call of its own (sync runs detached), never exits non-zero and never prints anything but
that JSON: a broken KB, event or transcript prints nothing, says why on stderr (Claude Code's debug
log) and logs a `hook-error` event, so a session is never broken by Homeostat.

It runs on every prompt, so it imports only what `context` does, and Stop not even that (it reads
the transcript and a small ids file, never the corpus); the event log, the YAML parser and the models
load only on the paths that need them.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from types import SimpleNamespace

from homeostat.adapters.cache.corpus_cache import (
    change_found,
    change_started,
    checkout_top,
    find_top_dir,
    pending_names,
    require_kb,
)
from homeostat.adapters.state.event_recorder import Scalar, log_event, log_events
from homeostat.adapters.state.hook_state import load_hook_state, min_edits, save_hook_state
from homeostat.adapters.state.sync_store import seconds_since_started, start_background_sync, take_notices
from homeostat.core.type_hints import TYPE_CHECKING, cast
from homeostat.workspace import Workspace

EVENTS = {"session-start": "SessionStart", "prompt": "UserPromptSubmit", "stop": "Stop"}
CONTEXT_LIMIT = 10_000  # Claude Code cuts a longer additionalContext to a preview
PROMPT_SYNC_SECONDS = 3 * 3600
START_SYNC_SECONDS = 60  # a resume or compact right after a start does not sync again
KB_OPTION = "CLAUDE_PLUGIN_OPTION_KB_DIR"
NO_TURN_USAGE = "HOMEOSTAT_NO_TURN_USAGE"
HANDOFF_SOURCE = "agent-handoff"

if TYPE_CHECKING:
    import argparse
    from typing import Any, TypeAlias

Answer: TypeAlias = "dict[str, Any] | None"


class HookInputError(ValueError):
    """The event on stdin is not what Claude Code sends."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "hook",
        help="Claude Code hook entrypoints: session-start, prompt, stop",
        description=(
            "Read a Claude Code hook event on stdin and answer in the JSON shape Claude Code reads. Never "
            "fails a session: any problem prints nothing and is logged."
        ),
    )
    parser.add_argument("event", choices=tuple(EVENTS), help="which hook event this is")
    parser.set_defaults(run=run)


def fast_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """`hook <event>` read as argparse reads it, without importing it (see cli._fast_args)."""
    if len(argv) != 1 or argv[0] not in EVENTS:
        return None
    return cast("argparse.Namespace", SimpleNamespace(command="hook", verbose=False, event=argv[0], run=run))


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    started = time.perf_counter()
    if workspace.env.get("HOMEOSTAT_AGENT"):  # Homeostat's own `claude -p` runs: stay out of the way
        return 0
    root: str | None = None  # the KB's folder (paths are strings here: pathlib costs a hook more)
    try:
        raw = sys.stdin.buffer.read()
        event = parse_event(raw, EVENTS[args.event])
        root = find_kb(event, workspace.env)
        if root is None:
            return 0
        require_kb(root)  # a kb_dir naming a folder that is no KB gets nothing written into it
        _maybe_hand_over(root, args.event, raw)
        answer = HANDLERS[args.event](root, event, started)
    except Exception as exc:  # noqa: BLE001 - a hook swallows every failure by design
        _report(root, args.event, exc)
        return 0
    if answer is not None:
        workspace.out.write(json.dumps(answer, ensure_ascii=False))
        workspace.out.flush()
    return 0


def parse_event(raw: bytes, expected: str) -> dict[str, Any]:
    try:
        event = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HookInputError(f"stdin is not JSON ({exc})") from None
    if not isinstance(event, dict):
        raise HookInputError("stdin is not a JSON object")
    name = event.get("hook_event_name")
    if name is not None and name != expected:
        raise HookInputError(f"hook_event_name is {name!r}, this entrypoint handles {expected}")
    for key in ("session_id", "cwd", "transcript_path", "prompt", "last_assistant_message"):
        if event.get(key) is not None and not isinstance(event[key], str):
            raise HookInputError(f"{key} is not a string")
    return event


def find_kb(event: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    """The plugin's kb_dir setting, then $HOMEOSTAT_DIR, then the checkout the session works in."""
    for value in (env.get(KB_OPTION), env.get("HOMEOSTAT_DIR")):
        if value and value.strip():
            return os.path.expanduser(value.strip())
    here = _checkout(event)
    top = find_top_dir(here) or here
    return top if os.path.isfile(os.path.join(top, "homeostat.yaml")) else None


def _checkout(event: Mapping[str, Any]) -> str:
    return event.get("cwd") or "."


def _maybe_hand_over(root: str, name: str, raw: bytes) -> None:
    from homeostat.adapters.runner import hand_over, pinned_runner

    runner = pinned_runner(root)
    if runner is not None:
        hand_over(runner, ["hook", name], raw)


def _context(name: str, text: str) -> Answer:
    if not text.strip():
        return None
    if len(text) > CONTEXT_LIMIT:
        text = text[: CONTEXT_LIMIT - 1].rstrip() + "…"
    return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": text}}


def _sync_if_older(root: str, seconds: float) -> None:
    """Start a background sync unless one was started less than `seconds` ago."""
    since = seconds_since_started(root)
    if since is None or since > seconds:
        start_background_sync(root)


def _with_notices(root: str, text: str) -> str:
    notices = take_notices(root)
    return "\n\n".join([*notices, text]) if notices else text


# --- the three events ------------------------------------------------------------------------------


def session_start(root: str, event: Mapping[str, Any], started: float) -> Answer:
    from homeostat.runs.session import log_view, open_session, session_task, session_view

    session_id = event.get("session_id") or ""
    checkout = _checkout(event)
    # the touched files, the branch and the commits, from git while the corpus is read
    changing = change_started(checkout_top(checkout))
    session = open_session(root, checkout, own_part=True)
    change = change_found(changing)
    task = session_task(None, False, change)
    view = session_view(session, list(change.paths), checkout, session_id, task=task)
    text = _with_notices(root, view.text)
    log_view(session, view, started)
    if session_id:
        state = load_hook_state(root, session_id)
        state["pending"] = pending_names(root)
        save_hook_state(root, session_id, state)
    _sync_if_older(root, START_SYNC_SECONDS)
    return _context("SessionStart", text)


def prompt(root: str, event: Mapping[str, Any], started: float) -> Answer:
    from homeostat.runs.session import log_prompt, open_session, prompt_block

    session = open_session(root, _checkout(event), own_part=True)
    result = prompt_block(session, event.get("prompt") or "", event.get("session_id") or "")
    text = _with_notices(root, result.block.text)
    log_prompt(session, result, started)
    _sync_if_older(root, PROMPT_SYNC_SECONDS)
    return _context("UserPromptSubmit", text)


def stop(root: str, event: Mapping[str, Any], started: float) -> Answer:
    session_id = event.get("session_id") or ""
    if not session_id:
        return None
    state = load_hook_state(root, session_id)
    if os.environ.get(NO_TURN_USAGE) != "1":
        record_turns(root, event, state)
    names = pending_names(root)
    if names != state.get("pending", names):
        start_background_sync(root)
    state["pending"] = names
    answer = None
    edits = sum(int(n) for n in state.get("edits", {}).values())
    if not event.get("stop_hook_active") and not state.get("asked") and edits >= min_edits(root):
        state["asked"] = True
        answer = _context("Stop", handoff_request(root, edits))
    save_hook_state(root, session_id, state)
    return answer


HANDLERS: dict[str, Callable[[str, Mapping[str, Any], float], Answer]] = {
    "session-start": session_start,
    "prompt": prompt,
    "stop": stop,
}


# --- turn usage -------------------------------------------------------------------------------------


def record_turns(root: str, event: Mapping[str, Any], state: dict[str, Any]) -> None:
    """One `turn-usage` event per user turn, from the previous turn's start to the end of the file;
    the previous turn is re-read and its event replaced, since the file may have lagged last time."""
    from homeostat.adapters.cache.corpus_cache import known_ids
    from homeostat.core.measure.transcript import credited_ids, read_turns

    path = event.get("transcript_path") or ""
    if not os.path.isfile(path):
        return
    offset, first = int(state.get("offset", 0)), int(state.get("turn", 1))
    if offset > os.stat(path).st_size:  # the file was rewritten: read it again from the start
        offset, first = 0, 1
    turns = read_turns(_lines(path, offset))
    if not turns:
        return
    turns[-1].credited += credited_ids(event.get("last_assistant_message") or "")
    known = known_ids(root)
    session_id = str(event.get("session_id"))
    edits = state.setdefault("edits", {})
    usage: list[tuple[str, Mapping[str, Scalar]]] = []
    for number, turn in enumerate(turns, start=first):
        usage.append(("turn-usage", turn.event_data(session_id, number, known)))
        edits[str(number)] = turn.edits
    log_events(root, usage, replaces=("session", "turn"))  # folded into SQLite by the next reader
    state["offset"], state["turn"] = turns[-1].offset, first + len(turns) - 1


def _lines(path: str, offset: int) -> list[tuple[int, bytes]]:
    with open(path, "rb") as handle:
        handle.seek(offset)
        position = offset
        lines = []
        for line in handle:
            lines.append((position, line))
            position += len(line)
    return lines


def handoff_request(root: str, edits: int) -> str:
    command = _command()
    return (
        f"Homeostat: this session made {edits} edits. If it taught something the team's agents should "
        "know next time (a convention, a pitfall, a decision and why), save one short handoff note for "
        f"the team to review: `{command} learn --kb {json.dumps(os.path.realpath(root))} --source "
        f'{HANDOFF_SOURCE} --title "…" --rule "…" --why "…" --area <area>`. Rules are at most 60 '
        "words, one instruction each. If nothing is worth keeping, just stop; this is asked once."
    )


def _command() -> str:
    plugin = os.environ.get("CLAUDE_PLUGIN_ROOT")
    if plugin:
        from pathlib import Path  # once a session: how a path is spelled stays pathlib's

        return json.dumps(str(Path(plugin) / "bin" / "homeostat"))
    return json.dumps(sys.argv[0]) if sys.argv and os.path.isabs(sys.argv[0]) else "homeostat"


# --- failures -----------------------------------------------------------------------------------------


def _report(root: str | None, name: str, exc: BaseException) -> None:
    """One line on stderr (Claude Code's debug log) and, when the KB is known, a `hook-error` event."""
    first = (str(exc).splitlines() or [""])[0][:300]
    print(f"homeostat hook {name}: {type(exc).__name__}: {first}", file=sys.stderr)
    if root is not None and os.path.isfile(os.path.join(root, "homeostat.yaml")):  # a KB, not any folder
        try:
            log_event(root, "hook-error", {"hook": name, "error": type(exc).__name__, "message": first})
        except Exception:  # noqa: BLE001, S110 - the log is best effort too
            pass
