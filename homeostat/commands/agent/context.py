"""`homeostat context`: the rules and document sections that apply to the files being changed.

A session hook runs this at session start (`--files`, or the checkout's changed files) and on every
message (`--prompt`). It parses the arguments and prints; the session it serves from, and what a
session start and a message get, are runs/session.py's, which the other read commands and the MCP
server share.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from types import SimpleNamespace

from homeostat.adapters.cache.corpus_cache import change_found, change_started, checkout_top
from homeostat.cli_options import add_checkout_option, add_files_option, add_format_option, add_kb_option
from homeostat.core.render.view import View, explain_view
from homeostat.core.type_hints import TYPE_CHECKING, cast
from homeostat.errors import ConfigError
from homeostat.runs.session import (
    SESSION_VARIABLE,
    Session,
    log_prompt,
    log_view,
    open_session,
    prompt_block,
    session_task,
    session_view,
)
from homeostat.workspace import Workspace

if TYPE_CHECKING:
    import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    import argparse

    parser = subparsers.add_parser(
        "context",
        help="the rules and document sections that apply to the files being changed",
        description=(
            "Print the rendered view a coding agent gets: the rules for the touched files within the token "
            "budget, document sections naming them, and a lookup guide. With --prompt, the rules and "
            "sections "
            "matching one chat message instead."
        ),
    )
    add_files_option(parser, "a touched path (default: the checkout's changed files)")
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)  # `--files a b`, for one more release
    parser.add_argument(
        "--repo", metavar="NAME", help="the code repo's name in homeostat.yaml (default: from the checkout)"
    )
    add_checkout_option(parser)
    parser.add_argument(
        "--budget", type=int, metavar="N", help="token budget (default: distribution.tokenBudget)"
    )
    task = parser.add_mutually_exclusive_group()
    task.add_argument(
        "--task",
        metavar="TEXT",
        help="what you are doing, in words, to rank by (default: the branch name and recent commit subjects)",
    )
    task.add_argument("--no-task", action="store_true", help="rank by the touched paths alone")
    parser.add_argument("--prompt", metavar="TEXT", help="match one chat message against the KB instead")
    parser.add_argument(
        "--session",
        metavar="ID",
        default=None,
        help=f"session id for once-per-session matching (${SESSION_VARIABLE})",
    )
    parser.add_argument(
        "--explain", action="store_true", help="also print what was served, cut or left out, and why"
    )
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


# `context`'s options a session hook passes, read without argparse (see cli._fast_args): each one's
# attribute, and whether it takes a value
_FAST_OPTIONS = {
    "--files": ("files", True),
    "--repo": ("repo", True),
    "--checkout": ("checkout", True),
    "--budget": ("budget", True),
    "--task": ("task", True),
    "--no-task": ("no_task", False),
    "--prompt": ("prompt", True),
    "--session": ("session", True),
    "--format": ("format", True),
    "--kb": ("kb", True),
    "--explain": ("explain", False),
    "--json": ("format", False),
}


def fast_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """What argparse reads from a plain `context` command line; None for anything else (a positional
    path, an abbreviation, a value starting with "-", a bad value, help), left to argparse."""
    values: dict[str, object] = {
        "files": None, "paths": [], "repo": None, "checkout": ".", "budget": None, "task": None,
        "no_task": False, "prompt": None, "session": None, "explain": False, "format": "text", "kb": None,
    }  # fmt: skip
    at = 0
    while at < len(argv):
        flag, eq, value = argv[at].partition("=")
        option = _FAST_OPTIONS.get(flag)
        if option is None:
            return None
        name, takes = option
        at += 1
        if not takes:
            if eq:
                return None
            values[name] = "json" if name == "format" else True
            continue
        if not eq:
            if at == len(argv):
                return None
            value = argv[at]
            at += 1
        if value.startswith("-"):
            return None
        if name == "files":
            values["files"] = [*cast("list[str]", values["files"] or []), value]
        elif name == "budget":
            try:
                values["budget"] = int(value)
            except ValueError:
                return None
        elif (name == "format" and value not in ("text", "json")) or (
            name == "checkout" and not os.path.isdir(value)
        ):
            return None
        else:
            values[name] = value
    if values["task"] is not None and values["no_task"]:
        return None  # argparse says they exclude each other
    return cast("argparse.Namespace", SimpleNamespace(command="context", verbose=False, run=run, **values))


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    started = time.perf_counter()
    if args.budget is not None and args.budget < 100:
        raise ConfigError(f"--budget {args.budget} is below 100 tokens; pass a larger budget")
    from_git = args.prompt is None and args.files is None and not args.paths
    changing = change_started(checkout_top(args.checkout)) if from_git else None  # while the corpus loads
    session = open_session(args.kb, args.checkout, args.repo, own_part=True)
    session_id = args.session or workspace.env.get(SESSION_VARIABLE) or ""
    if args.prompt is not None:
        return _prompt(session, args, session_id, started)
    given = [*(args.files or ()), *args.paths]
    change = change_found(changing) if changing is not None else None
    files = given if change is None else list(change.paths)
    task = session_task(args.task, args.no_task, change)
    view = session_view(session, files, args.checkout, session_id, args.budget, task)
    _emit_view(view, args.format, args.explain)
    workspace.out.flush()
    log_view(session, view, started)
    return 0


def _emit_view(view: View, fmt: str, explain: bool) -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(view.to_data(), ensure_ascii=False, indent=2) + "\n")
        return
    sys.stdout.write(view.text)
    if explain:
        sys.stdout.write("\n---\n" + explain_view(view))


def _prompt(session: Session, args: argparse.Namespace, session_id: str, started: float) -> int:
    result = prompt_block(session, args.prompt, session_id)
    match, block = result.match, result.block
    if args.format == "json":
        data = {
            "text": block.text,
            "tokens": block.tokens,
            "rules": [{"id": e.id} for e in match.rules],
            "sections": [s.key for s in match.sections],
            "newRules": [{"id": e.id} for e in result.new],
            "searched": match.searched,
            "reason": match.reason,
        }
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(block.text)
        if args.explain:
            rare = ", ".join(match.rare) or "none"
            sys.stdout.write(f"\n---\nMessage match: {match.reason}; rare words: {rare}.\n")
    log_prompt(session, result, started)
    return 0
