"""The `homeostat/state` branch: what the daily run decided, who is syncing, and how each run went.

Laptops and CI share nothing but git refs, so this branch is the automation's memory: sync reads it to
clear pending lessons the run decided, the next run reads it to skip what is decided and to settle
review PRs, and the dashboard reads it for its Automation and Performance pages. Each file is a frozen,
versioned model with one canonical JSON form (sorted keys, 2-space indent, trailing newline), so an
unchanged state is byte-identical and is never recommitted.

Overlapping runs write to the branch concurrently; `merge_state_files` combines what one run wants
to write with whatever the other already pushed, without losing a record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Annotated, Literal, TypeVar

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeInt,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic_core import to_json

from homeostat.errors import HomeostatError

STATE_BRANCH = "homeostat/state"
STATE_VERSION: Literal[1] = 1

DecisionKind = Literal["new", "update", "flag", "review-thread", "dispute", "doc"]
Outcome = Literal["merged", "review", "declined", "duplicate", "updated", "disputed", "retired"]
ReviewState = Literal["in-review", "settled"]
RunKind = Literal["daily", "deep-dive", "bootstrap"]
NoticeKind = Literal[
    "spending-cap",
    "judge-cap",
    "retract-cap",
    "slack-unset",
    "model-failure",
    "merge-refused",
    "host-unclear",
    "overlap",
    "recovered",
    "reconciled",
    "slack-failed",
    "digest-unconfirmed",
    "digest-already-posted",
    "shard-failed",
]
JournalKind = Literal["daily", "review", "dispute"]

_HANDLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MEMBER_FILE = re.compile(r"^(decisions|heartbeats)/([A-Za-z0-9][A-Za-z0-9._-]*)\.json$")
_RUN_FILE = re.compile(r"^runs/(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.json$")
_CLAIM_FILE = re.compile(r"^claims/(daily|deep-dive|bootstrap)\.json$")
_DIGEST_FILE = re.compile(r"^digests/(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.json$")
# A run's checkpoints (homeostat.core.checkpoints): one writer per file, so ours replaces the tip's.
_CHECKPOINT_FILE = re.compile(r"^checkpoints/[a-z0-9-]+/[a-z0-9-]+\.json$")


class StateFileError(HomeostatError):
    """A file on the state branch cannot be read; the message names the branch, the file and the fix."""


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def _redacted(value: str) -> str:
    from homeostat.core.secrets import redacted  # not loaded by a laptop's sync until a record is made

    return redacted(value)


UtcDatetime = Annotated[AwareDatetime, AfterValidator(_utc)]
Handle = Annotated[str, Field(pattern=_HANDLE.pattern)]
Text = Annotated[str, Field(min_length=1)]
# What a run says about a lesson (its title, a decision's reason, a notice): the state branch is never
# force-pushed, so a secret written there would stay in its history. Redacted whenever a record is
# made or read.
FreeText = Annotated[str, AfterValidator(_redacted)]


class StateModel(BaseModel):
    """Base for state files: camelCase on disk, unknown keys refused, immutable, no NaN."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        frozen=True,
        allow_inf_nan=False,
    )


class LessonSource(StateModel):
    type: Annotated[str, Field(pattern=r"^[a-z][a-z0-9-]*$")]
    url: FreeText | None = None


class PullRef(StateModel):
    number: Annotated[int, Field(ge=1)]
    url: Text
    branch: Text


class DecisionRecord(StateModel):
    """One lesson's decision; `hash` (the lesson's content hash) is its identity across runs and laptops."""

    hash: Annotated[str, Field(pattern=r"^\S+$")]
    member: Handle
    kind: DecisionKind
    title: Annotated[FreeText, Field(min_length=1)]
    rule_id: str | None = None
    area: str | None = None
    source: LessonSource
    outcome: Outcome
    state: ReviewState
    confidence: Annotated[int, Field(ge=0, le=100)]
    breakdown: dict[str, int] = Field(default_factory=dict)
    reason: FreeText = ""
    pr: PullRef | None = None
    review_opened_at: UtcDatetime | None = None
    settled_at: UtcDatetime | None = None
    at: UtcDatetime

    @model_validator(mode="after")
    def _settled_has_a_time(self) -> DecisionRecord:
        if (self.state == "settled") != (self.settled_at is not None):
            raise ValueError("settledAt is set exactly when state is 'settled'")
        return self


class DecisionsFile(StateModel):
    version: Literal[1] = STATE_VERSION
    member: Handle
    records: tuple[DecisionRecord, ...] = ()

    @model_validator(mode="after")
    def _one_member_one_record_per_hash(self) -> DecisionsFile:
        hashes = [record.hash for record in self.records]
        if len(set(hashes)) != len(hashes):
            raise ValueError("two records have the same hash")
        if any(record.member != self.member for record in self.records):
            raise ValueError(f"every record's member must be {self.member!r}")
        return self


class Heartbeat(StateModel):
    version: Literal[1] = STATE_VERSION
    member: Handle
    at: UtcDatetime
    homeostat_version: Text
    pending: NonNegativeInt
    behind: NonNegativeInt | None = None
    usage: dict[date, dict[str, NonNegativeInt]] | None = None


class Notice(StateModel):
    kind: NoticeKind
    message: Annotated[FreeText, Field(min_length=1)]


class Capped(StateModel):
    since: UtcDatetime


class Failed(StateModel):
    since: UtcDatetime
    reason: Annotated[FreeText, Field(min_length=1)]


class Unread(StateModel):
    """Code repos a run left unread (a shard of its drafting that failed): the next run reads from `since`."""

    since: UtcDatetime
    reason: Annotated[FreeText, Field(min_length=1)]


class Cost(StateModel):
    usd: Annotated[float, Field(ge=0)]
    estimated: bool


class RunReport(StateModel):
    version: Literal[1] = STATE_VERSION
    run_id: Text
    kind: RunKind
    started_at: UtcDatetime
    finished_at: UtcDatetime
    duration_seconds: Annotated[float, Field(ge=0)]
    decided: dict[Outcome, NonNegativeInt] = Field(default_factory=dict)
    health: dict[str, int] = Field(default_factory=dict)
    notices: tuple[Notice, ...] = ()
    capped: Capped | None = None
    failed: Failed | None = None
    cost: Cost
    pulls: tuple[PullRef, ...] = ()  # PRs a person merges that the run opened (the deep dive's)
    unread: Unread | None = None  # repos of a failed shard (a sharded daily run's merge job)

    @model_serializer(mode="wrap")
    def _without_empty_pulls(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """A run that opened no such PR (every daily run) writes the same bytes as before the field,
        and so does one that left no repo unread."""
        data: dict[str, object] = handler(self)
        if not self.pulls:
            data.pop("pulls", None)
        if self.unread is None:
            data.pop("unread", None)
        return data

    @model_validator(mode="after")
    def _finished_after_start(self) -> RunReport:
        if self.finished_at < self.started_at:
            raise ValueError("finishedAt is before startedAt")
        return self


class ClaimOwner(StateModel):
    """The process holding a claim. `machine` (boot id and pid namespace) lets a run on the same
    machine see that the owner died; from anywhere else only the claim's expiry tells."""

    host: Text
    pid: Annotated[int, Field(ge=1)]
    machine: str = ""
    process_start: NonNegativeInt = 0


class JournalEntry(StateModel):
    """Write-ahead: a PR a run is about to push, with the records it settles once it lands.

    Written before the branch is pushed, so a run killed at any later point leaves an entry the
    next run can finish (merge, adopt) or undo (delete the branch), never a gap."""

    kind: JournalKind
    member: Handle
    branch: Text
    title: Annotated[FreeText, Field(min_length=1)]
    sha: Text  # the commit pushed to `branch`
    merge_message: FreeText = ""
    records: tuple[DecisionRecord, ...] = ()  # the PR's lessons, as recorded once it lands (no `pr` yet)
    settled: tuple[DecisionRecord, ...] = ()  # settled reviews whose change (retire, approve) it carries


class Claim(StateModel):
    """One run's claim on a base branch's lessons (`claims/<kind>.json`): pushed before any work and
    released by the run's last state write. A live claim of another run makes a run stand aside; a
    released, expired or dead one is taken over, and its journal finished first."""

    version: Literal[1] = STATE_VERSION
    run_id: Text
    kind: RunKind
    owner: ClaimOwner
    claimed_at: UtcDatetime
    expires_at: UtcDatetime
    released_at: UtcDatetime | None = None
    base_tip: str = ""  # the base branch's commit when the run started publishing
    journal: tuple[JournalEntry, ...] = ()
    since: UtcDatetime | None = None  # the run's review window start: a run that dies unrecorded is reread

    def live(self, now: datetime) -> bool:
        """Held and not expired (whether its process still runs is the adapter's to tell)."""
        return self.released_at is None and self.expires_at > now


class DigestRecord(StateModel):
    """One weekly digest (`digests/<date>.json`): the window it covered, what it counted, whether it
    reached Slack. The next digest starts where the last recorded one ended. A file of its own, not
    a run report, so a Homeostat that predates the digest keeps it aside instead of refusing it."""

    version: Literal[1] = STATE_VERSION
    run_id: Text
    since: UtcDatetime
    until: UtcDatetime
    counts: dict[str, NonNegativeInt] = Field(default_factory=dict)
    posted: bool
    # written before the post and cleared after it: a record still `sending` is a run stopped while
    # posting, whose digest may or may not have reached Slack
    sending: bool = False
    notices: tuple[Notice, ...] = ()

    @model_validator(mode="after")
    def _until_after_since(self) -> DigestRecord:
        if self.until < self.since:
            raise ValueError("until is before since")
        return self


StateFile = DecisionsFile | Heartbeat | RunReport | Claim | DigestRecord
_Model = TypeVar("_Model", bound=StateModel)


# Names and wire form


def state_branch(base_branch: str) -> str:
    """One state history per KB branch, so a trial KB on a branch never settles the main KB's PRs."""
    return STATE_BRANCH if base_branch == "main" else f"{STATE_BRANCH}-{base_branch}"


def decisions_path(member: str) -> str:
    return f"decisions/{member}.json"


def heartbeat_path(member: str) -> str:
    return f"heartbeats/{member}.json"


def claim_path(kind: RunKind = "daily") -> str:
    return f"claims/{kind}.json"


def digest_path(record: DigestRecord) -> str:
    """`digests/<UTC end date>.json`; a second digest that day gets `-2` when the state is merged."""
    return f"digests/{record.until.date().isoformat()}.json"


def run_path(report: RunReport) -> str:
    """`runs/<UTC start date>.json`; a second run that day gets `-2` when the state is merged."""
    return f"runs/{report.started_at.date().isoformat()}.json"


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def dump_state(model: StateModel) -> bytes:
    """The canonical JSON form (what `json.dumps(sort_keys=True, indent=2, ensure_ascii=False)` gives,
    made by pydantic's serializer, which is many times faster): dump, load, dump gives the same bytes."""
    return to_json(_sorted(model.model_dump(mode="json", by_alias=True)), indent=2) + b"\n"


def state_files(
    decisions: tuple[DecisionsFile, ...] = (),
    heartbeats: tuple[Heartbeat, ...] = (),
    runs: tuple[RunReport, ...] = (),
) -> dict[str, bytes]:
    """The `{path: bytes}` map a run hands to the state writer."""
    files = {decisions_path(item.member): dump_state(item) for item in decisions}
    files.update({heartbeat_path(item.member): dump_state(item) for item in heartbeats})
    files.update({run_path(item): dump_state(item) for item in runs})
    return files


def _load(model: type[_Model], path: str, data: bytes, branch: str) -> _Model:
    where = f"{branch}:{path}"
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StateFileError(
            f"{where} is not valid JSON ({error}); fix or delete it on that branch"
        ) from None
    version = raw.get("version") if isinstance(raw, dict) else None
    if isinstance(version, int) and version > STATE_VERSION:
        raise StateFileError(
            f"{where} has version {version}, newer than this Homeostat reads ({STATE_VERSION}); "
            "upgrade Homeostat"
        )
    try:
        return model.model_validate_json(data, strict=True)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise StateFileError(f"{where}: {key}: {first['msg']}; fix or delete it on that branch") from None


def parse_state_file(path: str, data: bytes, *, branch: str = STATE_BRANCH) -> StateFile | None:
    """The model a state-branch file holds, or None for a path the state format does not define."""
    member_file = _MEMBER_FILE.match(path)
    if member_file:
        model: type[DecisionsFile] | type[Heartbeat] = (
            DecisionsFile if member_file.group(1) == "decisions" else Heartbeat
        )
        parsed = _load(model, path, data, branch)
        if parsed.member != member_file.group(2):
            raise StateFileError(
                f"{branch}:{path} holds member {parsed.member!r}; it belongs in "
                f"{member_file.group(1)}/{parsed.member}.json"
            )
        return parsed
    if _RUN_FILE.match(path):
        return _load(RunReport, path, data, branch)
    if _CLAIM_FILE.match(path):
        return _load(Claim, path, data, branch)
    if _DIGEST_FILE.match(path):
        return _load(DigestRecord, path, data, branch)
    return None


# Reading a whole branch


@dataclass(frozen=True)
class StateSnapshot:
    """Everything on the state branch at one commit (None and empty when the branch does not exist)."""

    commit: str | None = None
    decisions: Mapping[str, DecisionsFile] = field(default_factory=dict)
    heartbeats: Mapping[str, Heartbeat] = field(default_factory=dict)
    runs: Mapping[str, RunReport] = field(default_factory=dict)
    other: Mapping[str, bytes] = field(default_factory=dict)
    claims: Mapping[str, Claim] = field(default_factory=dict)
    digests: Mapping[str, DigestRecord] = field(default_factory=dict)

    def last_digest(self) -> DigestRecord | None:
        """The latest digest that reached Slack, by the end of the window it covered (one that was
        only recorded, its Slack variable unset, was read by nobody)."""
        posted = [record for record in self.digests.values() if record.posted]
        return max(posted, key=lambda record: record.until, default=None)

    def digests_claimed_after(self, after: datetime) -> list[DigestRecord]:
        """Digests ending after `after` that reached Slack or were being posted when their run
        stopped, first run first: the ones a rerun in the same week must not post again."""
        claimed = [r for r in self.digests.values() if (r.posted or r.sending) and r.until > after]
        return sorted(claimed, key=lambda record: record.run_id)

    def records(self) -> list[DecisionRecord]:
        """Every member's decision records, oldest first."""
        every = [record for file in self.decisions.values() for record in file.records]
        return sorted(every, key=lambda record: (record.at, record.hash))

    def decided_hashes(self) -> frozenset[str]:
        """Content hashes already decided, which sync clears from pending and the run skips."""
        return frozenset(record.hash for file in self.decisions.values() for record in file.records)

    def last_run(self, kind: RunKind = "daily") -> RunReport | None:
        """The latest run that did the work (one that stood aside for another run's claim did none)."""
        reports = [
            report
            for report in self.runs.values()
            if report.kind == kind and not any(n.kind == "overlap" for n in report.notices)
        ]
        return max(reports, key=lambda report: report.started_at, default=None)


def parse_state(
    files: Mapping[str, bytes], commit: str | None, *, branch: str = STATE_BRANCH
) -> StateSnapshot:
    """Parse every file of the branch; a broken file is an error naming it, an unknown one is kept aside."""
    decisions: dict[str, DecisionsFile] = {}
    heartbeats: dict[str, Heartbeat] = {}
    runs: dict[str, RunReport] = {}
    other: dict[str, bytes] = {}
    claims: dict[str, Claim] = {}
    digests: dict[str, DigestRecord] = {}
    for path in sorted(files):
        parsed = parse_state_file(path, files[path], branch=branch)
        if isinstance(parsed, DecisionsFile):
            decisions[parsed.member] = parsed
        elif isinstance(parsed, Heartbeat):
            heartbeats[parsed.member] = parsed
        elif isinstance(parsed, RunReport):
            runs[path] = parsed
        elif isinstance(parsed, Claim):
            claims[parsed.kind] = parsed
        elif isinstance(parsed, DigestRecord):
            digests[path] = parsed
        else:
            other[path] = files[path]
    return StateSnapshot(commit, decisions, heartbeats, runs, other, claims, digests)


# Merging concurrent writes


def _newer_record(tip: DecisionRecord, ours: DecisionRecord) -> DecisionRecord:
    """A settled record beats one still in review whatever the times; otherwise the later `at` wins."""
    if tip.state != ours.state:
        return tip if tip.state == "settled" else ours
    return tip if tip.at > ours.at else ours


def _merge_decisions(tip: DecisionsFile, ours: DecisionsFile) -> DecisionsFile | None:
    """The merged file, or None when the tip already holds everything ours would add."""
    by_hash = {record.hash: record for record in tip.records}
    for record in ours.records:
        current = by_hash.get(record.hash)
        by_hash[record.hash] = record if current is None else _newer_record(current, record)
    if by_hash == {record.hash: record for record in tip.records}:
        return None
    records = tuple(sorted(by_hash.values(), key=lambda record: (record.at, record.hash)))
    return DecisionsFile(member=tip.member, records=records)


def _place_run(merged: dict[str, bytes], path: str, report: RunReport | DigestRecord) -> None:
    """Keep both runs of one day: the first free `-N` name, unless this run's report is already there."""
    stem = path.removesuffix(".json")
    data = dump_state(report)
    number = 1
    while True:
        name = path if number == 1 else f"{stem}-{number}.json"
        existing = merged.get(name)
        if existing is None or existing == data or _run_id(existing) == report.run_id:
            merged[name] = data
            return
        number += 1


def _run_id(data: bytes) -> str | None:
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    run_id = raw.get("runId") if isinstance(raw, dict) else None
    return run_id if isinstance(run_id, str) else None


def merge_state_files(
    tip: Mapping[str, bytes], ours: Mapping[str, bytes], *, branch: str = STATE_BRANCH
) -> dict[str, bytes]:
    """The branch's files after adding ours to the tip's, losing neither side's records.

    Runs are kept side by side, the newer heartbeat wins, and decisions merge record by record
    (see `_newer_record`). A claim is only ever replaced by its own run's copy: a run whose claim
    another run took over cannot write it back. Files only the tip has are kept; a file whose merge changes nothing keeps
    the tip's exact bytes, so an unchanged state makes no commit.
    """
    merged = dict(tip)
    for path in sorted(ours):
        if _CHECKPOINT_FILE.match(path):
            merged[path] = ours[path]
            continue
        parsed = parse_state_file(path, ours[path], branch=f"{branch} (this run's copy)")
        if parsed is None:
            raise StateFileError(f"{path} is not a state file: write decisions/, heartbeats/ or runs/ files")
        if isinstance(parsed, RunReport):
            _place_run(merged, _RUN_FILE.sub(r"runs/\1.json", path), parsed)
        elif isinstance(parsed, DigestRecord):
            _place_run(merged, _DIGEST_FILE.sub(r"digests/\1.json", path), parsed)
        elif path not in merged:
            merged[path] = dump_state(parsed)
        elif merged[path] != ours[path]:
            merged[path] = _merge_member_file(path, merged[path], parsed, branch)
    return merged


def _merge_member_file(
    path: str, tip_data: bytes, ours: DecisionsFile | Heartbeat | Claim, branch: str
) -> bytes:
    tip = parse_state_file(path, tip_data, branch=branch)
    if isinstance(ours, Claim) and isinstance(tip, Claim):
        return dump_state(ours) if tip.run_id == ours.run_id else tip_data
    if isinstance(ours, DecisionsFile) and isinstance(tip, DecisionsFile):
        combined = _merge_decisions(tip, ours)
        return tip_data if combined is None else dump_state(combined)
    if isinstance(ours, Heartbeat) and isinstance(tip, Heartbeat):
        return tip_data if tip.at > ours.at else dump_state(ours)
    raise AssertionError(f"{path}: the tip and this run hold different kinds of file")
