"""A local Anthropic Messages API on 127.0.0.1, a fake `claude` CLI, and their fixtures.

`AnthropicStub` answers the real SDK clients (`Anthropic`, `AnthropicBedrock`, `AnthropicVertex`, via
`base_url`) from a scripted queue, in the Messages API's response shape, and records every request.
It serves three dialects on one port:

- api:     POST /v1/messages                                  (x-api-key or Bearer)
- bedrock: POST /model/{model}/invoke                         (SigV4 or Bearer, model in the path)
- vertex:  POST /projects/{p}/locations/{l}/publishers/anthropic/models/{m}:rawPredict   (Bearer)

A scripted answer becomes a JSON text block when the request asked for structured output, and the
input of a `tool_use` block when the request offered tools, so one script serves every runtime. A
request with `"stream": true` (the real Claude Code CLI's) is answered as the API streams: server-sent
events, `message_start` to `message_stop`. `converse(fn)` answers from the whole request (`fn` sees the
recorded request and returns content blocks), for a client that holds a conversation of its own.
Every request is recorded, whatever its method or path, so a test can say what a client asked.

For runs at scale it also behaves like a busy API: `latency` delays every answer, `fail_when` injects
429s and 529s (with `retry-after`) on the requests a predicate picks, `rate_limit` enforces a request
window and sends Anthropic's `anthropic-ratelimit-*` headers on every answer, `max_in_flight` says
how many requests it was answering at once, and `answered` counts each distinct question it answered
(what a run paid for), so a test can tell a question paid for twice.

`FakeClaude` drives `tests/fake_claude/claude` (a Python stand-in for `claude -p`) from a queue file
and records each call's argv, stdin and environment names.

Both fixtures check at teardown that no planted secret ever reached them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from emulators.closing_server import ClosingServer

FAKE_CLAUDE_DIR = Path(__file__).resolve().parents[1] / "fake_claude"

_BEDROCK = re.compile(r"^/model/(?P<model>[^/]+)/invoke$")
_VERTEX = re.compile(
    r"^/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/publishers/anthropic/models/(?P<model>[^/:]+):rawPredict$"
)
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def planted_secret_values() -> list[str]:
    """Credentials a test plants in prompts; built at run time so this file trips no scanner."""
    return [
        "ghp_" + "A1b2" * 9,
        "AKIA" + "Q3ZT" + "7XKD" + "LMW2" + "P9RV",
        "xoxb-" + "2817364509" + "-" + "6153920847" + "-" + "Qm7Rt2Kw9Xz4Lp8Vn3Bc5Hd1",
        "sk-ant-api03-" + "Zq8Lm2Np5Rt7Vx9Bc4Df6Gh1Jk3Wy0Ue8Io2Pa5Sd7Fg9Hj" + "Kl4Zx6Cv8Bn1Mq3We5Rt7Yu9IoPa"
        "-AbCdEfAA",
    ]


@dataclass(frozen=True)
class Scripted:
    kind: str  # answer, text, refusal, error, blocks (payload: the content blocks, as sent)
    payload: Any = None
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    delay: float = 0.0
    usage: tuple[int, int, int, int] = (120, 40, 0, 0)


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: str

    @property
    def json(self) -> dict[str, Any]:
        value = json.loads(self.body) if self.body else {}
        return value if isinstance(value, dict) else {}

    @property
    def dialect(self) -> str | None:
        if self.path.split("?")[0] == "/v1/messages":
            return "api"
        if _BEDROCK.match(self.path):
            return "bedrock"
        if _VERTEX.match(self.path):
            return "vertex"
        return None

    @property
    def model(self) -> str:
        match = _BEDROCK.match(self.path) or _VERTEX.match(self.path)
        return match.group("model") if match else str(self.json.get("model", ""))


Responder = Callable[[str, str], Any]
Conversation = Callable[[Recorded], "Scripted | list[dict[str, Any]]"]


@dataclass
class Fault:
    """Fail each request `match(system, user)` picks `times` times (per distinct question) with `status`."""

    match: Callable[[str, str], bool]
    status: int
    times: int
    retry_after: str | None = None
    seen: Counter[str] = field(default_factory=Counter)


@dataclass
class AnthropicStub:
    queue: deque[Scripted] = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)
    responder: Responder | None = None  # answers by content once the queue is empty
    conversation: Conversation | None = None  # answers from the whole request, before the queue
    latency: float = 0.0  # seconds before each answer (not before an error)
    answered: Counter[str] = field(default_factory=Counter)  # question (system + user) -> answers sent
    faults: list[Fault] = field(default_factory=list)
    max_in_flight: int = 0
    limited: int = 0  # requests refused by `rate_limit` (429)
    usage: tuple[int, int, int, int] = (120, 40, 0, 0)  # what each answer by content reports it used

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._count = 0
        self._in_flight = 0
        self._window: tuple[int, float] | None = None  # (requests per window, window seconds)
        self._window_start = 0.0
        self._window_used = 0

    # -- script -------------------------------------------------------------------------------------

    def answer(self, value: Any, *, usage: tuple[int, int, int, int] = (120, 40, 0, 0)) -> AnthropicStub:
        """A structured answer: JSON text for structured output, the tool input for a tool call."""
        self.queue.append(Scripted("answer", value, usage=usage))
        return self

    def text(self, text: str, *, usage: tuple[int, int, int, int] = (120, 40, 0, 0)) -> AnthropicStub:
        """A plain text block: not JSON for structured output, no tool call for the tool runtimes."""
        self.queue.append(Scripted("text", text, usage=usage))
        return self

    def refusal(self, *, usage: tuple[int, int, int, int] = (120, 8, 0, 0)) -> AnthropicStub:
        self.queue.append(Scripted("refusal", "I can't help with that request.", usage=usage))
        return self

    def error(self, status: int, *, retry_after: str | None = None, message: str = "") -> AnthropicStub:
        headers = (("retry-after", retry_after),) if retry_after is not None else ()
        self.queue.append(
            Scripted("error", message or f"stub error {status}", status=status, headers=headers)
        )
        return self

    def slow(self, seconds: float, value: Any) -> AnthropicStub:
        """An answer that arrives only after `seconds` (past the client's timeout, in tests)."""
        self.queue.append(Scripted("answer", value, delay=seconds))
        return self

    def converse(self, conversation: Conversation) -> AnthropicStub:
        """Answer every Messages request from the request itself: `conversation(request)` returns the
        content blocks to send (`{"type": "text", …}`, `{"type": "tool_use", …}`) or a `Scripted`.
        For a real agent (Claude Code), whose requests carry the whole conversation so far."""
        self.conversation = conversation
        return self

    def fail_when(
        self,
        match: Callable[[str, str], bool],
        status: int,
        *,
        times: int = 1,
        retry_after: str | None = None,
    ) -> AnthropicStub:
        """Refuse `times` times each distinct question `match(system, user)` picks, before answering it."""
        self.faults.append(Fault(match, status, times, retry_after))
        return self

    def rate_limit(self, requests: int, per_seconds: float) -> AnthropicStub:
        """Allow `requests` a window of `per_seconds` (windows start on whole seconds, as the
        headers' reset times are to the second); report what is left on every answer."""
        self._window = (requests, per_seconds)
        return self

    def paid_twice(self, before: Counter[str]) -> int:
        """Questions answered now that had been answered already by `before` (a copy of `answered`)."""
        return sum(
            1 for question, n in self.answered.items() if before.get(question, 0) and n > before[question]
        )

    def respond_with(self, responder: Responder) -> AnthropicStub:
        """Answer by content when the queue is empty: `responder(system, user)` returns the structured
        value, a `Scripted`, or None for a refusal. For runs whose call order is not fixed."""
        self.responder = responder
        return self

    # -- server -------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "stub not started"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> AnthropicStub:
        server = _QuietServer(("127.0.0.1", 0), _Handler)
        server.stub = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def bodies(self) -> list[str]:
        return [request.body for request in self.requests]

    def user_prompts(self) -> list[str]:
        """The user message of each recorded request, in order."""
        return [str(request.json["messages"][0]["content"]) for request in self.requests if request.json]

    def leaks(self, secrets: list[str]) -> list[str]:
        return [secret for secret in secrets for request in self.requests if secret in request.body]

    def _take(self, request: Recorded) -> Scripted | None:
        system, content = _prompts(request)
        with self._lock:
            self.requests.append(request)
            self._count += 1
            refused = self._refused(system, content)
            if refused is not None:
                return refused
            if self.conversation is not None and request.dialect is not None:
                answer = self.conversation(request)
                return answer if isinstance(answer, Scripted) else Scripted("blocks", answer)
            if self.queue:
                return self.queue.popleft()
        if self.responder is None:
            return None
        value = self.responder(system, content)
        if isinstance(value, Scripted):
            return value
        if value is None:
            return Scripted("refusal", "I can't help with that request.", usage=(120, 8, 0, 0))
        return Scripted("answer", value, usage=self.usage)

    def _refused(self, system: str, user: str) -> Scripted | None:
        """An injected fault or the rate limit's 429, for this request (under the lock)."""
        for fault in self.faults:
            question = system + "\0" + user
            if fault.match(system, user) and fault.seen[question] < fault.times:
                fault.seen[question] += 1
                headers = (("retry-after", fault.retry_after),) if fault.retry_after is not None else ()
                return Scripted("error", f"stub fault {fault.status}", status=fault.status, headers=headers)
        if self._window is None:
            return None
        allowed, seconds = self._window
        now = time.time()
        if now >= self._window_start + seconds:
            self._window_start, self._window_used = float(int(now)), 0
        if self._window_used >= allowed:
            self.limited += 1
            wait = max(1, int(self._window_start + seconds - now + 0.999))
            headers = (("retry-after", str(wait)), *self._limit_headers())
            return Scripted("error", "stub rate limit", status=429, headers=headers)
        self._window_used += 1
        return None

    def _limit_headers(self) -> tuple[tuple[str, str], ...]:
        if self._window is None:
            return ()
        allowed, seconds = self._window
        reset = dt.datetime.fromtimestamp(self._window_start + seconds, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (
            ("anthropic-ratelimit-requests-limit", str(allowed)),
            ("anthropic-ratelimit-requests-remaining", str(max(0, allowed - self._window_used))),
            ("anthropic-ratelimit-requests-reset", reset),
        )

    def _enter(self) -> None:
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _paid(self, request: Recorded) -> None:
        system, content = _prompts(request)
        with self._lock:
            self.answered[system + "\0" + content] += 1


def _prompts(request: Recorded) -> tuple[str, str]:
    """The system prompt and the last user message of a recorded request."""
    body = request.json
    system = body.get("system", "")
    if isinstance(system, list):
        system = "\n".join(str(part.get("text", "")) for part in system if isinstance(part, dict))
    messages = body.get("messages") or [{}]
    content = messages[-1].get("content", "")
    if isinstance(content, list):
        content = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(system), str(content)


class _QuietServer(ClosingServer):
    """A client that went away (a run killed mid-call) is no error of the stub's. Its listen backlog is
    deep, as the API's is: several runs' workers connecting at once on a busy machine would overflow
    the default 5 and be reset."""

    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ThreadingHTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        return None

    def do_GET(self) -> None:
        self._other("GET")

    def do_HEAD(self) -> None:
        self._other("HEAD")

    def _other(self, method: str) -> None:
        """Anything but a Messages call is recorded (a client's side traffic) and answered 404."""
        stub: AnthropicStub = self.server.stub  # type: ignore[attr-defined]
        request = Recorded(method, self.path, {k.lower(): v for k, v in self.headers.items()}, "")
        stub._take(request)
        self._error(404, "no such route on the stub", request)

    def do_POST(self) -> None:
        stub: AnthropicStub = self.server.stub  # type: ignore[attr-defined]
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode("utf-8") if length else ""
        request = Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        if request.dialect is None:
            stub._take(request)
            return self._error(404, "no such route on the stub", request)
        if not _authorized(request):
            stub._take(request)
            return self._error(401, "missing credentials", request)
        stub._enter()
        try:
            scripted = stub._take(request)
            if scripted is None:
                return self._error(500, "the stub's queue is empty: script an answer first", request)
            if scripted.kind == "error":
                return self._error(scripted.status, str(scripted.payload), request, scripted.headers)
            delay = scripted.delay + stub.latency
            if delay and stub._stopping.wait(delay):
                return None
            stub._paid(request)
            with stub._lock:
                limits = stub._limit_headers()
            message = _message(scripted, request, stub._count)
            if request.json.get("stream") is True:
                return self._stream(message)
            self._send(200, message, limits)
        finally:
            stub._leave()

    def _stream(self, message: dict[str, Any]) -> None:
        """The message as the Messages API streams it (server-sent events), one delta per block."""
        chunks = b"".join(_event(event) for event in _stream_events(message))
        try:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(chunks)))
            self.send_header("request-id", "req_stub")
            self.end_headers()
            self.wfile.write(chunks)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _error(
        self, status: int, message: str, request: Recorded, headers: tuple[tuple[str, str], ...] = ()
    ) -> None:
        kind = _ERROR_TYPES.get(status, "api_error")
        if request.dialect == "bedrock":
            payload: dict[str, Any] = {"message": message}
        else:
            payload = {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_stub"}
        self._send(status, payload, headers)

    def _send(self, status: int, payload: dict[str, Any], headers: tuple[tuple[str, str], ...] = ()) -> None:
        data = json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", "req_stub")
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer


def _authorized(request: Recorded) -> bool:
    auth = request.headers.get("authorization", "")
    if request.dialect == "api":
        return bool(request.headers.get("x-api-key")) or auth.startswith("Bearer ")
    if request.dialect == "bedrock":
        return auth.startswith(("Bearer ", "AWS4-HMAC-SHA256 "))
    return auth.startswith("Bearer ")


def _event(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


def _stream_events(message: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """message_start, then per block its start, one delta and its stop, then message_delta and stop."""
    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    yield {"type": "message_start", "message": {**start, "usage": {**usage, "output_tokens": 1}}}
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            opened, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": block["text"]}
        elif kind == "tool_use":
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        elif kind == "thinking":
            opened = {"type": "thinking", "thinking": "", "signature": ""}
            delta = {"type": "signature_delta", "signature": block["signature"]}
        else:
            raise ValueError(f"the stub cannot stream a {kind} block")
        yield {"type": "content_block_start", "index": index, "content_block": opened}
        yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]},
    }
    yield {"type": "message_stop"}


def _message(scripted: Scripted, request: Recorded, number: int) -> dict[str, Any]:
    body = request.json
    tools = body.get("tools") or []
    thinking = {"type": "thinking", "thinking": "", "signature": "stub-signature"}
    if scripted.kind == "blocks":
        content = list(scripted.payload)
        stop = "tool_use" if any(block.get("type") == "tool_use" for block in content) else "end_turn"
    elif scripted.kind == "refusal":
        content: list[dict[str, Any]] = [{"type": "text", "text": scripted.payload}]
        stop = "refusal"
    elif scripted.kind == "text":
        content, stop = [thinking, {"type": "text", "text": scripted.payload}], "end_turn"
    elif tools:
        call = {
            "type": "tool_use",
            "id": f"toolu_stub_{number:04d}",
            "name": tools[0]["name"],
            "input": scripted.payload,
        }
        content, stop = [thinking, call], "tool_use"
    else:
        content, stop = [thinking, {"type": "text", "text": json.dumps(scripted.payload)}], "end_turn"
    fresh, out, cache_write, cache_read = scripted.usage
    return {
        "id": f"msg_stub_{number:04d}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": fresh,
            "output_tokens": out,
            "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cache_read,
        },
    }


# --- the fake claude CLI ------------------------------------------------------------------------------


class FakeClaude:
    """Queue answers for `tests/fake_claude/claude` and read back what each call received."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.queue_file = folder / "queue.jsonl"
        self.log_file = folder / "calls.jsonl"
        self.queue_file.write_text("")

    def env(self, **extra: str) -> dict[str, str]:
        """An environment whose PATH finds the fake first; pass it to `asker_for(env=…)`."""
        return {
            "PATH": f"{FAKE_CLAUDE_DIR}{os.pathsep}{os.environ.get('PATH', '')}",
            "FAKE_CLAUDE_QUEUE": str(self.queue_file),
            "FAKE_CLAUDE_LOG": str(self.log_file),
            **extra,
        }

    def _push(self, envelope: dict[str, Any], *, sleep: float = 0.0) -> FakeClaude:
        with self.queue_file.open("a") as queue:
            queue.write(json.dumps({"envelope": envelope, "sleep": sleep}) + "\n")
        return self

    def answer(self, value: Any, *, cost: float | None = 0.0125, sleep: float = 0.0) -> FakeClaude:
        return self._push(_result(json.dumps(value), structured=value, cost=cost), sleep=sleep)

    def refusal(self) -> FakeClaude:
        return self._push(_result("I can't help with that request.", stop_reason="refusal"))

    def api_error(self, status: int) -> FakeClaude:
        kind = _ERROR_TYPES.get(status, "api_error")
        text = f'API Error: {status} {{"type":"error","error":{{"type":"{kind}","message":"stub"}}}}'
        return self._push(_result(text, is_error=True, cost=0.0))

    def slow(self, seconds: float, value: Any) -> FakeClaude:
        return self.answer(value, sleep=seconds)

    @property
    def calls(self) -> list[dict[str, Any]]:
        if not self.log_file.exists():
            return []
        return [json.loads(line) for line in self.log_file.read_text().splitlines() if line.strip()]

    def leaks(self, secrets: list[str]) -> list[str]:
        sent = [json.dumps(call) for call in self.calls]
        return [secret for secret in secrets for text in sent if secret in text]


def _result(
    text: str,
    *,
    structured: Any = None,
    stop_reason: str = "end_turn",
    is_error: bool = False,
    cost: float | None = 0.0125,
) -> dict[str, Any]:
    envelope: dict[str, Any] = {
        "type": "result",
        "subtype": "success",
        "is_error": is_error,
        "duration_ms": 1200,
        "num_turns": 1,
        "result": text,
        "stop_reason": stop_reason,
        "session_id": "00000000-0000-0000-0000-000000000000",
        "usage": {
            "input_tokens": 300,
            "output_tokens": 60,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
        "structured_output": structured,
    }
    if cost is not None:
        envelope["total_cost_usd"] = cost
    return envelope


# --- fixtures -------------------------------------------------------------------------------------


@pytest.fixture
def planted_secrets() -> list[str]:
    """Secrets to plant in prompts; the stub and fake claude fixtures fail if any reaches them."""
    return planted_secret_values()


@pytest.fixture
def anthropic_stub(planted_secrets: list[str]) -> Iterator[AnthropicStub]:
    stub = AnthropicStub().start()
    yield stub
    stub.stop()
    leaked = stub.leaks(planted_secrets)
    assert not leaked, f"a planted secret reached the model stub: {leaked[0][:8]}…"


@pytest.fixture
def fake_claude(tmp_path: Path, planted_secrets: list[str]) -> Iterator[FakeClaude]:
    fake = FakeClaude(tmp_path / "fake-claude")
    yield fake
    leaked = fake.leaks(planted_secrets)
    assert not leaked, f"a planted secret reached the fake claude CLI: {leaked[0][:8]}…"
