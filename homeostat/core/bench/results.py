"""One line per finished (task, repeat) in `<condition>.jsonl`: the record a rerun resumes from.

A record is written only when its task is finished (answered and graded), in one append, so a run
killed at any point leaves every earlier record whole; a line cut short by the kill is skipped on
reading and its task simply runs again. A record keeps what a person needs to check a score (the
answer, the judge's reason) and what the report adds up (each call's tokens, cost and estimate).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

CONDITIONS: tuple[str, ...] = ("off", "on")
Role = Literal["agent", "correction", "judge"]
Grader = Literal["judge", "tests"]
Unit = tuple[str, int]  # (task id, repeat)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, alias_generator=to_camel, populate_by_name=True)


class Call(_Wire):
    """One `claude -p` run: what it used and cost, and what it was estimated to cost before it ran."""

    role: Role
    models: tuple[str, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    estimate_usd: float = 0.0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens + self.cache_creation_tokens + self.cache_read_tokens


class Record(_Wire):
    task: str
    repeat: int = Field(ge=1)
    kind: Literal["question", "code"]
    digest: str
    grader: Grader
    score: int | None  # None: the judge gave no usable verdict; left out of the means
    passed_after: int | None = None  # corrections before the hidden tests passed; None: never
    calls: tuple[Call, ...] = ()
    answer: str = ""
    reason: str = ""
    at: str = ""

    @property
    def unit(self) -> Unit:
        return (self.task, self.repeat)

    def to_line(self) -> str:
        return self.model_dump_json(by_alias=True) + "\n"


def parse_results(text: str) -> tuple[list[Record], int]:
    """The records of a results file, and how many lines were skipped as unreadable (a line a kill cut
    short, or one edited by hand)."""
    records: list[Record] = []
    skipped = 0
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            records.append(Record.model_validate_json(line))
        except ValidationError:
            skipped += 1
    return records, skipped


def latest(records: Iterable[Record]) -> dict[Unit, Record]:
    """The last record of each (task, repeat): a task edited and run again replaces its old result."""
    found: dict[Unit, Record] = {}
    for record in records:
        found[record.unit] = record
    return found


def finished(records: Iterable[Record], digests: Mapping[str, str]) -> set[Unit]:
    """The (task, repeat) pairs already done for the tasks as they are written now."""
    return {unit for unit, record in latest(records).items() if digests.get(record.task) == record.digest}
