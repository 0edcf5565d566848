"""One scheduled job as a child process: `python -m homeostat <job> --kb DIR`, logged to a file.

Running the command's own entrypoint (not its functions) means `up` runs exactly what CI runs,
including whatever a newer daily run, deep dive or digest does. The child gets its own session, so
the SIGTERM or Ctrl-C meant for `up` does not cut a job off mid-step; `up` passes a signal on only when
asked to stop a second time.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from homeostat.adapters.git.clone import fast_forward
from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.process_group import signal_group
from homeostat.core.schedule.up import Job
from homeostat.errors import GitError

LOGS_DIR = Path(".homeostat") / "up"
POLL_SECONDS = 2.0


def log_file(root: Path, job: str, slot: dt.datetime) -> Path:
    return root / LOGS_DIR / f"{job}-{slot.strftime('%Y%m%dT%H%MZ')}.log"


def update_clone(root: Path, base: str) -> str:
    """Fetch the base branch and fast-forward the clone to it, so the job reads today's KB; a line
    saying what happened (a clone with local commits is left as it is, and the job runs on it)."""
    try:
        git = Git(root)
        git.fetch("origin", [f"+refs/heads/{base}:refs/remotes/origin/{base}"])
    except GitError as exc:
        return f"could not fetch origin/{base} ({exc}); the job runs on the clone as it is"
    if fast_forward(root, f"refs/remotes/origin/{base}"):
        return ""
    return f"the clone cannot fast-forward to origin/{base} (local changes); the job runs on it as it is"


class JobProcess:
    """Runs jobs as child processes; `interrupt` passes a stop on to the running one."""

    def __init__(self, root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self.env = dict(os.environ if env is None else env)
        self.child: subprocess.Popen[bytes] | None = None

    def command(self, job: Job) -> list[str]:
        return [sys.executable, "-m", "homeostat", job.name, "--kb", str(self.root)]

    def run(self, job: Job, slot: dt.datetime, renew: Callable[[], None]) -> int:
        path = log_file(self.root, job.name, slot)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as log:
            self.child = subprocess.Popen(
                self.command(job),
                cwd=self.root,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                return self._wait(self.child, renew)
            finally:
                self.child = None

    @staticmethod
    def _wait(child: subprocess.Popen[bytes], renew: Callable[[], None]) -> int:
        while True:
            try:
                return child.wait(timeout=POLL_SECONDS)
            except subprocess.TimeoutExpired:
                renew()

    def interrupt(self) -> None:
        """Pass SIGTERM on to the running job (its own steps stop cleanly, as under CI)."""
        child = self.child
        if child is not None and child.poll() is None:
            signal_group(child.pid, signal.SIGTERM)


def wait_for(predicate: Callable[[], bool], timeout: float) -> bool:
    """Poll `predicate` until it holds or `timeout` seconds pass (used when stopping)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()
