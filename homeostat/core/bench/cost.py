"""What a bench call is expected to cost before it runs, so `--budget` is checked before spending.

Before the first call of a kind the estimate is a prior: Claude Code's own context (its system
prompt and tool definitions, written to the prompt cache once and read back on each later turn of
the session) plus the task's prompt, at the model's list price, or at the dearest listed price when
the model is Claude Code's default or one the table does not know. Once calls of that kind have
run (in this run or an earlier one, read back from the results), the estimate is their mean actual
cost. The report sets the estimates beside what the calls cost, so a team sees how far off they were.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from homeostat.core.bench.results import Record, Role
from homeostat.core.cost.pricing import MODELS, Price, call_cost, model_info

# A prior for one agent call of `claude -p`: its context written to the cache once and read on
# about two more turns, the prompt, and the answer.
AGENT_CONTEXT_TOKENS = 20_000
AGENT_CACHE_READ_TOKENS = 40_000
AGENT_EXTRA_INPUT_TOKENS = 2_000
AGENT_OUTPUT_TOKENS = 1_500
# A judge call: our system prompt and the structured-output tool, twice (the tool call and its end).
JUDGE_OVERHEAD_TOKENS = 1_000
JUDGE_TURNS = 2
JUDGE_OUTPUT_TOKENS = 400


def _price(model: str | None) -> Price:
    info = model_info(model) if model else None
    if info is not None:
        return info.price
    return max((known.price for known in MODELS.values()), key=lambda price: (price.input, price.output))


def _dollars(price: Price, *, fresh: int, output: int, cache_write: int = 0, cache_read: int = 0) -> float:
    return (
        fresh * price.input
        + output * price.output
        + cache_write * price.cache_write
        + cache_read * price.cache_read
    ) / 1_000_000


def agent_prior(model: str | None, prompt_tokens: int) -> float:
    return _dollars(
        _price(model),
        fresh=prompt_tokens + AGENT_EXTRA_INPUT_TOKENS,
        output=AGENT_OUTPUT_TOKENS,
        cache_write=AGENT_CONTEXT_TOKENS,
        cache_read=AGENT_CACHE_READ_TOKENS,
    )


def judge_prior(model: str, prompt_tokens: int) -> float:
    if model_info(model) is not None:
        return JUDGE_TURNS * call_cost(
            model, input_tokens=prompt_tokens + JUDGE_OVERHEAD_TOKENS, output_tokens=JUDGE_OUTPUT_TOKENS // 2
        )
    return _dollars(
        _price(None), fresh=JUDGE_TURNS * (prompt_tokens + JUDGE_OVERHEAD_TOKENS), output=JUDGE_OUTPUT_TOKENS
    )


@dataclass
class Estimator:
    """Estimates per (condition, role), learning from every call that has run."""

    agent_model: str | None
    judge_model: str
    _seen: dict[tuple[str, Role], list[float]] = field(default_factory=lambda: defaultdict(list))

    def learn(self, condition: str, records: Iterable[Record]) -> None:
        for record in records:
            for call in record.calls:
                self.add(condition, call.role, call.cost_usd)

    def add(self, condition: str, role: Role, cost_usd: float) -> None:
        # The judge does the same work whichever condition produced the answer.
        self._seen[("*" if role == "judge" else condition, role)].append(cost_usd)

    def estimate(self, condition: str, role: Role, prompt_tokens: int) -> float:
        seen = self._seen.get(("*" if role == "judge" else condition, role))
        if seen:
            return sum(seen) / len(seen)
        if role == "judge":
            return judge_prior(self.judge_model, prompt_tokens)
        if role == "correction":
            agents = self._seen.get((condition, "agent"))
            if agents:  # a correction resends the session so far: about an agent call again
                return sum(agents) / len(agents)
        return agent_prior(self.agent_model, prompt_tokens)
