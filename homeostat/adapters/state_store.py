"""Reading and writing the `homeostat/state` branch on the KB's origin.

The branch is never force-pushed: a run builds its commit on the tip it just fetched, and when
another run moved the branch in between, it fetches again and merges again (see
`homeostat.core.state.merge_state_files`), so overlapping runs both land and no decision is lost.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping

from homeostat.adapters.git import Git
from homeostat.core.state import STATE_BRANCH, StateSnapshot, merge_state_files, parse_state
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


def read_state(git: Git, remote: str = "origin", branch: str = STATE_BRANCH) -> StateSnapshot:
    """The branch as it is on the remote now; an empty state when it does not exist yet."""
    tip = fetch_state_tip(git, remote, branch)
    return StateSnapshot() if tip is None else parse_state(git.read_files(tip), tip, branch=branch)


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
        tip_files = git.read_files(tip) if tip else {}
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
