"""A Slack incoming-webhook sink on 127.0.0.1 that records posts, and its `slack_sink` fixture.

It answers as Slack does: 200 `ok` for a JSON body with `text`, 400 `invalid_payload` for a body that
is not JSON, 400 `no_text` for one without text, 400 `invalid_blocks` for Block Kit over Slack's
limits (more than 50 blocks, a section or context text over 3,000 characters, a header over 150, an
empty text), 404 `no_service` for any other path (a revoked or mistyped webhook), and scripted
failures (`fail_next`: 5xx blips, 429 with Retry-After). Refused bodies are kept in `refused`.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from emulators.closing_server import ClosingServer


@dataclass
class SlackSink:
    path: str = field(default_factory=lambda: f"/services/T{secrets.token_hex(4)}/B{secrets.token_hex(4)}/x")
    posts: list[dict[str, Any]] = field(default_factory=list)  # accepted bodies
    refused: list[tuple[str, Any]] = field(default_factory=list)  # (error, body) of refused ones
    attempts: list[tuple[str, int]] = field(default_factory=list)  # (path, status) of every request
    failures: deque[tuple[int, str | None, str]] = field(default_factory=deque)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def origin(self) -> str:
        assert self._server is not None, "sink not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def url(self) -> str:
        """The webhook URL a team would keep in its CI secrets."""
        return self.origin + self.path

    def fail_next(self, status: int, times: int = 1, retry_after: str | None = None, text: str = "") -> None:
        with self._lock:
            self.failures.extend([(status, retry_after, text or f"stub error {status}")] * times)

    def start(self) -> SlackSink:
        server = ClosingServer(("127.0.0.1", 0), _Handler)
        server.sink = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def answer(self, path: str, body: bytes) -> tuple[int, str, tuple[tuple[str, str], ...]]:
        with self._lock:
            status, text, headers = self._decide(path, body)
            self.attempts.append((path, status))
            return status, text, headers

    def _decide(self, path: str, body: bytes) -> tuple[int, str, tuple[tuple[str, str], ...]]:
        if path != self.path:
            return 404, "no_service", ()
        if self.failures:
            status, retry_after, text = self.failures.popleft()
            return status, text, (("Retry-After", retry_after),) if retry_after is not None else ()
        try:
            data = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            return 400, "invalid_payload", ()
        if not isinstance(data, dict) or not (data.get("text") or data.get("blocks")):
            return 400, "no_text", ()
        if "blocks" in data and not _blocks_ok(data["blocks"]):
            self.refused.append(("invalid_blocks", data))
            return 400, "invalid_blocks", ()
        self.posts.append(data)
        return 200, "ok", ()


_TEXT_LIMITS = {"header": 150, "section": 3000, "context": 3000}


def _blocks_ok(blocks: Any) -> bool:
    """Slack's Block Kit limits, checked on the wire (independently of the code under test)."""
    if not isinstance(blocks, list) or len(blocks) > 50:
        return False
    for block in blocks:
        if not isinstance(block, dict) or block.get("type") not in (*_TEXT_LIMITS, "divider"):
            return False
        texts = [block.get("text")] if "text" in block else list(block.get("elements") or [])
        if block["type"] != "divider" and not texts:
            return False
        for text in texts:
            if block["type"] == "divider":
                continue
            value = text.get("text") if isinstance(text, dict) else None
            if not isinstance(value, str) or not value.strip() or len(value) > _TEXT_LIMITS[block["type"]]:
                return False
            if block["type"] == "header" and text.get("type") != "plain_text":
                return False
    return True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        return None

    def do_POST(self) -> None:
        sink: SlackSink = self.server.sink  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        status, text, headers = sink.answer(self.path, body)
        data = text.encode()
        self.send_response(status)
        self.send_header("content-type", "text/plain; charset=utf-8")
        self.send_header("content-length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def slack_sink() -> Iterator[SlackSink]:
    sink = SlackSink().start()
    yield sink
    sink.stop()
