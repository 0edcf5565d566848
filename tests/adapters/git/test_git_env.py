"""Every git runner starts from one scrubbed environment: a calling git's variables never redirect it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gitfixtures import commit, make_origin_and_clone
from kit import REPO

from homeostat.adapters.bench_workspace import add_worktree
from homeostat.adapters.cache import corpus_cache as search_index
from homeostat.adapters.git import work_tree
from homeostat.adapters.git.env import REPO_VARIABLES
from homeostat.adapters.git.plumbing import Git, work_tree_files

PACKAGE = REPO / "homeostat"
# Starts a git child process: an argv whose first word is "git", or a spawn of it.
_STARTS_GIT = re.compile(r"""\[\s*"git"\s*,|posix_spawnp\(\s*"git"|git = \["git\"""")
# Runs `git ls-remote URL`, which names a server and no repository, with the caller's env.
_NO_REPOSITORY = {"adapters/hosts/action_pins.py"}


@pytest.fixture
def mine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A clone whose last commit is "mine", with a calling git's variables all pointing at another
    repository (as a hook or `git rebase --exec` exports them)."""
    _, work = make_origin_and_clone(tmp_path / "mine", {"README.md": "mine\n"})
    commit(work, {"notes.md": "mine\n"}, "mine")
    _, other = make_origin_and_clone(tmp_path / "other", {"decoy.md": "decoy\n"})
    commit(other, {"decoy2.md": "decoy\n"}, "decoy")
    empty = tmp_path / "no-objects"
    empty.mkdir()
    pointed = {
        "GIT_DIR": str(other / ".git"),
        "GIT_WORK_TREE": str(other),
        "GIT_INDEX_FILE": str(other / ".git" / "index"),
        "GIT_OBJECT_DIRECTORY": str(empty),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(empty),
        "GIT_NAMESPACE": "decoy",
        "GIT_PREFIX": "decoy/",
        "GIT_COMMON_DIR": str(other / ".git"),
    }
    assert set(pointed) == REPO_VARIABLES  # a name added to the list is exported here too
    for name, value in pointed.items():
        monkeypatch.setenv(name, value)
    return work


def test_the_plumbing_runner_reads_its_own_repository(mine: Path) -> None:
    assert Git(mine).run("log", "-1", "--format=%s").stdout.decode().strip() == "mine"
    assert work_tree_files(mine) == ["README.md", "notes.md"]


def test_the_work_tree_runner_reads_its_own_checkout(mine: Path) -> None:
    assert work_tree.top_level(mine) == mine.resolve()
    assert work_tree.first_committed(mine, "notes.md") is not None


def test_the_corpus_cache_runner_reads_its_own_repository(mine: Path) -> None:
    done = search_index._git(mine, "log", "-1", "--format=%s")
    assert done is not None and done.returncode == 0 and done.stdout.decode().strip() == "mine"


def test_the_bench_worktree_diff_stages_in_its_own_index(mine: Path, tmp_path: Path) -> None:
    head = Git(mine).run("rev-parse", "HEAD").stdout.decode().strip()  # the test's own git sees the decoy
    tree = add_worktree(mine, head, tmp_path / "bench" / "task")
    (tree.path / "added.md").write_text("the agent's change\n", encoding="utf-8")
    assert "+the agent's change" in tree.diff()


def test_no_git_runner_keeps_a_list_of_its_own() -> None:
    """The variables are named in git/env.py alone, and every module that starts git imports it."""
    for path in sorted(PACKAGE.rglob("*.py")):
        place = path.relative_to(PACKAGE).as_posix()
        text = path.read_text(encoding="utf-8")
        if place != "adapters/git/env.py":
            assert "GIT_COMMON_DIR" not in text and "GIT_NAMESPACE" not in text, place
        if _STARTS_GIT.search(text) and place not in _NO_REPOSITORY:
            assert "from homeostat.adapters.git.env import git_env" in text, place
