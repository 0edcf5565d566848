"""Real git repositories for tests: a bare `origin` and clones of it with commits, in a few lines.

    origin, clone = make_origin_and_clone(tmp_path, {"README.md": "hi\\n"})
    sha = commit(clone, {"kb/a.md": "rule\\n"}, push=True)

Tests run with the conftest's throwaway HOME and a fixed author, so no user config leaks in.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

Files = Mapping[str, "str | bytes | None"]


def git(cwd: Path, *args: str, input: bytes | None = None) -> str:
    """Run git in `cwd`; its stdout (stripped), failing the test with git's stderr when it fails."""
    done = subprocess.run(["git", *args], cwd=cwd, input=input, capture_output=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {done.stderr.decode()}")
    return done.stdout.decode("utf-8", "replace").strip()


def make_bare(path: Path, branch: str = "main") -> Path:
    """An empty bare repository (no commits), for first-push cases."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "--quiet", "--bare", f"--initial-branch={branch}")
    return path


def clone(origin: Path, dest: Path) -> Path:
    git(dest.parent, "clone", "--quiet", str(origin), str(dest))
    return dest


def write_files(work: Path, files: Files) -> None:
    """Write (str or bytes) or delete (None) files in a work tree, making folders as needed."""
    for rel, content in files.items():
        target = work / rel
        if content is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.encode() if isinstance(content, str) else content)


def commit(work: Path, files: Files, message: str = "change", *, push: bool = False) -> str:
    """Commit these file changes in a clone (optionally pushing its branch); the new HEAD sha."""
    write_files(work, files)
    git(work, "add", "--all")
    git(work, "commit", "--quiet", "--allow-empty", "-m", message)
    if push:
        git(work, "push", "--quiet", "origin", "HEAD")
    return git(work, "rev-parse", "HEAD")


def make_origin_and_clone(
    tmp_path: Path, files: Files | None = None, *, branch: str = "main", name: str = "clone"
) -> tuple[Path, Path]:
    """A bare `origin.git` whose `branch` has one commit with `files`, and a clone of it."""
    origin = tmp_path / "origin.git"
    if not origin.exists():
        make_bare(origin, branch)
    work = clone(origin, tmp_path / name)
    git(work, "checkout", "--quiet", "-B", branch)
    commit(work, files or {"README.md": "KB\n"}, "initial", push=True)
    return origin, work


def snapshot(work: Path) -> dict[str, object]:
    """HEAD, the raw index, `git status` and every work-tree file of a clone, to assert plumbing left
    them alone (`GIT_OPTIONAL_LOCKS=0` keeps `status` itself from rewriting the index)."""
    tree = {
        str(path.relative_to(work)): path.read_bytes()
        for path in sorted(work.rglob("*"))
        if path.is_file() and ".git" not in path.relative_to(work).parts
    }
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=work,
        capture_output=True,
        check=True,
        env={**os.environ, "GIT_OPTIONAL_LOCKS": "0"},
    )
    return {
        "head": git(work, "rev-parse", "HEAD"),
        "symbolic_head": git(work, "symbolic-ref", "HEAD"),
        "index": (work / ".git" / "index").read_bytes(),
        "status": done.stdout,
        "files": tree,
    }


def install_hook(bare: Path, name: str, script: str) -> Path:
    """Install a server-side hook (`pre-receive`, `update`, …) in a bare repository."""
    hook = bare / "hooks" / name
    hook.write_text("#!/bin/sh\n" + script)
    hook.chmod(0o755)
    return hook


# A pre-receive hook body that moves the pushed branch one empty commit ahead before the push lands,
# exactly as a concurrent writer would: the push is then refused with "failed to update ref".
# (Ref updates are forbidden inside the push's object quarantine, so the hook steps out of it.)
MOVE_BRANCH_UNDER_PUSH = """
unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
while read old new ref; do
  if [ "$old" != 0000000000000000000000000000000000000000 ]; then
    moved=$(git commit-tree -p "$old" -m "moved by another writer" "$old^{tree}")
    git update-ref "$ref" "$moved" "$old"
  fi
done
"""
