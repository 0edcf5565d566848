"""Claim: one daily run at a time decides a base branch's lessons, and writes ahead what it publishes.

Before it reads anything, a run pushes its claim to the state branch (`claims/daily.json`, without
force: of runs that start together exactly one push lands). A run that finds another live run's
claim stands aside with one line, "another run owns these lessons", and exits 0: what it would
have decided stays pending, and the owner or the next run decides it, once.

Before each branch push the run adds a journal entry to its claim (the branch, the commit, the PR
title and the decision records the PR settles once it lands), so a run killed at any point leaves
either nothing on the host or an entry the next run finishes (`recover.py`). The run's last state
write releases the claim and drops the journal in the same commit as its records. A claim expires
`CLAIM_TTL` after its last renewal; a run on the same machine sees at once that the owner died.

The weekly deep dive takes its own claim (`claims/deep-dive.json`, `kind="deep-dive"`) the same way,
without a journal: its one PR is found again by its head branch, so what a killed deep dive pushed
is rebuilt by the next one, and two deep dives at once never both ask the model and push.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from typing import Protocol, TextIO

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.run_claim import (
    ClaimLost,
    Held,
    Taken,
    Written,
    is_live,
    take_claim,
    this_process,
    update_claim,
)
from homeostat.core.state.branch import Claim, JournalEntry, RunKind, claim_path, dump_state, state_branch
from homeostat.runs.model_pool import in_worker

CLAIM_TTL = dt.timedelta(minutes=60)
RENEW_AFTER = dt.timedelta(minutes=10)


class _Remote(Protocol):
    @property
    def remote(self) -> str: ...


class ClaimContext(Protocol):
    """What a claim needs of a run's context (the daily run's or the deep dive's)."""

    @property
    def git(self) -> Git: ...

    @property
    def deps(self) -> _Remote: ...

    @property
    def out(self) -> TextIO: ...

    def now(self) -> dt.datetime: ...


class RunClaim:
    """This run's claim and journal on the state branch of `base`."""

    def __init__(self, ctx: ClaimContext, base: str, run_id: str, kind: RunKind = "daily") -> None:
        self.ctx = ctx
        self.base = base
        self.path = claim_path(kind)
        now = ctx.now()
        self.claim = Claim(
            run_id=run_id,
            kind=kind,
            owner=this_process(),
            claimed_at=now,
            expires_at=now + CLAIM_TTL,
        )
        self._renewed = now
        self._written: Written | None = None  # the state branch as this run's last claim write left it
        self._fresh = threading.Condition()  # workers waiting for a renewal by the run's thread
        self._generation = 0  # claim writes so far
        self._lost: ClaimLost | None = None

    def take(self) -> Taken | Held:
        now = self.ctx.now()
        taken = take_claim(
            self.ctx.git,
            self.claim,
            remote=self.ctx.deps.remote,
            branch=state_branch(self.base),
            path=self.path,
            live=lambda other: is_live(other, now),
        )
        if isinstance(taken, Taken):
            self.claim = taken.claim  # with a dead run's journal, until `settle_journal`
            self._written = taken.written
        return taken

    def _write(self, files: dict[str, bytes] | None = None) -> None:
        """Write the claim on the commit this run's last write left, or (where the branch moved since)
        on the tip fetched and checked still to hold it."""
        try:
            self._written = update_claim(
                self.ctx.git,
                self.claim,
                files,
                remote=self.ctx.deps.remote,
                branch=state_branch(self.base),
                path=self.path,
                last=self._written,
            )
        except ClaimLost as exc:
            with self._fresh:
                self._lost = exc
                self._fresh.notify_all()
            raise
        with self._fresh:
            self._generation += 1
            self._fresh.notify_all()

    def due(self) -> bool:
        return self.ctx.now() - self._renewed >= RENEW_AFTER

    def wait_fresh(self, wake: Callable[[], None]) -> None:
        """In a worker, before a model call: when the claim is due for renewal, wait until the run's
        thread has renewed it (`wake` asks it to now), so no call starts once another run took the
        claim over; `ClaimLost` then."""
        with self._fresh:
            if self._lost is not None:
                raise ClaimLost(str(self._lost))
            if not self.due():
                return
            generation = self._generation
            while self._generation == generation and self._lost is None:
                wake()
                self._fresh.wait(timeout=0.5)
            if self._lost is not None:
                raise ClaimLost(str(self._lost))

    def write_ahead(self, entry: JournalEntry, base_tip: str) -> None:
        """Add `entry` to the journal (and renew) before the push it describes; stops if the claim was lost."""
        self.claim = self._renewal().model_copy(
            update={"journal": (*self.claim.journal, entry), "base_tip": self.claim.base_tip or base_tip}
        )
        self._write()

    def settle_journal(self, files: dict[str, bytes]) -> None:
        """Write what finishing a dead run's journal recorded, dropping that journal in the same commit."""
        self.claim = self._renewal().model_copy(update={"journal": (), "base_tip": ""})
        self._write(files)

    def renew_if_due(self) -> None:
        """A long step (drafting many reviews) must not outlive the claim."""
        if self.ctx.now() - self._renewed >= RENEW_AFTER:
            self.hold()

    def renew_while_waiting(self) -> None:
        """A host's long wait (the next hour's writes, a declared limit's Retry-After) wakes the run
        every second: renew when due. Only the run's own thread writes the claim; a worker's wait
        leaves it to that thread, which renews as it waits for its workers."""
        if not in_worker():
            self.renew_if_due()

    def hold(self, files: dict[str, bytes] | None = None) -> None:
        """Renew now, before a step that pushes (with `files`: checkpoints written as the run goes):
        `ClaimLost` when another run took the claim over, so a run that lost it writes nothing."""
        self.claim = self._renewal()
        self._write(files)

    def note_window(self, since: dt.datetime) -> None:
        """Keep the run's review window start with the claim, so a run killed before it records
        anything (a lost runner) has its window read again by the next."""
        self.claim = self._renewal().model_copy(update={"since": since})
        self._write()

    def released(self) -> dict[str, bytes]:
        """The claim file that the run's last state write carries: released, journal done."""
        done = self.claim.model_copy(update={"released_at": self.ctx.now(), "journal": ()})
        return {self.path: dump_state(done)}

    def release(self) -> None:
        """A run that ends with nothing to record releases its claim on its own."""
        self.claim = self.claim.model_copy(update={"released_at": self.ctx.now(), "journal": ()})
        self._write()

    def abandon(self, files: dict[str, bytes] | None = None) -> None:
        """A run that fails mid-way releases its claim but keeps its journal, for the next run to
        finish, in one write with `files` (its failed run report and checkpoints)."""
        try:
            self.claim = self.claim.model_copy(update={"released_at": self.ctx.now()})
            self._write(files)
        except Exception as exc:  # noqa: BLE001 - the run is already failing; say so, keep its own error
            print(
                f"notice: could not release this run's claim ({exc}); it expires on its own",
                file=self.ctx.out,
            )

    def _renewal(self) -> Claim:
        self._renewed = self.ctx.now()
        return self.claim.model_copy(update={"expires_at": self._renewed + CLAIM_TTL})


def owner_line(claim: Claim) -> str:
    """Who holds a claim, for the line a run that stands aside prints."""
    until = claim.expires_at.strftime("%H:%M UTC")
    since = claim.claimed_at.strftime("%H:%M UTC")
    return f"run {claim.run_id} (pid {claim.owner.pid} on {claim.owner.host}, since {since}, claim until {until})"
