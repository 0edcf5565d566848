"""The one price table, and the model facts the runtimes need.

Every cost Homeostat reports or caps comes from here (the claude-code runtime's own figure aside), so
a price change is one edit. The figures are Anthropic's public list prices in US dollars per million
tokens, as checked in November 2026; they are list prices, not what a team with a discount or a cloud
contract pays, and they go stale: keep them current when a price or a model changes.

A model that is not in this table is refused before any call (`ConfigError`), because a model we
cannot price would make the spending cap silently meaningless.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PRICES_CHECKED = "2026-11"


@dataclass(frozen=True)
class Price:
    """List prices in USD per million tokens. `cache_write` is the 5-minute cache write."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    def per_million(self) -> str:
        return f"${self.input:g}/${self.output:g}"


@dataclass(frozen=True)
class LongPromptTier:
    """A model billed at `factor` times every rate once a request's prompt passes `threshold` tokens."""

    threshold: int
    factor: float


@dataclass(frozen=True)
class ModelInfo:
    name: str
    family: str  # opus, sonnet or haiku: picks the judge's default tier
    price: Price
    # Opus 5.5, Sonnet 5.5 and every model with thinking always on answer a forced tool_choice with a 400,
    # so the tool-call runtimes fall back to tool_choice auto with an instruction for those.
    forced_tool_choice: bool = False
    # Haiku 4.5 answers `output_config.effort` with a 400; it is left out for models without it.
    effort: bool = True
    long_prompt: LongPromptTier | None = None


_MODELS = (
    ModelInfo("claude-opus-5-5", "opus", Price(4.0, 20.0, 5.0, 0.20)),
    ModelInfo("claude-opus-5", "opus", Price(5.0, 25.0, 6.25, 0.50)),
    ModelInfo("claude-sonnet-5-5", "sonnet", Price(2.0, 10.0, 2.50, 0.10)),
    ModelInfo("claude-sonnet-5", "sonnet", Price(2.0, 10.0, 2.50, 0.20)),
    ModelInfo(
        "claude-haiku-5-5",
        "haiku",
        Price(0.10, 0.50, 0.125, 0.01),
        long_prompt=LongPromptTier(threshold=100_000, factor=5.0),
    ),
    ModelInfo(
        "claude-haiku-4-5-20251001",
        "haiku",
        Price(1.0, 5.0, 1.25, 0.10),
        forced_tool_choice=True,
        effort=False,
    ),
)

MODELS: dict[str, ModelInfo] = {info.name: info for info in _MODELS}
ALIASES = {"claude-haiku-4-5": "claude-haiku-4-5-20251001"}

# Bedrock ids look like `us.anthropic.claude-opus-5-5-v1:0`, Vertex ids like `claude-haiku-4-5@20251001`.
_BEDROCK_REGION = re.compile(r"^(?:us|eu|apac|jp|au|ca|global|us-gov)\.")
_BEDROCK_VERSION = re.compile(r"-v\d+(?::\d+)?$")


def canonical_model(name: str) -> str:
    """The table's name for a model id as the API, Bedrock, Vertex or Claude Code spells it."""
    model = _BEDROCK_REGION.sub("", name.strip())
    model = model.removeprefix("anthropic.")
    model = _BEDROCK_VERSION.sub("", model)
    if "@" in model:
        base, _, date = model.partition("@")
        model = base if base in MODELS else f"{base}-{date}"
    return ALIASES.get(model, model)


def model_info(name: str) -> ModelInfo | None:
    return MODELS.get(canonical_model(name))


def known_models() -> list[str]:
    return sorted(MODELS)


def is_dearer(model: str, than: str) -> bool:
    """True when `model` costs more than `than` per input or per output token (both must be known)."""
    a, b = MODELS[canonical_model(model)].price, MODELS[canonical_model(than)].price
    return a.input > b.input or a.output > b.output


def call_cost(
    model: str,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_creation_tokens: int = 0,
    cache_read_tokens: int = 0,
) -> float:
    """USD for one call at list price; the model must be in the table."""
    info = MODELS[canonical_model(model)]
    price = info.price
    dollars = (
        input_tokens * price.input
        + output_tokens * price.output
        + cache_creation_tokens * price.cache_write
        + cache_read_tokens * price.cache_read
    ) / 1_000_000
    prompt = input_tokens + cache_creation_tokens + cache_read_tokens
    if info.long_prompt is not None and prompt > info.long_prompt.threshold:
        dollars *= info.long_prompt.factor
    return dollars
