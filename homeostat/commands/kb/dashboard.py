"""`homeostat dashboard`: the KB's health at a glance, served on 127.0.0.1 from this clone.

Reads the clone's copy of the state branch and this machine's event log, with no network call; the
settings forms open a PR on the KB repo (with the host token `homeostat daily` uses) or, with none,
print the diff. Stops on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading

from homeostat.cli_options import add_kb_option, add_port_option
from homeostat.dashboard.start import serve
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "dashboard",
        help="the KB's health in a browser: agents, review queue, sync, metrics, entries, settings",
        description=(
            "Serve the dashboard on 127.0.0.1: agent liveness, the review queue, each developer's sync, "
            "performance (as homeostat metrics computes it), entries with their explain view, members, "
            "coverage, impact, documents, desire paths, events, and settings forms that open a PR."
        ),
    )
    add_port_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    server = serve(workspace.root, args.port)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    code = 0  # SIGTERM is how a service manager stops it: done
    try:
        while not stopped.wait(0.5):
            pass
    except KeyboardInterrupt:
        code = 130  # Ctrl-C: interrupted, as every command (docs/cli.md)
    server.stop()
    print("homeostat: dashboard stopped", file=sys.stderr)
    return code
