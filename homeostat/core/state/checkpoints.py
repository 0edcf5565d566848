"""Checkpoints on the state branch: model answers a run already paid for, and threads to try again.

A run that stops (a signal, a job timeout, a host or model error past its retries, the spending cap)
must lose no lesson and pay for no answer twice. So every usable answer is remembered by the content
hash of its question (the agent, model, answer schema and the redacted prompts, and which ask of that
same question it was, so the judge's confirmations stay separate asks), and written to
`checkpoints/<kind>/<slot>.json` on the state branch as the run goes. The next run asks the same
question only when something in it changed: a thread edited, a rule rewritten, another model.

A slot is one writer's file (`all` for a whole run; a shard of the run would write its own), so
writers never merge into each other's files; the run that holds the claim reads every slot.
Review threads whose model call failed past its retries wait in the file's `retry` list, with the
time their PR merged, so the next run reads back far enough to draft them.

The answers are the model's own words about redacted threads; they pass redaction again before they
are written, since the state branch is never force-pushed.

Anyone who can push to the KB repo can write to the state branch, so an answer there could be anyone's
words: a draft no member wrote, a judge's pass no model gave. Each answer is therefore sealed (an
HMAC of its key and its words) with a key only the run holds, derived from the model credential the
run's environment has (or `HOMEOSTAT_CHECKPOINT_KEY`), and a run recalls only answers whose seal it
can check; a run with no such secret recalls none and asks again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from datetime import datetime, timedelta
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, ValidationError, model_serializer

from homeostat.core.safety.secrets import redacted
from homeostat.core.state.branch import STATE_VERSION, FreeText, StateModel, UtcDatetime, dump_state

CheckpointKind = Literal["daily", "deep-dive"]
CHECKPOINT_DIR = "checkpoints"
_SLOT = re.compile(r"^checkpoints/(daily|deep-dive)/([a-z0-9][a-z0-9-]*)\.json$")
RETRY_ATTEMPTS = 5  # runs that try a failing thread before it is given up, with a notice
T = TypeVar("T", bound=BaseModel)


class RememberedAnswer(StateModel):
    key: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    work: str = ""  # what it was asked for: a review lesson's key, or nothing
    agent: str
    answer: dict[str, Any]
    at: UtcDatetime
    seal: str = ""  # HMAC-SHA256 of the key and the answer, with the run's seal key (`seal_key`)


# The variables a run's model credential is read from, in order; the first one set keys the seals.
SEAL_VARIABLES = (
    "HOMEOSTAT_CHECKPOINT_KEY",
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_SECRET_ACCESS_KEY",
)


def seal_key(env: Mapping[str, str]) -> bytes | None:
    """The key a run seals its answers with: derived from a secret the run holds and a pusher to the
    state branch does not (the model credential, or `HOMEOSTAT_CHECKPOINT_KEY` for a runtime whose
    credential is not a static secret); None when the environment has none."""
    for name in SEAL_VARIABLES:
        value = env.get(name, "")
        if value:
            return hashlib.sha256(b"homeostat checkpoint seal v1\0" + value.encode("utf-8")).digest()
    return None


def _seal(key: bytes, question: str, answer: Mapping[str, Any]) -> str:
    words = json.dumps(answer, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hmac.new(key, f"{question}\0{words}".encode(), hashlib.sha256).hexdigest()


class RetryThread(StateModel):
    """A review thread whose model call failed past its retries: the next run drafts it again."""

    url: Annotated[str, Field(min_length=1)]
    merged_at: UtcDatetime  # when its PR merged: the next run's window reaches back to it
    reason: FreeText = ""
    attempts: Annotated[int, Field(ge=1)] = 1


class ShardMark(StateModel):
    """What a shard of the drafting (`homeostat curate --shard i/N`) did: the merge job decides its
    repos' threads only when the shard finished after the last daily run; otherwise they wait for the
    next run, which reads their window again."""

    shard: Annotated[str, Field(pattern=r"^[0-9]+/[0-9]+$")]
    since: UtcDatetime
    until: UtcDatetime
    finished: bool
    reason: FreeText = ""


class CheckpointFile(StateModel):
    version: Literal[1] = STATE_VERSION
    kind: CheckpointKind
    slot: str
    run_id: str = ""
    answers: tuple[RememberedAnswer, ...] = ()
    retry: tuple[RetryThread, ...] = ()
    shard: ShardMark | None = None  # a shard's slot only

    @model_serializer(mode="wrap")
    def _without_shard(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """A whole run's file writes the same bytes as before shards existed."""
        data: dict[str, object] = handler(self)
        if self.shard is None:
            data.pop("shard", None)
        return data


def checkpoint_path(kind: CheckpointKind, slot: str = "all") -> str:
    return f"{CHECKPOINT_DIR}/{kind}/{slot}.json"


def is_checkpoint_path(path: str) -> bool:
    return _SLOT.match(path) is not None


def read_checkpoints(files: Mapping[str, bytes], kind: CheckpointKind) -> list[CheckpointFile]:
    """Every slot's file of `kind` (from a state snapshot's files); one that cannot be read is left
    out, which costs a rerun its answers and nothing else."""
    found: list[CheckpointFile] = []
    for path in sorted(files):
        match = _SLOT.match(path)
        if match is None or match.group(1) != kind:
            continue
        try:
            found.append(CheckpointFile.model_validate_json(files[path]))
        except ValidationError:
            continue
    return found


def question_key(label: str, schema: str, system: str, user: str, nth: int) -> str:
    """The content hash of one ask: who asks (agent and model), for what answer, with what prompts,
    and which ask of that same question in the run it is."""
    digest = hashlib.sha256()
    for part in (label, schema, system, user, str(nth)):
        digest.update(part.encode("utf-8"))
        digest.update(b"\0")
    return digest.hexdigest()


def _redacted_json(value: Any) -> Any:
    if isinstance(value, str):
        return redacted(value)
    if isinstance(value, list):
        return [_redacted_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _redacted_json(item) for key, item in value.items()}
    return value


class AnswerMemory:
    """Answers by question key: recalled instead of asked, remembered once paid for. Thread-safe."""

    def __init__(self, answers: Iterable[RememberedAnswer] = (), *, seal: bytes | None = None) -> None:
        """`answers` as read from the state branch: only those sealed with `seal` are kept (none without
        one), so a run recalls only what a run holding the same secret paid for."""
        self._lock = threading.Lock()
        self._seal = seal
        self._known: dict[str, RememberedAnswer] = {
            a.key: a
            for a in answers
            if seal is not None and a.seal and hmac.compare_digest(a.seal, _seal(seal, a.key, a.answer))
        }
        self._asked: dict[str, int] = {}
        self._used: set[str] = set()
        self._fresh = 0  # answers remembered since the last `mark_written`
        self.recalled = 0

    def key(self, label: str, schema: str, system: str, user: str) -> str:
        """The key of this ask: the n-th time this run asks this very question gets the n-th key."""
        base = question_key(label, schema, system, user, 0)
        with self._lock:
            nth = self._asked.get(base, 0) + 1
            self._asked[base] = nth
        return base if nth == 1 else question_key(label, schema, system, user, nth)

    def recall(self, key: str, schema: type[T]) -> T | None:
        with self._lock:
            known = self._known.get(key)
        if known is None:
            return None
        try:
            value = schema.model_validate(known.answer)
        except ValidationError:
            return None  # the schema changed since: ask again
        with self._lock:
            self._used.add(key)
            self.recalled += 1
        return value

    def remember(self, key: str, value: BaseModel, *, agent: str, work: str, at: datetime) -> None:
        answer = _redacted_json(value.model_dump(mode="json"))
        sealed = _seal(self._seal, key, answer) if self._seal is not None else ""
        with self._lock:
            self._known[key] = RememberedAnswer(
                key=key, work=work, agent=agent, answer=answer, at=at, seal=sealed
            )
            self._used.add(key)
            self._fresh += 1

    @property
    def fresh(self) -> int:
        """Answers remembered since the memory was last written."""
        with self._lock:
            return self._fresh

    def mark_written(self) -> None:
        with self._lock:
            self._fresh = 0

    def answers(self) -> list[RememberedAnswer]:
        with self._lock:
            return sorted(self._known.values(), key=lambda a: (a.at, a.key))

    def used(self) -> list[RememberedAnswer]:
        """Answers this run recalled or paid for: what a weekly memory keeps."""
        with self._lock:
            return sorted((self._known[k] for k in self._used), key=lambda a: (a.at, a.key))


def still_needed(
    answers: Iterable[RememberedAnswer], decided: AbstractSet[str], now: datetime, keep: timedelta
) -> tuple[RememberedAnswer, ...]:
    """What a daily checkpoint keeps once a run is done: answers for work not decided yet, and none
    older than `keep` (a thread the drafter found nothing in is never decided)."""
    return tuple(a for a in answers if a.work not in decided and now - a.at <= keep)


def retry_list(
    earlier: Iterable[RetryThread], failed: Iterable[RetryThread], done: frozenset[str]
) -> tuple[list[RetryThread], list[RetryThread]]:
    """(threads to try again next run, threads given up after `RETRY_ATTEMPTS` runs).

    A thread that failed again counts one more attempt; one drafted (or decided) since leaves."""
    before = {t.url: t for t in earlier}
    kept: dict[str, RetryThread] = {}
    given_up: list[RetryThread] = []
    for thread in failed:
        previous = before.get(thread.url)
        attempts = previous.attempts + 1 if previous is not None else 1
        again = thread.model_copy(update={"attempts": attempts})
        if attempts > RETRY_ATTEMPTS:
            given_up.append(again)
        else:
            kept[thread.url] = again
    for url, thread in before.items():
        if url not in kept and url not in done and all(g.url != url for g in given_up):
            kept[url] = thread
    return sorted(kept.values(), key=lambda t: (t.merged_at, t.url)), given_up


def checkpoint_bytes(file: CheckpointFile) -> bytes:
    return dump_state(file)
