"""This test process's child processes, from Linux's /proc: a test that checks its own children are
gone compares the set before and after, so a child another test left running (a detached helper,
a server) is not taken for one of its own, as `os.waitpid(-1, os.WNOHANG)` takes it."""

from __future__ import annotations

import os


def children() -> set[int]:
    found: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/children", encoding="ascii") as listing:
            found.update(int(pid) for pid in listing.read().split())
    return found
