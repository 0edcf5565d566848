"""What `homeostat metrics`, `eval --from-repeats` and the dashboard read from this clone: its copy of
the state branch (as of the last fetch: no network call), this machine's event log, and the rules the
corpus serves."""

from __future__ import annotations

from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.event_log import SqliteEventLog, events_path, log_exists
from homeostat.adapters.state.state_store import live_files, snapshot_at, tracking_ref
from homeostat.core.events import Event
from homeostat.core.state.branch import StateSnapshot, state_branch
from homeostat.errors import GitError


def local_state(root: Path) -> StateSnapshot:
    """The state branch as this clone last fetched it (sync keeps it current)."""
    from homeostat.runs.sync import read_config

    branch = state_branch(read_config(root).sources.base_branch)
    try:
        git = Git(root)
        tip = git.rev_parse(tracking_ref("origin", branch))
        return StateSnapshot() if tip is None else snapshot_at(git, tip, live_files(git, tip), branch)
    except GitError:
        return StateSnapshot()


def local_events(root: Path) -> list[Event]:
    """This machine's event log, oldest first (none when it has no log)."""
    path = events_path(root)
    if not log_exists(path):
        return []
    with SqliteEventLog(path) as log:
        return log.query()


def accepted_ids(root: Path) -> frozenset[str] | None:
    """The rules sessions are served (the corpus), so "served but never credited" names live rules."""
    from homeostat.adapters.cache.corpus_cache import load_corpus

    try:
        return frozenset(e.id for e in load_corpus(root).corpus.entries)
    except Exception:  # noqa: BLE001 - a KB that does not load only loses the filter
        return None
