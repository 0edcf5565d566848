"""Reading and writing the `homeostat/state` branch on the KB's origin.

The branch is never force-pushed: a run builds its commit on the tip it just fetched, and when
another run moved the branch in between, it fetches again and merges again (see
`homeostat.core.state.branch.merge_state_files`), so overlapping runs both land and no decision is lost.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.core.state.archive import ARCHIVE_DIR, ARCHIVE_FILE, Compaction, compact
from homeostat.core.state.branch import STATE_BRANCH, Archive, StateSnapshot, merge_state_files, parse_state
from homeostat.errors import HomeostatError

DEFAULT_MESSAGE = "homeostat: record decisions, heartbeats and run report [skip ci]"


class StateWriteError(HomeostatError):
    """The state branch kept moving under this run; the message says what is done and what to rerun."""


def tracking_ref(remote: str, branch: str) -> str:
    """Where the clone keeps its copy of the branch (the dashboard reads it with no network call)."""
    return f"refs/remotes/{remote}/{branch}"


def fetch_state_tip(git: Git, remote: str = "origin", branch: str = STATE_BRANCH) -> str | None:
    """Fetch the state branch into its tracking ref; its commit, or None when the branch does not exist."""
    ref = tracking_ref(remote, branch)
    if not git.fetch(remote, [f"+refs/heads/{branch}:{ref}"]):
        return None
    return git.rev_parse(ref)


# The blobs of the last live read, by object id: a run reads the branch before each of its writes and
# most files are the same blobs every time, so only the changed ones are read again.
_LAST_READ: list[tuple[Path, dict[str, bytes]]] = []


def live_files(git: Git, tip: str) -> dict[str, bytes]:
    """The branch's files outside the archive: what a run reads and merges into (the archive is never
    listed or read here, only when a reader asks for a month, see `git_archive`)."""
    entries = [entry for entry in git.tree_entries(tip, skip=ARCHIVE_DIR) if entry.regular]
    known = _LAST_READ[0][1] if _LAST_READ and _LAST_READ[0][0] == git.git_dir else {}
    contents = {entry.sha: known[entry.sha] for entry in entries if entry.sha in known}
    contents.update(git.blobs(entry.sha for entry in entries if entry.sha not in contents))
    _LAST_READ[:] = [(git.git_dir, contents)]
    return {entry.path: contents[entry.sha] for entry in entries}


def git_archive(git: Git, tip: str, branch: str = STATE_BRANCH) -> Archive:
    """The archive at `tip`, each month read from git when first asked for."""
    listing = git.run("ls-tree", "-z", "--name-only", tip, f"{ARCHIVE_DIR}/", check=False).stdout
    months = sorted(name.decode().rsplit("/", 1)[-1] for name in listing.split(b"\0") if name.strip())

    def load(month: str, member: str | None) -> dict[str, bytes]:
        if member is not None:
            path = f"{ARCHIVE_DIR}/{month}/{member}.json"
            data = git.read_file(tip, path)
            return {path: data} if data is not None else {}
        folder = f"{ARCHIVE_DIR}/{month}"
        return {f"{folder}/{name}": data for name, data in git.read_files(tip, folder).items()}

    return Archive(tuple(month for month in months if len(month) == 7), load, branch)


def snapshot_at(git: Git, tip: str, files: Mapping[str, bytes], branch: str = STATE_BRANCH) -> StateSnapshot:
    """The state at `tip` from its live `files`, its archive read from git when asked."""
    return parse_state(files, tip, branch=branch, archive=git_archive(git, tip, branch))


def read_state(git: Git, remote: str = "origin", branch: str = STATE_BRANCH) -> StateSnapshot:
    """The branch as it is on the remote now; an empty state when it does not exist yet."""
    tip = fetch_state_tip(git, remote, branch)
    return StateSnapshot() if tip is None else snapshot_at(git, tip, live_files(git, tip), branch)


def compaction(git: Git, tip: str | None, files: Mapping[str, bytes], cutoff: datetime) -> Compaction:
    """What moving the records settled before `cutoff` into the archive changes at `tip` (whose live
    files are `files`): the first write of each run does it, so the first run to see the layout
    before the archive migrates it in place."""

    def read_archive(paths: Sequence[str]) -> dict[str, bytes]:
        if tip is None:
            return {}
        wanted = [path for path in paths if ARCHIVE_FILE.match(path)]
        found = git.read_paths(tip, wanted)
        return {path: data for path, data in found.items() if data is not None}

    return compact(files, cutoff, read_archive)


def write_state(
    git: Git,
    files: Mapping[str, bytes],
    *,
    remote: str = "origin",
    branch: str = STATE_BRANCH,
    message: str = DEFAULT_MESSAGE,
    attempts: int = 5,
    pause: Callable[[float], None] = time.sleep,
) -> str | None:
    """Merge `files` into the remote state branch; the branch's commit afterwards.

    Nothing is committed when the tip already holds everything (then the tip is returned, or None if
    the branch does not exist and there was nothing to write). The first write creates the branch
    as an orphan. Each refusal waits a short random time (`pause`) so racing runs fall out of step.
    """
    for attempt in range(1, attempts + 1):
        tip = fetch_state_tip(git, remote, branch)
        tip_files = live_files(git, tip) if tip else {}
        merged = merge_state_files(tip_files, files, branch=branch)
        changes: dict[str, bytes | None] = {
            path: data for path, data in merged.items() if tip_files.get(path) != data
        }
        if not changes:
            return tip
        commit = git.commit_files(tip, changes, message)
        if git.push(remote, commit, branch).ok:
            git.run("update-ref", tracking_ref(remote, branch), commit)
            return commit
        if attempt < attempts:
            pause(random.uniform(0.05, 0.25) * attempt)
    raise StateWriteError(
        f"could not record this run on {remote}/{branch}: the branch moved under each of {attempts} tries; "
        "the run's PRs are done, and rerunning it records the decisions"
    )
