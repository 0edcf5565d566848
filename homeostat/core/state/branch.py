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
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
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

from homeostat.core.state.archive import (
    ARCHIVE_FILE,
    INDEX_FILE,
    ArchiveLoader,
    IndexFile,
    canonical,
    filter_since,
    month_of,
    parse_index,
)
from homeostat.core.state.hash_set import HashSet
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
_MEMBER_FILE = re.compile(r"^(decisions|heartbeats|repeats)/([A-Za-z0-9][A-Za-z0-9._-]*)\.json$")
_RUN_FILE = re.compile(r"^runs/(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.json$")
_CLAIM_FILE = re.compile(r"^claims/(daily|deep-dive|bootstrap)\.json$")
_DIGEST_FILE = re.compile(r"^digests/(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.json$")
# A run's checkpoints (homeostat.core.state.checkpoints): one writer per file, so ours replaces the tip's.
_CHECKPOINT_FILE = re.compile(r"^checkpoints/[a-z0-9-]+/[a-z0-9-]+\.json$")


class StateFileError(HomeostatError):
    """A file on the state branch cannot be read; the message names the branch, the file and the fix."""


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


@lru_cache(maxsize=4096)
def _redacted(value: str) -> str:
    """Remembered by text: a run parses thousands of records whose reasons and notices repeat word
    for word ("middle band: a person reviews it"), and the scan is the costliest part of a parse."""
    from homeostat.core.safety.secrets import redacted  # not loaded by a laptop's sync until a record is made

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


def _check_member_records(
    member: str, records: tuple[DecisionRecord, ...] | tuple[RepeatRecord, ...]
) -> None:
    """A member's file holds one record per lesson hash, every one that member's."""
    hashes = [record.hash for record in records]
    if len(set(hashes)) != len(hashes):
        raise ValueError("two records have the same hash")
    if any(record.member != member for record in records):
        raise ValueError(f"every record's member must be {member!r}")


class DecisionsFile(StateModel):
    version: Literal[1] = STATE_VERSION
    member: Handle
    records: tuple[DecisionRecord, ...] = ()

    @model_validator(mode="after")
    def _one_member_one_record_per_hash(self) -> DecisionsFile:
        _check_member_records(self.member, self.records)
        return self


class Heartbeat(StateModel):
    version: Literal[1] = STATE_VERSION
    member: Handle
    at: UtcDatetime
    homeostat_version: Text
    pending: NonNegativeInt
    behind: NonNegativeInt | None = None
    usage: dict[date, dict[str, NonNegativeInt]] | None = None
    # with `usage: true`, the ids of the rules this member's sessions were served or credited in the
    # usage window: how the daily run tells a rule re-taught after it was served (`RepeatRecord`).
    # Only on the candidates branch: the daily run drops it before recording the heartbeat.
    served: tuple[Text, ...] = ()

    @model_serializer(mode="wrap")
    def _without_empty_served(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        """A heartbeat that lists no served rule writes the same bytes as before the field, so a
        Homeostat that predates it still reads every heartbeat on the state branch."""
        data: dict[str, object] = handler(self)
        if not self.served:
            data.pop("served", None)
        return data


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


RepeatAction = Literal["duplicate", "update"]


class RepeatRecord(StateModel):
    """A review lesson that re-taught a rule already in force when its PR was opened: the consolidator
    (or word overlap) found it a duplicate or an update of `rule_id`. `served` says whether the rule
    had reached the PR author's sessions (their opt-in heartbeat's served ids): True is a rule agents
    did not follow, False a selection miss, None a member who does not share usage. `hash` is the
    lesson's decision hash, so a rerun records it once."""

    hash: Annotated[str, Field(pattern=r"^\S+$")]
    member: Handle
    rule_id: Text
    action: RepeatAction
    area: str = ""
    repo: str = ""
    url: FreeText | None = None
    paths: tuple[Text, ...] = ()
    opened_at: UtcDatetime  # when the PR was opened (the thread's start where the host did not say)
    rule_since: date  # the rule's `created`: in force from then
    served: bool | None = None
    at: UtcDatetime


class RepeatsFile(StateModel):
    """`repeats/<member>.json`: a file of its own, not a field of the decision records, so a
    Homeostat that predates it keeps it aside instead of refusing the member's decisions."""

    version: Literal[1] = STATE_VERSION
    member: Handle
    records: tuple[RepeatRecord, ...] = ()

    @model_validator(mode="after")
    def _one_member_one_record_per_hash(self) -> RepeatsFile:
        _check_member_records(self.member, self.records)
        return self


StateFile = DecisionsFile | Heartbeat | RunReport | Claim | DigestRecord | IndexFile | RepeatsFile
_Model = TypeVar("_Model", bound=StateModel)


# Names and wire form


def state_branch(base_branch: str) -> str:
    """One state history per KB branch, so a trial KB on a branch never settles the main KB's PRs."""
    return STATE_BRANCH if base_branch == "main" else f"{STATE_BRANCH}-{base_branch}"


def decisions_path(member: str) -> str:
    return f"decisions/{member}.json"


def repeats_path(member: str) -> str:
    return f"repeats/{member}.json"


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


def dump_state(model: StateModel | StateFile) -> bytes:
    """The canonical JSON form (what `json.dumps(sort_keys=True, indent=2, ensure_ascii=False)` gives,
    made by pydantic's serializer, which is many times faster): dump, load, dump gives the same bytes."""
    if isinstance(model, IndexFile):
        return model.to_bytes()
    return canonical(model.model_dump(mode="json", by_alias=True))


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
    """Validated straight from the bytes; only a file that fails is decoded again, to say whether it
    is not JSON or written by a newer Homeostat (every model's `version` is `Literal[1]`, so a file
    that validates is one this version reads). Decoding every file first cost a year-old state
    ~0.1 s a read."""
    try:
        return model.model_validate_json(data, strict=True)
    except ValidationError as error:
        _refuse_unreadable(f"{branch}:{path}", data)
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise StateFileError(
            f"{branch}:{path}: {key}: {first['msg']}; fix or delete it on that branch"
        ) from None


def _refuse_unreadable(where: str, data: bytes) -> None:
    """Raise the error for a file that is not JSON, or that a newer Homeostat wrote."""
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


_PARSED: OrderedDict[tuple[str, bytes], StateFile] = OrderedDict()
_PARSED_BYTES = [0]
_PARSED_BUDGET = 32 * 1024 * 1024  # of file bytes kept with their parse: a run's open and recent state


def parse_state_file(path: str, data: bytes, *, branch: str = STATE_BRANCH) -> StateFile | None:
    """The model a state-branch file holds, or None for a path the state format does not define.

    A run reads the branch several times (its claim, the overlap check, each write) and most files
    have not changed in between: a file already parsed with the same bytes is not validated again
    (the models are immutable, so sharing them is safe)."""
    key = (path, data)
    cached = _PARSED.get(key)
    if cached is not None:
        _PARSED.move_to_end(key)
        return cached
    parsed = _parse_state_file(path, data, branch)
    if parsed is not None and len(data) <= _PARSED_BUDGET // 4:
        _PARSED[key] = parsed
        _PARSED_BYTES[0] += len(data)
        while _PARSED_BYTES[0] > _PARSED_BUDGET:
            (_, old), _model = _PARSED.popitem(last=False)
            _PARSED_BYTES[0] -= len(old)
    return parsed


def _parse_state_file(path: str, data: bytes, branch: str) -> StateFile | None:
    archived = ARCHIVE_FILE.match(path)
    if archived:
        decisions = _load(DecisionsFile, path, data, branch)
        if decisions.member != archived.group(2):
            raise StateFileError(
                f"{branch}:{path} holds member {decisions.member!r}; it belongs in "
                f"archive/{archived.group(1)}/{decisions.member}.json"
            )
        return decisions
    if INDEX_FILE.match(path):
        index = parse_index(path, data)
        if isinstance(index, str):
            raise StateFileError(f"{branch}:{path}: {index}; fix or delete it on that branch")
        return index
    member_file = _MEMBER_FILE.match(path)
    if member_file:
        models: dict[str, type[DecisionsFile] | type[Heartbeat] | type[RepeatsFile]] = {
            "decisions": DecisionsFile,
            "heartbeats": Heartbeat,
            "repeats": RepeatsFile,
        }
        model = models[member_file.group(1)]
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


@dataclass(frozen=True, eq=False)
class Archive:
    """The monthly archive of decision records (`archive/<month>/<member>.json`), read only when a
    reader asks for a month: the daily run never does unless its window reaches that far back."""

    months: tuple[str, ...]
    load: ArchiveLoader
    branch: str = STATE_BRANCH

    def records(
        self, month: str, *, member: str | None = None, since: datetime | None = None
    ) -> list[DecisionRecord]:
        """The month's records (one member's, or every member's), those decided since `since` only:
        the others are never validated."""
        files = self.load(month, member) if month in self.months else {}
        found: list[DecisionRecord] = []
        for path in sorted(files):
            data = filter_since(files[path], since)
            parsed = _parse_state_file(path, data, self.branch) if data is not None else None
            if isinstance(parsed, DecisionsFile):
                found.extend(r for r in parsed.records if since is None or r.at >= since)
        return found


def files_archive(files: Mapping[str, bytes], branch: str = STATE_BRANCH) -> Archive:
    """An archive over files already read (a whole tree, as tests and `git show` give it)."""
    held = {path: data for path, data in files.items() if ARCHIVE_FILE.match(path)}

    def load(month: str, member: str | None) -> Mapping[str, bytes]:
        prefix = f"archive/{month}/"
        wanted = f"{prefix}{member}.json" if member is not None else None
        return {p: d for p, d in held.items() if p.startswith(prefix) and (wanted is None or p == wanted)}

    months = sorted({match.group(1) for path in held if (match := ARCHIVE_FILE.match(path))})
    return Archive(tuple(months), load, branch)


def _latest(records: Iterable[DecisionRecord]) -> list[DecisionRecord]:
    """One record per member and hash (the newer, as merging keeps it), oldest first."""
    by_key: dict[tuple[str, str], DecisionRecord] = {}
    for record in records:
        key = (record.member, record.hash)
        current = by_key.get(key)
        by_key[key] = record if current is None else _newer_record(current, record)
    return sorted(by_key.values(), key=lambda record: (record.at, record.hash))


@dataclass(frozen=True)
class StateSnapshot:
    """Everything on the state branch at one commit (None and empty when the branch does not exist).

    `decisions` holds the open and recent records; older ones are in `archive`, their hashes in
    `index` (see `homeostat.core.state.archive`). A branch in the layout before the archive holds
    every record in `decisions`, and reads the same."""

    commit: str | None = None
    decisions: Mapping[str, DecisionsFile] = field(default_factory=dict)
    heartbeats: Mapping[str, Heartbeat] = field(default_factory=dict)
    runs: Mapping[str, RunReport] = field(default_factory=dict)
    other: Mapping[str, bytes] = field(default_factory=dict)
    claims: Mapping[str, Claim] = field(default_factory=dict)
    digests: Mapping[str, DigestRecord] = field(default_factory=dict)
    index: Mapping[str, IndexFile] = field(default_factory=dict)
    archive: Archive | None = field(default=None, compare=False, repr=False)
    repeats: Mapping[str, RepeatsFile] = field(default_factory=dict)

    def repeat_records(self) -> list[RepeatRecord]:
        """Every member's repeat records, oldest first."""
        every = [record for file in self.repeats.values() for record in file.records]
        return sorted(every, key=lambda record: (record.at, record.hash))

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

    def live_records(self) -> list[DecisionRecord]:
        """The open and recent records (`decisions/`), oldest first."""
        return sorted(
            (record for file in self.decisions.values() for record in file.records),
            key=lambda record: (record.at, record.hash),
        )

    def open_records(self) -> list[DecisionRecord]:
        """Records still in review, oldest first: they are never archived."""
        return [record for record in self.live_records() if record.state == "in-review"]

    def records(self) -> list[DecisionRecord]:
        """Every member's decision records, the archived ones too, oldest first (the whole history:
        a reader of one window uses `records_since`)."""
        archived = self._archived(None, self.archive.months if self.archive else ())
        return _latest([*self.live_records(), *archived])

    def records_since(self, since: datetime) -> list[DecisionRecord]:
        """The open and recent records, and the archived ones decided at or after `since`: every
        record a reader of the window from `since` on can need. Reads the archive only when the
        window starts before its newest record."""
        before = self.archived_before
        if self.archive is None or before is None or since >= before:
            return self.live_records()
        first = month_of(since)
        months = [month for month in self.archive.months if month >= first]
        return _latest([*self.live_records(), *self._archived(since, months)])

    def _archived(self, since: datetime | None, months: Iterable[str]) -> list[DecisionRecord]:
        if self.archive is None:
            return []
        return [record for month in months for record in self.archive.records(month, since=since)]

    @property
    def archived_before(self) -> datetime | None:
        """Every archived record was decided before this (None: nothing is archived)."""
        return max((index.archived_before for index in self.index.values()), default=None)

    def decided_hashes(self) -> HashSet:
        """Content hashes already decided, which sync clears from pending and the run skips: the
        open and recent records' and every month's index, merged into one compact set."""
        live = HashSet(record.hash for file in self.decisions.values() for record in file.records)
        return live.union(*(index.hashes for index in self.index.values()))

    def decisions_for(self, hashes: Iterable[str], member: str) -> dict[str, DecisionRecord]:
        """The latest record of each of `hashes`, archived or not (in the archive, `member`'s, who
        sent those lessons): the archive is read only for the months whose index names one of them."""
        wanted = set(hashes)
        found = [r for r in self.live_records() if r.hash in wanted]
        months = [
            month for month, index in sorted(self.index.items()) if any(h in index.hashes for h in wanted)
        ]
        if self.archive is not None:
            found += [
                r for month in months for r in self.archive.records(month, member=member) if r.hash in wanted
            ]
        return {record.hash: record for record in _latest(found)}

    def last_run(self, kind: RunKind = "daily") -> RunReport | None:
        """The latest run that did the work (one that stood aside for another run's claim did none)."""
        reports = [
            report
            for report in self.runs.values()
            if report.kind == kind and not any(n.kind == "overlap" for n in report.notices)
        ]
        return max(reports, key=lambda report: report.started_at, default=None)

    def last_finished_run(self) -> RunReport | None:
        """The latest daily run that finished its work: not a failed one (a later run finishes its
        journal) nor one that stood aside. A finished run records its decisions in the same write as
        its report."""
        finished = [
            report
            for report in self.runs.values()
            if report.kind == "daily"
            and report.failed is None
            and not any(n.kind == "overlap" for n in report.notices)
        ]
        return max(finished, key=lambda report: report.started_at, default=None)


def parse_state(
    files: Mapping[str, bytes],
    commit: str | None,
    *,
    branch: str = STATE_BRANCH,
    archive: Archive | None = None,
) -> StateSnapshot:
    """Parse every file of the branch; a broken file is an error naming it, an unknown one is kept aside.

    Archived records are not parsed here: `archive` reads them when asked (by default, from the
    `archive/` files among `files`)."""
    decisions: dict[str, DecisionsFile] = {}
    heartbeats: dict[str, Heartbeat] = {}
    runs: dict[str, RunReport] = {}
    other: dict[str, bytes] = {}
    claims: dict[str, Claim] = {}
    digests: dict[str, DigestRecord] = {}
    index: dict[str, IndexFile] = {}
    repeats: dict[str, RepeatsFile] = {}
    for path in sorted(files):
        if ARCHIVE_FILE.match(path):
            continue
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
        elif isinstance(parsed, IndexFile):
            index[parsed.month] = parsed
        elif isinstance(parsed, RepeatsFile):
            repeats[parsed.member] = parsed
        else:
            other[path] = files[path]
    if archive is None:
        archive = files_archive(files, branch)
    return StateSnapshot(
        commit, decisions, heartbeats, runs, other, claims, digests, index, archive, repeats=repeats
    )


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


def _merge_repeats(tip: RepeatsFile, ours: RepeatsFile) -> RepeatsFile | None:
    """Records by hash, the later `at` winning; None when the tip already holds everything."""
    by_hash = {record.hash: record for record in tip.records}
    for record in ours.records:
        current = by_hash.get(record.hash)
        by_hash[record.hash] = record if current is None or record.at > current.at else current
    if by_hash == {record.hash: record for record in tip.records}:
        return None
    records = tuple(sorted(by_hash.values(), key=lambda record: (record.at, record.hash)))
    return RepeatsFile(member=tip.member, records=records)


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
            raise StateFileError(
                f"{path} is not a state file: write decisions/, heartbeats/, repeats/ or runs/ files"
            )
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
    path: str,
    tip_data: bytes,
    ours: DecisionsFile | Heartbeat | Claim | IndexFile | RepeatsFile,
    branch: str,
) -> bytes:
    tip = parse_state_file(path, tip_data, branch=branch)
    if isinstance(ours, IndexFile) and isinstance(tip, IndexFile):
        index = tip.merged(ours)
        return tip_data if index == tip else index.to_bytes()
    if isinstance(ours, Claim) and isinstance(tip, Claim):
        return dump_state(ours) if tip.run_id == ours.run_id else tip_data
    if isinstance(ours, DecisionsFile) and isinstance(tip, DecisionsFile):
        combined = _merge_decisions(tip, ours)
        return tip_data if combined is None else dump_state(combined)
    if isinstance(ours, RepeatsFile) and isinstance(tip, RepeatsFile):
        merged = _merge_repeats(tip, ours)
        return tip_data if merged is None else dump_state(merged)
    if isinstance(ours, Heartbeat) and isinstance(tip, Heartbeat):
        return tip_data if tip.at > ours.at else dump_state(ours)
    raise AssertionError(f"{path}: the tip and this run hold different kinds of file")
