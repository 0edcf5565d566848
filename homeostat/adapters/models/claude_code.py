"""The claude-code runtime: `claude -p` as a subprocess, on the team member's own Claude plan.

One call is one `claude -p --output-format json --json-schema <schema>` run with every tool off
(`--tools ""`, and `--strict-mcp-config` so no configured MCP server is mounted either), no saved
session, the system prompt replaced, and the (redacted) user prompt on stdin rather than in argv, so
it never shows in a process list. It runs in an empty temporary directory, so no CLAUDE.md from a
checkout is read into the prompt, with `HOMEOSTAT_AGENT=1` so Homeostat's own plugin stays out of the
way, and without the code-host and Slack tokens in its environment. The CLI's own `total_cost_usd` is
the call's cost; the CLI reports API failures as `API Error: <status> …`, and 429, 529 and 5xx are
retried here like the SDK runtimes do.

Several calls run at once as separate `claude -p` processes (one per worker of the run's pool,
`agents.concurrency.claudeCode`). Each runs in its own process group, out of reach of a signal sent
to the run's, so a run that is stopped ends the ones still running itself (`stop_running`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from homeostat.adapters.hosts.http_retry import RetriesExhausted, RetryPolicy, Transient, transient_status
from homeostat.adapters.process_group import signal_group
from homeostat.core.asker import (
    ModelCallError,
    ModelReply,
    ModelRequest,
    Usage,
    describe_validation_error,
    retries_exhausted_message,
    timeout_message,
)
from homeostat.core.config import AgentsConfig
from homeostat.errors import ConfigError

T = TypeVar("T", bound=BaseModel)

CLAUDE_COMMAND = "claude"
_API_ERROR = re.compile(r"API Error:?\s*\(?(\d{3})\b")
_log = logging.getLogger(__name__)
# Tokens of the code hosts and Slack never reach the model's process; its own credentials do.
_WITHHELD_PREFIXES = ("HOMEOSTAT_", "GITHUB_", "GH_", "BITBUCKET_", "SLACK_")
_running: set[subprocess.Popen[str]] = set()
_running_lock = threading.Lock()


def stop_running() -> int:
    """End every `claude -p` this process started that is still running; how many there were."""
    with _running_lock:
        processes = list(_running)
    for process in processes:
        with contextlib.suppress(PermissionError):
            signal_group(process.pid, signal.SIGKILL)
    return len(processes)


def claude_arguments(command: str, request: ModelRequest[Any]) -> list[str]:
    """The argv of one call; the user prompt goes to stdin."""
    effort = ["--effort", request.effort] if request.effort else []
    return [
        command,
        "-p",
        "--output-format",
        "json",
        "--json-schema",
        json.dumps(request.schema.model_json_schema(), separators=(",", ":")),
        "--model",
        request.model,
        *effort,
        "--system-prompt",
        request.system,
        "--tools",
        "",
        "--strict-mcp-config",
        "--no-session-persistence",
    ]


def child_environment(env: Mapping[str, str]) -> dict[str, str]:
    kept = {name: value for name, value in env.items() if not name.startswith(_WITHHELD_PREFIXES)}
    kept["HOMEOSTAT_AGENT"] = "1"
    return kept


def parse_envelope(stdout: str) -> dict[str, Any] | None:
    """The CLI's JSON result object: the whole output, or its last JSON line."""
    for candidate in (stdout, *reversed(stdout.strip().splitlines())):
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def envelope_usage(envelope: Mapping[str, Any]) -> Usage:
    raw = envelope.get("usage")
    usage = raw if isinstance(raw, dict) else {}
    cost = envelope.get("total_cost_usd")
    return Usage(
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cache_creation_tokens=int(usage.get("cache_creation_input_tokens") or 0),
        cache_read_tokens=int(usage.get("cache_read_input_tokens") or 0),
        cost_usd=float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
    )


def api_error_status(envelope: Mapping[str, Any]) -> int | None:
    """The HTTP status behind an `is_error` result, when the CLI names one."""
    if not envelope.get("is_error"):
        return None
    status = envelope.get("api_error_status")
    if isinstance(status, int):
        return status
    match = _API_ERROR.search(str(envelope.get("result", "")))
    return int(match.group(1)) if match else None


def envelope_reply(envelope: Mapping[str, Any], schema: type[T]) -> ModelReply[T]:
    """Turn a finished (non-error) CLI result into a reply."""
    usage = envelope_usage(envelope)
    if envelope.get("stop_reason") == "refusal":
        return ModelReply("refusal", usage)
    if "structured_output" in str(envelope.get("subtype", "")):
        return ModelReply(
            "invalid", usage, problem="Claude Code could not produce an answer matching the schema"
        )
    answer = envelope.get("structured_output")
    if answer is None:
        return ModelReply("invalid", usage, problem="the answer carried no structured output")
    try:
        return ModelReply("ok", usage, value=schema.model_validate(answer))
    except ValidationError as err:
        return ModelReply("invalid", usage, problem=describe_validation_error(err))


class CliApiError(Exception):
    """The CLI ran but reported an API failure (`is_error`), with the HTTP status when it names one."""

    def __init__(self, envelope: Mapping[str, Any]) -> None:
        self.status = api_error_status(envelope)
        self.result = " ".join(str(envelope.get("result", "")).split())[:300]
        super().__init__(self.result)


def transient(err: BaseException) -> Transient | None:
    if isinstance(err, CliApiError) and err.status is not None:
        return transient_status(err.status, None)
    return None


class ClaudeCodeRuntime:
    name = "claude-code"

    def __init__(self, command: str, *, env: Mapping[str, str], retry: RetryPolicy) -> None:
        self.command = command
        self.env = child_environment(env)
        self.retry = retry

    def send(self, request: ModelRequest[T]) -> ModelReply[T]:
        args = claude_arguments(self.command, request)

        def attempt(_try: int) -> dict[str, Any]:
            envelope = self._run(args, request.user, request.timeout_seconds)
            if envelope.get("is_error"):
                raise CliApiError(envelope)
            return envelope

        try:
            envelope = self.retry.run(attempt, transient, what="claude-code model call", log=_log)
        except RetriesExhausted as err:
            status = err.last.status if isinstance(err.last, CliApiError) else None
            text = retries_exhausted_message(self.name, status, err.transient.reason, err.attempts, err.asked)
            raise ModelCallError(text, runtime=self.name, status=status) from err
        except CliApiError as err:
            raise self._error(err) from err
        return envelope_reply(envelope, request.schema)

    def _error(self, err: CliApiError) -> ModelCallError:
        if err.status in (401, 403) or "login" in err.result.lower():
            text = (
                f"the claude-code runtime is not logged in ({err.result}); run `claude` and log in, "
                "or set ANTHROPIC_API_KEY"
            )
        else:
            text = f"the claude-code runtime failed: {err.result or 'no result'}"
        return ModelCallError(text, runtime=self.name, status=err.status)

    def _run(self, args: list[str], stdin: str, timeout: float) -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="homeostat-claude-") as workdir:
            process = subprocess.Popen(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=workdir,
                env=self.env,
                text=True,
                start_new_session=True,
            )
            with _running_lock:
                _running.add(process)
            try:
                stdout, stderr = process.communicate(stdin, timeout=timeout)
            except subprocess.TimeoutExpired as err:
                _kill_group(process)
                raise ModelCallError(timeout_message(self.name, timeout), runtime=self.name) from err
            finally:
                with _running_lock:
                    _running.discard(process)
        envelope = parse_envelope(stdout)
        if envelope is None:
            first = next((line for line in stderr.splitlines() if line.strip()), "no output")
            raise ModelCallError(
                f"the claude-code runtime's claude exited with {process.returncode} and no JSON result: "
                f"{first[:300]}",
                runtime=self.name,
            )
        return envelope


def _kill_group(process: subprocess.Popen[str]) -> None:
    signal_group(process.pid, signal.SIGKILL)
    process.communicate()


def claude_code_runtime(
    agents: AgentsConfig, env: Mapping[str, str], retry: RetryPolicy
) -> ClaudeCodeRuntime:
    command = shutil.which(CLAUDE_COMMAND, path=env.get("PATH"))
    if command is None:
        raise ConfigError(
            "the claude-code runtime needs the claude CLI on PATH: install Claude Code and log in, "
            "or set agents.runtime to api, bedrock or vertex"
        )
    return ClaudeCodeRuntime(command, env=env, retry=retry)
