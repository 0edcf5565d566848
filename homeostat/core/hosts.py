"""The code-host interface and its host-neutral data types.

The daily run, deep dive and review-merge talk to GitHub or Bitbucket only through `CodeHost`.
Adapters (homeostat.adapters.hosts.github, homeostat.adapters.hosts.bitbucket) implement it; what one host cannot do
is a declared `Capability`, never a silent no-op. URL parsing is pure and lives here so `learn --url`
and the provenance check agree on what a review-comment URL is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from itertools import islice
from typing import Protocol
from urllib.parse import SplitResult, quote, urlsplit

from homeostat.errors import HomeostatError


class HostKind(StrEnum):
    GITHUB = "github"
    BITBUCKET = "bitbucket"


class Capability(StrEnum):
    """Things a host may or may not do; callers check before relying on them."""

    TEAM_REVIEWERS = "team-reviewers"  # request a team (not only users) as reviewers
    SQUASH_MESSAGE = "squash-message"  # squash-merge with our own commit title and message
    ASYNC_MERGE = "async-merge"  # merge answers 202 and a task to poll
    BRANCH_PROTECTION = "branch-protection"  # read the base branch's protection
    TOKEN_SCOPES = "token-scopes"  # read what the token may do
    EXPECTED_HEAD = "expected-head"  # merge only if the head is still the sha we pushed
    FORCE_PUSH_SEEN = "force-push-seen"  # a force-pushed PR branch shows as its head with no other push


class UrlError(HomeostatError):
    """A URL that is not a code-host repo, PR or review-comment URL."""


@dataclass(frozen=True)
class RepoRef:
    """A code repo on a host. `owner` is the GitHub owner or the Bitbucket workspace."""

    host: HostKind
    owner: str
    name: str
    base_url: str = ""  # web origin, e.g. https://github.com or https://ghe.example.com

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def web_url(self) -> str:
        origin = self.base_url or _DEFAULT_ORIGIN[self.host]
        return f"{origin}/{self.owner}/{self.name}"

    def same_repo(self, other: RepoRef) -> bool:
        return (self.host, self.owner.lower(), self.name.lower()) == (
            other.host,
            other.owner.lower(),
            other.name.lower(),
        )


_DEFAULT_ORIGIN = {HostKind.GITHUB: "https://github.com", HostKind.BITBUCKET: "https://bitbucket.org"}


@dataclass(frozen=True)
class CommentRef:
    """A review comment, as named by its URL."""

    repo: RepoRef
    pull: int
    comment_id: int


class PullState(StrEnum):
    OPEN = "open"
    MERGED = "merged"
    CLOSED = "closed"


@dataclass(frozen=True)
class MergedPull:
    repo: RepoRef
    number: int
    title: str
    body: str
    author: str
    merged_at: datetime
    url: str
    head_sha: str = ""
    base_branch: str = ""
    created_at: datetime | None = None  # when it was opened, where the host says


EDIT_GRACE = timedelta(seconds=60)


@dataclass(frozen=True)
class ReviewComment:
    id: int
    author: str
    body: str
    path: str
    line: int | None
    created_at: datetime
    url: str
    in_reply_to: int | None = None
    updated_at: datetime | None = None  # the host's last-change time (an edit), when it gives one

    @property
    def edited_at(self) -> datetime | None:
        """When the comment was last edited, or None if it was not. A host may stamp an unedited
        comment's update a few milliseconds after its creation (Bitbucket does), so a change within
        `EDIT_GRACE` of writing it is not an edit."""
        if self.updated_at is None or self.updated_at - self.created_at <= EDIT_GRACE:
            return None
        return self.updated_at


MAX_FOLLOW_UP_LINES = 4000  # added (and removed) lines a thread keeps from the change after it


@dataclass(frozen=True)
class FollowUp:
    """What the pull request's commits after a thread's root comment did, as the host tells it: who
    wrote them and which lines they added to and removed from the commented file (to and from any file
    for a comment on no file). The evidence that a second person enacted the comment
    (`core.daily.enactment`): a review lesson merges unread only when someone other than its commenter
    wrote the change and the change uses the rule's code terms, in an added line or, for a term the
    rule forbids ("stop calling `x`"), in a removed one. `verified` is whether every commit carries a
    signature the host verified (None when the host does not say: Bitbucket Cloud), which ties a
    commit to the account that signed it rather than to the email it names
    (`scoring.autoMerge.enactment: signed`)."""

    authors: tuple[str, ...] = ()  # host account per commit, in order; "" for a commit linked to no account
    added: tuple[str, ...] = ()  # added lines without the leading "+", at most MAX_FOLLOW_UP_LINES
    verified: bool | None = None
    removed: tuple[str, ...] = ()  # removed lines without the leading "-", at most MAX_FOLLOW_UP_LINES

    @staticmethod
    def of(
        authors: Iterable[str],
        added: Iterable[str],
        *,
        verified: bool | None = None,
        removed: Iterable[str] = (),
    ) -> FollowUp:
        """A follow-up with its added and removed lines capped."""
        return FollowUp(tuple(authors), _capped(added), verified, _capped(removed))


def _capped(lines: Iterable[str]) -> tuple[str, ...]:
    return tuple(islice(lines, MAX_FOLLOW_UP_LINES))


@dataclass(frozen=True)
class ReviewThread:
    """A root review comment and its replies, with whether the code changed after it and when the
    first commit after it was made (`followed_at`; None when the host did not say)."""

    repo: RepoRef
    pull: int
    pull_title: str
    pull_author: str
    root: ReviewComment
    replies: tuple[ReviewComment, ...] = ()
    followed_by_commit: bool = False
    followed_at: datetime | None = None
    follow_up: FollowUp | None = None  # None when no commit came after or the host did not say

    @property
    def path(self) -> str:
        return self.root.path

    @property
    def url(self) -> str:
        return self.root.url

    @property
    def comments(self) -> tuple[ReviewComment, ...]:
        return (self.root, *self.replies)

    @property
    def authors(self) -> tuple[str, ...]:
        seen: list[str] = []
        for comment in self.comments:
            if comment.author not in seen:
                seen.append(comment.author)
        return tuple(seen)


@dataclass(frozen=True)
class PullInfo:
    repo: RepoRef
    number: int
    url: str
    state: PullState
    title: str
    body: str
    head_branch: str
    base_branch: str
    author: str = ""
    head_sha: str = ""
    merged_by: str | None = None
    merged_at: datetime | None = None
    closed_at: datetime | None = None
    created_at: datetime | None = None


@dataclass(frozen=True)
class Approval:
    """A person's approval standing on a PR; `commit` is the head it was given at, None when the host
    does not record one (Bitbucket Cloud)."""

    login: str
    commit: str | None = None


@dataclass(frozen=True)
class MergeResult:
    """A merge outcome. A refusal is a value so the caller can leave the PR open and go on."""

    merged: bool
    sha: str | None = None
    reason: str = ""

    @property
    def refused(self) -> bool:
        return not self.merged


@dataclass(frozen=True)
class BranchProtection:
    """How the base branch is protected. `keeps_stale_approvals`: an approval given before a later
    push still lets the PR merge (GitHub's "Dismiss stale pull request approvals" off; on Bitbucket no
    "Reset approvals when the source branch is modified"), so a review PR can be changed after a person
    approved it and merged with the host's button. `known` is False when the token may not read it."""

    branch: str
    protected: bool
    required_reviews: int = 0
    required_checks: tuple[str, ...] = ()
    allows_force_push: bool = False
    known: bool = True
    keeps_stale_approvals: bool = False


@dataclass(frozen=True)
class RuleSet:
    """One set of merge requirements in force on a branch (GitHub's classic branch protection, one
    ruleset, Bitbucket's merge checks), and who may merge without meeting it. `approvals` is None when
    the token may not read it; `bypass_apps` are the GitHub App ids on its bypass list."""

    name: str
    approvals: int | None = 0
    checks: tuple[str, ...] = ()
    builds: int = 0  # Bitbucket: successful builds the last commit needs (its builds have no required names)
    enforced: bool = (
        True  # Bitbucket's merge checks only warn without "Prevent a merge with unresolved merge checks"
    )
    bypass_apps: tuple[int, ...] = ()
    bypass_visible: bool = True  # False when the token may not read the bypass list (it takes admin)
    bypass_covers_checks: bool = True  # classic protection's PR allowance skips approvals, not checks
    caller_bypasses: bool | None = None  # whether the token that asked may bypass it (rulesets say)
    blocks_force_push: bool = False
    dismisses_stale: bool = False  # a push takes the approvals given before it away


@dataclass(frozen=True)
class MergeRules:
    """What a pull request into `branch` must meet before the host merges it."""

    branch: str
    rule_sets: tuple[RuleSet, ...] = ()
    complete: bool = True  # False when part of the rules could not be read; `note` says which
    note: str = ""


class CheckState(StrEnum):
    SUCCESS = "success"
    PENDING = "pending"  # queued or running
    FAILURE = "failure"  # failed, cancelled, timed out, or anything else that is not a pass


@dataclass(frozen=True)
class TokenReach:
    user: str
    can_read: bool
    can_write: bool
    can_admin: bool = False
    scopes: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    known: bool = True  # False when the host did not say what the token may do on the repo


class CodeHost(Protocol):
    """What the runs need from GitHub or Bitbucket. Every write is idempotent on rerun."""

    kind: HostKind
    capabilities: frozenset[Capability]

    def list_merged_pulls(
        self, repo: RepoRef, since: datetime, until: datetime | None = None
    ) -> list[MergedPull]:
        """PRs merged in [since, until), newest first. Filtering (skip marker, opt-out) is the caller's."""
        ...

    def review_threads(self, pull: MergedPull) -> list[ReviewThread]:
        """The PR's inline review comments grouped into threads, each with `followed_by_commit`."""
        ...

    def while_paced(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` every second while a request waits for the host's limits, its own pacing's or
        a limit the host declared (a wait for the next hour's writes is most of an hour; a run renews
        its claim meanwhile); None: no more."""
        ...

    def get_comment_thread(self, ref: CommentRef) -> ReviewThread:
        """The thread holding one review comment (for `learn --url`)."""
        ...

    def open_pull(self, repo: RepoRef, head: str, base: str, title: str, body: str) -> PullInfo:
        """Open a PR, or return (and update) the open PR already on `head`."""
        ...

    def request_reviewers(
        self, repo: RepoRef, number: int, users: Sequence[str], teams: Sequence[str] = ()
    ) -> None: ...

    def add_comment(self, repo: RepoRef, number: int, body: str) -> None: ...

    def pull_comments(self, repo: RepoRef, number: int) -> list[str]:
        """The bodies of the PR's general (not inline) comments, oldest first."""
        ...

    def pull_approvals(self, repo: RepoRef, number: int) -> list[Approval]:
        """The approvals standing on the PR: each person's latest review when it approves (GitHub,
        with its commit), or the participants marked approved (Bitbucket, no commit)."""
        ...

    def close_pull(self, repo: RepoRef, number: int) -> None: ...

    def get_pull(self, repo: RepoRef, number: int) -> PullInfo: ...

    def list_open_pulls(self, repo: RepoRef, branch_prefix: str) -> list[PullInfo]: ...

    def merge_pull(
        self, repo: RepoRef, number: int, title: str, message: str, expected_head: str | None = None
    ) -> MergeResult:
        """Squash-merge with our own message; a refusal (protection, checks) is a MergeResult."""
        ...

    def branch_protection(self, repo: RepoRef, branch: str) -> BranchProtection: ...

    def merge_rules(self, repo: RepoRef, branch: str) -> MergeRules:
        """The requirements a PR into `branch` must meet, as far as this token may read them."""
        ...

    def commit_checks(self, repo: RepoRef, sha: str) -> dict[str, CheckState]:
        """The checks and statuses reported on `sha`, by name (GitHub: check runs and commit statuses;
        Bitbucket: build statuses by key); the latest report of a name wins."""
        ...

    def token_reach(self, repo: RepoRef) -> TokenReach: ...

    def repo_visibility(self, repo: RepoRef) -> str:
        """public, private, or internal (GitHub Enterprise: every member of the enterprise)."""
        ...

    def file_text(self, repo: RepoRef, path: str) -> str | None:
        """A file of the repo's default branch as text, or None when it has no such file (the
        reviewers `team.reviewersFrom: codeowners` asks for come from the code repos' CODEOWNERS)."""
        ...


# --- URL parsing (pure) -------------------------------------------------------------------------

_GITHUB_PR = re.compile(
    r"^/(?P<owner>[^/]+)/(?P<name>[^/]+)/pull/(?P<number>\d+)(?:/(?:files|commits|changes))?/?$"
)
_GITHUB_COMMENT_FRAGMENT = re.compile(r"^(?:discussion_r|r)(?P<id>\d+)$")
_BITBUCKET_PR = re.compile(r"^/(?P<owner>[^/]+)/(?P<name>[^/]+)/pull-requests/(?P<number>\d+)(?:/[^/]*)*/?$")
_BITBUCKET_COMMENT_FRAGMENT = re.compile(r"^comment-(?P<id>\d+)$")
_REPO_PATH = re.compile(r"^/(?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/?$")


def _shown(url: str) -> str:
    """The URL as an error message may show it: credentials (`user:token@`) never leave in a message."""
    return re.sub(r"(?<=://)[^/@\s]+@", "***@", url.strip())


def _split(url: str, what: str) -> SplitResult:
    """urlsplit, with its ValueError (a stray `[` reads as a broken IPv6 host) as our UrlError."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises only when asked for
    except ValueError as exc:
        raise UrlError(f"not {what}: {_shown(url)!r} ({exc})") from None
    return parts


def _host_of(netloc: str) -> HostKind:
    lowered = netloc.lower().split("@")[-1]
    if lowered in ("bitbucket.org", "www.bitbucket.org"):
        return HostKind.BITBUCKET
    return HostKind.GITHUB  # github.com or a GitHub Enterprise host


def _origin(scheme: str, netloc: str) -> str:
    host = netloc.split("@")[-1].lower()
    if host in ("github.com", "www.github.com", "bitbucket.org", "www.bitbucket.org"):
        return ""
    return f"{scheme}://{host}"


def parse_repo_url(url: str) -> RepoRef:
    """`https://github.com/acme/ledger`, `git@github.com:acme/ledger.git` or a Bitbucket URL."""
    text = url.strip()
    scp = re.match(r"^[\w.-]+@(?P<host>[\w.-]+):(?P<path>.+)$", text)
    if scp:
        text = f"https://{scp.group('host')}/{scp.group('path')}"
    parts = _split(text, "a repository URL")
    if parts.scheme not in ("http", "https", "ssh") or not parts.netloc:
        raise UrlError(f"not a repository URL: {_shown(url)!r} (expected https://<host>/<owner>/<repo>)")
    match = _REPO_PATH.match(parts.path)
    if not match:
        raise UrlError(f"not a repository URL: {_shown(url)!r} (expected https://<host>/<owner>/<repo>)")
    scheme = "https" if parts.scheme == "ssh" else parts.scheme
    return RepoRef(_host_of(parts.netloc), match["owner"], match["name"], _origin(scheme, parts.netloc))


def parse_pull_url(url: str) -> tuple[RepoRef, int]:
    parts = _split(url.strip(), "a pull request URL")
    host = _host_of(parts.netloc)
    pattern = _GITHUB_PR if host is HostKind.GITHUB else _BITBUCKET_PR
    match = pattern.match(parts.path) if parts.scheme in ("http", "https") else None
    if not match:
        raise UrlError(f"not a pull request URL: {_shown(url)!r}")
    repo = RepoRef(host, match["owner"], match["name"], _origin(parts.scheme, parts.netloc))
    return repo, int(match["number"])


def parse_comment_url(url: str) -> CommentRef:
    """A review-comment URL: GitHub `…/pull/12#discussion_r345`, Bitbucket `…/pull-requests/12#comment-345`."""
    repo, number = parse_pull_url(url.split("#", 1)[0])
    fragment = _split(url.strip(), "a review-comment URL").fragment
    pattern = _GITHUB_COMMENT_FRAGMENT if repo.host is HostKind.GITHUB else _BITBUCKET_COMMENT_FRAGMENT
    match = pattern.match(fragment)
    if not match:
        expected = "#discussion_r<id>" if repo.host is HostKind.GITHUB else "#comment-<id>"
        raise UrlError(f"not a review-comment URL: {_shown(url)!r} (expected {expected} after the PR URL)")
    return CommentRef(repo, number, int(match["id"]))


def comment_url(repo: RepoRef, pull: int, comment_id: int) -> str:
    if repo.host is HostKind.GITHUB:
        return f"{repo.web_url}/pull/{pull}#discussion_r{comment_id}"
    return f"{repo.web_url}/pull-requests/{pull}#comment-{comment_id}"


def pull_url(repo: RepoRef, pull: int) -> str:
    if repo.host is HostKind.GITHUB:
        return f"{repo.web_url}/pull/{pull}"
    return f"{repo.web_url}/pull-requests/{pull}"


def pulls_url(repo: RepoRef) -> str:
    """The repo's open pull requests."""
    if repo.host is HostKind.GITHUB:
        return f"{repo.web_url}/pulls"
    return f"{repo.web_url}/pull-requests"


def file_url(repo: RepoRef, branch: str, path: str) -> str:
    """A file (or folder) on a branch, as the host's web pages show it."""
    where = "blob" if repo.host is HostKind.GITHUB and path.endswith(".md") else "tree"
    if repo.host is HostKind.GITHUB:
        return f"{repo.web_url}/{where}/{quote(branch)}/{quote(path)}"
    return f"{repo.web_url}/src/{quote(branch)}/{quote(path)}"


def same_commit(one: str, other: str) -> bool:
    """Whether two commit hashes name one commit: Bitbucket shows 12 characters, git gives 40."""
    size = min(len(one), len(other))
    return size >= 7 and one[:size].lower() == other[:size].lower()


# --- Which merged PRs count (pure) ---------------------------------------------------------------


def readable_pulls(
    pulls: Iterable[MergedPull], *, skip_marker: str, opted_out: Iterable[str]
) -> list[MergedPull]:
    """Drop PRs marked with the skip marker and PRs by authors who opted out."""
    out = {handle.lower() for handle in opted_out}
    marker = skip_marker.strip()
    return [
        pull
        for pull in pulls
        if pull.author.lower() not in out and not (marker and (marker in pull.body or marker in pull.title))
    ]


def code_repos(urls: Iterable[str], *, excluded: Iterable[str], kb_repo: RepoRef | None) -> list[RepoRef]:
    """The code repos to read: excluded ones and the KB repo itself never count (its PRs are our output)."""
    excluded_refs: list[RepoRef] = []
    excluded_names: set[str] = set()
    for item in excluded:
        try:
            excluded_refs.append(parse_repo_url(item))
        except UrlError:
            excluded_names.add(item.lower())
    repos: list[RepoRef] = []
    for url in urls:
        ref = parse_repo_url(url)
        if kb_repo is not None and ref.same_repo(kb_repo):
            continue
        if ref.name.lower() in excluded_names or any(ref.same_repo(other) for other in excluded_refs):
            continue
        if not any(ref.same_repo(seen) for seen in repos):
            repos.append(ref)
    return repos
