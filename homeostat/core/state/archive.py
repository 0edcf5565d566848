"""Keeping the state branch small: decision records that are settled and old move to a monthly archive.

Decision records are never pruned (the dashboard, `metrics`, the digest and the deep dive read their
history), but the daily run needs only a few of them: the open ones (in review), the hashes of every
lesson already decided, and the records of its own review window. A year at 500 lessons a day is
180,000 records; read and validated whole, ~3 times a run, that is a minute and gigabytes. So:

- `decisions/<member>.json` keeps the open records and the recent ones (decided within `RECENT`);
- `archive/<YYYY-MM>/<member>.json` holds the rest, by the month of the record's `at` (the same
  `DecisionsFile` form, never read by the daily run unless its window reaches that far back);
- `index/<YYYY-MM>.json` lists the content hashes archived into that month (a few hundred KB a
  month), so "already decided" stays one set lookup (a `HashSet`, 8 bytes a hash), and says before
  when its records were decided.

`compact` moves records on the first state write of a run (its claim), working on the JSON as it is,
never validating a record it only moves: migrating a year of the old layout costs seconds. A run
killed before its push leaves the branch as it was; two runs racing push one after the other (the
second merges on the first's tip), and moving a record twice lands it once, merged by hash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic_core import to_json

from homeostat.core.state.hash_set import HashSet

# Settled records decided this long ago leave `decisions/`: longer than a daily window (26 hours by
# default), so a normal run's window never reaches into the archive.
RECENT = timedelta(days=2)

ARCHIVE_DIR = "archive"
INDEX_DIR = "index"
_DECISIONS = re.compile(r"^decisions/([A-Za-z0-9][A-Za-z0-9._-]*)\.json$")
ARCHIVE_FILE = re.compile(r"^archive/(\d{4}-\d{2})/([A-Za-z0-9][A-Za-z0-9._-]*)\.json$")
INDEX_FILE = re.compile(r"^index/(\d{4}-\d{2})\.json$")

Raw = dict[str, Any]
# (month, member or None for every member) -> {path: bytes} of the archive files asked for
ArchiveLoader = Callable[[str, str | None], Mapping[str, bytes]]


def archive_path(month: str, member: str) -> str:
    return f"{ARCHIVE_DIR}/{month}/{member}.json"


def index_path(month: str) -> str:
    return f"{INDEX_DIR}/{month}.json"


def month_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m")


def canonical(data: object) -> bytes:
    """The state branch's one JSON form (sorted keys, 2-space indent, trailing newline)."""
    return to_json(_sorted(data), indent=2) + b"\n"


def _sorted(value: object) -> object:
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def parse_time(text: object) -> datetime | None:
    """An ISO time as the state files write it (`...Z`), or None when it is not one."""
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def raw_records(data: bytes) -> list[Raw] | None:
    """A decisions file's records as JSON objects, or None when it is not such a file (the reader
    that validates it names the problem; compaction leaves it alone)."""
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None
    records = raw.get("records") if isinstance(raw, dict) else None
    if not isinstance(records, list) or not all(isinstance(item, dict) for item in records):
        return None
    return records


def _record_key(record: Raw) -> tuple[str, str]:
    return (str(record.get("at", "")), str(record.get("hash", "")))


def _newer(first: Raw, second: Raw) -> Raw:
    """As `homeostat.core.state.branch._newer_record`: settled over in review, else the later `at`."""
    if first.get("state") != second.get("state"):
        return first if first.get("state") == "settled" else second
    a, b = parse_time(first.get("at")), parse_time(second.get("at"))
    if a is None or b is None:
        return second
    return first if a > b else second


def decisions_bytes(member: str, records: Iterable[Raw]) -> bytes:
    """A `DecisionsFile` in its canonical form, built from records as they are on the branch."""
    by_hash: dict[str, Raw] = {}
    for record in records:
        key = str(record.get("hash", ""))
        by_hash[key] = record if key not in by_hash else _newer(by_hash[key], record)
    ordered = sorted(by_hash.values(), key=_record_key)
    return canonical({"member": member, "records": ordered, "version": 1})


@dataclass(frozen=True)
class IndexFile:
    """`index/<month>.json`: the hashes archived into a month, and the cutoff they were moved at.
    `hashes` is held as a `HashSet` (whatever set it is given), a year of them being 180,000."""

    month: str
    archived_before: datetime
    hashes: AbstractSet[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "hashes", HashSet.of(self.hashes))

    def to_bytes(self) -> bytes:
        return canonical(
            {
                "archivedBefore": self.archived_before.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "hashes": sorted(self.hashes),
                "month": self.month,
                "version": 1,
            }
        )

    def merged(self, other: IndexFile) -> IndexFile:
        return IndexFile(
            self.month,
            max(self.archived_before, other.archived_before),
            HashSet.of(self.hashes).union(other.hashes),
        )


_HASH = re.compile(r"^\S+$")
_SPACE = re.compile(r"\s")


def parse_index(path: str, data: bytes) -> IndexFile | str:
    """The index file, or what is wrong with it (the caller names the branch and the fix)."""
    found = INDEX_FILE.match(path)
    if found is None:
        return "not an index file"
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, ValueError) as error:
        return f"not valid JSON ({error})"
    if not isinstance(raw, dict):
        return "(top level): not an object"
    version = raw.get("version")
    if version != 1:
        return f"version: {version!r} is not 1"
    if set(raw) - {"version", "month", "archivedBefore", "hashes"}:
        return f"unknown keys {sorted(set(raw) - {'version', 'month', 'archivedBefore', 'hashes'})}"
    if raw.get("month") != found.group(1):
        return f"month: {raw.get('month')!r} does not match the file name"
    before = parse_time(raw.get("archivedBefore"))
    if before is None:
        return "archivedBefore: not a time with a zone"
    hashes = raw.get("hashes")
    if not isinstance(hashes, list) or not set(map(type, hashes)) <= {str}:
        return "hashes: not a list of content hashes"
    # a year is 180,000 of them: one search over them all, each looked at only when it finds a space
    if ("" in hashes or _SPACE.search("".join(hashes))) and not all(_HASH.match(h) for h in hashes):
        return "hashes: not a list of content hashes"
    return IndexFile(found.group(1), before.astimezone(UTC), HashSet(hashes))


@dataclass
class Compaction:
    """What `compact` changes: files to write (None deletes) and how many records it moved."""

    changes: dict[str, bytes | None] = field(default_factory=dict)
    moved: int = 0


def compact(
    live: Mapping[str, bytes], cutoff: datetime, read_archive: Callable[[Sequence[str]], Mapping[str, bytes]]
) -> Compaction:
    """Move settled records decided before `cutoff` from `decisions/` into the monthly archive.

    `live` is the branch's files outside `archive/` (so it holds `index/`); `read_archive(paths)` gives
    the archive files already on the branch among `paths`. A file that is not a readable decisions
    file is left as it is, for the reader to report.
    """
    result = Compaction()
    moved: dict[tuple[str, str], list[Raw]] = {}
    for path in sorted(live):
        found = _DECISIONS.match(path)
        records = raw_records(live[path]) if found else None
        if found is None or records is None:
            continue
        member = found.group(1)
        keep: list[Raw] = []
        for record in records:
            at = parse_time(record.get("at"))
            if record.get("state") == "settled" and at is not None and at < cutoff:
                moved.setdefault((month_of(at), member), []).append(record)
            else:
                keep.append(record)
        if len(keep) == len(records):
            continue
        result.changes[path] = decisions_bytes(member, keep) if keep else None
        result.moved += len(records) - len(keep)
    if not moved:
        return result
    paths = [archive_path(month, member) for month, member in sorted(moved)]
    existing = read_archive(paths)
    hashes: dict[str, set[str]] = {}
    for (month, member), records in sorted(moved.items()):
        path = archive_path(month, member)
        before = raw_records(existing[path]) if path in existing else []
        result.changes[path] = decisions_bytes(member, [*(before or []), *records])
        hashes.setdefault(month, set()).update(str(record.get("hash", "")) for record in records)
    for month, added in sorted(hashes.items()):
        index = IndexFile(month, cutoff.astimezone(UTC).replace(microsecond=0), HashSet(added))
        path = index_path(month)
        if path in live:
            earlier = parse_index(path, live[path])
            if isinstance(earlier, IndexFile):
                index = earlier.merged(index)
        result.changes[path] = index.to_bytes()
    return result


def filter_since(data: bytes, since: datetime | None) -> bytes | None:
    """A decisions file cut to the records decided at or after `since` (the JSON as it is, so only
    those are validated), or None when none are; the whole file when `since` is None."""
    if since is None:
        return data
    records = raw_records(data)
    if records is None:
        return data  # validated whole, so the reader names what is wrong with it
    kept = [r for r in records if (at := parse_time(r.get("at"))) is None or at >= since]
    if not kept:
        return None
    raw = json.loads(data)
    raw["records"] = kept
    return canonical(raw)
