"""Local usage events: the record shape and the sink every writer goes through.

Events stay on the machine (`.homeostat/events.db`, or the CI log) and hold sizes, counts and names,
never prompt, answer, rule or document text: the event log is the one store a developer does not
review, so nothing in it may be worth leaking. `ModelCall` has no text field at all for that reason.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, Literal, Protocol, get_args

# Plain dataclasses, not pydantic: a session hook records events on every prompt, and importing
# pydantic would cost it more than building the view it logs.

Scalar = str | int | float | bool | None

MODEL_CALL = "model-call"

Outcome = Literal["ok", "refusal", "invalid", "error"]
_KIND = re.compile(r"^[a-z][a-z0-9-]*$")


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Event:
    """One local event: a kind (`model-call`, `injection`, …), when, and flat scalar fields."""

    kind: str
    at: datetime
    data: dict[str, Scalar] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not _KIND.match(self.kind):
            raise ValueError(f"event kind {self.kind!r} is not lower-case words joined by '-'")
        if self.at.tzinfo is None:
            raise ValueError("an event time needs a timezone (use UTC)")
        object.__setattr__(self, "at", self.at.astimezone(UTC))
        for key, value in self.data.items():
            if not isinstance(value, (str, int, float, bool)) and value is not None:
                raise ValueError(f"event field {key!r} is not a flat scalar")

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "at": self.at.isoformat(), "data": dict(self.data)}


@dataclass(frozen=True)
class ModelCall:
    """The size-only record of one model call (one request and its answer, or its failure)."""

    runtime: str
    model: str
    agent: str
    outcome: Outcome
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    estimated: bool = True
    duration_ms: int = 0

    def __post_init__(self) -> None:
        if self.outcome not in get_args(Outcome):
            raise ValueError(f"outcome {self.outcome!r} is not one of {', '.join(get_args(Outcome))}")

    def to_event(self, at: datetime) -> Event:
        return Event(kind=MODEL_CALL, at=at, data=asdict(self))

    @classmethod
    def from_event(cls, event: Event) -> ModelCall:
        if event.kind != MODEL_CALL:
            raise ValueError(f"not a {MODEL_CALL} event: {event.kind}")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(event.data) - names)
        if unknown:
            raise ValueError(f"unknown model-call fields: {', '.join(unknown)}")
        return cls(**event.data)  # type: ignore[arg-type]


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


# --- reading the log back (`homeostat events`) ------------------------------------------------------

_SINCE = re.compile(r"^(\d+)\s*([mhdw])$")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_since(text: str, now: datetime) -> datetime:
    """`--since`: an age (`90m`, `24h`, `7d`, `2w`) or an ISO date or time (UTC unless it says)."""
    value = text.strip()
    age = _SINCE.match(value.lower())
    if age:
        from datetime import timedelta

        return now - timedelta(seconds=int(age.group(1)) * _UNITS[age.group(2)])
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"--since {text!r} is neither an age (90m, 24h, 7d, 2w) nor an ISO date (2026-12-01)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def format_event(event: Event) -> str:
    """One line: when, the kind, then its fields as key=value, sorted."""
    fields = " ".join(f"{key}={value}" for key, value in sorted(event.data.items()))
    return f"{event.at.strftime('%Y-%m-%dT%H:%M:%SZ')}  {event.kind:<14} {fields}".rstrip()
