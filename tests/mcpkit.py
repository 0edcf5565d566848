"""The MCP SDK's real client against our server in process: `Client(in_process(server))`.

Each message the client sends is written as the JSON line stdio would carry, answered by the same
`answer_line` the stdio loop calls, and the reply line parsed back as the client's own stdio transport
parses it; only the pipe is left out.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from homeostat.mcp_stdio import ToolServer, answer_line


@asynccontextmanager
async def in_process(server: ToolServer) -> AsyncIterator[tuple[Any, Any]]:
    """A transport for `mcp.Client`: the (read, write) streams of a connection to `server`."""
    to_client, client_reads = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    client_writes, from_client = anyio.create_memory_object_stream[SessionMessage](16)

    async def serve() -> None:
        async with from_client, to_client:
            async for sent in from_client:
                line = sent.message.model_dump_json(by_alias=True, exclude_unset=True)
                reply = await anyio.to_thread.run_sync(answer_line, server, line)
                if reply is not None:
                    message: Any = types.jsonrpc_message_adapter.validate_json(reply, by_name=False)
                    await to_client.send(SessionMessage(message))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(serve)
        async with client_reads, client_writes:
            yield client_reads, client_writes
        tasks.cancel_scope.cancel()
