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

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from homeostat.core.config import AgentsConfig, Effort, Runtime
from homeostat.core.cost.pricing import call_cost, canonical_model, is_dearer, known_models, model_info
from homeostat.core.cost.spending import (
    CHARS_PER_TOKEN,
    OUTPUT_ALLOWANCE,
    Ledger,
    SpendingCap,
    SpendingCapError,
    Ticket,
    current_work,
    usd,
)
from homeostat.core.events import EventSink, ModelCall, Outcome, utcnow
from homeostat.core.safety.secrets import redact_secrets
from homeostat.core.state.checkpoints import AnswerMemory
from homeostat.errors import ConfigError, HomeostatError

__all__ = ["SpendingCap", "SpendingCapError", "usd"]  # re-exported: every caller imports them from here

T = TypeVar("T", bound=BaseModel)
M = TypeVar("M", bound=BaseModel)
V = TypeVar("V")


class Asker(Protocol):
    """Ask a model one question; get a value of `schema`, or `None` when there is no usable answer."""

    def ask(self, system: str, user: str, schema: type[T]) -> T | None: ...


@dataclass(frozen=True)
class Question(Generic[T]):
    system: str
    user: str
    schema: type[T]


@dataclass(frozen=True)
class Answered(Generic[V]):
    """One question's outcome in a batch: its answer, or the error asking it raised."""

    value: V | None = None
    error: BaseException | None = None

    def get(self) -> V | None:
        """The answer, raising what the ask raised, as a call in the caller's own loop would have."""
        if self.error is not None:
            raise self.error
        return self.value


def ask_each(asker: Asker, questions: Sequence[Question[T]]) -> list[Answered[T]]:
    """Ask every question and hand back the outcomes in order: at once on a pooled asker (see
    homeostat.runs.model_pool), one after the other on any other. A caller applies them in order, so
    what it decides is the same either way."""
    many = getattr(asker, "ask_each", None)
    if callable(many):
        answered: list[Answered[T]] = many(questions)
        return answered
    outcomes: list[Answered[T]] = []
    for question in questions:
        try:
            outcomes.append(Answered(asker.ask(question.system, question.user, question.schema)))
        except Exception as exc:  # noqa: BLE001 - handed back to the caller, who raises it in its place
            outcomes.append(Answered(error=exc))
    return outcomes


# --- errors -------------------------------------------------------------------------------------


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
    """What a run's model calls used, in total and per agent; shared by every Asker of the run, and
    by every worker asking for it at once. `ledger` holds the spend against the cap and what running
    calls have set aside; `memory`, when the run keeps one, the answers it already paid for; `seal`,
    the key those answers are sealed with (`core.state.checkpoints.seal_key`)."""

    total: Tally = field(default_factory=Tally)
    by_agent: dict[str, Tally] = field(default_factory=dict)
    redactions: int = 0
    ledger: Ledger = field(default_factory=Ledger, repr=False, compare=False)
    memory: AnswerMemory | None = field(default=None, repr=False, compare=False)
    seal: bytes | None = field(default=None, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def cost_usd(self) -> float:
        return self.total.cost_usd

    @property
    def estimated(self) -> bool:
        return self.total.estimated

    def add(self, agent: str, usage: Usage, cost_usd: float, estimated: bool) -> None:
        with self._lock:
            self.total.add(usage, cost_usd, estimated)
            self.by_agent.setdefault(agent, Tally()).add(usage, cost_usd, estimated)

    def count_redactions(self, found: int) -> None:
        with self._lock:
            self.redactions += found

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


def call_estimate(model: str, prompt_chars: int) -> float:
    """A call's cost before it is sent: its prompt's tokens (a generous count) and a usual answer, at
    list price."""
    return call_cost(
        canonical_model(model),
        input_tokens=int(prompt_chars / CHARS_PER_TOKEN),
        output_tokens=OUTPUT_ALLOWANCE,
        cache_creation_tokens=0,
        cache_read_tokens=0,
    )


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
    """An Asker over one runtime: redaction, memory, cap, one corrective retry, cost and size-only
    events. Safe to call from several workers at once (the run's stats and ledger are shared)."""

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
        self._sink_lock = threading.Lock()

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        system = self._redacted(system)
        user = self._redacted(user)
        memory = self.stats.memory
        key = (
            memory.key(f"{self.choice.agent}|{self.choice.model}", schema.__name__, system, user)
            if memory
            else ""
        )
        if memory is not None:
            recalled = memory.recall(key, schema)
            if recalled is not None:
                self._reserve_recalled(system, user)
                return recalled
        value = self._answer(system, user, schema)
        if memory is not None and value is not None:
            work = current_work()
            memory.remember(
                key, value, agent=self.choice.agent, work=work.key if work else "", at=self._now()
            )
        return value

    def _answer(self, system: str, user: str, schema: type[T]) -> T | None:
        reply = self._call(system, user, schema)
        if reply.outcome != "invalid":
            return reply.value
        retry = self._call(system, self._redacted(corrective_prompt(user, reply.problem)), schema)
        return retry.value if retry.outcome == "ok" else None

    def _reserve_recalled(self, system: str, user: str) -> None:
        """A recalled answer costs nothing, but work that starts with it still sets aside the calls
        it will need next (a recalled draft's consolidation and judge)."""
        work = current_work()
        if work is not None and work.follow_ups:
            ticket = self.stats.ledger.begin_call(self.cap, self._estimate(system, user), work)
            self.stats.ledger.end_call(ticket, 0.0)

    def _redacted(self, text: str) -> str:
        clean, found = self._redact(text)
        if found:
            self.stats.count_redactions(found)
        return clean

    def _estimate(self, system: str, user: str) -> float:
        """What the agent's calls have cost on average, once one has been priced; a guess before."""
        mean = self.stats.ledger.mean_cost(self.choice.agent)
        return mean if mean > 0 else call_estimate(self.choice.model, len(system) + len(user))

    def _call(self, system: str, user: str, schema: type[T]) -> ModelReply[T]:
        ledger = self.stats.ledger
        ticket: Ticket = ledger.begin_call(
            self.cap, self._estimate(system, user), current_work(), self.choice.agent
        )
        request = ModelRequest(system, user, schema, self.choice.model, self._effort(), self.timeout_seconds)
        started = self._clock()
        try:
            reply = self.runtime.send(request)
        except BaseException:
            ledger.end_call(ticket, 0.0)
            self._record(Usage(), 0.0, True, started, "error")
            raise
        cost, estimated = price_call(self.choice.model, reply.usage)
        ledger.end_call(ticket, cost, priced=True)
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
        with self._sink_lock:
            self.sink.record(event.to_event(self._now()))
