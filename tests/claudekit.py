"""The real Claude Code CLI, and the MCP Inspector CLI, driven headless against our Anthropic stub.

Both come from npm at the exact versions of `.ci/npm/package-lock.json` (Claude Code 2.1.332, whose
program is the platform package `@anthropic-ai/claude-code-linux-x64`; the Inspector 2.12.0),
installed into `.ci/npm/node_modules`: `.ci/run` installs them, and otherwise the first test that
needs them does, once (`npm ci`, under a lock). A test skips, saying why, only where npm is absent.

`ClaudeCode` runs `claude` as a user would, with a throwaway HOME, pointed at the stub through
`ANTHROPIC_BASE_URL`, and with every other way out sent to `EgressSink`: a proxy on 127.0.0.1 that
forwards nothing and records each attempt, so a test can say that no request left the machine. The
stub answers from a `Script`: one reply per model turn of the conversation Claude Code sends, so a
test says what the model does (call a tool, edit a file, answer) and reads back what Claude Code sent.
A later `homeostat bench` drives the same real Claude Code through this kit.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import socketserver
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from emulators.anthropic_stub import AnthropicStub, Recorded

REPO = Path(__file__).resolve().parents[1]
NPM_DIR = REPO / ".ci" / "npm"
PLUGIN = REPO / "plugin"
PLUGIN_TOOL_PREFIX = "mcp__plugin_homeostat_homeostat__"


class Unavailable(Exception):
    """Why the real clients cannot run here (npm is absent): the test skips with this."""


class NpmTools(NamedTuple):
    claude: Path
    inspector: Path
    node_dir: Path  # the folder holding `node`, for the Inspector's `#!/usr/bin/env node`


def npm_tools(folder: Path = NPM_DIR) -> NpmTools:
    """The installed clients, installing them first when the lock file changed since the last install."""
    npm, node = shutil.which("npm"), shutil.which("node")
    modules = folder / "node_modules"
    tools = NpmTools(
        modules / ".bin" / "claude",
        modules / ".bin" / "mcp-inspector",
        Path(node).parent if node else Path("/usr/bin"),
    )
    lock = folder / "package-lock.json"
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    stamp = modules / ".homeostat-installed-from"

    def installed() -> bool:
        return (
            stamp.is_file() and stamp.read_text() == digest and all(os.access(p, os.X_OK) for p in tools[:2])
        )

    if installed():
        return tools
    if npm is None or node is None:
        raise Unavailable("npm is not installed here (.ci/run installs Node and npm where it can)")
    with open(folder / ".install.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another test process may be installing the same folder
        if not installed():
            done = subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=1200,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(f"npm ci in {folder} failed:\n{done.stderr[-3000:]}")
            stamp.write_text(digest)
    return tools


# --- the way out, closed and watched ---------------------------------------------------------------


class _SinkHandler(socketserver.StreamRequestHandler):
    def handle(self) -> None:
        first = self.rfile.readline(4096).decode("latin-1").strip()
        sink: EgressSink = self.server.sink  # type: ignore[attr-defined]
        with sink.lock:
            sink.attempts.append(first)
        self.wfile.write(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")


@dataclass
class EgressSink:
    """An HTTP(S) proxy on 127.0.0.1 that forwards nothing: each request line (`CONNECT host:443 …`)
    is recorded and refused. Set as HTTPS_PROXY and HTTP_PROXY for every client a test starts."""

    attempts: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self._server: socketserver.ThreadingTCPServer | None = None

    def start(self) -> EgressSink:
        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _SinkHandler)
        server.daemon_threads = True
        server.sink = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()


# --- what the model says ---------------------------------------------------------------------------

Block = dict[str, Any]
Step = Sequence[Block] | Callable[[Recorded], Sequence[Block]]


def text(words: str) -> Block:
    return {"type": "text", "text": words}


def tool_use(name: str, tool_input: dict[str, Any], ident: str) -> Block:
    return {"type": "tool_use", "id": ident, "name": name, "input": tool_input}


def flat(value: Any) -> str:
    """Every string inside a request's part (system, messages, a tool result), joined: what to search."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(flat(item) for item in value)
    if isinstance(value, dict):
        return "\n".join(flat(item) for key, item in value.items() if key not in ("signature", "id"))
    return ""


def is_turn(request: Recorded) -> bool:
    """A request of the agent's own conversation (it offers the agent's tools), not a side call."""
    body = request.json
    names = {tool.get("name") for tool in body.get("tools") or [] if isinstance(tool, dict)}
    return request.dialect == "api" and "Bash" in names


def turns_done(request: Recorded) -> int:
    """How many model turns the conversation in this request already holds."""
    return sum(1 for message in request.json.get("messages", []) if message.get("role") == "assistant")


def tool_results(request: Recorded) -> dict[str, str]:
    """The tool results this request carries, by tool_use id, as text."""
    found: dict[str, str] = {}
    for message in request.json.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found[str(block.get("tool_use_id"))] = flat(block.get("content"))
    return found


@dataclass
class Script:
    """The model's side of a session: `steps[n]` answers the request holding n earlier model turns,
    and past the last step the model says `done`. A side request (no agent tools) gets a short text."""

    steps: list[Step]
    done: str = "Done."

    def __call__(self, request: Recorded) -> list[Block]:
        if not is_turn(request):
            return [text("ok")]
        number = turns_done(request)
        if number >= len(self.steps):
            return [text(self.done)]
        step = self.steps[number]
        return list(step(request) if callable(step) else step)


# --- Claude Code itself ----------------------------------------------------------------------------


@dataclass
class ClaudeCode:
    """`claude` as a developer runs it, in a throwaway HOME, talking only to the stub."""

    tools: NpmTools
    home: Path
    stub: AnthropicStub
    sink: EgressSink
    env_extra: dict[str, str] = field(default_factory=dict)

    def env(self, **extra: str) -> dict[str, str]:
        """The environment: no HOMEOSTAT_* and no homeostat on PATH unless a test adds them."""
        path = [str(self.tools.node_dir)]
        for tool in ("git", "sh", "env", "sed"):
            found = shutil.which(tool)
            if found and str(Path(found).parent) not in path:
                path.append(str(Path(found).parent))
        path = [folder for folder in path if not (Path(folder) / "homeostat").exists()]
        return {
            "PATH": os.pathsep.join(path),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.home / "tmp"),
            "ANTHROPIC_BASE_URL": self.stub.url,
            "ANTHROPIC_API_KEY": "sk-ant-stub-not-a-key",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "HTTPS_PROXY": self.sink.url,
            "HTTP_PROXY": self.sink.url,
            "https_proxy": self.sink.url,
            "http_proxy": self.sink.url,
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "GIT_CONFIG_NOSYSTEM": "1",
            **self.env_extra,
            **extra,
        }

    def run(
        self, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 240
    ) -> subprocess.CompletedProcess[str]:
        (self.home / "tmp").mkdir(parents=True, exist_ok=True)
        return subprocess.run(
            [str(self.tools.claude), *args],
            cwd=cwd,
            env={**self.env(), **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def ask(
        self, prompt: str, *, cwd: Path, args: Sequence[str] = (), env: dict[str, str] | None = None
    ) -> dict[str, Any]:
        """`claude -p PROMPT --output-format json`: its result envelope (the run must succeed)."""
        done = self.run("-p", prompt, "--output-format", "json", *args, cwd=cwd, env=env)
        assert done.returncode == 0, f"claude -p failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        envelope = json.loads(done.stdout)
        assert isinstance(envelope, dict) and envelope.get("type") == "result", done.stdout
        return envelope

    def inspector(
        self,
        server: Sequence[str],
        *args: str,
        cwd: Path,
        env: dict[str, str] | None = None,
        exit_code: int = 0,
    ) -> Any:
        """`mcp-inspector --cli SERVER… ARGS…` (e.g. `--method tools/list`): its JSON answer. The
        server gets only `env` (passed with `-e`) beyond the Inspector's own few variables. It exits
        5 when a tool call's result is an error."""
        environment = {**self.env(), **(env or {})}
        pairs = [part for key, value in (env or {}).items() for part in ("-e", f"{key}={value}")]
        done = subprocess.run(
            [str(self.tools.inspector), "--cli", *pairs, *server, *args],
            cwd=cwd,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == exit_code, (
            f"mcp-inspector exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
        return json.loads(done.stdout)

    def turns(self) -> list[Recorded]:
        """The requests of the agent's conversation, in order (side calls left out)."""
        return [request for request in self.stub.requests if is_turn(request)]

    def left_the_machine(self) -> list[str]:
        """Requests that tried to go anywhere but the stub: through the proxy, or to the stub for
        anything but the Messages API."""
        strays = [f"proxy: {line}" for line in self.sink.attempts]
        return strays + [f"stub: {r.method} {r.path}" for r in self.stub.requests if r.dialect is None]


def claude_code(home: Path, **env: str) -> Iterator[ClaudeCode]:
    """A ClaudeCode with its stub and sink running (a fixture's body); skips where npm is absent."""
    import pytest

    try:
        tools = npm_tools()
    except Unavailable as why:
        pytest.skip(str(why))
    stub = AnthropicStub().start()
    sink = EgressSink().start()
    try:
        yield ClaudeCode(tools, home, stub, sink, dict(env))
    finally:
        stub.stop()
        sink.stop()


if __name__ == "__main__":  # `.ci/run`: install the clients before the tests start
    try:
        found = npm_tools()
    except Unavailable as why:
        print(f"claudekit: not installed: {why}; the tests that drive Claude Code will skip")
    else:
        print(f"claudekit: {found.claude} and {found.inspector} installed")
