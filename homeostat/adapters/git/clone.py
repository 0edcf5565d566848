"""The developer's own KB clone: its branch, whether its tracked files are clean, fast-forwarding it.

Everything else Homeostat does to git goes through plumbing that never touches a work tree
(`homeostat.adapters.git.plumbing`); sync is the one place that moves a developer's checkout, and only by a
fast-forward of the base branch when nothing tracked is modified, so no work is ever at risk.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from homeostat.adapters.git.plumbing import Git


class Position(NamedTuple):
    """Where the clone stands against the base branch on origin."""

    branch: str | None  # the checked-out branch, None when HEAD is detached
    behind: int
    ahead: int


def _worktree(root: Path, *args: str, check: bool = True) -> str:
    git = Git(root)
    done = git.run("--work-tree", str(root.resolve()), *args, check=check)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else ""


def current_branch(root: Path) -> str | None:
    done = Git(root).run("symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    return done.stdout.decode().strip() or None if done.returncode == 0 else None


def tracked_clean(root: Path) -> bool:
    """No modified or staged tracked file (untracked files never block a fast-forward that keeps them)."""
    return _worktree(root, "status", "--porcelain=v1", "--untracked-files=no").strip() == ""


def position(root: Path, upstream: str) -> Position:
    git = Git(root)
    done = git.run("rev-list", "--left-right", "--count", f"HEAD...{upstream}", check=False)
    ahead, behind = (int(n) for n in done.stdout.decode().split()) if done.returncode == 0 else (0, 0)
    return Position(current_branch(root), behind, ahead)


def fast_forward(root: Path, upstream: str) -> bool:
    """`git merge --ff-only upstream` in the work tree; False (nothing changed) when it cannot."""
    done = Git(root).run(
        "--work-tree", str(root.resolve()), "merge", "--ff-only", "--quiet", upstream, check=False
    )
    return done.returncode == 0
