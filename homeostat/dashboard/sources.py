"""What the dashboard reads, all local: the KB as checked out, the clone's copy of the state branch
(as of its last fetch; sync keeps it current), this machine's event log and `up`'s schedule locks.
Nothing here touches the network; a part that cannot be read becomes a note on the page, not a
failed page."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from homeostat.adapters import work_tree
from homeostat.adapters.kb_files import load_kb_dir
from homeostat.commands.metrics import accepted_ids, local_events, local_state
from homeostat.core.config import Config
from homeostat.core.dashboard.pages import Inputs
from homeostat.core.kb import CONFIG_FILE, KB
from homeostat.core.state import StateSnapshot, state_branch
from homeostat.core.up import schedule_locks
from homeostat.errors import HomeostatError
from homeostat.runs.sync import read_config


@dataclass(frozen=True)
class Loaded:
    inputs: Inputs
    notes: tuple[str, ...]
    kb_name: str


def load_inputs(root: Path, now: dt.datetime | None = None) -> Loaded:
    """Everything a page needs; a broken config is an error (there is nothing to show without it)."""
    config: Config = read_config(root)
    notes: list[str] = []
    kb: KB | None = None
    try:
        kb = load_kb_dir(root)
        if kb.unreadable:
            notes.append(
                f"{len(kb.unreadable)} KB files could not be read and are left out ({kb.unreadable[0]})"
            )
    except HomeostatError as exc:
        notes.append(f"the KB could not be read: {exc}")
    branch = state_branch(config.sources.base_branch)
    snapshot = StateSnapshot()
    locks = {}
    try:
        snapshot = local_state(root)
        locks = schedule_locks(snapshot.other, branch)
    except HomeostatError as exc:
        notes.append(f"{branch} could not be read: {exc}")
    if snapshot.commit is None:
        notes.append(
            f"this clone has no copy of {branch} yet: the first daily run writes it (once it has run,"
            f" homeostat sync or git fetch origin {branch} brings it here)"
        )
    inputs = Inputs(
        now=now or dt.datetime.now(dt.UTC),
        config=config,
        kb=kb,
        snapshot=snapshot,
        events=local_events(root),
        locks=locks,
        branch=branch,
        accepted=accepted_ids(root),
        set_up=work_tree.first_committed(root, CONFIG_FILE),
    )
    return Loaded(inputs, tuple(notes), root.resolve().name)
