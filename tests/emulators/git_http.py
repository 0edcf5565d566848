"""Git's smart HTTP protocol on 127.0.0.1 in front of bare repos, answered by real `git http-backend`.

`GitHttpServer` stands for a code host's git endpoint: a push (and with `private=True` a fetch too)
needs an `Authorization: Basic` header whose password is a known token, and a request carrying two
such headers is refused, as GitHub refuses one. Every request is logged with whether it carried a
credential, so a test can tell an authenticated push from one that happened to be allowed.

`PipelinesProxy` stands for Bitbucket Pipelines' auth proxy: a clone's origin is
`http://bitbucket.org/<workspace>/<repo>` with `http.<origin>.proxy` pointing at the proxy, git sends
it absolute-form requests for that URL, and it forwards them to the git server with the pipeline's own
credential. No request ever leaves 127.0.0.1: the origin's host name is never resolved.
"""

from __future__ import annotations

import base64
import http.client
import os
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from emulators.closing_server import ClosingServer


@dataclass(frozen=True)
class GitRequest:
    method: str
    path: str
    service: str  # git-upload-pack (fetch) or git-receive-pack (push)
    user: str | None  # the Basic user name when a known token was given
    status: int


def basic(user: str, token: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{token}".encode()).decode()


def _service(path: str, query: str) -> str:
    if "service=" in query:
        return query.split("service=", 1)[1].split("&", 1)[0]
    return path.rsplit("/", 1)[-1]


def _read_body(handler: BaseHTTPRequestHandler) -> bytes:
    if handler.headers.get("Transfer-Encoding", "").lower() == "chunked":
        chunks = []
        while True:
            size = int(handler.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
            if size == 0:
                handler.rfile.readline()
                return b"".join(chunks)
            chunks.append(handler.rfile.read(size))
            handler.rfile.readline()
    return handler.rfile.read(int(handler.headers.get("Content-Length") or 0))


@dataclass
class GitHttpServer:
    """Serves `<root>/<owner>/<name>.git` at `http://127.0.0.1:<port>/<owner>/<name>(.git)`."""

    root: Path
    tokens: set[str]
    private: bool = False
    requests: list[GitRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ClosingServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def repo_url(self, owner: str, name: str) -> str:
        return f"{self.url}/{owner}/{name}"

    def pushes(self) -> list[GitRequest]:
        return [r for r in self.requests if r.method == "POST" and r.service == "git-receive-pack"]

    def _authorize(self, headers: list[str]) -> tuple[int, str | None]:
        """(status, user): 400 for a doubled header, 401 for a missing or unknown token."""
        if len(headers) > 1:
            return 400, None
        if not headers or not headers[0].lower().startswith("basic "):
            return 401, None
        user, _, token = base64.b64decode(headers[0].split(" ", 1)[1]).decode().partition(":")
        return (200, user) if token in self.tokens else (401, None)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                self._serve()

            def do_POST(self) -> None:
                self._serve()

            def _serve(self) -> None:
                path, _, query = self.path.partition("?")
                service = _service(path, query)
                status, user = server._authorize(self.headers.get_all("Authorization") or [])
                needs_auth = server.private or service == "git-receive-pack"
                body = _read_body(self) if self.command == "POST" else b""
                if status == 400 or (needs_auth and status != 200):
                    server.requests.append(GitRequest(self.command, path, service, None, status))
                    self.send_response(status)
                    if status == 401:
                        self.send_header("WWW-Authenticate", 'Basic realm="git emulator"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                server.requests.append(GitRequest(self.command, path, service, user, 200))
                self._backend(path, query, body, user)

            def _backend(self, path: str, query: str, body: bytes, user: str | None) -> None:
                parts = path.lstrip("/").split("/")
                if len(parts) >= 2 and not parts[1].endswith(".git"):
                    parts[1] += ".git"
                env = {
                    "PATH": os.environ["PATH"],
                    "GIT_PROJECT_ROOT": str(server.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "PATH_INFO": "/" + "/".join(parts),
                    "REQUEST_METHOD": self.command,
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "REMOTE_USER": user or "",
                    "REMOTE_ADDR": "127.0.0.1",
                    "GIT_CONFIG_NOSYSTEM": "1",
                    "HOME": str(server.root),
                }
                if self.headers.get("Content-Encoding"):
                    env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
                if self.headers.get("Git-Protocol"):
                    env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
                done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True)
                head, _, payload = done.stdout.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.decode("latin-1").split("\r\n"):
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split(" ", 1)[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        return Handler


@dataclass
class PipelinesProxy:
    """Forwards `http://<any host>/<owner>/<repo>/…` to the git server, adding the pipeline's credential."""

    upstream: GitHttpServer
    token: str
    requests: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._server = ClosingServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                self._forward()

            def do_POST(self) -> None:
                self._forward()

            def _forward(self) -> None:
                proxy.requests.append(self.path)
                target = urlsplit(self.path)
                body = _read_body(self) if self.command == "POST" else None
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("authorization", "proxy-connection", "transfer-encoding", "host")
                }
                headers["Authorization"] = basic("x-token-auth", proxy.token)
                upstream = urlsplit(proxy.upstream.url)
                connection = http.client.HTTPConnection(upstream.hostname or "", upstream.port, timeout=60)
                path = target.path + (f"?{target.query}" if target.query else "")
                connection.request(self.command, path, body=body, headers=headers)
                answer = connection.getresponse()
                payload = answer.read()
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                connection.close()

        return Handler


@pytest.fixture
def git_http(github_harness) -> Iterator[GitHttpServer]:  # type: ignore[no-untyped-def]
    """The GitHub emulator's bare repos over smart HTTP; the harness's token may push."""
    server = GitHttpServer(github_harness.root, {github_harness.token})
    yield server
    server.close()
