"""Ending a child started in a session of its own (`start_new_session=True`) with everything it
started: a `claude -p` and the tools it runs, a job `up` runs, a benchmark's test command.

Signalling the group, not the child alone, leaves no grandchild holding a pipe its reader waits on.
"""

from __future__ import annotations

import os


def signal_group(pid: int, signum: int) -> bool:
    """Send `signum` to the process group child `pid` leads; False when the group has ended."""
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        return False
    return True
