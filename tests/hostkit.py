"""What a contract test needs from a host emulator, so one suite runs against GitHub and Bitbucket.

Each emulator module (tests/emulators/github_server.py, tests/emulators/bitbucket_server.py) provides
a pytest fixture `<host>_harness` returning an object with this shape. The harness sets the world up
as a user would see it on the host (repos backed by real bare git repos, merged PRs with review
threads and follow-up commits), hands out a real adapter pointed at the emulator, and counts requests.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from homeostat.core.hosts import CodeHost, RepoRef


@dataclass(frozen=True)
class ReplySpec:
    author: str
    body: str


@dataclass(frozen=True)
class ThreadSpec:
    """One review thread on a PR: a root comment on `path`/`line` and its replies.

    `followed_by_commit` makes the fixture push a commit touching `path` after the comment;
    `touch_other_file` pushes a later commit that touches only another file (which must not count);
    `edited` is the root's text after its author edits it, later than any follow-up commit and before
    the merge (the host then shows the comment's edit time).
    The follow-up commit is `follow_up_by`'s (a handle, or `Name <email>` for an address the host links
    to no account; the PR's author by default) and, when `enacts`, adds a line carrying out the
    comment (its text, as a code comment, so the rule's code terms are in the change); otherwise a line
    that has nothing to do with it; with `deletes` (a line of the PR's `path`) it removes that line and
    adds none ("stop calling X" enacted by deleting X). When `signed`, GitHub shows the follow-up commit
    with a signature it verified (as for one made in its web editor); Bitbucket, which never says,
    ignores it. With `adds`, the follow-up adds that line instead of the comment's text (a change that
    carries out only part of the comment).
    """

    author: str
    body: str
    path: str
    line: int = 1
    replies: tuple[ReplySpec, ...] = ()
    followed_by_commit: bool = False
    touch_other_file: bool = False
    edited: str = ""
    follow_up_by: str = ""
    enacts: bool = True
    signed: bool = False
    deletes: str = ""
    adds: str = ""  # the line the follow-up adds instead, when it carries out only part of the comment

    def followed_text(self, current: str, index: int) -> str:
        """`path`'s text after the follow-up commit, from its text before it."""
        if self.deletes:
            assert self.deletes + "\n" in current, f"{self.path} holds no line {self.deletes!r} to delete"
            return current.replace(self.deletes + "\n", "", 1)
        return current + self.follow_up_line(index)

    def follow_up_line(self, index: int) -> str:
        """The line the follow-up commit adds to `path`."""
        if not self.enacts:
            return f"# tidy-up {index}, unrelated to the review\n"
        if self.adds:
            return self.adds + "\n"
        return f"# review {index}: " + " ".join(self.body.split()) + "\n"


@dataclass(frozen=True)
class PullSpec:
    author: str
    title: str
    files: dict[str, str]
    merged_at: datetime
    body: str = ""
    threads: tuple[ThreadSpec, ...] = ()
    merged_by: str = ""


@dataclass
class RequestLog:
    """Requests the emulator served, as (method, path) pairs, so benchmarks and tests can count them."""

    entries: list[tuple[str, str]] = field(default_factory=list)

    def count(self, method: str | None = None, contains: str = "") -> int:
        return sum(1 for m, p in self.entries if (method is None or m == method) and contains in p)

    def clear(self) -> None:
        self.entries.clear()


class HostHarness(Protocol):
    name: str  # "github" | "bitbucket"
    requests: RequestLog
    root: Path  # temp dir holding the bare repos

    def adapter(self, token: str | None = None) -> CodeHost:
        """A real adapter (PyGithub / atlassian client) pointed at the emulator; None = the valid token."""
        ...

    def create_repo(self, owner: str, name: str, default_branch: str = "main") -> RepoRef:
        """A repo with one initial commit, backed by a bare git repo the test can clone and push to."""
        ...

    def bare_path(self, repo: RepoRef) -> Path: ...

    def add_member(self, handle: str, teams: tuple[str, ...] = ()) -> None:
        """Make a user (and the teams) known to the host so reviewers can be requested."""
        ...

    def merged_pull(self, repo: RepoRef, spec: PullSpec) -> int:
        """Create a branch, a PR with the spec's files and review threads, follow-up commits, and merge it."""
        ...

    def open_pull_state(self, repo: RepoRef, number: int) -> dict[str, object]:
        """The emulator's own record of a PR (state, reviewers requested, comments), for assertions."""
        ...

    def merge_as(self, repo: RepoRef, number: int, user: str) -> None:
        """A person merges an open PR on the host (as a reviewer would)."""
        ...

    def close_as(self, repo: RepoRef, number: int, user: str) -> None: ...

    def approve(self, repo: RepoRef, number: int, login: str) -> None:
        """`login` approves the PR at its head, as a reviewer does on the host."""
        ...

    def edit_comment(self, repo: RepoRef, number: int, comment_id: int, body: str, user: str) -> None:
        """`user` changes the text of their review comment through the host's API, now."""
        ...

    def protect_branch(self, repo: RepoRef, branch: str, required_checks: tuple[str, ...] = ("ci",)) -> None:
        """Make merges into `branch` refused, as branch protection with failing checks does."""
        ...

    def fail_next(self, status: int, times: int = 1, retry_after: int | None = None) -> None:
        """The next `times` API requests answer `status` (5xx blips, 429 with Retry-After)."""
        ...

    def revoke_token(self) -> None:
        """From now on the valid token answers 401, as an expired token does."""
        ...
