"""Shards of the daily run's drafting: which code repos a CI job of a matrix drafts.

When one job is not enough, the CI is the engine: `homeostat curate --shard i/N` drafts the review
threads of the repos that hash to shard i, and one merge job (`homeostat daily --merge-shards N`)
decides every shard's drafts with the KB-wide view, recalling each one from the shard's checkpoint.
A repo's shard is a stable hash of its identity (host, owner and name, case folded), so it never
moves between runs or machines while N stays the same, and needs no list kept anywhere.

Shards count from 1, as GitHub's and Bitbucket's matrix indices and `jest --shard 1/3` do.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from homeostat.core.hosts import RepoRef
from homeostat.core.state.checkpoints import checkpoint_path, read_checkpoints
from homeostat.errors import ConfigError

MAX_SHARDS = 64  # a GitHub matrix runs up to 256 jobs; past a few dozen the merge job is the bottleneck
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    index: int  # 1..count
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    @property
    def slot(self) -> str:
        """Its checkpoint slot on the state branch (`checkpoints/daily/<slot>.json`)."""
        return f"shard-{self.index}-of-{self.count}"

    def holds(self, repo: RepoRef) -> bool:
        return shard_index(repo, self.count) == self.index


def shard_index(repo: RepoRef, count: int) -> int:
    """The shard (1..count) a repo belongs to, the same on every machine and every run."""
    identity = f"{repo.host}:{repo.owner.lower()}/{repo.name.lower()}".encode()
    return int.from_bytes(hashlib.sha256(identity).digest()[:8], "big") % count + 1


def parse_shard(value: str, flag: str = "--shard") -> Shard:
    """`i/N`, 1 ≤ i ≤ N ≤ MAX_SHARDS; anything else is one line naming the flag."""
    match = _SHARD.match(value)
    if match is None:
        raise ConfigError(
            f"{flag} {value!r} is not i/N: give this job's shard and the shard count, e.g. {flag} 2/8"
        )
    index, count = int(match.group(1)), int(match.group(2))
    if not 1 <= count <= MAX_SHARDS:
        raise ConfigError(f"{flag} {value}: the shard count must be 1 to {MAX_SHARDS}, not {count}")
    if not 1 <= index <= count:
        raise ConfigError(f"{flag} {value}: shards count from 1, so i must be 1 to {count}, not {index}")
    return Shard(index, count)


def parse_shard_count(value: str, flag: str = "--merge-shards") -> int:
    """N for the merge job (and `init --shards`): a whole number 1..MAX_SHARDS."""
    text = value.strip()
    if not text.isdigit() or not 1 <= int(text) <= MAX_SHARDS:
        raise ConfigError(
            f"{flag} {value!r}: give the number of shards, a whole number from 1 to {MAX_SHARDS}"
        )
    return int(text)


def finished_since(files: Mapping[str, bytes], count: int, last_run: dt.datetime | None) -> list[dt.datetime]:
    """Where the windows of the shards the merge job uses opened: its own window opens no later, so
    it reads every thread they drafted (a shard that started minutes earlier reached further back)."""
    status = shard_status(files, count, last_run)
    marks = {file.slot: file.shard for file in read_checkpoints(files, "daily")}
    return [
        mark.since for shard, why in status.items() if not why and (mark := marks[shard.slot]) is not None
    ]


def shard_status(files: Mapping[str, bytes], count: int, last_run: dt.datetime | None) -> dict[Shard, str]:
    """Each of `count` shards, with why the merge job may not use it ("" when it may): its slot on
    the state branch (`files`) must say it finished, after the last finished daily run started
    (`last_run`), so yesterday's mark is never read as today's."""
    marks = {file.slot: file.shard for file in read_checkpoints(files, "daily")}
    status: dict[Shard, str] = {}
    for index in range(1, count + 1):
        shard = Shard(index, count)
        mark = marks.get(shard.slot)
        if mark is None:
            status[shard] = f"left no drafts ({checkpoint_path('daily', shard.slot)} has no finished shard)"
        elif not mark.finished:
            status[shard] = f"stopped: {mark.reason or 'it did not finish'}"
        elif last_run is not None and mark.until <= last_run:
            status[shard] = "did not run since the last daily run"
        else:
            status[shard] = ""
    return status
