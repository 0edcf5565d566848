"""One way to ask a model: the `Asker` interface, which runtime and model each agent uses, and cost.

Every agent (curator, consolidator, judge, deep dive, retractor, bootstrap) asks through `Asker.ask`,
which returns a validated pydantic value or `None` for "no usable answer" (a refusal, or an answer that
still does not fit the schema after one corrective retry). Transport failures that outlast the retries
raise `ModelCallError`, and the spending cap raises `SpendingCapError` before a call starts, so each
caller decides what an error means for its work (the judge fails closed, the curator stops drafting).

`ModelAsker` is the runtime-neutral pipeline: redact, check the cap, send, validate, retry once with
the validation error, count the cost, log a size-only event. Runtimes (`ModelRuntime`) only move a
request to a model and bring back a parsed value with its token usage; they live in the adapters.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from homeostat.core.config import AgentsConfig, Effort, Runtime
from homeostat.core.events import EventSink, ModelCall, Outcome, utcnow
from homeostat.core.pricing import call_cost, canonical_model, is_dearer, known_models, model_info
from homeostat.core.secrets import redact_secrets
from homeostat.errors import ConfigError, HomeostatError

T = TypeVar("T", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)


class Asker(Protocol):
    """Ask a model one question; get a value of `schema`, or `None` when there is no usable answer."""

    def ask(self, system: str, user: str, schema: type[T]) -> T | None: ...


# --- errors -------------------------------------------------------------------------------------


class SpendingCapError(HomeostatError):
    """The run's model spend reached its cap; raised before a call starts, never during one."""

    exit_code = 1

    def __init__(self, spent_usd: float, cap_usd: float, source: str) -> None:
        self.spent_usd = spent_usd
        self.cap_usd = cap_usd
        self.source = source
        super().__init__(
            f"spending cap reached: this run has spent {usd(spent_usd)} of the {usd(cap_usd)} allowed by "
            f"{source}, so no further model call was started (raise {source} to allow more)"
        )


def usd(amount: float) -> str:
    """Dollars to the cent, or to a hundredth of a cent below a dollar, where single calls live."""
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.4f}"


class ModelCallError(HomeostatError):
    """A model call failed for a reason the retries could not fix (rate limit, overload, 5xx, timeout)."""

    exit_code = 1

    def __init__(self, message: str, *, runtime: str, status: int | None = None) -> None:
        self.runtime = runtime
        self.status = status
        super().__init__(message)


def retries_exhausted_message(runtime: str, status: int | None, reason: str, tries: int, asked: float) -> str:
    """One wording for every runtime whose retries ran out (or whose server asked for too long a wait)."""
    word = {429: "rate limited", 529: "overloaded"}.get(status or 0, "answering with server errors")
    label = str(status) if status is not None else reason
    why = f"and asked for a {asked:.0f} s wait, longer than a run waits" if asked else f"after {tries} tries"
    return f"the {runtime} runtime is {word} ({label}) {why}; rerun later"


def timeout_message(runtime: str, timeout_seconds: float) -> str:
    return (
        f"the {runtime} runtime got no answer within agents.timeoutSeconds ({timeout_seconds:g} s); "
        "raise agents.timeoutSeconds or lower agents.effort"
    )


# --- which runtime and model an agent uses --------------------------------------------------------

AgentName = Literal["curator", "consolidator", "judge", "deep-dive", "retractor", "bootstrap"]
AGENT_NAMES: tuple[AgentName, ...] = (
    "curator",
    "consolidator",
    "judge",
    "deep-dive",
    "retractor",
    "bootstrap",
)
_ATTRIBUTE = {"deep-dive": "deep_dive"}
_YAML_KEY = {"deep-dive": "deepDive"}

OPUS_JUDGE = "claude-sonnet-5-5"
SMALL_JUDGE = "claude-haiku-4-5-20251001"


@dataclass(frozen=True)
class AgentChoice:
    agent: str
    runtime: Runtime
    model: str
    effort: Effort


def agent_name(name: str) -> AgentName:
    """Accept `deep-dive`, `deep_dive` or `deepDive`; a name outside the six agents is a bug."""
    normalized = name.replace("_", "-")
    if normalized == "deepDive":
        normalized = "deep-dive"
    for known in AGENT_NAMES:
        if known == normalized:
            return known
    raise ValueError(f"unknown agent {name!r}; expected one of {', '.join(AGENT_NAMES)}")


def resolve_agent(agent: str, agents: AgentsConfig) -> AgentChoice:
    """The runtime, model and effort `agent` uses under `agents`; unknown models are a ConfigError."""
    name = agent_name(agent)
    if name == "judge":
        return _resolve_judge(agents)
    settings = getattr(agents, _ATTRIBUTE.get(name, name))
    key = _YAML_KEY.get(name, name)
    model, path = (
        (settings.model, f"agents.{key}.model") if settings.model else (agents.model, "agents.model")
    )
    _require_known(model, path)
    return AgentChoice(name, settings.runtime or agents.runtime, model, settings.effort or agents.effort)


def default_judge_model(drafter_model: str) -> str:
    """One tier under the drafter (Sonnet under Opus, else Haiku 4.5), and never dearer than it."""
    info = model_info(drafter_model)
    candidate = OPUS_JUDGE if info is not None and info.family == "opus" else SMALL_JUDGE
    return drafter_model if is_dearer(candidate, drafter_model) else candidate


def _resolve_judge(agents: AgentsConfig) -> AgentChoice:
    drafter = resolve_agent("curator", agents)
    settings = agents.judge
    runtime = settings.runtime or drafter.runtime
    effort = settings.effort or agents.effort
    for model, path in (
        (agents.curator.judge_model, "agents.curator.judgeModel"),
        (settings.model, "agents.judge.model"),
    ):
        if model:
            _require_known(model, path)
            _require_not_dearer(model, path, drafter.model)
            return AgentChoice("judge", runtime, model, effort)
    return AgentChoice("judge", runtime, default_judge_model(drafter.model), effort)


def _require_known(model: str, path: str) -> None:
    if model_info(model) is None:
        raise ConfigError(
            f"homeostat.yaml {path}: unknown model {model!r}; Homeostat can price only "
            f"{', '.join(known_models())} (Bedrock and Vertex ids of these work too)"
        )


def _require_not_dearer(judge: str, path: str, drafter: str) -> None:
    if is_dearer(judge, drafter):
        judge_price = model_info(judge)
        drafter_price = model_info(drafter)
        assert judge_price is not None and drafter_price is not None
        raise ConfigError(
            f"homeostat.yaml {path}: the judge {judge} ({judge_price.price.per_million()} per million "
            f"tokens) costs more than the drafter {drafter} ({drafter_price.price.per_million()}); the "
            f"judge must not be dearer than the drafter: pick a cheaper model or remove {path} to use "
            f"{default_judge_model(drafter)}"
        )


# --- what a runtime does --------------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Tokens one call used; `cost_usd` is the runtime's own figure when it reports one."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float | None = None


@dataclass(frozen=True)
class ModelRequest(Generic[M]):
    system: str
    user: str
    schema: type[M]
    model: str
    effort: Effort | None  # None for a model that takes no effort setting
    timeout_seconds: float


ReplyOutcome = Literal["ok", "refusal", "invalid"]


@dataclass(frozen=True)
class ModelReply(Generic[M]):
    """What came back: a value (`ok`), a refusal, or an answer that did not fit (`problem` says why)."""

    outcome: ReplyOutcome
    usage: Usage
    value: M | None = None
    problem: str = ""


class ModelRuntime(Protocol):
    """Moves one request to a model and back. Raises `ModelCallError` when it cannot get an answer."""

    name: str

    def send(self, request: ModelRequest[T]) -> ModelReply[T]: ...


# --- cost -----------------------------------------------------------------------------------------


@dataclass
class Tally:
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    estimated: bool = False

    def add(self, usage: Usage, cost_usd: float, estimated: bool) -> None:
        self.calls += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cache_creation_tokens += usage.cache_creation_tokens
        self.cache_read_tokens += usage.cache_read_tokens
        self.cost_usd += cost_usd
        self.estimated = self.estimated or estimated

    def as_dict(self) -> dict[str, int | float | bool]:
        return {
            "calls": self.calls,
            "inputTokens": self.input_tokens,
            "outputTokens": self.output_tokens,
            "cacheCreationTokens": self.cache_creation_tokens,
            "cacheReadTokens": self.cache_read_tokens,
            "costUsd": round(self.cost_usd, 6),
            "estimated": self.estimated,
        }


@dataclass
class RunStats:
    """What a run's model calls used, in total and per agent; shared by every Asker of the run."""

    total: Tally = field(default_factory=Tally)
    by_agent: dict[str, Tally] = field(default_factory=dict)
    redactions: int = 0

    @property
    def cost_usd(self) -> float:
        return self.total.cost_usd

    @property
    def estimated(self) -> bool:
        return self.total.estimated

    def add(self, agent: str, usage: Usage, cost_usd: float, estimated: bool) -> None:
        self.total.add(usage, cost_usd, estimated)
        self.by_agent.setdefault(agent, Tally()).add(usage, cost_usd, estimated)

    def as_dict(self) -> dict[str, object]:
        return {
            **self.total.as_dict(),
            "redactions": self.redactions,
            "byAgent": {agent: tally.as_dict() for agent, tally in sorted(self.by_agent.items())},
        }


def price_call(model: str, usage: Usage) -> tuple[float, bool]:
    """(USD, estimated): the runtime's own figure when it gave one, else tokens at list price."""
    if usage.cost_usd is not None:
        return usage.cost_usd, False
    cost = call_cost(
        canonical_model(model),
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_creation_tokens=usage.cache_creation_tokens,
        cache_read_tokens=usage.cache_read_tokens,
    )
    return cost, True


@dataclass(frozen=True)
class SpendingCap:
    usd: float
    source: str  # the setting a person raises: agents.maxCostUsd or --max-cost

    def check(self, stats: RunStats) -> None:
        if stats.cost_usd >= self.usd:
            raise SpendingCapError(stats.cost_usd, self.usd, self.source)


def spending_cap(agents: AgentsConfig, max_cost_usd: float | None = None) -> SpendingCap:
    """The run's cap: a `--max-cost` override when given, else `agents.maxCostUsd`."""
    if max_cost_usd is not None:
        return SpendingCap(max_cost_usd, "--max-cost")
    return SpendingCap(agents.max_cost_usd, "agents.maxCostUsd")


# --- prompts --------------------------------------------------------------------------------------


def describe_validation_error(error: ValidationError) -> str:
    """A short, input-free account of why an answer did not fit, for the corrective prompt."""
    parts = []
    for item in error.errors(include_url=False, include_input=False, include_context=False):
        where = ".".join(str(part) for part in item["loc"])
        parts.append(f"{where}: {item['msg']}" if where else str(item["msg"]))
    text = "; ".join(parts) or str(error)
    return text if len(text) <= 1000 else text[:997] + "..."


def corrective_prompt(user: str, problem: str) -> str:
    """The retry's user prompt: the same question, plus why the last answer could not be used."""
    return (
        f"{user}\n\n---\nYour previous answer could not be used because it did not match the required JSON "
        f"schema: {problem}\nAnswer the same request again with a value that matches the schema exactly."
    )


def render_prompt(choice: AgentChoice, system: str, user: str, schema: type[BaseModel]) -> str:
    """How `--show-prompts` prints one prompt (already redacted)."""
    header = (
        f"=== {choice.agent}: {choice.runtime} runtime, {choice.model}, {choice.effort} effort, "
        f"answer schema {schema.__name__} ==="
    )
    return f"{header}\n--- system ---\n{system}\n--- user ---\n{user}\n=== end of prompt ===\n"


# --- the pipeline ---------------------------------------------------------------------------------


Redactor = Callable[[str], tuple[str, int]]


class ModelAsker:
    """An Asker over one runtime: redaction, cap, one corrective retry, cost and size-only events."""

    def __init__(
        self,
        runtime: ModelRuntime,
        choice: AgentChoice,
        stats: RunStats,
        *,
        cap: SpendingCap,
        timeout_seconds: float,
        sink: EventSink,
        redact: Redactor = redact_secrets,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utcnow,
    ) -> None:
        self.runtime = runtime
        self.choice = choice
        self.stats = stats
        self.cap = cap
        self.timeout_seconds = timeout_seconds
        self.sink = sink
        self._redact = redact
        self._clock = clock
        self._now = now

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        system = self._redacted(system)
        user = self._redacted(user)
        reply = self._call(system, user, schema)
        if reply.outcome != "invalid":
            return reply.value
        retry = self._call(system, self._redacted(corrective_prompt(user, reply.problem)), schema)
        return retry.value if retry.outcome == "ok" else None

    def _redacted(self, text: str) -> str:
        clean, found = self._redact(text)
        self.stats.redactions += found
        return clean

    def _call(self, system: str, user: str, schema: type[T]) -> ModelReply[T]:
        self.cap.check(self.stats)
        request = ModelRequest(system, user, schema, self.choice.model, self._effort(), self.timeout_seconds)
        started = self._clock()
        try:
            reply = self.runtime.send(request)
        except Exception:
            self._record(Usage(), 0.0, True, started, "error")
            raise
        cost, estimated = price_call(self.choice.model, reply.usage)
        self.stats.add(self.choice.agent, reply.usage, cost, estimated)
        self._record(reply.usage, cost, estimated, started, reply.outcome)
        return reply

    def _effort(self) -> Effort | None:
        info = model_info(self.choice.model)
        return self.choice.effort if info is not None and info.effort else None

    def _record(self, usage: Usage, cost: float, estimated: bool, started: float, outcome: Outcome) -> None:
        event = ModelCall(
            runtime=self.runtime.name,
            model=self.choice.model,
            agent=self.choice.agent,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_creation_tokens=usage.cache_creation_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cost_usd=round(cost, 6),
            estimated=estimated,
            duration_ms=max(0, round((self._clock() - started) * 1000)),
            outcome=outcome,
        )
        self.sink.record(event.to_event(self._now()))
