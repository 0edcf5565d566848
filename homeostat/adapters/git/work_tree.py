"""A checkout's work tree as git sees it: where it starts, what it ignores, which branch it is on.

`homeostat.adapters.git.plumbing.Git` drives plumbing on a repository's object store and never looks at a work
tree; `init` and `doctor` need the few facts only the work tree has. Each function answers None (or
False) outside a git checkout rather than failing, because "not a checkout yet" is a normal state for
a folder `init` is about to set up.
"""

from __future__ import annotations

import datetime as dt
import subprocess
from pathlib import Path

from homeostat.adapters.git.env import git_env


def _git(path: Path, *args: str) -> str | None:
    """git's stdout (stripped) run in `path`, or None when it failed or git is missing."""
    try:
        done = subprocess.run(
            ["git", "-C", str(path), *args], capture_output=True, env=git_env(), check=False, timeout=30
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else None


def top_level(path: Path) -> Path | None:
    """The root of the work tree holding `path`, or None when `path` is in none."""
    found = _git(path, "rev-parse", "--show-toplevel")
    return Path(found) if found else None


def main_top_level(path: Path) -> Path | None:
    """The main work tree's root for `path`, also from a linked worktree (they share one repository),
    or None when `path` is in no work tree."""
    common = _git(path, "rev-parse", "--path-format=absolute", "--git-common-dir")
    if common and Path(common).name == ".git":
        return Path(common).parent
    return top_level(path)


def is_ignored(root: Path, relative: str) -> bool:
    """Whether git would ignore `relative` (a path that need not exist) in the work tree at `root`."""
    return _git(root, "check-ignore", "--quiet", "--no-index", relative) is not None


def default_branch(root: Path) -> str | None:
    """The branch `origin/HEAD` names, else the branch checked out (even one with no commit yet)."""
    remote = _git(root, "symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")
    if remote and "/" in remote:
        return remote.split("/", 1)[1]
    return _git(root, "symbolic-ref", "--quiet", "--short", "HEAD") or None


def origin_url(root: Path) -> str | None:
    """The `origin` remote's URL as configured (it may hold credentials: redact before showing it)."""
    return _git(root, "config", "--get", "remote.origin.url") or None


def first_committed(root: Path, relative: str) -> dt.datetime | None:
    """When `relative` was first committed on the branch checked out (its oldest adding commit's
    committer time), or None while it is not committed. The dashboard measures "late" from it: a
    job cannot have missed a slot before the KB's homeostat.yaml reached the repository."""
    found = _git(root, "log", "--diff-filter=A", "--format=%cI", "--", relative)
    lines = found.splitlines() if found else []
    if not lines:
        return None
    try:
        return dt.datetime.fromisoformat(lines[-1]).astimezone(dt.UTC)
    except ValueError:
        return None
