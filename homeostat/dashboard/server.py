"""The dashboard's HTTP server: stdlib `http.server` on 127.0.0.1 only, one page per request.

Reading is local (see `runs.dashboard.inputs`). The one kind of write, a settings form, must carry
this run's token (random, made at start, only ever put in this server's own pages), come from this
server's own origin, and name this server in its Host header; every response also has the Host
check, so a page on another site cannot reach the dashboard through DNS rebinding. Every response sets a strict
Content-Security-Policy: no script at all, styles and images only from here, forms post only here.
"""

from __future__ import annotations

import datetime as dt
import hmac
import io
import secrets
import socket
import threading
import time
from collections.abc import Callable, Mapping
from email.message import Message
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BufferedIOBase
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from homeostat.core.dashboard import html
from homeostat.core.dashboard.settings import settings_forms
from homeostat.errors import HomeostatError
from homeostat.runs.dashboard.inputs import Loaded, load_inputs
from homeostat.runs.dashboard.settings_proposal import propose

LOOPBACK = "127.0.0.1"
MAX_FORM_BYTES = 1_000_000
IDLE_SECONDS = 30.0  # a connection that sends nothing for this long is closed
REQUEST_SECONDS = 30.0  # a request (line, headers and form) not all arrived in this long is closed
MAX_CONNECTIONS = 16  # connections served at once; a browser opens about 6 to one server
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # "no-referrer" would make a form post send Origin: null
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class Refused(Exception):
    """A request the dashboard will not serve; `status` and a one-line reason."""

    def __init__(self, status: HTTPStatus, reason: str) -> None:
        super().__init__(reason)
        self.status = status


class Dashboard:
    """The dashboard of one KB clone: its pages, and the checks every request passes."""

    def __init__(
        self,
        root: Path,
        *,
        env: Mapping[str, str],
        now: Callable[[], dt.datetime] | None = None,
        token: str | None = None,
    ) -> None:
        self.root = root
        self.env = env
        self.now = now or (lambda: dt.datetime.now(dt.UTC))
        self.token = token or secrets.token_urlsafe(32)
        self.port = 0

    # .. checks ..

    def hosts(self) -> tuple[str, ...]:
        return (f"{LOOPBACK}:{self.port}", f"localhost:{self.port}")

    def check_host(self, host: str | None) -> None:
        if host not in self.hosts():
            raise Refused(
                HTTPStatus.MISDIRECTED_REQUEST, f"wrong Host header {host!r}: open http://{self.hosts()[0]}/"
            )

    def check_write(self, origin: str | None, form: Mapping[str, list[str]]) -> None:
        if origin not in tuple(f"http://{host}" for host in self.hosts()):
            raise Refused(HTTPStatus.FORBIDDEN, f"cross-origin write refused (Origin {origin!r})")
        sent = (form.get("token") or [""])[-1]
        if not hmac.compare_digest(sent.encode(), self.token.encode()):
            raise Refused(HTTPStatus.FORBIDDEN, "missing or wrong token: reload the page and submit again")

    # .. pages ..

    def load(self) -> Loaded:
        return load_inputs(self.root, self.now())

    def page(self, path: str, query: Mapping[str, list[str]]) -> str:
        loaded = self.load()
        inputs = loaded.inputs
        common: dict[str, Any] = {"notes": loaded.notes, "kb_name": loaded.kb_name}

        def arg(name: str) -> str:
            return (query.get(name) or [""])[-1]

        simple: dict[str, Callable[..., str]] = {
            "/": html.overview,
            "/automation": html.automation,
            "/members": html.members,
            "/coverage": html.coverage,
            "/impact": html.impact,
            "/documents": html.documents,
            "/desire-paths": html.desire_paths,
        }
        if path in simple:
            return simple[path](inputs, **common)
        if path == "/performance":
            return html.performance(inputs, **common)
        if path == "/entries":
            filters = (arg("q"), arg("area"), arg("status"), arg("kind"))
            return html.entries(inputs, *filters, page=arg("page"), per=arg("per"), **common)
        if path.startswith("/entries/"):
            return self.entry(loaded, unquote(path.removeprefix("/entries/")), common)
        if path == "/events":
            return html.events(inputs, arg("kind"), **common)
        if path == "/settings":
            return html.settings(inputs, settings_forms(inputs.config), self.token, **common)
        raise Refused(HTTPStatus.NOT_FOUND, f"no page {path}")

    def entry(self, loaded: Loaded, rule_id: str, common: dict[str, Any]) -> str:
        from homeostat.dashboard.explain_view import explain_rule

        found, facts, text = explain_rule(self.root, loaded.inputs.kb, rule_id)
        return html.entry(loaded.inputs, rule_id, found, facts, text, **common)

    def post(self, path: str, form: Mapping[str, list[str]]) -> str:
        if not path.startswith("/settings/"):
            raise Refused(HTTPStatus.NOT_FOUND, f"no form posts to {path}")
        section = path.removeprefix("/settings/")
        result = propose(self.root, section, form, self.env, self.now().date())
        loaded = self.load()
        common = {"notes": loaded.notes, "kb_name": loaded.kb_name}
        forms = settings_forms(loaded.inputs.config)
        return html.settings(loaded.inputs, forms, self.token, result=result, **common)


def form_length(lengths: list[str], transfer_encoding: str | None) -> int:
    """The form's size from its one Content-Length: digits only (not `-1`, which would read to the
    end of the stream, nor `abc`), at most `MAX_FORM_BYTES`. A chunked body has no length to hold
    to a limit before reading it, so it is refused."""
    if transfer_encoding is not None:
        raise Refused(
            HTTPStatus.LENGTH_REQUIRED, "send the form with a Content-Length, not a Transfer-Encoding"
        )
    values = {value.strip() for value in lengths}
    if not values:
        return 0
    if len(values) > 1:
        raise Refused(HTTPStatus.BAD_REQUEST, "more than one Content-Length")
    [value] = values
    if not (value.isascii() and value.isdigit()) or len(value) > 12:
        raise Refused(HTTPStatus.BAD_REQUEST, f"Content-Length {value[:20]!r} is not a number of bytes")
    length = int(value)
    if length > MAX_FORM_BYTES:
        raise Refused(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, "form too large")
    return length


class _DeadlineReader(io.RawIOBase):
    """The client's bytes, each read waiting at most `idle` seconds and never past `deadline`.

    A timeout per read alone lets a client sending a byte every 20 seconds hold a thread for ever;
    with the deadline a request that has not all arrived in time raises TimeoutError, which closes
    the connection (or answers `408` in the middle of a form)."""

    def __init__(self, sock: socket.socket, idle: float) -> None:
        super().__init__()
        self.sock = sock
        self.idle = idle
        self.deadline = float("inf")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self.sock.settimeout(min(self.idle, left))
        try:
            return self.sock.recv_into(buffer)
        finally:
            self.sock.settimeout(self.idle)  # writing the page waits by the idle timeout alone


def _handler(app: Dashboard, idle_seconds: float, request_seconds: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "homeostat-dashboard"
        sys_version = ""
        # Seconds a connection may wait for the client between reads (the request line, headers or
        # body); the whole request must also arrive within `request_seconds` (`_DeadlineReader`).
        timeout = idle_seconds

        def setup(self) -> None:
            super().setup()
            self.reader = _DeadlineReader(self.connection, idle_seconds)
            self.rfile = io.BufferedReader(self.reader)

        def handle_one_request(self) -> None:
            self.reader.deadline = time.monotonic() + request_seconds
            super().handle_one_request()

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self._serve(lambda: self._get())

        def do_POST(self) -> None:  # noqa: N802
            self._serve(lambda: self._post())

        def _get(self) -> tuple[bytes, str]:
            app.check_host(self.headers.get("Host"))
            parts = urlsplit(self.path)
            if parts.path == "/static/dashboard.css":
                return html.stylesheet(), "text/css; charset=utf-8"
            page = app.page(parts.path, parse_qs(parts.query))
            return page.encode("utf-8"), "text/html; charset=utf-8"

        def _post(self) -> tuple[bytes, str]:
            app.check_host(self.headers.get("Host"))
            form = _read_form(self.headers, self.rfile)
            app.check_write(self.headers.get("Origin"), form)
            return app.post(urlsplit(self.path).path, form).encode("utf-8"), "text/html; charset=utf-8"

        def _serve(self, make: Callable[[], tuple[bytes, str]]) -> None:
            body, kind, status = _answer(make)
            if status != HTTPStatus.OK:
                self.close_connection = True  # a body left unread must not be read as the next request
            self.send_response(status)
            for name, value in HEADERS.items():
                self.send_header(name, value)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
            return None

    return Handler


def _read_form(headers: Message, rfile: BufferedIOBase) -> dict[str, list[str]]:
    """A settings form's fields, read only as far as its Content-Length: a post that is not a form,
    arrives too slowly or ends early is refused before any of it is trusted."""
    length = form_length(headers.get_all("Content-Length") or [], headers.get("Transfer-Encoding"))
    kind = (headers.get("Content-Type") or "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, f"a form post, not {kind or 'no content type'}")
    try:
        data = rfile.read(length)
    except TimeoutError:
        raise Refused(HTTPStatus.REQUEST_TIMEOUT, "the form did not arrive in time") from None
    if len(data) < length:
        raise Refused(HTTPStatus.BAD_REQUEST, "the form ended before its Content-Length")
    return parse_qs(data.decode("utf-8", "replace"), keep_blank_values=True)


def _answer(make: Callable[[], tuple[bytes, str]]) -> tuple[bytes, str, HTTPStatus]:
    """The page `make` builds, or a plain-text refusal or error in its place: the handler always has
    a body and a status to send, whatever went wrong."""
    try:
        body, kind = make()
    except Refused as refused:
        return f"{refused}\n".encode(), "text/plain; charset=utf-8", refused.status
    except HomeostatError as exc:
        return f"homeostat: {exc}\n".encode(), "text/plain; charset=utf-8", HTTPStatus.INTERNAL_SERVER_ERROR
    return body, kind, HTTPStatus.OK


BUSY = (
    b"HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Connection: close\r\nRetry-After: 5\r\n\r\nthe dashboard is serving as many connections as it "
    b"takes: try again in a moment\n"
)


class _BoundedServer(ThreadingHTTPServer):
    """A thread per connection, at most `slots` at once: a connection beyond them gets `503` and is
    closed at once, never queued, so many slow clients cannot make threads without end."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], slots: int) -> None:
        super().__init__(address, handler)
        self.slots = threading.BoundedSemaphore(slots)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            _refuse_busy(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()  # no thread started to release it
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


def _refuse_busy(request: socket.socket) -> None:
    """The `503` line, sent without waiting: a client that reads nothing cannot hold the accept loop."""
    try:
        request.setblocking(False)
        request.send(BUSY)
    except OSError:
        pass  # its buffer is full or it is gone: closing it is answer enough


class DashboardServer:
    """`Dashboard` served on 127.0.0.1 from a background thread."""

    def __init__(
        self,
        app: Dashboard,
        port: int = 0,
        *,
        idle_seconds: float = IDLE_SECONDS,
        request_seconds: float = REQUEST_SECONDS,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        self.app = app
        handler = _handler(app, idle_seconds, request_seconds)
        self.httpd = _BoundedServer((LOOPBACK, port), handler, max_connections)
        app.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="dashboard", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.app.port}/"

    def start(self) -> DashboardServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def __enter__(self) -> DashboardServer:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
