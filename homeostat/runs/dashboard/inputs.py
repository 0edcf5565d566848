"""What the dashboard reads, all local: the KB as checked out, the clone's copy of the state branch
(as of its last fetch; sync keeps it current), this machine's event log and `up`'s schedule locks.
Nothing here touches the network; a part that cannot be read becomes a note on the page, not a
failed page.

Every page reads the KB's files afresh, so an edit shows on the next reload, but parses again only
the files that changed since the last page (`KbMemo`): a KB of 5,000 rules takes over a second to
parse, and reading its files tens of milliseconds."""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass
from pathlib import Path

from homeostat.adapters.cache.corpus_cache import pending_names
from homeostat.adapters.git import work_tree
from homeostat.adapters.kb_files import read_tree
from homeostat.console import Progress
from homeostat.core.config import Config
from homeostat.core.dashboard.pages import Inputs
from homeostat.core.kb import CONFIG_FILE, KB, load_kb
from homeostat.core.schedule.up import schedule_locks
from homeostat.core.state.branch import StateSnapshot, state_branch
from homeostat.errors import HomeostatError
from homeostat.runs.measure.metrics import accepted_ids, local_events, local_state
from homeostat.runs.sync import read_config


class KbMemo:
    """The KB each clone held at its last page, with the files it was read from (the last few
    clones: one dashboard serves one)."""

    KEPT = 4

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[Path, tuple[dict[str, str | bytes], KB]] = {}
        self._accepted: dict[Path, tuple[KB, list[str], frozenset[str] | None]] = {}

    def load(self, root: Path) -> KB:
        root = root.resolve()
        with self._lock:
            last = self._last.get(root)
        files = read_tree(root)
        if last is None:
            with Progress("reading the KB") as shown:  # the first page of a large KB takes a while
                kb = load_kb(files, root=str(root), on_file=shown.update)
        else:
            kb = self._changed(root, last, files)
        with self._lock:
            self._last.pop(root, None)
            self._last[root] = (files, kb)
            while len(self._last) > self.KEPT:
                del self._last[next(iter(self._last))]
        return kb

    def accepted(self, root: Path, kb: KB | None) -> frozenset[str] | None:
        """`homeostat metrics`' accepted rule ids (`accepted_ids`, which loads the whole corpus: a
        quarter of a second at 5,000 rules), again only when the KB or the pending lessons changed
        (pending files are named by their content hash)."""
        root = root.resolve()
        pending = pending_names(root)
        with self._lock:
            known = self._accepted.get(root)
        if known is not None and kb is not None and known[0] is kb and known[1] == pending:
            return known[2]
        found = accepted_ids(root)
        if kb is not None:
            with self._lock:
                self._accepted = {root: (kb, pending, found)}
        return found

    @staticmethod
    def _changed(root: Path, last: tuple[dict[str, str | bytes], KB], files: dict[str, str | bytes]) -> KB:
        before, kb = last
        changes: dict[str, str | bytes | None] = {p: c for p, c in files.items() if before.get(p) != c}
        changes.update({p: None for p in before if p not in files})
        if not changes:
            return kb
        try:
            return kb.with_files(changes)
        except HomeostatError:
            return load_kb(files, root=str(root))


KBS = KbMemo()


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
        kb = KBS.load(root)
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
        accepted=KBS.accepted(root, kb),
        set_up=work_tree.first_committed(root, CONFIG_FILE),
    )
    return Loaded(inputs, tuple(notes), root.resolve().name)
