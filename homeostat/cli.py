"""The `homeostat` command: argument parsing and the one place that maps errors to exit codes.

Each subcommand lives in `homeostat/commands/<group>/<name>.py` (`homeostat.commands.module_name`
says which) with `register(subparsers)` and `run(args, workspace) -> int`; the `Workspace` (KB
folder, KB, config, environment, output) is built here, once. Nothing below this handler prints a
traceback to a user: a `HomeostatError` becomes one line naming the file or setting, anything else
one line plus how to see the details.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence

from homeostat import VERSION
from homeostat.commands import module_name
from homeostat.core.type_hints import TYPE_CHECKING
from homeostat.errors import HomeostatError

if TYPE_CHECKING:  # imported where a parser is built: a session hook's fast path builds none
    import argparse

# Subcommands and their one-line help, in the order `--help` lists them. A command's module is
# imported only when that command runs, so `homeostat context` (run by a session hook on every
# prompt) never pays for the model or host client libraries.
COMMANDS: dict[str, str] = {
    "validate": "check the KB: schema, config, secrets, risky content, provenance, documents, conflicts",
    "daily": "the daily run: decide pending and review-drafted lessons, open and merge PRs",
    "deep-dive": "the weekly deep dive: merge near-duplicates, check contradictions, retire stale rules",
    "digest": "the weekly Slack digest: new and reconfirmed rules, updated sections, the review queue",
    "review": "review merge: rebuild review and dispute PRs on the base, section by section, and merge them",
    "curate": "draft lessons from merged PRs' review threads (the daily run's first step, alone)",
    "learn": "write a lesson to this clone's pending set",
    "sync": "push pending lessons to candidates/<member>, clear the decided ones, update the clone",
    "context": "the rules and document sections that apply to the files being changed",
    "search": "keyword search over rules and document sections",
    "read": "read one document section or a whole document",
    "docs": "list documents and their sections",
    "explain": "a rule's source, score breakdown, owner and conflicts",
    "report": "KB health",
    "events": "this machine's event log: injections, MCP calls, syncs, turn usage, model calls",
    "status": "this clone: pinned version, behind/ahead, pending lessons, last sync and heartbeat, notices",
    "metrics": "decisions, calibration, review latency, reach, cost and turn usage",
    "calibrate": "propose scoring.confidence weights fitted to settled reviews, as a PR to homeostat.yaml",
    "mcp": "serve the KB to MCP clients over stdio",
    "hook": "Claude Code hook entrypoints: session-start, prompt, stop",
    "export": "write Claude, Cursor, Copilot and AGENTS.md rule files into a code repo",
    "eval": "measure rule selection against eval/selection.yaml",
    "bench": "measure the KB: the same tasks through headless Claude Code with the plugin off and on",
    "init": "set up a KB repo: homeostat.yaml, the CI files, CODEOWNERS, .gitignore, knowledge/core/",
    "doctor": "check the live setup: branch protection, token reach, pinned versions, runtime, retention",
    "codeowners": "write CODEOWNERS from homeostat.yaml (--check fails when it is stale)",
    "seed": "draft one code repo's documents from its code (by hand; previews and asks first)",
    "bootstrap": "seed every repo from its local checkout and import its docs, one PR per repo",
    "import": "bring a code repo's CLAUDE.md, AGENTS.md, Cursor and Copilot rule files under review",
    "dashboard": "the KB's health in a browser: agents, review queue, sync, metrics, entries, settings",
    "up": "run the daily run, deep dive and digest on their schedules, and serve the dashboard",
}

EXIT_INTERNAL = 3
# Commands a hook runs on every prompt: their start-up must stay as light as possible.
LIGHT_COMMANDS = frozenset({"context", "hook"})


def _has_module(command: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module_name(command)) is not None


def build_parser(selected: str | None = None) -> argparse.ArgumentParser:
    import argparse
    import importlib

    parser = argparse.ArgumentParser(
        prog="homeostat",
        description="A team knowledge base for coding agents that keeps itself current.",
    )
    parser.add_argument("--version", action="version", version=f"homeostat {VERSION}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="<command>")
    for name, summary in COMMANDS.items():
        if not _has_module(name):
            continue
        if name == selected:
            importlib.import_module(module_name(name)).register(subparsers)
            _add_examples(subparsers.choices[name], name)
            # `-v` after the command as well as before it; SUPPRESS keeps a `-v` given before it
            subparsers.choices[name].add_argument(
                "-v",
                "--verbose",
                action="store_true",
                default=argparse.SUPPRESS,
                help="log progress to stderr",
            )
        else:
            subparsers.add_parser(name, help=summary, add_help=False)
    return parser


def _add_examples(parser: argparse.ArgumentParser, command: str) -> None:
    """The command's examples at the foot of its `--help`, their lines kept as written."""
    import argparse

    from homeostat.cli_examples import epilog

    class Formatter(argparse.HelpFormatter):
        def _fill_text(self, text: str, width: int, indent: str) -> str:
            if text.startswith("examples:\n"):
                return "".join(indent + line for line in text.splitlines(keepends=True))
            return super()._fill_text(text, width, indent)

    parser.epilog = epilog(command)
    parser.formatter_class = Formatter


def default_command(env: Mapping[str, str]) -> list[str]:
    """With no arguments (a Bitbucket `pipe: docker://…` step): `$HOMEOSTAT_COMMAND`, else validate
    inside Pipelines, else nothing (the help)."""
    command = env.get("HOMEOSTAT_COMMAND", "").strip()
    if command:
        import shlex

        return shlex.split(command)
    if env.get("BITBUCKET_BUILD_NUMBER"):
        return ["validate"]
    return []


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        argv = default_command(os.environ)
    args = _fast_args(argv)
    if args is None:
        selected = next((a for a in argv if not a.startswith("-")), None)
        parser = build_parser(selected if selected in COMMANDS else None)
        args = _parsed(parser, argv)
    if args.verbose or args.command not in LIGHT_COMMANDS:
        import logging  # a session hook's `context` skips logging's import unless asked to talk

        logging.basicConfig(
            level=logging.INFO if args.verbose else logging.WARNING,
            format="homeostat: %(message)s",
            stream=sys.stderr,
        )
    if not getattr(args, "command", None):
        parser = build_parser()
        parser.print_help(sys.stderr)  # a usage error, as argparse's own: a script must not read it as done
        return 2
    from homeostat.workspace import Workspace

    try:
        # the KB folder, its config, the environment and the output, found once and on first use
        result: int = args.run(args, Workspace.of(args, os.environ, sys.stdout))
        return result
    except HomeostatError as exc:
        print(f"homeostat: {_redacted(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:  # `homeostat … | head`: the reader left; not an error of ours
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        print("homeostat: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the one top-level handler
        if os.environ.get("HOMEOSTAT_DEBUG"):
            raise
        print(
            f"homeostat: internal error: {type(exc).__name__}: {_redacted(str(exc))} "
            "(set HOMEOSTAT_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def _parsed(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """argparse's answer, with an argument no parser knows refused by the (sub)command it was given
    to: argparse hands leftovers up to the top parser, whose usage says nothing of `validate`'s."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _deepest(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _deepest(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The innermost subcommand's parser the arguments chose (`homeostat review merge`'s, say)."""
    import argparse

    current = parser
    while True:
        chooser = next((a for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = getattr(args, chooser.dest, None) if chooser is not None else None
        if chooser is None or not isinstance(chosen, str) or chosen not in chooser.choices:
            return current
        current = chooser.choices[chosen]


def _redacted(message: str) -> str:
    """An error often quotes what was passed (`unknown topic 'ghp_…'`): it never prints a secret."""
    from homeostat.core.safety.secrets import redacted  # loaded only when there is an error to print

    return redacted(message)


def _fast_args(argv: Sequence[str]) -> argparse.Namespace | None:
    """A session hook's command line (`context …`, `hook <event>`) read without argparse, whose
    import and parser cost more than the hook's answer; None for anything its module does not read
    itself, which argparse then reads (and answers with its usage errors)."""
    if not argv or argv[0] not in LIGHT_COMMANDS:
        return None
    import importlib

    module = importlib.import_module(module_name(argv[0]))
    fast: argparse.Namespace | None = getattr(module, "fast_args", lambda _: None)(argv[1:])
    return fast


def main_entry() -> None:
    argv = sys.argv[1:]
    light = bool(argv) and argv[0] in LIGHT_COMMANDS
    if light:
        # A session hook lives for a few dozen milliseconds and makes little cyclic garbage, while the
        # collector would walk every rule of the loaded corpus each time it runs (~10 % of the hook).
        import gc

        gc.disable()
    try:
        code = main()
    except KeyboardInterrupt:
        # Ctrl-C before `main` reaches its handler (reading the arguments, importing the command):
        # the same quiet exit 130, not a traceback and a death by SIGINT
        print("homeostat: interrupted", file=sys.stderr)
        code = 130
    if light:
        # A session hook's caller waits for the process to end: once the answer is out, skip the
        # garbage collection and teardown of every module it imported.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # the reader left, or the stream was closed
                pass
        os._exit(code)
    sys.exit(code)
