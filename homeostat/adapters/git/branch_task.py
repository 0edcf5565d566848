"""What the checkout says it is working on, for a long-lived reader: its branch and the subjects of
its last few commits, the task words a session hook reads from git at a session's start.

The MCP server answers many calls in one checkout. Asking git on each (`git log`, 2-5 ms) would add
to every `context` and `explain`; instead `BranchReader` reads HEAD and stats the ref it names (a
few system calls) and asks git again only when those moved: a commit, a checkout, a reset, a rebase,
a pull. A detached HEAD has no branch but its commits still count; a checkout whose HEAD cannot be
read (no git) gives no words, and a failing git no commits. A repository that keeps its refs in a
reftable (git 2.45's `--ref-format=reftable`) has no HEAD file to read: git is asked on every call.
"""

from __future__ import annotations

import os
import threading

from homeostat.adapters.cache.corpus_cache import current_branch, recent_subjects
from homeostat.adapters.plain_files import StrPath, read_bytes
from homeostat.core.records import Record

COMMITS = 3  # as many as a session start reads (`change_started`)
Stamp = tuple[object, ...]


class BranchTask(Record):
    """The branch ("" when detached or unknown) and its last commits' subjects, newest first."""

    branch: str
    commits: tuple[str, ...]


NOTHING = BranchTask("", ())
ASK_GIT: Stamp = ("reftable",)  # no HEAD file to stamp: git is asked each time


class BranchReader:
    """The checkout's branch and commits, kept while HEAD and the ref behind it are unchanged."""

    def __init__(self) -> None:
        self._held: tuple[str, Stamp, BranchTask] | None = None
        self._lock = threading.Lock()

    def read(self, top: StrPath) -> BranchTask:
        where = os.fspath(top)
        stamp = head_stamp(where)
        if stamp is None:
            return NOTHING
        if stamp == ASK_GIT:
            return BranchTask(current_branch(where), recent_subjects(where, COMMITS))
        with self._lock:
            if self._held is not None and self._held[:2] == (where, stamp):
                return self._held[2]
            head = stamp[0]
            assert isinstance(head, bytes)
            found = BranchTask(_branch(head), recent_subjects(where, COMMITS))
            self._held = (where, stamp, found)
            return found


def head_stamp(top: str) -> Stamp | None:
    """HEAD's content and the state of the ref files it can name (the loose ref, packed-refs): any
    commit or checkout changes one of them, since git replaces a ref file by renaming a new one over
    it. None when HEAD cannot be read; ASK_GIT when the refs are in a reftable."""
    git_dir = _git_dir(top)
    if git_dir is None:
        return None
    try:
        head = read_bytes(os.path.join(git_dir, "HEAD"))
    except OSError:
        return None
    common = git_dir
    try:
        common = os.path.join(git_dir, read_bytes(os.path.join(git_dir, "commondir")).decode().strip())
    except (OSError, UnicodeDecodeError):
        pass  # not a linked worktree: its refs are its own
    if os.path.isdir(os.path.join(common, "reftable")):
        return ASK_GIT  # its HEAD file names `refs/heads/.invalid`; the real HEAD is in the tables
    stamp: list[object] = [head]
    if head.startswith(b"ref:"):
        ref = head[4:].strip().decode("utf-8", "surrogateescape")
        stamp.append(_stat(os.path.join(common, ref)))
    stamp.append(_stat(os.path.join(common, "packed-refs")))
    return tuple(stamp)


def _git_dir(top: str) -> str | None:
    """The checkout's git folder: `.git` itself, or where a worktree's or submodule's `.git` file points."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        text = read_bytes(dot_git).decode("utf-8", "surrogateescape").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    return os.path.join(top, text.removeprefix("gitdir:").strip())


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def _branch(head: bytes) -> str:
    """`ref: refs/heads/feature/x` → `feature/x`; a detached HEAD (a commit id) → ""."""
    text = head.decode("utf-8", "surrogateescape").strip()
    return text.removeprefix("ref:").strip().removeprefix("refs/heads/") if text.startswith("ref:") else ""
