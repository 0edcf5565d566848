"""Local usage events: the record shape and the sink every writer goes through.

Events stay on the machine (`.homeostat/events.db`, or the CI log) and hold sizes, counts and names,
never prompt, answer, rule or document text: the event log is the one store a developer does not
review, so nothing in it may be worth leaking. `ModelCall` has no text field at all for that reason.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

Scalar = str | int | float | bool | None

MODEL_CALL = "model-call"

Outcome = Literal["ok", "refusal", "invalid", "error"]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Event(BaseModel):
    """One local event: a kind (`model-call`, `injection`, …), when, and flat scalar fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    at: datetime
    data: dict[str, Scalar] = Field(default_factory=dict)

    @field_validator("at")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("an event time needs a timezone (use UTC)")
        return value.astimezone(UTC)


class ModelCall(BaseModel):
    """The size-only record of one model call (one request and its answer, or its failure)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    runtime: str
    model: str
    agent: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    estimated: bool = True
    duration_ms: int = 0
    outcome: Outcome

    def to_event(self, at: datetime) -> Event:
        return Event(kind=MODEL_CALL, at=at, data=self.model_dump())

    @classmethod
    def from_event(cls, event: Event) -> ModelCall:
        if event.kind != MODEL_CALL:
            raise ValueError(f"not a {MODEL_CALL} event: {event.kind}")
        return cls.model_validate(event.data)


class EventSink(Protocol):
    """Where events go: the SQLite log on a machine, the log stream in CI, a list in tests."""

    def record(self, event: Event) -> None: ...


class MemorySink:
    """Keeps events in a list; for tests and for a run that reports its own events."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    def record(self, event: Event) -> None:
        self.events.append(event)

    def of_kind(self, kind: str) -> list[Event]:
        return [event for event in self.events if event.kind == kind]


class NullSink:
    """Drops events: for a caller that has nowhere to keep them."""

    def record(self, event: Event) -> None:
        return None
