"""MCP over stdio, answered by our own loop: one JSON-RPC 2.0 message per line on stdin, one per line on
stdout (MCP 2025-11-25, "stdio" transport, and the earlier revisions a client may ask for).

Why not the SDK's server: importing `mcp.server` costs 1-2 s, and Claude Code waits for every plugin
MCP server to answer `initialize` and `tools/list` before a session's first turn, so that second was
added to every session. The handshake, `ping` and the tool list need nothing but `json`; a tool call
goes to the server's `call`, which loads the corpus on the first one.

What the loop guarantees a client: a line that is not JSON gets a -32700 answer (id null), a message
that is not a request gets -32600, an unknown method -32601, an unknown tool or params that are not
an object -32602; a notification is never answered; a tool that fails says so in its result
(`isError`), never as a protocol error. SIGINT (Claude Code's first signal at a session's end) stops
the server at once, as closing stdin does.

It frames messages on the process's own stdin and stdout and talks to nothing outside, so it stands
beside the server it frames (`homeostat.mcp_server`), not among the adapters.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any, BinaryIO, Protocol

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # newest first
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class ToolServer(Protocol):
    """What the loop serves: who it is, its tools, and a call (which raises `UnknownTool`)."""

    name: str
    version: str
    instructions: str

    def tool_list(self) -> list[dict[str, Any]]: ...

    def call(self, name: str, arguments: Any) -> dict[str, Any]: ...


class UnknownTool(Exception):
    """A call for a tool the server does not have: a protocol error (-32602), as the spec says."""


def answer(server: ToolServer, message: Any) -> dict[str, Any] | None:
    """The reply to one parsed message; None for a notification or a response, which get none."""
    if not isinstance(message, dict):  # a batch (no longer in MCP) or a bare value
        return _error(None, INVALID_REQUEST, "Invalid Request: send one JSON-RPC object per line")
    method = message.get("method")
    ident = message.get("id")
    if not isinstance(method, str):
        if "result" in message or "error" in message:
            return None  # a response to a request this server never sends
        return _error(_valid_id(ident), INVALID_REQUEST, "Invalid Request: no method")
    if "id" not in message:
        return None  # a notification (initialized, cancelled, …): never answered
    if message.get("jsonrpc") != "2.0" or _valid_id(ident) is None:
        return _error(_valid_id(ident), INVALID_REQUEST, "Invalid Request: needs jsonrpc 2.0 and an id")
    params = message.get("params", {})
    if not isinstance(params, dict):
        return _error(ident, INVALID_PARAMS, "Invalid params: params must be an object")
    try:
        return {"jsonrpc": "2.0", "id": ident, "result": _result(server, method, params)}
    except _Refused as refused:
        return _error(ident, refused.code, str(refused))
    except UnknownTool as unknown:
        return _error(ident, INVALID_PARAMS, str(unknown))
    except Exception as exc:  # noqa: BLE001 - a bug answers this request, never ends the session
        print(f"homeostat mcp: {method} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return _error(ident, INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")


def answer_line(server: ToolServer, line: bytes | str) -> str | None:
    """One line in, the reply's line out (no newline); a line that is not JSON gets -32700."""
    if not line.strip():
        return None
    try:
        message = json.loads(line)
    except ValueError as exc:  # JSONDecodeError, or bytes that are not UTF-8
        reply: dict[str, Any] | None = _error(None, PARSE_ERROR, f"Parse error: {exc}")
    else:
        reply = answer(server, message)
    if reply is None:
        return None
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":"))


def serve(server: ToolServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Answer stdin until it closes or SIGINT arrives. Only replies reach stdout: anything a library
    prints goes to stderr instead, where it cannot break the stream."""
    source = stdin if stdin is not None else sys.stdin.buffer
    if stdout is None:
        stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
        sys.stdout = sys.stderr
    try:
        for line in source:
            reply = answer_line(server, line)
            if reply is not None:
                stdout.write(reply.encode("utf-8") + b"\n")
                stdout.flush()
    except KeyboardInterrupt:  # the client's SIGINT: it wants the server gone, not a traceback
        return
    except BrokenPipeError:  # the client left mid-reply
        return


class _Refused(Exception):
    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


def _result(server: ToolServer, method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        asked = params.get("protocolVersion")
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": server.name, "version": server.version},
            "instructions": server.instructions,
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": server.tool_list()}
    if method == "tools/call":
        name = params.get("name")
        if not isinstance(name, str):
            raise _Refused(INVALID_PARAMS, "Invalid params: tools/call needs the tool's `name`")
        return server.call(name, params.get("arguments", {}))
    raise _Refused(METHOD_NOT_FOUND, f"Method not found: {method[:80]}")


def _valid_id(ident: Any) -> str | int | None:
    """MCP ids are strings or integers, never null (and JSON's true is no integer here)."""
    if isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool)):
        return ident
    return None


def _error(ident: str | int | None, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
