"""Where bench tasks run: detached worktrees of a code checkout, and clean copies for hidden tests.

A coding task works in `git worktree add --detach` of its base commit, so the developer's checkout
(its branch, index and files) is never touched, and the agent starts from exactly the commit the
task names. The worktrees live under one folder in the system's temporary directory, outside the
KB and outside any checkout (Claude Code reads CLAUDE.md files from the folders above where it
works); a run removes what a killed run left there before it starts.

Hidden tests run in a clean copy: the files git sees in the worktree (tracked, and new files that
are not ignored) copied to a fresh folder, with the hidden test files copied over them, so what the
agent left behind (caches, a test it edited) cannot decide the grade.
"""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from homeostat.adapters.git.env import git_env
from homeostat.adapters.git.plumbing import Git, work_tree_files
from homeostat.adapters.git.work_tree import top_level
from homeostat.adapters.process_group import signal_group
from homeostat.errors import ConfigError

# The test command sees none of these: it runs code the agent wrote.
_WITHHELD_PREFIXES = ("HOMEOSTAT_", "GITHUB_", "GH_", "BITBUCKET_", "SLACK_", "ANTHROPIC_", "AWS_", "CLAUDE_")


def work_root(out: Path) -> Path:
    """The one temporary folder a results folder's runs work in (stable, so a rerun can clear it)."""
    digest = hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"homeostat-bench-{digest}"


def clear_work_root(root: Path, checkouts: Mapping[str, Path], note: Path) -> None:
    """Remove what a killed run left: its folders, and the worktree entries they hold in each checkout
    (only those: the checkout's other worktrees, even stale ones, are the developer's). `note` (in the
    results folder) names the root the last run used, which differs from this one's when the
    temporary directory did ($TMPDIR), and is set to this one."""
    try:
        earlier = Path(note.read_text(encoding="utf-8").strip())
    except OSError:
        earlier = root
    roots = {folder for folder in (root, earlier) if folder.name.startswith("homeostat-bench-")}
    for checkout in checkouts.values():
        for path in _worktrees(checkout):
            if any(path.parent == folder for folder in roots):
                Git(checkout).run("worktree", "remove", "--force", str(path), check=False)
    for folder in roots:
        if folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
    note.parent.mkdir(parents=True, exist_ok=True)
    note.write_text(f"{root}\n", encoding="utf-8")


def _worktrees(checkout: Path) -> list[Path]:
    done = Git(checkout).run("worktree", "list", "--porcelain", "-z", check=False)
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [Path(field.removeprefix("worktree ")) for field in fields if field.startswith("worktree ")]


def code_checkout(repo: str, folder: Path) -> Path:
    """The checkout of `repo`: a folder that is the top of a git work tree."""
    if not folder.is_dir():
        raise ConfigError(f"--checkout {repo}={folder}: the folder does not exist")
    top = top_level(folder)
    if top is None or top.resolve() != folder.resolve():
        where = f"lies inside the git work tree {top}" if top else "is not a git checkout"
        raise ConfigError(f"--checkout {repo}={folder}: the folder {where}; give the top of {repo}'s clone")
    return folder.resolve()


def commit_of(repo: str, checkout: Path, base: str | None) -> str:
    """The commit a task's `base` names in the checkout (HEAD when it names none)."""
    ref = base or "HEAD"
    sha = Git(checkout).rev_parse(f"{ref}^{{commit}}")
    if sha is None:
        raise ConfigError(
            f"{repo}: the checkout {checkout} has no commit {ref!r}; fetch it (git fetch) or fix the task's base"
        )
    return sha


@dataclass(frozen=True)
class Worktree:
    checkout: Path
    path: Path
    base: str

    def remove(self) -> None:
        Git(self.checkout).run("worktree", "remove", "--force", str(self.path), check=False)
        if self.path.exists():
            shutil.rmtree(self.path, ignore_errors=True)

    def diff(self) -> str:
        """The agent's change against the base, new files included."""
        git = ["git", "-C", str(self.path), "-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false"]
        subprocess.run([*git, "add", "-A"], capture_output=True, env=git_env(), check=False)
        done = subprocess.run(
            [*git, "diff", "--cached", "--no-color", self.base],
            capture_output=True,
            env=git_env(),
            check=False,
        )
        return done.stdout.decode("utf-8", "replace")


def add_worktree(checkout: Path, base: str, path: Path) -> Worktree:
    path.parent.mkdir(parents=True, exist_ok=True)
    Git(checkout).run("worktree", "add", "--detach", "--quiet", str(path), base)
    return Worktree(checkout, path, base)


@dataclass(frozen=True)
class TestRun:
    passed: bool
    output: str


def run_hidden_tests(
    worktree: Path, hidden: Path | None, command: str, copy: Path, *, timeout: float, env: Mapping[str, str]
) -> TestRun:
    """Copy the worktree's files and then the hidden ones to `copy`, and run `command` there."""
    if copy.exists():
        shutil.rmtree(copy)
    copy.mkdir(parents=True)
    for name in work_tree_files(worktree) or []:
        source = worktree / name
        if source.is_file() and not source.is_symlink():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    if hidden is not None:
        shutil.copytree(hidden, copy, dirs_exist_ok=True)
    clean = {k: v for k, v in env.items() if not k.startswith(_WITHHELD_PREFIXES)}
    process = subprocess.Popen(
        ["sh", "-c", command],
        cwd=copy,
        env=clean,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group, so a timeout stops whatever the tests started
    )
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        signal_group(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        text = output.decode("utf-8", "replace")
        return TestRun(False, f"{text}\n(the tests were stopped after {timeout:g} s)")
    return TestRun(process.returncode == 0, output.decode("utf-8", "replace"))


def empty_folder(path: Path) -> Path:
    """A fresh folder for a task that names no repo."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path
