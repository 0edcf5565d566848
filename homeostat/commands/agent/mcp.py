"""`homeostat mcp`: serve the KB to MCP clients over stdio.

Register it by absolute path (PEERS.md, lesson 11): an MCP client started with another PATH (a
virtualenv is the usual case) fails with an opaque error on a bare `homeostat`. The session's repo is
read from the checkout the client starts the server in (`--checkout`, default the current folder).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from homeostat.cli_options import add_checkout_option, add_kb_option, kb_dir
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the KB to MCP clients over stdio",
        description="Serve context, search, read, docs, explain and report (and learn/flag when "
        "security.mcpWrites is on) to an MCP client over stdio.",
    )
    add_checkout_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.adapters.runner import hand_over, pinned_runner
    from homeostat.mcp_server import build_server
    from homeostat.mcp_stdio import serve

    checkout = Path(args.checkout)
    kb = kb_dir(args.kb) if args.kb or workspace.env.get("HOMEOSTAT_DIR") else _checkout_kb(checkout)
    runner = pinned_runner(Path(kb))
    if runner is not None:  # the KB pins another installed version: serve with that one
        hand_over(runner, ["mcp", "--kb", kb, "--checkout", str(checkout)])
    server = build_server(kb, checkout)
    serve(server)  # until stdin closes or SIGINT: both are how a client ends the session
    # The client waits for the process to end (Claude Code, before it exits itself): every reply is
    # out and every event written, so skip the teardown of the corpus and the modules it imported.
    for stream in (workspace.out, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def _checkout_kb(checkout: Path) -> str:
    """With no --kb and no $HOMEOSTAT_DIR, the checkout itself when it is the KB repo."""
    from homeostat.adapters.cache.corpus_cache import find_top

    top = find_top(checkout) or checkout
    return str(top) if (top / "homeostat.yaml").is_file() else "."
