"""Claims on the state branch: one run at a time decides a base branch's lessons.

A claim is `claims/<kind>.json` on the state branch, pushed without force on the tip just fetched,
so of two runs that claim at once exactly one push lands; the other refetches and sees the winner's
claim. Every later write of the claim (`update_claim`: journal entries, renewals) first checks that
the tip still holds this run's claim, so a run that lost it (it outlived its expiry and another run
took over) stops before it touches the host.

Whether a claim is still held is its expiry, and, for a process on this same machine (same boot and
pid namespace), whether that process still runs: a run killed on this machine is taken over at once,
one killed on another machine once its claim expires.
"""

from __future__ import annotations

import os
import random
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import (
    StateWriteError,
    compaction,
    fetch_state_tip,
    live_files,
    snapshot_at,
    tracking_ref,
)
from homeostat.core.state.archive import ARCHIVE_FILE, RECENT
from homeostat.core.state.branch import (
    Claim,
    ClaimOwner,
    StateSnapshot,
    dump_state,
    merge_state_files,
    parse_state,
)
from homeostat.errors import HomeostatError

ATTEMPTS = 8


class ClaimLost(HomeostatError):
    """Another run took this run's claim over; the run stops before touching the host again."""


@dataclass(frozen=True)
class Written:
    """The state branch as this run's last claim write left it: the commit it pushed and its files."""

    commit: str
    files: Mapping[str, bytes]


@dataclass(frozen=True)
class Taken:
    """This run holds the claim; `previous` is the released, expired or dead claim it replaced."""

    claim: Claim
    previous: Claim | None
    state: StateSnapshot
    written: Written | None = None


@dataclass(frozen=True)
class Held:
    """Another live run holds the claim."""

    claim: Claim


def this_process() -> ClaimOwner:
    return ClaimOwner(
        host=socket.gethostname() or "unknown",
        pid=os.getpid(),
        machine=_machine(),
        process_start=_started(os.getpid()),
    )


def owner_alive(owner: ClaimOwner) -> bool:
    """False only when the owner ran on this machine and is gone (or its pid now names another process)."""
    if not owner.machine or owner.machine != _machine():
        return True
    started = _started(owner.pid)
    return started != 0 and (owner.process_start == 0 or started == owner.process_start)


def is_live(claim: Claim, now: datetime) -> bool:
    return claim.live(now) and owner_alive(claim.owner)


def _machine() -> str:
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return ""


def _started(pid: int) -> int:
    """The process's start time in clock ticks since boot (0 when there is no such process, or only
    its zombie is left)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    fields = stat.rsplit(")", 1)[1].split()
    return 0 if fields[0] in ("Z", "X") else int(fields[19])


def take_claim(
    git: Git,
    claim: Claim,
    *,
    remote: str,
    branch: str,
    path: str,
    live: Callable[[Claim], bool],
    pause: Callable[[float], None] = time.sleep,
) -> Taken | Held:
    """Push `claim` unless another live run's claim is on the tip; the state as of the claim.

    Taking over a dead run's claim inherits its journal, so a run that dies while finishing it
    leaves the journal for the next one; the run drops it once its records are written."""
    for attempt in range(1, ATTEMPTS + 1):
        tip = fetch_state_tip(git, remote, branch)
        files = live_files(git, tip) if tip else {}
        current = parse_state({path: files[path]} if path in files else {}, tip, branch=branch).claims.get(
            claim.kind
        )
        if current is not None and current.run_id != claim.run_id and live(current):
            return Held(current)
        mine = claim
        if current is not None and current.journal:
            mine = claim.model_copy(update={"journal": current.journal, "base_tip": current.base_tip})
        data = dump_state(mine)
        # the run's first write also archives what aged out (and migrates a branch in the old layout)
        moved = compaction(git, tip, files, claim.claimed_at - RECENT)
        changes: dict[str, bytes | None] = {**moved.changes, path: data}
        message = f"homeostat: claim {claim.run_id} [skip ci]"
        if moved.moved:
            message = f"homeostat: claim {claim.run_id}, archive {moved.moved} settled decisions [skip ci]"
        commit = git.commit_files(tip, changes, message)
        after = {p: d for p, d in {**files, **changes}.items() if d is not None and not ARCHIVE_FILE.match(p)}
        state = snapshot_at(git, commit, after, branch)  # every file read before the claim is pushed
        if git.push(remote, commit, branch).ok:
            git.run("update-ref", tracking_ref(remote, branch), commit)
            return Taken(mine, current, state, Written(commit, after))
        pause(random.uniform(0.05, 0.25) * attempt)
    raise StateWriteError(
        f"could not claim {remote}/{branch} for this run: the branch moved under each of {ATTEMPTS} tries"
    )


def update_claim(
    git: Git,
    claim: Claim,
    files: Mapping[str, bytes] | None = None,
    *,
    remote: str,
    branch: str,
    path: str,
    last: Written | None = None,
    pause: Callable[[float], None] = time.sleep,
) -> Written:
    """Write this run's claim (and any state `files`, merged as usual) while the tip still holds it;
    the branch as it left it.

    `last` is what this run's previous write left: pushed leased on that commit, the write needs no
    fetch, as a tip still there still holds this run's claim. Where the branch moved, it is fetched
    and checked as usual."""
    if last is not None:
        written = _write_claim(git, claim, files, last.commit, last.files, remote, branch, path, last)
        if written is not None:
            return written
    for attempt in range(1, ATTEMPTS + 1):
        tip = fetch_state_tip(git, remote, branch)
        tip_files = live_files(git, tip) if tip else {}
        current = parse_state({path: tip_files[path]} if path in tip_files else {}, tip, branch=branch)
        held = current.claims.get(claim.kind)
        if held is None or held.run_id != claim.run_id:
            raise ClaimLost(
                f"this run's claim on {remote}/{branch} was taken over by run "
                f"{held.run_id if held else '(none)'}; it stops here and that run finishes its work"
            )
        assert tip is not None  # a tip holding this run's claim exists
        written = _write_claim(git, claim, files, tip, tip_files, remote, branch, path)
        if written is not None:
            return written
        pause(random.uniform(0.05, 0.25) * attempt)
    raise StateWriteError(
        f"could not write this run's claim on {remote}/{branch}: the branch moved under each of {ATTEMPTS} tries"
    )


def _write_claim(
    git: Git,
    claim: Claim,
    files: Mapping[str, bytes] | None,
    tip: str,
    tip_files: Mapping[str, bytes],
    remote: str,
    branch: str,
    path: str,
    lease: Written | None = None,
) -> Written | None:
    """One try: the claim and `files` merged into `tip_files` and pushed on `tip` (leased on it when
    the tip was not fetched, so it lands only on that very commit); None when the branch moved, or
    when an unfetched tip would not change (the fetched tip is still checked to hold the claim)."""
    merged = merge_state_files(tip_files, dict(files or {}), branch=branch)
    merged[path] = dump_state(claim)
    changes: dict[str, bytes | None] = {p: d for p, d in merged.items() if tip_files.get(p) != d}
    if not changes:
        return Written(tip, tip_files) if lease is None else None
    commit = git.commit_files(tip, changes, f"homeostat: {claim.run_id} journal [skip ci]")
    expect = lease.commit if lease is not None else None
    if not git.push(remote, commit, branch, expect=expect).ok:
        return None
    git.run("update-ref", tracking_ref(remote, branch), commit)
    return Written(commit, merged)
