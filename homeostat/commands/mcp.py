"""`homeostat mcp`: serve the KB to MCP clients over stdio.

Register it by absolute path (PEERS.md, lesson 11): an MCP client started with another PATH (a
virtualenv is the usual case) fails with an opaque error on a bare `homeostat`. The session's repo is
read from the checkout the client starts the server in (`--checkout`, default the current folder).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from homeostat.cli import add_kb_option


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the KB to MCP clients over stdio",
        description="Serve context, search, read, docs, explain and report (and learn/flag when "
        "security.mcpWrites is on) to an MCP client over stdio.",
    )
    parser.add_argument(
        "--checkout", metavar="DIR", default=".", help="the code checkout (default: the current folder)"
    )
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from homeostat.mcp_server import build_server

    server = build_server(args.kb, Path(args.checkout))
    server.run("stdio")
    return 0
