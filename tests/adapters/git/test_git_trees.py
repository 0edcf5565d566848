"""`Git.commit_files` rewrites only the folders it changes: the tree it makes must be, object for
object, the one a temporary index gives (`read-tree` of the base, `update-index`, `write-tree`),
which is how commits were built before. Checked here against that index, driven by git itself, on
generated trees and changes: files, executables, links and submodules, folders emptied, files
turned into folders and back, and clashes (refused by both)."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from gitfixtures import git

from homeostat.adapters.git.plumbing import Git
from homeostat.errors import GitError

NAMES = ["a", "b", "a.b", "a-b", "c d", "é", "z"]


def run(repo: Path, *args: str, index: Path | None = None, input: bytes | None = None) -> str:
    env = {**os.environ, **({"GIT_INDEX_FILE": str(index)} if index else {})}
    done = subprocess.run(
        ["git", "--git-dir", str(repo), *args], input=input, capture_output=True, env=env, check=False
    )
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, args, done.stdout, done.stderr)
    return done.stdout.decode().strip()


def blob(repo: Path, data: bytes) -> str:
    return run(repo, "hash-object", "-w", "--stdin", input=data)


def random_path(rng: random.Random) -> str:
    return "/".join(rng.choice(NAMES) for _ in range(rng.randint(1, 3)))


def base_commit(repo: Path, rng: random.Random, scratch: Path) -> str:
    """A commit of random files (some executable, links, submodules), built through an index."""
    index = scratch / "base-index"
    index.unlink(missing_ok=True)
    for _ in range(rng.randint(0, 12)):
        mode = rng.choice(["100644", "100644", "100644", "100755", "120000", "160000"])
        sha = "1" * 40 if mode == "160000" else blob(repo, f"{rng.random()}\n".encode())
        subprocess.run(
            [
                "git",
                "--git-dir",
                str(repo),
                "update-index",
                "--add",
                "--cacheinfo",
                f"{mode},{sha},{random_path(rng)}",
            ],
            env={**os.environ, "GIT_INDEX_FILE": str(index)},
            capture_output=True,
            check=False,  # a path clashing with an earlier one is simply left out of the base
        )
    tree = run(repo, "write-tree", index=index) if index.exists() else run(repo, "mktree", input=b"")
    return run(repo, "commit-tree", tree, "-m", "base")


def changes_for(repo: Path, base: str, rng: random.Random) -> dict[str, bytes | None]:
    """Changes that hit existing files and folders as often as new paths: deleting files (emptying
    folders), replacing them, writing into folders, and now and then a file over a folder."""
    files = run(repo, "ls-tree", "-r", "--name-only", base).splitlines()
    folders = run(repo, "ls-tree", "-r", "-d", "--name-only", base).splitlines()
    changes: dict[str, bytes | None] = {}
    for _ in range(rng.randint(1, 8)):
        roll = rng.random()
        if files and roll < 0.4:
            changes[rng.choice(files)] = None
        elif files and roll < 0.6:
            changes[rng.choice(files)] = f"new {rng.random()}\n".encode()
        elif folders and roll < 0.8:
            changes[f"{rng.choice(folders)}/{rng.choice(NAMES)}"] = f"new {rng.random()}\n".encode()
        elif (files or folders) and roll < 0.85:
            changes[f"{rng.choice(files + folders)}"] = f"over {rng.random()}\n".encode()
        else:
            changes[random_path(rng)] = None if roll < 0.9 else f"new {rng.random()}\n".encode()
    return changes


def index_tree(repo: Path, base: str, changes: dict[str, bytes | None], scratch: Path) -> str | None:
    """The tree a temporary index makes of `base` with `changes` (None: git refuses them)."""
    index = scratch / "index"
    index.unlink(missing_ok=True)
    run(repo, "read-tree", f"{base}^{{tree}}", index=index)
    removed = "".join(f"0 {'0' * 40}\t{path}\0" for path in sorted(changes) if changes[path] is None)
    if removed:
        run(repo, "update-index", "-z", "--index-info", index=index, input=removed.encode())
    for path in sorted(path for path in changes if changes[path] is not None):
        try:
            run(
                repo,
                "update-index",
                "--add",
                "--cacheinfo",
                f"100644,{blob(repo, changes[path] or b'')},{path}",
                index=index,
            )
        except subprocess.CalledProcessError:
            return None
    return run(repo, "write-tree", index=index)


@pytest.mark.parametrize("seed", range(80))
def test_a_commit_has_the_tree_an_index_would_build(tmp_path: Path, seed: int) -> None:
    repo = tmp_path / "repo.git"
    git(tmp_path, "init", "--quiet", "--bare", str(repo))
    rng = random.Random(seed)
    base = base_commit(repo, rng, tmp_path)
    changes = changes_for(repo, base, rng)
    expected = index_tree(repo, base, changes, tmp_path)
    if expected is None:
        with pytest.raises(GitError, match="appears as both a file and as a directory"):
            Git(repo).commit_files(base, changes, "change")
        return
    commit = Git(repo).commit_files(base, changes, "change")
    assert run(repo, "rev-parse", f"{commit}^{{tree}}") == expected, (
        changes,
        run(repo, "ls-tree", "-r", base),
    )
    assert run(repo, "rev-parse", f"{commit}^") == base


def test_deleting_every_file_leaves_the_empty_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo.git"
    git(tmp_path, "init", "--quiet", "--bare", str(repo))
    gitrepo = Git(repo)
    base = gitrepo.commit_files(None, {"a/b/c.md": b"c\n", "d.md": b"d\n"}, "base")
    empty = gitrepo.commit_files(base, {"a/b/c.md": None, "d.md": None}, "empty")
    assert run(repo, "rev-parse", f"{empty}^{{tree}}") == run(repo, "mktree", input=b"")
    assert run(repo, "ls-tree", "-r", "-t", empty) == ""


def test_an_unchanged_folder_keeps_its_tree_object(tmp_path: Path) -> None:
    repo = tmp_path / "repo.git"
    git(tmp_path, "init", "--quiet", "--bare", str(repo))
    gitrepo = Git(repo)
    base = gitrepo.commit_files(None, {f"archive/2026-{m:02d}/x.json": b"{}\n" for m in range(1, 13)}, "base")
    after = gitrepo.commit_files(base, {"claims/daily.json": b"{}\n"}, "claim")
    assert gitrepo.tree_hash(after, "archive") == gitrepo.tree_hash(base, "archive")
    assert gitrepo.read_files(after) == {
        **{f"archive/2026-{m:02d}/x.json": b"{}\n" for m in range(1, 13)},
        "claims/daily.json": b"{}\n",
    }
