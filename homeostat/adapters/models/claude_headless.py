"""One agent turn of headless Claude Code, `claude -p`, as a developer's session runs it (for bench).

Unlike the claude-code model runtime (`adapters/models/claude_code.py`, tools off, a temporary folder), this
is the whole agent: its tools, the settings and plugins of the user's HOME, in the folder given. The
prompt goes on stdin, so it never shows in a process list. The process stays in our process group,
so a Ctrl-C in the terminal stops it with the bench.

`claude -p --output-format json` reports a resumed session's cost and per-model tokens as totals
for the whole session, so a turn's own share is its totals minus those of the session before it.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from homeostat.adapters.models.claude_code import api_error_status, parse_envelope
from homeostat.errors import HomeostatError

Outcome = Literal["ok", "rate-limited", "budget", "api-error"]
_LIMITED = re.compile(r"rate.?limit|usage limit|hit your limit|quota", re.I)
_TOKEN_KEYS = (
    ("inputTokens", "input"),
    ("outputTokens", "output"),
    ("cacheCreationInputTokens", "cache_write"),
    ("cacheReadInputTokens", "cache_read"),
)


class ClaudeRunError(HomeostatError):
    """`claude` could not run or gave no result at all (not an API error it reported)."""

    exit_code = 1


@dataclass(frozen=True)
class SessionTotals:
    """What a session has used so far, as `claude -p` reports it after each turn."""

    cost_usd: float = 0.0
    tokens: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # model -> kind -> count


@dataclass(frozen=True)
class Turn:
    outcome: Outcome
    session_id: str
    result: str
    cost_usd: float  # this turn's own
    input_tokens: int
    output_tokens: int
    cache_creation_tokens: int
    cache_read_tokens: int
    models: tuple[str, ...]
    totals: SessionTotals
    status: int | None = None
    message: str = ""


@dataclass(frozen=True)
class HeadlessClaude:
    command: str
    timeout_seconds: float = 1800.0

    def turn(
        self,
        prompt: str,
        *,
        cwd: Path,
        args: Sequence[str],
        env: Mapping[str, str],
        resume: tuple[str, SessionTotals] | None = None,
    ) -> Turn:
        argv = [self.command, "-p", "--output-format", "json", *args]
        if resume is not None:
            argv += ["--resume", resume[0]]
        process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            text=True,
        )
        try:
            stdout, stderr = process.communicate(prompt, timeout=self.timeout_seconds)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
            raise ClaudeRunError(
                f"claude -p gave no answer within {self.timeout_seconds:g} s in {cwd}; it was stopped"
            ) from None
        envelope = parse_envelope(stdout)
        if envelope is None or envelope.get("type") != "result":
            first = next((line for line in stderr.splitlines() if line.strip()), "no output")
            raise ClaudeRunError(
                f"claude -p exited with {process.returncode} and no JSON result: {first[:300]}"
            )
        return read_turn(envelope, resume[1] if resume else SessionTotals())


def read_turn(envelope: Mapping[str, Any], before: SessionTotals) -> Turn:
    """A result envelope as one turn: its outcome, and its own share of the session's cost and tokens."""
    totals = session_totals(envelope)
    own: dict[str, int] = {name: 0 for _, name in _TOKEN_KEYS}
    for model, counts in totals.tokens.items():
        earlier = before.tokens.get(model, {})
        for _, name in _TOKEN_KEYS:
            own[name] += max(0, counts.get(name, 0) - earlier.get(name, 0))
    status = api_error_status(envelope)
    result = str(envelope.get("result") or "")
    return Turn(
        outcome=_outcome(envelope, status, result),
        session_id=str(envelope.get("session_id") or ""),
        result=result,
        cost_usd=max(0.0, totals.cost_usd - before.cost_usd),
        input_tokens=own["input"],
        output_tokens=own["output"],
        cache_creation_tokens=own["cache_write"],
        cache_read_tokens=own["cache_read"],
        models=tuple(sorted(totals.tokens)),
        totals=totals,
        status=status,
        message=" ".join(result.split())[:300] or "; ".join(map(str, envelope.get("errors") or []))[:300],
    )


def session_totals(envelope: Mapping[str, Any]) -> SessionTotals:
    cost = envelope.get("total_cost_usd")
    usage = envelope.get("modelUsage")
    tokens: dict[str, dict[str, int]] = {}
    for model, counts in (usage if isinstance(usage, dict) else {}).items():
        if isinstance(counts, dict):
            tokens[str(model)] = {name: _count(counts.get(key)) for key, name in _TOKEN_KEYS}
    return SessionTotals(float(cost) if isinstance(cost, (int, float)) else 0.0, tokens)


def _count(value: object) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _outcome(envelope: Mapping[str, Any], status: int | None, result: str) -> Outcome:
    if envelope.get("subtype") == "error_max_budget_usd":
        return "budget"
    if not envelope.get("is_error"):
        return "ok"
    if status == 429 or (status is None and _LIMITED.search(result)):
        return "rate-limited"
    if str(envelope.get("subtype", "")).startswith("error_") and status is None:
        return "ok"  # the session's own limit (error_max_turns, …): its work is graded as it stands
    return "api-error"


def settings_json(plugin: str) -> str:
    """The `--settings` value that turns one plugin off for a single call."""
    return json.dumps({"enabledPlugins": {plugin: False}}, separators=(",", ":"))
