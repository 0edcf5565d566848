"""The bench's two kinds of model call, each checked against the budget before it starts.

An agent turn is `claude -p` in the task's folder with the plugin off (turned off for that call with
`--settings`, and `HOMEOSTAT_AGENT=1` so its hooks would stay quiet anyway) or on (as the user
installed it). A verdict is one judge call through the claude-code runtime, on another model, with
every tool off. Both count what they cost in the run's ledger; a rate or usage limit, a budget that
would be passed, or an API error stops the run (`BenchStop`) before anything half-done is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from homeostat.adapters.models.claude_headless import (
    ClaudeRunError,
    HeadlessClaude,
    SessionTotals,
    Turn,
    settings_json,
)
from homeostat.core.asker import ModelCallError, ModelRequest, ModelRuntime, Usage, corrective_prompt, usd
from homeostat.core.bench.cost import Estimator
from homeostat.core.bench.grading import JUDGE_SYSTEM, Verdict
from homeostat.core.bench.results import Call, Role
from homeostat.core.bench.tasks import Task
from homeostat.core.cost.pricing import call_cost, canonical_model, model_info
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.errors import ConfigError

StopReason = Literal["budget", "rate-limit", "api-error", "failed"]
JUDGE_TIMEOUT_SECONDS = 600.0
MCP_SERVER = "homeostat"  # the server name in the plugin's .mcp.json
# Credentials the agent has no use for in a bench, kept out of both conditions alike.
_WITHHELD_PREFIXES = ("GITHUB_", "GH_", "BITBUCKET_", "SLACK_")
_WITHHELD_WORDS = ("TOKEN", "SECRET", "PASSWORD", "WEBHOOK")


class BenchStop(Exception):
    """The run stops here, cleanly: what is recorded stays, and a rerun goes on from it."""

    def __init__(self, reason: StopReason, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


@dataclass
class Ledger:
    """What this run has spent, against `--budget`."""

    budget: float | None
    spent: float = 0.0
    calls: list[Call] = field(default_factory=list)

    def check(self, estimate: float, what: str) -> None:
        if self.budget is not None and self.spent + estimate > self.budget:
            raise BenchStop(
                "budget",
                f"the next call ({what}) is estimated at {usd(estimate)} and this run has spent "
                f"{usd(self.spent)} of --budget {usd(self.budget)}",
            )

    def remaining(self) -> float | None:
        return None if self.budget is None else max(0.0, self.budget - self.spent)

    def spend(self, call: Call) -> None:
        self.spent += call.cost_usd
        self.calls.append(call)


@dataclass(frozen=True)
class Caller:
    """Everything a call needs: the two ways to call, what they cost so far, and the run's settings."""

    claude: HeadlessClaude
    judge: ModelRuntime
    judge_model: str
    model: str | None
    plugin: str
    kb: Path
    env: Mapping[str, str]
    estimator: Estimator
    ledger: Ledger

    def agent(
        self,
        task: Task,
        condition: str,
        cwd: Path,
        prompt: str,
        role: Role,
        resume: tuple[str, SessionTotals] | None = None,
    ) -> tuple[Turn, Call]:
        estimate = self.estimator.estimate(condition, role, count_tokens(prompt))
        self.ledger.check(estimate, f"{role} for {task.id}, plugin {condition}")
        remaining = self.ledger.remaining()
        # Claude Code caps a resumed session by its whole cost so far: allow that plus what is left.
        cap = None if remaining is None else remaining + (resume[1].cost_usd if resume else 0.0)
        try:
            turn = self.claude.turn(
                prompt,
                cwd=cwd,
                args=agent_args(task, condition, model=self.model, plugin=self.plugin, cap=cap),
                env=condition_env(self.env, condition, self.kb),
                resume=resume,
            )
        except ClaudeRunError as err:
            raise BenchStop("failed", str(err)) from err
        call = Call(
            role=role,
            models=turn.models,
            input_tokens=turn.input_tokens,
            output_tokens=turn.output_tokens,
            cache_creation_tokens=turn.cache_creation_tokens,
            cache_read_tokens=turn.cache_read_tokens,
            cost_usd=turn.cost_usd,
            estimate_usd=estimate,
        )
        self.ledger.spend(call)
        if turn.outcome == "rate-limited":
            raise BenchStop("rate-limit", f"Claude Code is rate limited ({turn.message})")
        if turn.outcome == "budget":
            raise BenchStop(
                "budget",
                f"Claude Code stopped a session at what was left of --budget {usd(self.ledger.budget or 0)} "
                f"({turn.message})",
            )
        if turn.outcome == "api-error":
            raise BenchStop("api-error", f"Claude Code reported an API error ({turn.message})")
        self.estimator.add(condition, role, turn.cost_usd)
        self._other_model(turn.models)
        return turn, call

    def verdict(self, condition: str, prompt: str) -> tuple[Verdict | None, list[Call]]:
        """The judge's score, with one corrective retry for an answer that did not fit the schema."""
        calls: list[Call] = []
        user = prompt
        for _attempt in range(2):
            estimate = self.estimator.estimate(condition, "judge", count_tokens(JUDGE_SYSTEM + user))
            self.ledger.check(estimate, f"judge, plugin {condition}")
            request = ModelRequest(JUDGE_SYSTEM, user, Verdict, self.judge_model, None, JUDGE_TIMEOUT_SECONDS)
            try:
                reply = self.judge.send(request)
            except ModelCallError as err:
                reason: StopReason = "rate-limit" if err.status == 429 else "api-error"
                raise BenchStop(reason, f"the judge call failed: {err}") from err
            call = self._judge_call(reply.usage, estimate)
            self.ledger.spend(call)
            self.estimator.add(condition, "judge", call.cost_usd)
            calls.append(call)
            if reply.outcome != "invalid":
                return reply.value, calls
            user = corrective_prompt(prompt, reply.problem)
        return None, calls

    def _judge_call(self, usage: Usage, estimate: float) -> Call:
        cost = usage.cost_usd
        if cost is None and model_info(self.judge_model) is not None:
            cost = call_cost(
                self.judge_model,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                cache_creation_tokens=usage.cache_creation_tokens,
                cache_read_tokens=usage.cache_read_tokens,
            )
        return Call(
            role="judge",
            models=(self.judge_model,),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_creation_tokens=usage.cache_creation_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cost_usd=cost or 0.0,
            estimate_usd=estimate,
        )

    def _other_model(self, models: tuple[str, ...]) -> None:
        if canonical_model(self.judge_model) in {canonical_model(model) for model in models}:
            raise ConfigError(
                f"the judge model {self.judge_model} is the model the agent ran on: a judge grades "
                "another model's answers; pass --judge-model with another model"
            )


def agent_args(task: Task, condition: str, *, model: str | None, plugin: str, cap: float | None) -> list[str]:
    """`claude -p`'s options for one agent turn; the two conditions differ only in the plugin."""
    args = ["--model", model] if model else []
    if task.kind == "code":
        args += ["--permission-mode", "acceptEdits"]  # edits inside the worktree, as a user accepts them
    else:
        args += ["--no-session-persistence"]
    allowed = [*task.tools, *([plugin_tools(plugin)] if condition == "on" else [])]
    if allowed:
        args += ["--allowedTools", ",".join(allowed)]
    if condition == "off":
        args += ["--settings", settings_json(plugin)]
    if cap is not None:
        args += ["--max-budget-usd", f"{cap:.6f}"]
    return args


def plugin_tools(plugin: str) -> str:
    """The prefix of the plugin's MCP tools (`mcp__plugin_<name>_<server>`), allowed when it is on."""
    return f"mcp__plugin_{plugin.split('@', 1)[0]}_{MCP_SERVER}"


def condition_env(env: Mapping[str, str], condition: str, kb: Path) -> dict[str, str]:
    """The agent's environment: the user's, without host and Slack credentials, and with the plugin's
    hooks told to stay out (`HOMEOSTAT_AGENT=1`, off) or pointed at the KB (`HOMEOSTAT_DIR`, on)."""
    kept = {
        name: value
        for name, value in env.items()
        if not name.startswith(_WITHHELD_PREFIXES)
        and not (name.startswith("HOMEOSTAT_") and any(word in name for word in _WITHHELD_WORDS))
        and name != "HOMEOSTAT_AGENT"
    }
    if condition == "off":
        kept["HOMEOSTAT_AGENT"] = "1"
    else:
        kept["HOMEOSTAT_DIR"] = str(kb)
    return kept
