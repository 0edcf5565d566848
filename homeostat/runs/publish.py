"""Publishing: every run changes the KB repo the same way, by pull request, and records what it did.

The daily run, the weekly deep dive, `review merge`, bootstrap and retraction patches all need the
same few steps, and a rerun or an overlapping run must never make a twin of any of them. They live
here, once:

- `Change` is what to publish: a branch built from a base commit plus changed files, a PR title and
  a body (`body(template, ...)` renders one from the package's templates).
- `Publisher.open(change, before_push=...)` commits the files on the base commit (the checkout's
  HEAD, index and work tree are untouched), hands the commit to `before_push` (where a run writes
  ahead what it is about to do), pushes the branch and finds-or-opens the PR by its head branch, so
  a rerun updates the PR it opened instead of opening a second one. It hands back a `Published`.
  `replace=True` pushes over the branch's current commit (a run that rebuilds its PR on a newer
  base, as the deep dive's rerun in the same week does), leased so a concurrent push is never lost.
- `Publisher.land(published, title, message)` squash-merges it with its own message, only at the
  commit pushed, and deletes the branch; a host that refuses (branch protection, a failing check)
  is a value, not an error: the PR is left open with a plain commit so its checks run, and the
  caller counts what it holds as waiting for a person. A change the base already holds is never
  merged (no empty commits): its PR is closed and the result says so. A run whose PRs a person
  merges (the deep dive, bootstrap) stops at `open`.
- `Publisher.merge(number, sha, title, message)` is the bare squash-merge (`review merge` rebuilds
  a PR with `commit` and `push`, then merges it; Bitbucket's asynchronous merge is polled by its
  adapter).
- `Publisher.request_reviewers(pull, config, areas, author, covered)` asks for the reviewers the
  design names (`team.reviewers`, else the owning teams, else seniors and leads), or, with
  `team.reviewersFrom: codeowners`, the KB members the code repos' CODEOWNERS name for the paths
  the lessons cover; a refusal is a printed notice.
- `Publisher.push_rebuilt(branch, sha, expect=..., never=...)` force-pushes a review PR's branch to
  its rebuilt commit, leased on the commit it was rebuilt from, and refuses any other branch (never
  the base branch or the state branch); `shows_head(number, sha)` says whether the host sees it yet.
- `Publisher.record(files, branch=..., message=...)` merges state files into the state branch,
  never force-pushed (see `homeostat.adapters.state.state_store`).
- Every PR title, body, comment and commit message is redacted on its way out: what a run says
  about a lesson (a declined one's title, say) never carries a secret to the host or into history.
- For finishing or undoing what a killed run left: `open_pulls(prefix)`, `branches(prefix)`,
  `merged_since(base, since, title)` (the squash commit a PR left on the base), `close(pull, why)`
  and `delete_branch(branch)`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import write_state
from homeostat.core.config import Config
from homeostat.core.daily.bodies import render
from homeostat.core.daily.reviewers import choose_reviewers
from homeostat.core.hosts import (
    Capability,
    CodeHost,
    MergeResult,
    PullInfo,
    PullState,
    RepoRef,
    same_commit,
)
from homeostat.core.safety.secrets import redacted
from homeostat.core.served import served_line
from homeostat.core.state.branch import PullRef
from homeostat.errors import HomeostatError
from homeostat.runs.codeowners_reviewers import OwnersCache, codeowners_request
from homeostat.runs.merge_gate import CheckWait, after_refusal, with_refusal

SKIP_CI = "[skip ci]"
REBUILDABLE_PREFIX = "homeostat/review-"  # review and dispute PR branches, which `review merge` rebuilds


def body(template: str, **context: Any) -> str:
    """A PR body from one of the package's templates (homeostat/templates)."""
    return render(template, **context)


@dataclass(frozen=True)
class Change:
    """One PR's content: `files` (path to new text) applied to `base_sha`, pushed to `branch`."""

    base: str  # the branch the PR targets
    base_sha: str
    files: Mapping[str, str]
    branch: str
    title: str
    body: str
    message: str = ""  # the branch commit's message; the title when empty

    @property
    def commit_message(self) -> str:
        return self.message or self.title


@dataclass(frozen=True)
class Published:
    """A change pushed and its PR open: `sha` is the commit the PR's head was pushed at."""

    change: Change
    sha: str
    pull: PullInfo

    @property
    def ref(self) -> PullRef:
        return PullRef(number=self.pull.number, url=self.pull.url, branch=self.change.branch)


class Publisher:
    """Branches, PRs and state writes for one run against one KB repo."""

    def __init__(
        self,
        git: Git,
        host: CodeHost | None,
        repo: RepoRef | None,
        *,
        remote: str,
        out: TextIO,
        check_wait: CheckWait | None = None,
    ) -> None:
        self.git = git
        self.check_wait = check_wait or CheckWait()
        self._host = host
        self._repo = repo
        self.remote = remote
        self.out = out
        self.opened: list[PullInfo] = []
        self.owners = OwnersCache()  # the code repos' CODEOWNERS, read once a run

    @property
    def host(self) -> tuple[CodeHost, RepoRef]:
        if self._host is None or self._repo is None:
            raise HomeostatError("this step needs the code host (it does not run with --offline)")
        return self._host, self._repo

    # .. branches ..

    def base_tip(self, base: str) -> str:
        """The base branch's commit as last fetched."""
        sha = self.git.rev_parse(f"refs/remotes/{self.remote}/{base}")
        if sha is None:
            raise HomeostatError(f"the KB repo has no branch {base!r} on {self.remote} (sources.baseBranch)")
        return sha

    def branch_name(self, prefix: str, name: str, day: str) -> str:
        """`<prefix><name>-<day>`, or the first free `-N` after it on the remote."""
        base = f"{prefix}{name}-{day}"
        existing = self.git.ls_remote(self.remote, f"refs/heads/{base}*")
        candidate, n = base, 2
        while f"refs/heads/{candidate}" in existing:
            candidate, n = f"{base}-{n}", n + 1
        return candidate

    def commit(self, base_sha: str, files: Mapping[str, str], message: str) -> str:
        encoded = {p: t.encode("utf-8") for p, t in files.items()}
        return self.git.commit_files(base_sha, encoded, redacted(message))

    def push(self, branch: str, sha: str, *, replace: bool = False) -> None:
        """Push `sha` to `branch`; with `replace`, over whatever the branch held when looked at just
        before (a lease: a run that pushed there in between makes this one fail, never lose its work)."""
        expect = None
        if replace:
            expect = self.git.ls_remote(self.remote, f"refs/heads/{branch}").get(f"refs/heads/{branch}", "")
        pushed = self.git.push(self.remote, sha, branch, expect=expect)
        if not pushed.ok:
            raise HomeostatError(f"could not push {branch}: {pushed.message}")

    # .. pull requests ..

    def open(
        self, change: Change, before_push: Callable[[str], None] | None = None, *, replace: bool = False
    ) -> Published:
        """Commit, push, and find-or-open the PR on the change's branch (`replace`: see `push`)."""
        host, repo = self.host
        # a title is shown on one line, as every field (its body is rendered so, `core.daily.bodies`)
        change = dataclasses.replace(
            change, title=redacted(served_line(change.title)), body=redacted(change.body)
        )
        sha = self.commit(change.base_sha, change.files, change.commit_message)
        if before_push is not None:
            before_push(sha)
        self.push(change.branch, sha, replace=replace)
        info = host.open_pull(repo, change.branch, change.base, change.title, change.body)
        self.opened.append(info)
        return Published(change, sha, info)

    def merge(self, number: int, sha: str, title: str, message: str) -> MergeResult:
        """Squash-merge PR `number` with our own title and message, only while its head is `sha`."""
        host, repo = self.host
        return host.merge_pull(repo, number, redacted(title), redacted(message), sha)

    def land(self, published: Published, title: str, message: str) -> MergeResult:
        """Merge and delete the branch. On a refusal, push a commit whose checks run; merge at it once
        they pass when only checks stood in the way (`homeostat.runs.merge_gate`), else leave the PR
        open with why in its body."""
        branch = published.change.branch
        if not self.would_change(self.base_tip(published.change.base), published.sha):
            self.close(published.pull, "Nothing to merge: the base branch already holds this change.")
            return MergeResult(merged=True, reason="the base already holds it; closed, not merged")
        merged = self.merge(published.pull.number, published.sha, title, message)
        if merged.merged:
            self.git.delete_remote_branch(self.remote, branch)
            return merged
        plain = self.git.commit_files(
            published.sha, {}, f"{published.change.title}: run the checks", parents=[published.sha]
        )
        self.git.push(self.remote, plain, branch)
        host, repo = self.host
        merged = after_refusal(
            host,
            repo,
            published.pull,
            plain,
            merged,
            lambda sha: self.merge(published.pull.number, sha, title, message),
            self.check_wait,
        )
        if merged.merged:
            self.git.delete_remote_branch(self.remote, branch)
            return merged
        self._say_why(published, merged.reason)
        return merged

    def _say_why(self, published: Published, reason: str) -> None:
        """The refusal's reason in the PR's body, where the person who merges it by hand reads it."""
        host, repo = self.host
        pull = published.pull
        text = with_refusal(pull.body or published.change.body, redacted(reason))
        try:
            host.open_pull(repo, pull.head_branch, pull.base_branch, pull.title, text)
        except HomeostatError as exc:
            print(f"notice: could not say why in the body of #{pull.number}: {exc}", file=self.out)

    def would_change(self, base_sha: str, sha: str) -> bool:
        """Whether merging `sha` (a commit on some earlier base) into `base_sha` changes its tree."""
        done = self.git.run("merge-tree", "--write-tree", base_sha, sha, check=False)
        tree = done.stdout.decode().split("\n", 1)[0].strip()
        return done.returncode != 0 or tree != self.git.tree_hash(base_sha)

    # .. what a killed run left ..

    def open_pulls(self, prefix: str) -> list[PullInfo]:
        host, repo = self.host
        return host.list_open_pulls(repo, prefix)

    def branches(self, prefix: str) -> dict[str, str]:
        """The remote's branches under `prefix`, name to commit."""
        refs = self.git.ls_remote(self.remote, f"refs/heads/{prefix}*")
        return {ref.removeprefix("refs/heads/"): sha for ref, sha in refs.items()}

    def merged_since(self, base: str, since: str, title: str) -> PullInfo | None:
        """The PR titled `title` whose squash commit reached the base after `since` (as last fetched)."""
        host, repo = self.host
        log = self.git.run("log", "--format=%s", f"{since}..refs/remotes/{self.remote}/{base}", check=False)
        for subject in log.stdout.decode("utf-8", "replace").splitlines():
            found = re.fullmatch(re.escape(title) + r" \(#(\d+)\)", subject)
            if found:
                pull = host.get_pull(repo, int(found.group(1)))
                return pull if pull.state is PullState.MERGED else None
        return None

    def close(self, pull: PullInfo, why: str) -> None:
        """Close a PR with one comment saying why, and delete its branch."""
        host, repo = self.host
        host.add_comment(repo, pull.number, redacted(why))
        host.close_pull(repo, pull.number)
        self.delete_branch(pull.head_branch)

    def delete_branch(self, branch: str) -> bool:
        return self.git.delete_remote_branch(self.remote, branch)

    def request_reviewers(
        self,
        pull: PullInfo,
        config: Config,
        areas: Iterable[str],
        author: str,
        covered: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        """`covered`: area → the globs the PR's lessons cover, which `team.reviewersFrom: codeowners`
        looks up in the code repos' CODEOWNERS (`runs.codeowners_reviewers`) before the usual choice."""
        host, repo = self.host
        teams_ok = Capability.TEAM_REVIEWERS in host.capabilities
        request = None
        if config.team.reviewers_from == "codeowners" and covered:
            answer = codeowners_request(
                host, config, covered, author, team_reviewers=teams_ok, cache=self.owners
            )
            for line in answer.notes:
                print(f"notice: #{pull.number}: {line}", file=self.out)
            request = answer.request
        request = request or choose_reviewers(config, areas, author, team_reviewers=teams_ok)
        try:
            host.request_reviewers(repo, pull.number, request.users, request.teams)
        except HomeostatError as exc:
            print(f"notice: could not request reviewers on #{pull.number}: {exc}", file=self.out)

    # .. review merge: a PR rebuilt on a newer base ..

    def push_rebuilt(self, branch: str, sha: str, *, expect: str, never: Iterable[str]) -> bool:
        """Force `branch` to a rebuilt commit, only while it still holds `expect` (so a person's push
        in between is never lost); False when it moved. The branches in `never` (the base branch and
        the state branch) are refused outright: they are never force-pushed."""
        if branch in set(never) or not branch.startswith(REBUILDABLE_PREFIX):
            raise HomeostatError(
                f"refusing to force-push {branch}: only {REBUILDABLE_PREFIX}* PR branches are rebuilt"
            )
        pushed = self.git.push(self.remote, sha, branch, expect=expect)
        if pushed.rejected:
            return False
        if not pushed.ok:
            raise HomeostatError(f"could not push {branch}: {pushed.message}")
        return True

    def shows_head(self, number: int, sha: str) -> bool:
        """Whether the host shows `sha` as the PR's head (it may lag a push, or miss a force push)."""
        host, repo = self.host
        return same_commit(host.get_pull(repo, number).head_sha, sha)

    # .. state ..

    def record(self, files: Mapping[str, bytes], *, branch: str, message: str) -> str | None:
        """Merge `files` into the state branch (never force-pushed); its commit afterwards."""
        return write_state(self.git, files, remote=self.remote, branch=branch, message=message)
