"""How an agent gets its Asker: `asker_for(agent, config, stats, sink=…)`.

The registry maps each `agents.runtime` value to the adapter that implements it. The runtime's client
is built here, so a missing key, region, project, extra or CLI is a `ConfigError` before any call,
naming what to set. `--show-prompts` swaps the runtime for a printer that sends nothing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TextIO, TypeVar

from pydantic import BaseModel

from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.adapters.models.anthropic_runtime import api_runtime, bedrock_runtime, vertex_runtime
from homeostat.adapters.models.claude_code import claude_code_runtime
from homeostat.adapters.models.pacing import MODEL_RETRY
from homeostat.core.asker import (
    AgentChoice,
    Asker,
    ModelAsker,
    ModelRuntime,
    Redactor,
    RunStats,
    render_prompt,
    resolve_agent,
    spending_cap,
)
from homeostat.core.config import AgentsConfig, Config, Runtime
from homeostat.core.events import EventSink
from homeostat.core.safety.secrets import redact_secrets

T = TypeVar("T", bound=BaseModel)

RuntimeFactory = Callable[[AgentsConfig, Mapping[str, str], RetryPolicy], ModelRuntime]

RUNTIMES: dict[Runtime, RuntimeFactory] = {
    "api": api_runtime,
    "bedrock": bedrock_runtime,
    "vertex": vertex_runtime,
    "claude-code": claude_code_runtime,
}


class PromptPrinter:
    """`--show-prompts`: prints each prompt a run would send, after redaction, and sends nothing."""

    def __init__(self, choice: AgentChoice, stream: TextIO, redact: Redactor = redact_secrets) -> None:
        self.choice = choice
        self.stream = stream
        self._redact = redact

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        system, _ = self._redact(system)
        user, _ = self._redact(user)
        self.stream.write(render_prompt(self.choice, system, user, schema))
        self.stream.flush()
        return None


def asker_for(
    agent: str,
    config: Config | AgentsConfig,
    stats: RunStats,
    *,
    sink: EventSink,
    max_cost_usd: float | None = None,
    show_prompts: TextIO | None = None,
    env: Mapping[str, str] | None = None,
    retry: RetryPolicy | None = None,
) -> Asker:
    """The Asker `agent` uses under `config`, counting into `stats` and logging to `sink`.

    `max_cost_usd` is a `--max-cost` override of `agents.maxCostUsd`; `show_prompts` prints instead of
    sending; `env` defaults to the process environment; `retry` to the model calls' retry policy,
    which waits out a rate limit's `retry-after` of minutes (see homeostat.adapters.models.pacing).
    """
    agents = config.agents if isinstance(config, Config) else config
    choice = resolve_agent(agent, agents)
    if show_prompts is not None:
        return PromptPrinter(choice, show_prompts)
    runtime = RUNTIMES[choice.runtime](agents, os.environ if env is None else env, retry or MODEL_RETRY)
    return ModelAsker(
        runtime,
        choice,
        stats,
        cap=spending_cap(agents, max_cost_usd),
        timeout_seconds=float(agents.timeout_seconds),
        sink=sink,
    )


def run_asker_for(
    config: Config,
    stats: RunStats,
    *,
    sink: EventSink,
    max_cost_usd: float | None,
    show_prompts: TextIO | None,
    env: Mapping[str, str],
) -> Callable[[str], Asker]:
    """A multi-step run's asker per agent: every step's calls share the run's stats, event sink,
    spending cap and --show-prompts choice, so the cap and the cost report cover the whole run."""

    def ask(agent: str) -> Asker:
        return asker_for(
            agent, config, stats, sink=sink, max_cost_usd=max_cost_usd, show_prompts=show_prompts, env=env
        )

    return ask
