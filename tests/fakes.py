"""In-process test doubles for agent logic.

`FakeAsker` stands in for a model: queue what it should answer, run the agent, then assert on what
it was asked. It satisfies `homeostat.core.asker.Asker`, so agent code takes it unchanged. It does not
redact, price or log: those belong to `ModelAsker` and are tested over the local API stub.

    asker = FakeAsker()
    asker.enqueue(Draft(title="…", body="…"))   # a model value of the schema asked for
    asker.enqueue({"ok": True, "problems": []}) # or a dict, validated against the schema asked for
    asker.enqueue(None)                          # no usable answer (refusal, or invalid twice)
    asker.enqueue(ModelCallError("…", runtime="api"))  # raised from ask()
    run_agent(asker)
    assert asker.history[0].schema is Draft
    assert "review thread" in asker.history[0].user
"""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)

Answer = BaseModel | dict[str, Any] | BaseException | None


class Asked(NamedTuple):
    system: str
    user: str
    schema: type[BaseModel]


class FakeAsker:
    def __init__(self, *answers: Answer) -> None:
        self.queue: deque[Answer] = deque(answers)
        self.history: list[Asked] = []

    def enqueue(self, *answers: Answer) -> FakeAsker:
        self.queue.extend(answers)
        return self

    @property
    def remaining(self) -> int:
        return len(self.queue)

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        self.history.append(Asked(system, user, schema))
        if not self.queue:
            raise AssertionError(
                f"FakeAsker was asked for a {schema.__name__} with nothing queued (call {len(self.history)})"
            )
        answer = self.queue.popleft()
        if isinstance(answer, BaseException):
            raise answer
        if answer is None:
            return None
        if isinstance(answer, dict):
            return schema.model_validate(answer)
        if not isinstance(answer, schema):
            raise AssertionError(
                f"FakeAsker was asked for a {schema.__name__} but the next queued answer is a "
                f"{type(answer).__name__}"
            )
        return answer

    def assert_all_used(self) -> None:
        assert not self.queue, f"FakeAsker: {len(self.queue)} queued answer(s) were never asked for"
