"""The bench task file: what a team writes to measure its KB (docs/bench.md is its reference).

A task is a question, judged 0 to 2 against a reference answer, or a coding task run in a detached
worktree of a code repo's base commit and graded by hidden tests (or, without tests, by the judge
against a reference). The file is YAML so a team can keep it next to its KB and review it like any
other file; every problem is one line naming the file, the task and the key.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from homeostat.core.format.yamltext import YamlError, line_of, load_yaml
from homeostat.errors import ConfigError

TASKS_FILE = "bench/tasks.yaml"
DEFAULT_REPEATS = 3
MAX_REPEATS = 100
MAX_CORRECTIONS = 5
_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,79}$")


class TaskFileError(ConfigError):
    """The task file cannot be read or does not follow the format."""


class HiddenTests(BaseModel):
    """Tests the agent never sees: `files` (a folder beside the task file) copied over a clean copy of
    the agent's work, then `run` in it; exit 0 is a pass."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: str = Field(min_length=1)
    files: str | None = None
    timeout: int = Field(default=300, ge=1, le=3600)


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: Literal["question", "code"]
    prompt: str = Field(min_length=1)
    repo: str | None = None
    base: str | None = None
    reference: str | None = None
    tests: HiddenTests | None = None
    corrections: int = Field(default=1, ge=0, le=MAX_CORRECTIONS)
    tools: tuple[str, ...] = ()
    rules: tuple[str, ...] = ()

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("must be lower-case letters, digits, '.', '_' or '-' (at most 80)")
        return value

    @model_validator(mode="after")
    def _graded(self) -> Task:
        if self.kind == "question":
            if self.tests is not None:
                raise ValueError("a question has no tests: give a reference answer to judge it by")
            if not self.reference:
                raise ValueError("a question needs a reference answer for the judge")
        elif self.tests is None and not self.reference:
            raise ValueError("a coding task needs hidden tests or a reference for the judge")
        if self.kind == "code" and self.repo is None:
            raise ValueError("a coding task needs the repo whose checkout it works in")
        if self.base is not None and self.repo is None:
            raise ValueError("base names a commit of the repo: give the repo too")
        return self

    def digest(self) -> str:
        """A short fingerprint of the task as written: a result of an edited task is not reused."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


class TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    repeats: int = Field(default=DEFAULT_REPEATS, ge=1, le=MAX_REPEATS)
    tasks: tuple[Task, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> TaskFile:
        seen: set[str] = set()
        for task in self.tasks:
            if task.id in seen:
                raise ValueError(f"task id {task.id!r} is used twice")
            seen.add(task.id)
        return self

    def repos(self) -> list[str]:
        """The code repos the tasks work in, in order of first use."""
        return list(dict.fromkeys(task.repo for task in self.tasks if task.repo))


def parse_tasks(text: str, file: str) -> TaskFile:
    """The task file from YAML; any problem is one line naming the file and line, the task and the key."""
    try:
        doc = load_yaml(text)
    except YamlError as exc:
        raise TaskFileError(
            f"{file}:{exc.line}: not valid YAML ({str(exc).removeprefix('invalid YAML: ')})"
        ) from None
    try:
        return TaskFile.model_validate(doc.data)
    except ValidationError as exc:
        first = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")[
            0
        ]  # a typo explains a miss
        line = line_of(doc, tuple(first["loc"]))
        raise TaskFileError(f"{file}:{line}: {_problem(first, doc.data)}") from None


_PROBLEMS = {
    "missing": "is missing",
    "extra_forbidden": "is an unknown key; remove it or check its spelling",
    "too_short": "needs at least one entry",
    "model_type": "must be a mapping of keys to values",
    "literal_error": "must be question or code",
}


def _problem(first: ErrorDetails, data: object) -> str:
    """A problem as a person would say it: `task refund-total: tests.run is missing`."""
    loc = [str(part) for part in first["loc"]]
    where = ".".join(loc)
    if loc[:1] == ["tasks"] and len(loc) > 1 and loc[1].isdigit():
        where = f"task {_task_name(data, int(loc[1]))}" + (f": {'.'.join(loc[2:])}" if loc[2:] else "")
    detail = _PROBLEMS.get(first["type"], str(first["msg"]).removeprefix("Value error, "))
    if not where:
        return detail
    return f"{where} {detail}" if first["type"] in _PROBLEMS and loc[2:] else f"{where}: {detail}"


def _task_name(data: object, index: int) -> str:
    """A task by its id where it has one, else by its place (`3`, counted from 1)."""
    tasks = data.get("tasks") if isinstance(data, dict) else None
    task = tasks[index] if isinstance(tasks, list) and index < len(tasks) else None
    name = task.get("id") if isinstance(task, dict) else None
    return str(name) if isinstance(name, str) and name else str(index + 1)
