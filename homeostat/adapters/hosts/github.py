"""The GitHub side of `CodeHost`, over PyGithub: github.com and GitHub Enterprise alike.

Three choices shape this module:

- PyGithub's own retry is off (`retry=None`). It retries POSTs on a 5xx, which can open a duplicate PR.
  Each public method is one operation that is safe to run again (it looks before it writes), and
  `homeostat.adapters.hosts.http_retry` reruns it on a 5xx, a timeout or a rate limit, within capped waits.
- The client is lazy (`lazy=True`): naming a repo or a PR costs no request, so a method's requests are
  exactly the ones it needs. Attributes that a list answer lacks would each cost a request to "complete"
  the object, so list results are read only for fields the list endpoint returns.
- Review comments are read as JSON through the client's public `requester`, not as PyGithub objects: a
  root comment has no `in_reply_to_id`, and asking a PyGithub object for it fetches that comment again,
  one request per thread.

Every failure leaves as one `HostError` (or `AuthError`) line naming what was being done and the fix.
The token never appears in a message or log line: messages are built from the status and GitHub's short
`message` field, and scrubbed of the token besides.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import requests
from github import Auth, Github
from github.GithubException import GithubException, RateLimitExceededException, UnknownObjectException
from github.GithubObject import NotSet
from github.PullRequest import PullRequest
from github.Repository import Repository

from homeostat.adapters.cache.http_etags import EtagCache
from homeostat.adapters.hosts.github_graphql import (
    Blob,
    Listing,
    Lookup,
    PullRead,
    added_lines,
    after_commit,
    read_files,
    read_listing,
    read_texts,
)
from homeostat.adapters.hosts.http_retry import (
    RetriesExhausted,
    RetryPolicy,
    Transient,
    host_retry,
    retry_after,
    transient_status,
)
from homeostat.adapters.hosts.pace import GITHUB_WRITE_MARGIN, GITHUB_WRITES, Pacer
from homeostat.core.deep_dive.code_names import CodeHits, CodeTree
from homeostat.core.hosts import (
    Approval,
    BranchProtection,
    Capability,
    CheckState,
    CodeHost,
    CommentRef,
    FollowUp,
    HostKind,
    MergedPull,
    MergeResult,
    MergeRules,
    PullInfo,
    PullState,
    RepoRef,
    ReviewComment,
    ReviewThread,
    RuleSet,
    TokenReach,
)
from homeostat.core.unified_diff import patch_lines
from homeostat.errors import AuthError, ConfigError, HostError, RateLimitError

T = TypeVar("T")

_log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
TOKEN_VARIABLES = ("HOMEOSTAT_GITHUB_TOKEN", "GITHUB_TOKEN")
TOKEN_LABEL = "/".join(TOKEN_VARIABLES)
API_URL_VARIABLE = "GITHUB_API_URL"

_PER_PAGE = 100  # the REST maximum: 30 review comments or 500 PRs cost one page per 100
_COMPARE_FILE_LIMIT = 300  # the compare endpoint lists at most this many files
_READ = "contents:read and pull-requests:read"
_WRITE = "contents:write and pull-requests:write"
_LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


def github_host_from_env(
    env: Mapping[str, str],
    *,
    retry: RetryPolicy | None = None,
    read_only: bool = False,
    cache_root: Path | None = None,
) -> GitHubHost:
    """The host a CI run uses: HOMEOSTAT_GITHUB_TOKEN, else the Actions GITHUB_TOKEN, and GITHUB_API_URL.
    `read_only` for a command that only reads reviews (curate, learn --url): its token needs no write.
    `cache_root`: the KB checkout whose `.homeostat/cache/http/` keeps GET answers' ETags between runs."""
    for variable in TOKEN_VARIABLES:
        token = env.get(variable, "").strip()
        if token:
            api_url = env.get(API_URL_VARIABLE, "").strip() or DEFAULT_API_URL
            etags = EtagCache.for_host(cache_root, api_url, token) if cache_root is not None else None
            return GitHubHost(api_url, token, token_variable=variable, retry=retry, etags=etags)
    raise ConfigError(
        "no GitHub token: set HOMEOSTAT_GITHUB_TOKEN (or GITHUB_TOKEN in GitHub Actions) to a token with "
        f"{_READ if read_only else _WRITE}; for GitHub Enterprise also set GITHUB_API_URL"
    )


@dataclass(frozen=True)
class _Round:
    """What one compare from a review round's commit to the PR's head says: the paths whose content
    changed, when the first commit after it was made, who wrote each commit (None when the compare
    did not list them all, or the head is not simply ahead of the commit), the lines each changed
    file gained and lost, and whether GitHub verified every commit's signature."""

    paths: frozenset[str] = frozenset()
    first_at: datetime | None = None
    authors: tuple[str, ...] | None = None
    files: tuple[_FileLines, ...] = ()
    verified: bool | None = None

    def follow_up(self, path: str) -> FollowUp | None:
        """The change after a thread on `path` (any file for a comment on none); None when who wrote
        it is not known."""
        if self.authors is None:
            return None
        files = [item for item in self.files if not path or path in (item.name, item.before)]
        added = (line for item in files for line in item.added)
        removed = (line for item in files for line in item.removed)
        return FollowUp.of(self.authors, added, verified=self.verified, removed=removed)


@dataclass(frozen=True)
class _FileLines:
    """A compare file's name, its name before a rename, and the lines its patch adds and removes."""

    name: str
    before: str
    added: tuple[str, ...]
    removed: tuple[str, ...]


@dataclass(frozen=True)
class _Comment:
    """A review comment as listed, with the commit it was written on."""

    comment: ReviewComment
    commit: str


class GitHubHost:
    """`CodeHost` for GitHub. Constructing it makes no request."""

    kind = HostKind.GITHUB
    capabilities = frozenset(
        {
            Capability.TEAM_REVIEWERS,
            Capability.SQUASH_MESSAGE,
            Capability.BRANCH_PROTECTION,
            Capability.TOKEN_SCOPES,
            Capability.EXPECTED_HEAD,
            Capability.FORCE_PUSH_SEEN,
        }
    )

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        token_variable: str = TOKEN_LABEL,
        retry: RetryPolicy | None = None,
        timeout: int = 30,
        seconds_between_writes: float | None = None,
        writes: Pacer | None = None,
        etags: EtagCache | None = None,
    ) -> None:
        """Content-creating requests go through `writes`, which keeps them under GitHub's secondary limits
        (80 in any minute, 500 in any hour) and, when given, `seconds_between_writes` apart. By default
        they go one after the other while they fit: GitHub's limit is 80 a minute, and a daily run's
        80 writes a second apart were a third of a sharded run's merge job. Reads are serial anyway and
        are not spaced. A limit GitHub declares anyway is waited out (`retry`).

        `etags` keeps the ETag and body of GET answers, so reads are sent with `If-None-Match` and an
        unchanged answer comes back 304 Not Modified, free of the primary rate limit. Without it (the
        default) each read costs one request, as before."""
        parts = urlsplit(api_url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(
                f"{API_URL_VARIABLE} is not an API URL: {api_url!r} (expected https://api.github.com or "
                "https://<host>/api/v3)"
            )
        if not token.strip():
            raise ConfigError(f"the GitHub token in {token_variable} is empty: set it to a valid token")
        self._api_url = api_url.strip().rstrip("/")
        self._secret = token.strip()
        self._variable = token_variable
        self.writes = writes or Pacer(
            GITHUB_WRITES,
            spacing=seconds_between_writes or 0.0,
            margin=GITHUB_WRITE_MARGIN,
            name="GitHub writes",
        )
        policy = retry or host_retry()  # its waits wake the run as the pacer's do (`while_paced`)
        self._retry = replace(policy, sleep=partial(self.writes.pause, sleep=policy.sleep))
        self._gh = Github(
            base_url=self._api_url,
            auth=Auth.Token(self._secret),
            retry=None,
            timeout=timeout,
            per_page=_PER_PAGE,
            lazy=True,
            seconds_between_requests=None,
            seconds_between_writes=None,  # spaced by `writes`
        )
        self._repos: dict[str, Repository] = {}
        self.etags = etags or EtagCache(None)
        # what `prefetch_merged` read over GraphQL, handed out by the REST-shaped methods below
        self._listed: dict[str, tuple[datetime, datetime | None, list[MergedPull]]] = {}
        self._ready: dict[tuple[str, int], list[ReviewThread]] = {}
        self.graphql_queries = 0

    def __repr__(self) -> str:
        return f"GitHubHost({self._api_url!r}, token from {self._variable})"

    def while_paced(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` every `WAKE_EVERY` seconds while a request waits for GitHub's limits (the next
        hour's writes, or a limit GitHub declared)."""
        self.writes.on_wait = callback

    # --- reading merged PRs and their review threads ---------------------------------------------

    def list_merged_pulls(
        self, repo: RepoRef, since: datetime, until: datetime | None = None
    ) -> list[MergedPull]:
        """Closed PRs by last update, newest first, until one was last updated before `since`.

        The list endpoint has no `since`; a PR's merge updates it, so once `updated_at` falls before the
        window no later page can hold a PR merged inside it.
        """
        start, end = _utc(since), _utc(until) if until is not None else None
        listed = self._listed.pop(repo.full_name.lower(), None)
        if listed is not None and listed[:2] == (start, end):
            return list(listed[2])

        def operation(_attempt: int) -> list[MergedPull]:
            found: list[MergedPull] = []
            order = {"state": "closed", "sort": "updated", "direction": "desc"}
            for data in self._pages(f"{_repo_path(repo)}/pulls", order):
                updated_at = _time_or_none(data.get("updated_at"))
                if updated_at is not None and updated_at < start:
                    break
                merged_at = _time_or_none(data.get("merged_at"))
                if merged_at is None or merged_at < start or (end is not None and merged_at >= end):
                    continue
                found.append(_merged_pull(repo, data, merged_at))
            return sorted(found, key=lambda pull: pull.merged_at, reverse=True)

        return self._call(f"list merged PRs of {repo.full_name}", _READ, operation)

    def review_threads(self, pull: MergedPull) -> list[ReviewThread]:
        """Threads of one merged PR in 1 + C requests, whatever the number of comments up to a page.

        One request lists the review comments (100 a page). Each comment names the commit it was written
        on (`original_commit_id`), so the PR's commit list is not needed: whether code changed after a
        thread is one compare, `GET /compare/{commit}...{head}`, per distinct such commit (C: one per
        review round that was followed by a push, usually 1, none when nothing came after). The compare's
        file list is the net change from that commit to the PR's head, so one request answers for every
        thread of the round, and a change made and then undone does not count. A rebased PR (the
        comment's commit is no longer an ancestor of the head) or a change of 300 files or more falls
        back to comparing the two commits' trees, two requests.
        """

        ready = self._ready.pop((pull.repo.full_name.lower(), pull.number), None)
        if ready is not None:
            return ready

        def operation(_attempt: int) -> list[ReviewThread]:
            comments = self._review_comments(pull.repo, pull.number)
            if not comments:
                return []
            head = pull.head_sha or self._repo(pull.repo).get_pull(pull.number).head.sha
            return self._threads(pull.repo, pull.number, pull.title, pull.author, head, comments, None)

        return self._call(
            f"read review threads of PR #{pull.number} of {pull.repo.full_name}", _READ, operation
        )

    def prefetch_merged(
        self, repos: Sequence[RepoRef], since: datetime, until: datetime | None = None
    ) -> None:
        """Read the window's merged PRs of all `repos` and their review threads over GraphQL, a few dozen
        requests for what REST reads in about two per PR (see `homeostat.adapters.hosts.github_graphql`); the
        next `list_merged_pulls` and `review_threads` calls for them answer from it. A PR GraphQL cannot
        give whole is left to REST, and so is everything when GraphQL fails."""
        start, end = _utc(since), _utc(until) if until is not None else None
        try:
            listing = read_listing(self._graphql, repos, start, end, _parse_time)
            ready, ends = self._prepared(listing)
            answers, queries = read_files(self._graphql, [lookup for pair in ends for lookup in pair])
            texts, _queries = read_texts(self._graphql, _changed_blobs(ends, answers))
        except (
            GithubException,
            RetriesExhausted,
            requests.RequestException,
            KeyError,
            TypeError,
            ValueError,
        ) as exc:
            _log.info("GitHub GraphQL read failed (%s); reading the window over REST", type(exc).__name__)
            return
        for key, reads in listing.pulls.items():
            pulls = sorted((read.pull for read in reads), key=lambda pull: pull.merged_at, reverse=True)
            self._listed[key] = (start, end, pulls)
        for read, comments in ready:
            threads = self._graphql_threads(read, comments, answers, texts)
            if threads is not None:  # else a commented file GraphQL did not give whole: REST reads it
                self._ready[(read.pull.repo.full_name.lower(), read.pull.number)] = threads

    def _graphql_threads(
        self,
        read: PullRead,
        comments: Sequence[_Comment],
        answers: Mapping[Lookup, tuple[str, int] | None],
        texts: Mapping[Blob, tuple[str, ...] | None],
    ) -> list[ReviewThread] | None:
        """A PR's threads from what GraphQL gave: whether and when code changed after each, who wrote
        the commits after it, and the lines the commented file gained and lost (its two texts
        compared); None when a followed thread's file text is not whole."""
        whole = True

        def follow(root: _Comment) -> tuple[bool, datetime | None, FollowUp | None]:
            nonlocal whole
            followed, followed_at = _followed(read, root, answers)
            if not followed:
                return False, None, None
            before = _text(read, texts, answers[Lookup(read.pull.repo, root.commit, root.comment.path)])
            after = _text(read, texts, answers[Lookup(read.pull.repo, read.pull.head_sha, root.comment.path)])
            if before is None or after is None:
                whole = False
                return True, followed_at, None
            between = after_commit(read, root.commit) or []
            authors = [read.commits[oid][2] for oid in reversed(between)]
            verified = all(read.commits[oid][3] for oid in between)
            # the lines the file gained, and those it lost: the old text's lines the new one lacks
            added, removed = added_lines(before, after), added_lines(after, before)
            return True, followed_at, FollowUp.of(authors, added, verified=verified, removed=removed)

        pull = read.pull
        threads = self._threads(
            pull.repo, pull.number, pull.title, pull.author, pull.head_sha, comments, None, follow=follow
        )
        return threads if whole else None

    def _prepared(
        self, listing: Listing
    ) -> tuple[list[tuple[PullRead, list[_Comment]]], list[tuple[Lookup, Lookup]]]:
        """The PRs GraphQL gave whole, with their comments, and the file lookups their threads need:
        the commented file at the thread's commit and at the head, a pair per thread."""
        ready: list[tuple[PullRead, list[_Comment]]] = []
        ends: list[tuple[Lookup, Lookup]] = []
        for reads in listing.pulls.values():
            for read in reads:
                if not read.complete or not read.pull.head_sha:
                    continue
                comments = [_graphql_comment(item) for item in read.comments]
                mine: list[tuple[Lookup, Lookup]] = []
                for root, _replies in _group(comments):
                    if not root.commit or root.commit == read.pull.head_sha:
                        continue
                    if after_commit(read, root.commit) is None:
                        break
                    mine.append(
                        (
                            Lookup(read.pull.repo, root.commit, root.comment.path),
                            Lookup(read.pull.repo, read.pull.head_sha, root.comment.path),
                        )
                    )
                else:
                    ready.append((read, comments))
                    ends += mine
        return ready, ends

    def _graphql(self, query: str, variables: dict[str, Any]) -> Mapping[str, Any]:
        def operation(_attempt: int) -> Mapping[str, Any]:
            _headers, data = self._gh.requester.graphql_query(query, variables)
            self.graphql_queries += 1
            found = data.get("data") if isinstance(data, Mapping) else None
            if not isinstance(found, Mapping):
                raise ValueError("GraphQL answered without data")
            return found

        return self._retry.run(operation, self._transient, what="GitHub: GraphQL read", log=_log)

    def get_comment_thread(self, ref: CommentRef) -> ReviewThread:
        """The thread holding one review comment: the PR, its comments, and one compare."""

        def operation(_attempt: int) -> ReviewThread:
            pr = self._repo(ref.repo).get_pull(ref.pull)
            comments = self._review_comments(ref.repo, ref.pull)
            by_id = {item.comment.id: item for item in comments}
            if ref.comment_id not in by_id:
                raise HostError(
                    f"review comment {ref.comment_id} is not on PR #{ref.pull} of {ref.repo.full_name}: "
                    "check the URL (it should end in #discussion_r<id>)"
                )
            root = _root_of(by_id[ref.comment_id], by_id)
            threads = self._threads(
                ref.repo, ref.pull, pr.title, _login(pr.user), pr.head.sha, comments, root.comment.id
            )
            return threads[0]

        what = f"read review comment {ref.comment_id} on PR #{ref.pull} of {ref.repo.full_name}"
        return self._call(what, _READ, operation)

    # --- writing PRs -----------------------------------------------------------------------------

    def open_pull(self, repo: RepoRef, head: str, base: str, title: str, body: str) -> PullInfo:
        """Looks for an open PR on `head` first, so a rerun (or a retried POST) never opens a second one."""

        def operation(_attempt: int) -> PullInfo:
            existing = self._open_pull_on(repo, head)
            if existing is not None:
                return self._refresh(repo, existing, base, title, body)
            try:
                self.writes.before()
                created = self._repo(repo).create_pull(base=base, head=head, title=title, body=body)
            except GithubException as exc:
                raced = self._open_pull_on(repo, head) if exc.status == 422 else None
                if raced is None:
                    raise
                return self._refresh(repo, raced, base, title, body)
            return self._pull_info(repo, created, with_merger=False)

        return self._call(f"open a PR from {head} into {base} in {repo.full_name}", _WRITE, operation)

    def request_reviewers(
        self, repo: RepoRef, number: int, users: Sequence[str], teams: Sequence[str] = ()
    ) -> None:
        """Requesting someone already requested is a no-op on GitHub, so this is safe to repeat."""
        if not users and not teams:
            return

        names = ", ".join([*users, *(f"team {team}" for team in teams)])
        what = f"request reviews from {names} on PR #{number} of {repo.full_name}"

        def operation(_attempt: int) -> None:
            pr = self._repo(repo).get_pull(number)
            try:
                self._ask_for_review(pr, users, teams)
            except GithubException as exc:
                if exc.status != 422:
                    raise
                # GitHub refuses the whole request when it names the PR's author; skip them, as
                # Bitbucket does, rather than fail a run over a reviewer list that includes its own bot.
                author = _login(pr.user)
                others = [user for user in users if user.lower() != author.lower()]
                if len(others) == len(users):
                    raise HostError(self._reviewer_refusal(what, repo, exc)) from exc
                _log.info("GitHub: not requesting %s on PR #%s: they opened it", author, number)
                if not others and not teams:
                    return
                try:
                    self._ask_for_review(pr, others, teams)
                except GithubException as again:
                    if again.status != 422:
                        raise
                    raise HostError(self._reviewer_refusal(what, repo, again)) from again

        self._call(what, "pull-requests:write", operation)

    def _ask_for_review(self, pr: PullRequest, users: Sequence[str], teams: Sequence[str]) -> None:
        self.writes.before()
        pr.create_review_request(reviewers=list(users) or NotSet, team_reviewers=list(teams) or NotSet)

    def _reviewer_refusal(self, what: str, repo: RepoRef, exc: GithubException) -> str:
        return self._scrub(
            f"GitHub refused to {what} ({exc.status} {_message(exc)}{_errors(exc)}): each reviewer must be a "
            f"collaborator on {repo.full_name} (teams by slug, with access to the repo)"
        )

    def add_comment(self, repo: RepoRef, number: int, body: str) -> None:
        """A retry first looks for the comment, since a POST that timed out may have landed."""

        def operation(attempt: int) -> None:
            issue = self._repo(repo).get_issue(number)
            if attempt > 1 and any(comment.body == body for comment in issue.get_comments()):
                return
            self.writes.before()
            issue.create_comment(body)

        self._call(f"comment on PR #{number} of {repo.full_name}", "pull-requests:write", operation)

    def pull_comments(self, repo: RepoRef, number: int) -> list[str]:
        """The PR's conversation comments (issue comments), read as JSON: one request per 100."""

        def operation(_attempt: int) -> list[str]:
            path = f"{_repo_path(repo)}/issues/{number}/comments"
            return [str(item.get("body") or "") for item in self._pages(path)]

        return self._call(f"read the comments of PR #{number} of {repo.full_name}", _READ, operation)

    def pull_approvals(self, repo: RepoRef, number: int) -> list[Approval]:
        """Each reviewer's latest review that approves, with the commit it was given at."""

        def operation(_attempt: int) -> list[Approval]:
            return standing_approvals(self._pages(f"{_repo_path(repo)}/pulls/{number}/reviews"))

        return self._call(f"read the reviews of PR #{number} of {repo.full_name}", _READ, operation)

    def close_pull(self, repo: RepoRef, number: int) -> None:
        def operation(_attempt: int) -> None:
            pr = self._repo(repo).get_pull(number)
            self.writes.before()
            pr.edit(state="closed")

        self._call(f"close PR #{number} of {repo.full_name}", "pull-requests:write", operation)

    def get_pull(self, repo: RepoRef, number: int) -> PullInfo:
        """A 404 is an error, never "closed": settling a review on a wrong answer would decline lessons."""

        def operation(_attempt: int) -> PullInfo:
            return self._pull_info(repo, self._repo(repo).get_pull(number), with_merger=True)

        return self._call(f"read PR #{number} of {repo.full_name}", _READ, operation)

    def list_open_pulls(self, repo: RepoRef, branch_prefix: str) -> list[PullInfo]:
        """Only PRs whose head branch is in the repo itself: a fork can name a branch anything."""

        def operation(_attempt: int) -> list[PullInfo]:
            found: list[PullInfo] = []
            order = {"state": "open", "sort": "created", "direction": "asc"}
            for data in self._pages(f"{_repo_path(repo)}/pulls", order):
                head = data.get("head") or {}
                head_repo = head.get("repo") or {}
                if str(head_repo.get("full_name") or "").lower() != repo.full_name.lower():
                    continue
                if str(head.get("ref") or "").startswith(branch_prefix):
                    found.append(_listed_pull(repo, data))
            return found

        return self._call(f"list open PRs of {repo.full_name}", _READ, operation)

    def merge_pull(
        self, repo: RepoRef, number: int, title: str, message: str, expected_head: str | None = None
    ) -> MergeResult:
        """Squash-merge with our message. A refusal (405: protection, checks, not mergeable; 409: the head
        moved) is a `MergeResult`. A retry first checks whether the lost first try merged it."""

        def operation(attempt: int) -> MergeResult:
            pr = self._repo(repo).get_pull(number)
            if pr.merged:  # a rerun after a crash, or the lost first try of this one
                return MergeResult(merged=True, sha=pr.merge_commit_sha, reason="already merged")
            try:
                self.writes.before()
                status = pr.merge(
                    commit_title=title,
                    commit_message=message,
                    merge_method="squash",
                    sha=expected_head if expected_head else NotSet,
                )
            except GithubException as exc:
                if exc.status in (405, 409):
                    return MergeResult(merged=False, reason=self._refusal(repo, number, exc, expected_head))
                raise
            if not status.merged:
                return MergeResult(
                    merged=False, reason=self._scrub(f"GitHub did not merge: {status.message}")
                )
            return MergeResult(merged=True, sha=status.sha)

        return self._call(f"merge PR #{number} of {repo.full_name}", _WRITE, operation)

    # --- what the token may do -------------------------------------------------------------------

    def branch_protection(self, repo: RepoRef, branch: str) -> BranchProtection:
        """Reading protection needs admin rights. 404 "Branch not protected" means exactly that; a 403
        (or another 404) falls back to the branch's own `protected` flag, with `known=False`."""

        def operation(_attempt: int) -> BranchProtection:
            path = f"{_repo_path(repo)}/branches/{quote(branch, safe='')}/protection"
            try:
                _headers, data = self._get(path)
            except GithubException as exc:
                if exc.status == 404 and _message(exc).lower() == "branch not protected":
                    return BranchProtection(branch=branch, protected=False)
                if exc.status not in (403, 404) or _transient(exc) is not None:
                    raise
                flag = self._repo(repo).get_branch(branch).protected
                return BranchProtection(branch=branch, protected=bool(flag), known=False)
            return _protection(branch, data)

        return self._call(
            f"read protection of {branch} in {repo.full_name}", "administration:read", operation
        )

    def merge_rules(self, repo: RepoRef, branch: str) -> MergeRules:
        """Classic branch protection and every active ruleset on `branch`, each with its bypass list.

        Protection's details take admin: without it, the required checks still show on the branch
        (any reader sees them) but the approvals do not. Rulesets' rules show to any reader
        (`/rules/branches/…`); each ruleset says whether the asking token may bypass it
        (`current_user_can_bypass`), and shows its bypass list to admins only."""

        def operation(_attempt: int) -> MergeRules:
            sets: list[RuleSet] = []
            notes: list[str] = []
            classic = self._classic_rules(repo, branch)
            if classic is not None:
                sets.append(classic)
                if classic.approvals is None:
                    notes.append("the token may not read branch protection (it takes admin)")
            rulesets, note = self._rulesets(repo, branch)
            sets += rulesets
            notes += [note] if note else []
            return MergeRules(branch, tuple(sets), complete=not notes, note="; ".join(notes))

        return self._call(f"read the merge rules of {branch} in {repo.full_name}", "metadata:read", operation)

    def _classic_rules(self, repo: RepoRef, branch: str) -> RuleSet | None:
        path = f"{_repo_path(repo)}/branches/{quote(branch, safe='')}"
        try:
            _headers, data = self._get(f"{path}/protection")
        except GithubException as exc:
            if exc.status == 404 and _message(exc).lower() == "branch not protected":
                return None
            if exc.status not in (403, 404) or _transient(exc) is not None:
                raise
            _headers, seen = self._get(path)
            if not (isinstance(seen, dict) and seen.get("protected")):
                return None
            status = (seen.get("protection") or {}).get("required_status_checks") or {}
            checks = tuple(str(name) for name in status.get("contexts") or [])
            return RuleSet(
                "branch protection", None, checks, bypass_visible=False, bypass_covers_checks=False
            )
        body = data if isinstance(data, dict) else {}
        protection = _protection(branch, body)
        reviews = body.get("required_pull_request_reviews") or {}
        allowances = reviews.get("bypass_pull_request_allowances") or {}
        apps = tuple(
            int(app["id"]) for app in allowances.get("apps") or [] if isinstance(app, dict) and "id" in app
        )
        return RuleSet(
            "branch protection",
            protection.required_reviews,
            protection.required_checks,
            bypass_apps=apps,
            bypass_covers_checks=False,
            blocks_force_push=not protection.allows_force_push,
            dismisses_stale=not protection.keeps_stale_approvals,
        )

    def _rulesets(self, repo: RepoRef, branch: str) -> tuple[list[RuleSet], str]:
        try:
            rules = list(self._pages(f"{_repo_path(repo)}/rules/branches/{quote(branch, safe='')}"))
        except GithubException as exc:
            if exc.status not in (403, 404) or _transient(exc) is not None:
                raise
            return [], f"GitHub did not list the rulesets on {branch} ({exc.status})"
        by_id: dict[int, list[Mapping[str, Any]]] = {}
        for rule in rules:
            by_id.setdefault(int(rule.get("ruleset_id") or 0), []).append(rule)
        found = []
        for ruleset_id, ruleset_rules in sorted(by_id.items()):
            _headers, data = self._get(f"{_repo_path(repo)}/rulesets/{ruleset_id}")
            found.append(_ruleset(ruleset_id, ruleset_rules, data if isinstance(data, dict) else {}))
        return found, ""

    def repo_variable(self, repo: RepoRef, name: str) -> str | None:
        """An Actions variable of the repo (`vars.NAME`), or None when it is not set. Reading one takes
        admin (or a fine-grained token's variables:read)."""

        def operation(_attempt: int) -> str | None:
            path = f"{_repo_path(repo)}/actions/variables/{quote(name, safe='')}"
            try:
                _headers, data = self._get(path)
            except UnknownObjectException:
                return None
            return (
                str(data.get("value")) if isinstance(data, dict) and data.get("value") is not None else None
            )

        return self._call(f"read the variable {name} of {repo.full_name}", "variables:read", operation)

    def file_text(self, repo: RepoRef, path: str) -> str | None:
        """A file of the repo's default branch as text (the contents API), or None when there is no
        such file (a folder, or a file too large for the API to send, is none either)."""

        def operation(_attempt: int) -> str | None:
            where = f"{_repo_path(repo)}/contents/{quote(path, safe='/')}"
            try:
                _headers, data = self._get(where)
            except UnknownObjectException:
                return None
            if not isinstance(data, dict) or data.get("type") != "file" or data.get("encoding") != "base64":
                return None
            return base64.b64decode(str(data.get("content") or "")).decode("utf-8", "replace")

        return self._call(f"read {path} in {repo.full_name}", "contents:read", operation)

    def commit_checks(self, repo: RepoRef, sha: str) -> dict[str, CheckState]:
        """Check runs (what Actions jobs report) and commit statuses (what other CI posts) on `sha`."""

        def operation(_attempt: int) -> dict[str, CheckState]:
            states: dict[str, CheckState] = {}
            _headers, data = self._get(f"{_repo_path(repo)}/commits/{sha}/status", {"per_page": _PER_PAGE})
            for status in (data or {}).get("statuses") or []:
                states[str(status.get("context"))] = _status_state(str(status.get("state")))
            _headers, data = self._get(
                f"{_repo_path(repo)}/commits/{sha}/check-runs", {"per_page": _PER_PAGE}
            )
            runs = sorted((data or {}).get("check_runs") or [], key=lambda run: int(run.get("id") or 0))
            for run in runs:
                states[str(run.get("name"))] = _run_state(run)
            return states

        return self._call(f"read the checks of {sha[:12]} in {repo.full_name}", "checks:read", operation)

    def token_reach(self, repo: RepoRef) -> TokenReach:
        """Who the token is (`/user`), its classic scopes (`X-OAuth-Scopes`, absent for fine-grained and
        app tokens), and its permissions on the repo."""

        def operation(_attempt: int) -> TokenReach:
            notes: list[str] = []
            try:
                user = self._gh.get_user().login
            except GithubException as exc:
                if exc.status != 403 or _transient(exc) is not None:
                    raise
                user = ""
                notes.append("the token cannot read /user (an app or Actions token); its user is unknown")
            scopes = tuple(scope.strip() for scope in (self._gh.oauth_scopes or []) if scope.strip())
            if self._gh.oauth_scopes is None:
                notes.append("no X-OAuth-Scopes header: a fine-grained or app token; repo permissions shown")
            permissions = self._repo(repo).raw_data.get("permissions")
            if not isinstance(permissions, dict):
                notes.append(f"GitHub did not report the token's permissions on {repo.full_name}")
                return TokenReach(user, True, False, False, scopes, tuple(notes), known=False)
            return TokenReach(
                user=user,
                can_read=bool(permissions.get("pull", True)),
                can_write=bool(permissions.get("push")),
                can_admin=bool(permissions.get("admin")),
                scopes=scopes,
                notes=tuple(notes),
            )

        return self._call(f"read what the token may do in {repo.full_name}", "metadata:read", operation)

    def repo_visibility(self, repo: RepoRef) -> str:
        def operation(_attempt: int) -> str:
            data = self._repo(repo).raw_data
            visibility = str(data.get("visibility") or "")
            return visibility or ("private" if data.get("private") else "public")

        return self._call(f"read the visibility of {repo.full_name}", "metadata:read", operation)

    # --- code names, for the deep dive's code check (never a file's content) ---------------------

    def code_tree(self, repo: RepoRef) -> CodeTree:
        """The default branch's file names (the git trees API, recursive; one listing, no blob is
        read). GitHub lists at most 100,000 entries (7 MB) and says `truncated` past that."""

        def operation(_attempt: int) -> CodeTree:
            _headers, about = self._get(_repo_path(repo))
            branch = quote(str(about.get("default_branch") or ""), safe="")
            _headers, head = self._get(f"{_repo_path(repo)}/branches/{branch}")
            sha = str(((head or {}).get("commit") or {}).get("sha") or "")
            path = f"{_repo_path(repo)}/git/trees/{sha}"
            _headers, data = self._get(path, {"recursive": "1"})
            paths = tuple(
                str(item["path"])
                for item in data.get("tree", ())
                if isinstance(item, Mapping) and item.get("type") == "blob"
            )
            return CodeTree(repo.full_name, sha, paths, truncated=bool(data.get("truncated")))

        return self._call(f"list the files of {repo.full_name}", _READ, operation)

    def search_code(self, repo: RepoRef, term: str) -> CodeHits:
        """Which files of the repo's default branch hold `term`, by GitHub's code search: the count
        and the first page's paths (no text matches are asked for, so no code comes back). Code search
        allows 10 requests a minute; its rate limit is waited out within the retry policy's caps. A
        search GitHub cut short (`incomplete_results`) that found nothing proves nothing: an error."""

        def operation(_attempt: int) -> CodeHits:
            query = f'"{term}" repo:{repo.full_name}'
            _headers, data = self._get("/search/code", {"q": query, "per_page": _PER_PAGE})
            count = int(data.get("total_count") or 0)
            if count == 0 and data.get("incomplete_results"):
                raise HostError(f"GitHub's code search timed out looking for {term} in {repo.full_name}")
            items = data.get("items") or ()
            return CodeHits(count, tuple(str(i.get("path", "")) for i in items if isinstance(i, Mapping)))

        return self._call(f"search {repo.full_name} for {term}", _READ, operation)

    def finds_file(self, repo: RepoRef, path: str) -> bool:
        """Whether code search has the repo indexed at all, asked by a file name the tree holds
        (`filename:`): GitHub indexes only the default branch, files under 384 KB, and repos active
        in the last year, so a repo it left out would make every identifier look gone."""

        def operation(_attempt: int) -> bool:
            query = f"filename:{path.rpartition('/')[2]} repo:{repo.full_name}"
            _headers, data = self._get("/search/code", {"q": query, "per_page": 1})
            return int(data.get("total_count") or 0) > 0

        return self._call(f"search {repo.full_name} for the file {path}", _READ, operation)

    # --- helpers ---------------------------------------------------------------------------------

    def _repo(self, repo: RepoRef) -> Repository:
        key = repo.full_name.lower()
        if key not in self._repos:
            self._repos[key] = self._gh.get_repo(repo.full_name)
        return self._repos[key]

    def _pull_info(self, repo: RepoRef, pr: PullRequest, *, with_merger: bool) -> PullInfo:
        """`merged_by` only when asked: a PR from a list lacks it, and reading it would refetch the PR."""
        merged = pr.merged_at is not None
        return _pull_record(
            repo,
            number=pr.number,
            url=pr.html_url,
            state=pr.state,
            title=pr.title,
            body=pr.body,
            head_branch=pr.head.ref,
            head_sha=pr.head.sha,
            base_branch=pr.base.ref,
            author=_login(pr.user),
            merged_by=_login(pr.merged_by) if merged and with_merger else None,
            created_at=pr.created_at,
            closed_at=pr.closed_at,
            merged_at=pr.merged_at,
        )

    def _open_pull_on(self, repo: RepoRef, head: str) -> PullRequest | None:
        listing = self._repo(repo).get_pulls(state="open", head=f"{repo.owner}:{head}")
        return next((pr for pr in listing if pr.head.ref == head), None)

    def _refresh(self, repo: RepoRef, pr: PullRequest, base: str, title: str, body: str) -> PullInfo:
        """Bring an existing PR's title, body and base up to date; no request when nothing changed."""
        if (pr.title, pr.body or "", pr.base.ref) != (title, body, base):
            self.writes.before()
            pr.edit(title=title, body=body, base=base)
        return self._pull_info(repo, pr, with_merger=False)

    def _review_comments(self, repo: RepoRef, number: int) -> list[_Comment]:
        return [_parse_comment(item) for item in self._pages(f"{_repo_path(repo)}/pulls/{number}/comments")]

    def _pages(self, path: str, query: Mapping[str, str] | None = None) -> Iterator[Mapping[str, Any]]:
        """GET a list endpoint page by page, following the Link header's `next`."""
        url: str | None = path
        parameters: dict[str, Any] | None = {**(query or {}), "per_page": _PER_PAGE}
        while url is not None:
            headers, data = self._get(url, parameters)
            yield from (item for item in (data or []) if isinstance(item, Mapping))
            match = _LINK_NEXT.search(str(headers.get("link", "")))
            url, parameters = (match.group(1), None) if match and data else (None, None)

    def _get(self, url: str, parameters: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], Any]:
        """GET one resource as JSON through the client's own requester and session, conditional when
        an earlier answer's ETag is cached: a 304 (free of the primary rate limit) gives that answer's
        body and Link header back. PyGithub's objects send no `If-None-Match`, so reads that repeat
        between runs (lists, trees, files, rules) go through here."""
        key = url + ("?" + "&".join(f"{k}={v}" for k, v in sorted(parameters.items())) if parameters else "")
        cached = self.etags.lookup(key)
        if cached is not None and not isinstance(cached.body, dict):
            cached = None  # an entry not of the shape stored below: a 304 would leave no body to give
        condition = {"If-None-Match": cached.etag} if cached is not None else None
        requester = self._gh.requester
        status, headers, output = requester.requestJson("GET", url, dict(parameters or {}) or None, condition)
        if status == 304 and cached is not None:
            self.etags.touch(key)
            return {**headers, "link": cached.body.get("link", "")}, cached.body.get("json")
        data = _json_or_none(output)
        if status >= 400:
            raise requester.createException(status, headers, data)
        etag = str(headers.get("etag") or "")
        if status == 200 and etag:
            self.etags.store(key, etag, {"link": str(headers.get("link") or ""), "json": data}, len(output))
        return headers, data

    def _threads(
        self,
        repo: RepoRef,
        number: int,
        title: str,
        author: str,
        head: str,
        comments: Sequence[_Comment],
        only_root: int | None,
        follow: Callable[[_Comment], tuple[bool, datetime | None, FollowUp | None]] | None = None,
    ) -> list[ReviewThread]:
        """`follow` says whether code changed after a thread, when, and the change (GraphQL's
        answer); by default, a compare per review round answers all three."""
        grouped = _group(comments)
        if only_root is not None:
            grouped = [(root, replies) for root, replies in grouped if root.comment.id == only_root]
        changed: dict[str, _Round] = {}
        threads: list[ReviewThread] = []
        for root, replies in grouped:
            followed, followed_at, follow_up = False, None, None
            if follow is not None:
                if root.commit and root.commit != head:
                    followed, followed_at, follow_up = follow(root)
            elif root.commit and root.commit != head:
                if root.commit not in changed:
                    changed[root.commit] = self._changed_since(repo, root.commit, head)
                found = changed[root.commit]
                followed = root.comment.path in found.paths
                followed_at = found.first_at if followed else None
                follow_up = found.follow_up(root.comment.path) if followed else None
            threads.append(
                ReviewThread(
                    repo=repo,
                    pull=number,
                    pull_title=title,
                    pull_author=author,
                    root=root.comment,
                    replies=tuple(reply.comment for reply in replies),
                    followed_by_commit=followed,
                    followed_at=followed_at,
                    follow_up=follow_up,
                )
            )
        return threads

    def _changed_since(self, repo: RepoRef, start: str, head: str) -> _Round:
        """Paths whose content differs between `start` and `head` (one compare, trees as a fallback),
        and when the first commit the compare lists was made: the earliest the code can have changed
        after the thread, so an edit later than that was not what the change answered. The same
        answer says who wrote the commits and what they added (`_Round`), at no other request."""
        try:
            _headers, data = self._get(
                f"{_repo_path(repo)}/compare/{quote(start, safe='')}...{quote(head, safe='')}"
            )
        except UnknownObjectException:
            _log.info(
                "commit %s is gone from %s; treating its thread as not followed", start[:12], repo.full_name
            )
            return _Round()
        status = str((data or {}).get("status") or "")
        if status == "identical":
            return _Round()
        first_at = _first_commit_at(data.get("commits"))
        files = [item for item in data.get("files") or () if isinstance(item, Mapping)]
        if status != "ahead":
            return _Round(self._changed_by_trees(repo, start, head), first_at)
        authors, lines = _commit_authors(data), tuple(_file_lines(item) for item in files)
        verified = _commits_verified(data) if authors is not None else None
        if len(files) < _COMPARE_FILE_LIMIT:
            paths = {str(item.get("filename") or "") for item in files}
            paths.update(str(item["previous_filename"]) for item in files if item.get("previous_filename"))
            return _Round(frozenset(paths), first_at, authors, lines, verified)
        return _Round(self._changed_by_trees(repo, start, head), first_at, authors, lines, verified)

    def _changed_by_trees(self, repo: RepoRef, start: str, head: str) -> frozenset[str]:
        before, after = self._tree_shas(repo, start), self._tree_shas(repo, head)
        return frozenset(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))

    def _tree_shas(self, repo: RepoRef, commit: str) -> dict[str, str]:
        _headers, data = self._get(
            f"{_repo_path(repo)}/git/trees/{quote(commit, safe='')}", {"recursive": "1"}
        )
        entries = (data or {}).get("tree") or ()
        return {str(item["path"]): str(item.get("sha")) for item in entries if isinstance(item, Mapping)}

    def _refusal(self, repo: RepoRef, number: int, exc: GithubException, expected_head: str | None) -> str:
        if exc.status == 409:
            expected = f" (expected {expected_head[:12]})" if expected_head else ""
            return (
                f"PR #{number} of {repo.full_name} was not merged: its head changed since it was "
                f"pushed{expected}"
            )
        return self._scrub(
            f"GitHub refused to merge PR #{number} of {repo.full_name} "
            f"(405 {_message(exc) or 'not mergeable'}): branch protection, a required check or a "
            "conflict; it stays open for a person"
        )

    def _call(self, what: str, needs: str, operation: Callable[[int], T]) -> T:
        """Run one operation under the retry policy and turn every failure into one actionable line."""
        try:
            return self._retry.run(operation, self._transient, what=f"GitHub: {what}", log=_log)
        except RetriesExhausted as gave_up:
            error = RateLimitError if gave_up.transient.rate_limited else HostError
            raise error(self._scrub(self._gave_up(what, gave_up))) from gave_up.last
        except GithubException as exc:
            raise self._mapped(what, needs, exc) from exc
        except requests.RequestException as exc:
            raise HostError(
                self._scrub(
                    f"could not reach GitHub at {self._api_url} to {what} ({type(exc).__name__}): check "
                    f"{API_URL_VARIABLE} and the network, then rerun"
                )
            ) from exc

    def _gave_up(self, what: str, gave_up: RetriesExhausted) -> str:
        reason = gave_up.transient.reason
        longest, total = self._retry.caps(gave_up.transient)
        if gave_up.transient.rate_limited and gave_up.asked and gave_up.asked <= longest:
            return (
                f"GitHub still refused to {what} ({reason}) after this run waited {gave_up.waited:.0f}s of "
                f"the {total:.0f}s it allows for a rate limit: nothing was half-done; rerun later"
            )
        if gave_up.asked:
            return (
                f"GitHub asked to wait {gave_up.asked:.0f}s ({reason}) to {what}, longer than this run "
                f"waits ({longest:.0f}s at once, {total:.0f}s in all): rerun later"
            )
        return f"GitHub kept failing to {what}: {reason} on all {gave_up.attempts} tries; rerun later"

    def _mapped(self, what: str, needs: str, exc: GithubException) -> HostError:
        message = _message(exc)
        detail = f"{exc.status} {message}".strip()
        if exc.status == 401:
            return AuthError(
                self._scrub(
                    f"GitHub refused the token in {self._variable} ({detail}): set a valid token with "
                    "contents:write and pull-requests:write"
                )
            )
        if exc.status == 403:
            return AuthError(
                self._scrub(
                    f"GitHub refused the token in {self._variable} ({detail}) to {what}: give the token "
                    f"{needs}"
                )
            )
        if exc.status == 404:
            return HostError(
                self._scrub(
                    f"GitHub answered 404 Not Found to {what}: check the name, and that the token in "
                    f"{self._variable} can read it"
                )
            )
        return HostError(self._scrub(f"GitHub refused to {what} ({detail}{_errors(exc)})"))

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "[token]") if self._secret else text

    def _transient(self, exc: BaseException) -> Transient | None:
        """`_transient`, and a rate limit holds every write until GitHub answers again: its `retry-after`,
        else its reset time, else (a secondary limit that names no wait) at least a minute. The code
        search's own limit (`x-ratelimit-resource: search`, 10 a minute) holds no write: it is apart
        from the limits on writing."""
        found = _transient(exc)
        if found is not None and found.rate_limited and not _search_limit(exc):
            found = Transient(found.reason, self.writes.hold(found.wait), rate_limited=True)
        return found


def _implements_code_host(host: GitHubHost) -> CodeHost:
    """Never called: mypy checks here that `GitHubHost` satisfies the `CodeHost` Protocol."""
    return host


# --- pure helpers ------------------------------------------------------------------------------


def _transient(exc: BaseException) -> Transient | None:
    if isinstance(exc, GithubException):
        found = transient_status(exc.status, exc.headers, message=_message(exc))
        if found is None and isinstance(exc, RateLimitExceededException):
            found = Transient(f"rate limited ({exc.status})", retry_after(exc.headers), rate_limited=True)
        return found
    if isinstance(exc, (requests.Timeout, requests.ConnectionError)):
        return Transient(f"no answer ({type(exc).__name__})")
    return None


def _search_limit(exc: BaseException) -> bool:
    """A refusal under the code search's own rate limit (GitHub names the limit's resource)."""
    headers = exc.headers if isinstance(exc, GithubException) else None
    return any(
        str(k).lower() == "x-ratelimit-resource" and str(v) == "search" for k, v in (headers or {}).items()
    )


def _message(exc: GithubException) -> str:
    data = exc.data
    text = data.get("message") if isinstance(data, dict) else None
    return str(text).strip().splitlines()[0][:200] if text else ""


def _errors(exc: GithubException) -> str:
    data = exc.data
    errors = data.get("errors") if isinstance(data, dict) else None
    if not isinstance(errors, list):
        return ""
    texts = [str(item.get("message") or item.get("code")) for item in errors if isinstance(item, dict)]
    return f": {'; '.join(texts)[:300]}" if texts else ""


def _login(user: Any) -> str:
    return str(getattr(user, "login", "") or "") if user is not None else ""


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


_REVIEW_VERDICTS = ("APPROVED", "CHANGES_REQUESTED", "DISMISSED")


def standing_approvals(reviews: Iterable[Mapping[str, Any]]) -> list[Approval]:
    """The approvals in a PR's reviews (oldest first, as GitHub lists them): each user's latest
    verdict counts, as GitHub counts it; a comment-only review neither gives nor takes one back."""
    latest: dict[str, Mapping[str, Any]] = {}
    for review in reviews:
        user = review.get("user")
        login = str(user.get("login") or "") if isinstance(user, Mapping) else ""
        if login and review.get("state") in _REVIEW_VERDICTS:
            latest[login] = review
    return [
        Approval(login, str(review.get("commit_id") or "") or None)
        for login, review in latest.items()
        if review.get("state") == "APPROVED"
    ]


def _repo_path(repo: RepoRef) -> str:
    return f"/repos/{quote(repo.owner, safe='')}/{quote(repo.name, safe='')}"


def _parse_time(text: object) -> datetime:
    return datetime.fromisoformat(str(text).replace("Z", "+00:00"))


def _time_or_none(text: object) -> datetime | None:
    return _parse_time(text) if text else None


def _json_or_none(output: str) -> Any:
    """An answer's JSON, None when empty; text that is not JSON as `{"data": text}`, as PyGithub reads it."""
    if not output:
        return None
    try:
        return json.loads(output)
    except ValueError:
        if output.lstrip().startswith(("{", "[")):
            raise
        return {"data": output}


def _merged_pull(repo: RepoRef, data: Mapping[str, Any], merged_at: datetime) -> MergedPull:
    """A merged PR as the list endpoint gives it (REST JSON)."""
    return MergedPull(
        repo=repo,
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        author=str((data.get("user") or {}).get("login") or ""),
        merged_at=merged_at,
        url=str(data.get("html_url") or ""),
        head_sha=str((data.get("head") or {}).get("sha") or ""),
        base_branch=str((data.get("base") or {}).get("ref") or ""),
        created_at=_time_or_none(data.get("created_at")),
    )


def _listed_pull(repo: RepoRef, data: Mapping[str, Any]) -> PullInfo:
    """A PR as the list endpoint gives it (no `merged_by`: a list answer lacks it)."""
    head, base = data.get("head") or {}, data.get("base") or {}
    return _pull_record(
        repo,
        number=int(data["number"]),
        url=data.get("html_url"),
        state=data.get("state"),
        title=data.get("title"),
        body=data.get("body"),
        head_branch=head.get("ref"),
        head_sha=head.get("sha"),
        base_branch=base.get("ref"),
        author=str((data.get("user") or {}).get("login") or ""),
        merged_by=None,
        created_at=_time_or_none(data.get("created_at")),
        closed_at=_time_or_none(data.get("closed_at")),
        merged_at=_time_or_none(data.get("merged_at")),
    )


def _pull_record(
    repo: RepoRef,
    *,
    number: int,
    url: str | None,
    state: str | None,
    title: str | None,
    body: str | None,
    head_branch: str | None,
    head_sha: str | None,
    base_branch: str | None,
    author: str,
    merged_by: str | None,
    created_at: datetime | None,
    closed_at: datetime | None,
    merged_at: datetime | None,
) -> PullInfo:
    """One PR record from plain values, read from PyGithub or from REST JSON alike, so both agree.

    A merge time makes it merged whatever `state` says (GitHub reports a merged PR as "closed").
    """
    if merged_at is not None:
        pull_state = PullState.MERGED
    else:
        pull_state = PullState.CLOSED if state == "closed" else PullState.OPEN
    return PullInfo(
        repo=repo,
        number=number,
        url=str(url or ""),
        state=pull_state,
        title=str(title or ""),
        body=str(body or ""),
        head_branch=str(head_branch or ""),
        base_branch=str(base_branch or ""),
        author=author,
        head_sha=str(head_sha or ""),
        merged_by=merged_by or None,
        merged_at=merged_at,
        closed_at=closed_at,
        created_at=created_at,
    )


def _parse_comment(data: Mapping[str, Any]) -> _Comment:
    line = data.get("line")
    if line is None:
        line = data.get("original_line")
    reply_to = data.get("in_reply_to_id")
    user = data.get("user")
    return _Comment(
        comment=ReviewComment(
            id=int(data["id"]),
            author=str(user.get("login", "")) if isinstance(user, Mapping) else "",
            body=str(data.get("body") or ""),
            path=str(data.get("path") or ""),
            line=int(line) if line is not None else None,
            created_at=_parse_time(data["created_at"]),
            url=str(data.get("html_url") or ""),
            in_reply_to=int(reply_to) if reply_to is not None else None,
            updated_at=_parse_time(data["updated_at"]) if data.get("updated_at") else None,
        ),
        commit=str(data.get("original_commit_id") or data.get("commit_id") or ""),
    )


def _graphql_comment(data: Mapping[str, Any]) -> _Comment:
    """A review comment as GraphQL gives it, in the shape `_parse_comment` makes of REST's."""
    line = data.get("line")
    if line is None:
        line = data.get("originalLine")
    reply = data.get("replyTo") or {}
    author = data.get("author") or {}
    commit = (data.get("originalCommit") or {}).get("oid") or (data.get("commit") or {}).get("oid") or ""
    return _Comment(
        comment=ReviewComment(
            id=int(data["databaseId"]),
            author=str(author.get("login", "")),
            body=str(data.get("body") or ""),
            path=str(data.get("path") or ""),
            line=int(line) if line is not None else None,
            created_at=_parse_time(data["createdAt"]),
            url=str(data.get("url") or ""),
            in_reply_to=int(reply["databaseId"]) if reply.get("databaseId") is not None else None,
            updated_at=_parse_time(data["updatedAt"]) if data.get("updatedAt") else None,
        ),
        commit=str(commit),
    )


def _followed(
    read: PullRead, root: _Comment, answers: Mapping[Lookup, tuple[str, int] | None]
) -> tuple[bool, datetime | None]:
    """Whether the commented file differs between the thread's commit and the head, and if so the
    earliest commit date in between (what a compare's file and commit lists say)."""
    repo, head, path = read.pull.repo, read.pull.head_sha, root.comment.path
    before, after = answers[Lookup(repo, root.commit, path)], answers[Lookup(repo, head, path)]
    if before == after:
        return False, None
    between = after_commit(read, root.commit) or []
    return True, min((read.commits[oid][0] for oid in between), default=None)


def _commit_authors(data: Mapping[str, Any]) -> tuple[str, ...] | None:
    """The account each of a compare's commits is linked to, oldest first ("" for a commit whose
    email is no account's); None when the answer lists fewer commits than the compare holds (it lists
    at most 250), since an unlisted commit may be anyone's."""
    commits = [item for item in data.get("commits") or () if isinstance(item, Mapping)]
    if int(data.get("total_commits") or 0) > len(commits):
        return None
    return tuple(str((item.get("author") or {}).get("login") or "") for item in commits)


def _commits_verified(data: Mapping[str, Any]) -> bool | None:
    """Whether GitHub verified the signature of every commit a compare lists (its
    `commit.verification.verified`); None when a commit comes without a verification to read."""
    states = [
        ((item.get("commit") or {}).get("verification") or {}).get("verified")
        for item in data.get("commits") or ()
        if isinstance(item, Mapping)
    ]
    if any(not isinstance(state, bool) for state in states):
        return None
    return all(states)


def _file_lines(item: Mapping[str, Any]) -> _FileLines:
    """A compare file's names and the lines its patch adds and removes, its hunks counted as
    Bitbucket's diffs are (none when GitHub gives no patch: a binary file or a diff too large)."""
    added, removed = patch_lines(str(item.get("patch") or ""))
    names = str(item.get("filename") or ""), str(item.get("previous_filename") or "")
    return _FileLines(*names, tuple(added), tuple(removed))


def _changed_blobs(
    ends: Sequence[tuple[Lookup, Lookup]], answers: Mapping[Lookup, tuple[str, int] | None]
) -> list[Blob]:
    """The commented file's blobs, before and after, of every thread whose file changed after it."""
    blobs: list[Blob] = []
    for before, after in ends:
        found = (answers[before], answers[after])
        if found[0] != found[1]:
            blobs += [(before.repo.full_name.lower(), end[0]) for end in found if end is not None]
    return blobs


def _text(
    read: PullRead, texts: Mapping[Blob, tuple[str, ...] | None], found: tuple[str, int] | None
) -> tuple[str, ...] | None:
    """A commented file's lines at one end (none where it does not exist), None when not whole."""
    return () if found is None else texts.get((read.pull.repo.full_name.lower(), found[0]))


def _first_commit_at(commits: object) -> datetime | None:
    """The earliest committer date among a compare's listed commits (its first page), if any."""
    dates: list[datetime] = []
    for item in commits if isinstance(commits, list) else []:
        commit = item.get("commit") if isinstance(item, Mapping) else None
        committer = commit.get("committer") if isinstance(commit, Mapping) else None
        if isinstance(committer, Mapping) and committer.get("date"):
            try:
                dates.append(_utc(_parse_time(committer["date"])))
            except ValueError:
                continue
    return min(dates, default=None)


def _root_of(item: _Comment, by_id: Mapping[int, _Comment]) -> _Comment:
    """Replies point at the thread's root; follow a chain anyway, stopping at a missing or looping link."""
    seen = {item.comment.id}
    current = item
    while current.comment.in_reply_to is not None and current.comment.in_reply_to in by_id:
        parent = by_id[current.comment.in_reply_to]
        if parent.comment.id in seen:
            break
        seen.add(parent.comment.id)
        current = parent
    return current


def _group(comments: Sequence[_Comment]) -> list[tuple[_Comment, list[_Comment]]]:
    """Roots in the order written, each with its replies in the order written."""
    ordered = sorted(comments, key=lambda item: (item.comment.created_at, item.comment.id))
    by_id = {item.comment.id: item for item in ordered}
    threads: dict[int, tuple[_Comment, list[_Comment]]] = {}
    for item in ordered:
        root = _root_of(item, by_id)
        entry = threads.setdefault(root.comment.id, (root, []))
        if item is not root:
            entry[1].append(item)
    return sorted(threads.values(), key=lambda entry: (entry[0].comment.created_at, entry[0].comment.id))


def _protection(branch: str, data: Any) -> BranchProtection:
    body = data if isinstance(data, dict) else {}
    checks = body.get("required_status_checks") or {}
    contexts = [str(name) for name in checks.get("contexts") or []]
    contexts += [str(item.get("context")) for item in checks.get("checks") or [] if isinstance(item, dict)]
    reviews = body.get("required_pull_request_reviews") or {}
    force = body.get("allow_force_pushes") or {}
    return BranchProtection(
        branch=branch,
        protected=True,
        required_reviews=int(reviews.get("required_approving_review_count") or 0),
        required_checks=tuple(dict.fromkeys(contexts)),
        allows_force_push=bool(force.get("enabled")),
        keeps_stale_approvals=bool(reviews) and not reviews.get("dismiss_stale_reviews"),
    )


def _ruleset(ruleset_id: int, rules: Sequence[Mapping[str, Any]], data: Mapping[str, Any]) -> RuleSet:
    approvals, checks, fresh = 0, [], False
    for rule in rules:
        parameters = rule.get("parameters") or {}
        if rule.get("type") == "pull_request":
            approvals = max(approvals, int(parameters.get("required_approving_review_count") or 0))
            fresh = fresh or bool(parameters.get("dismiss_stale_reviews_on_push"))
        elif rule.get("type") == "required_status_checks":
            checks += [str(item.get("context")) for item in parameters.get("required_status_checks") or []]
    actors = data.get("bypass_actors")
    apps = tuple(
        int(actor["actor_id"])
        for actor in actors or []
        if isinstance(actor, dict) and actor.get("actor_type") == "Integration" and actor.get("actor_id")
    )
    bypass = data.get("current_user_can_bypass")
    return RuleSet(
        f"ruleset {str(data.get('name') or ruleset_id)!r}",
        approvals,
        tuple(dict.fromkeys(checks)),
        bypass_apps=apps,
        bypass_visible=isinstance(actors, list),
        caller_bypasses=None if bypass is None else bypass in ("always", "pull_requests_only", "exempt"),
        blocks_force_push=any(rule.get("type") == "non_fast_forward" for rule in rules),
        dismisses_stale=fresh,
    )


def _status_state(state: str) -> CheckState:
    if state == "success":
        return CheckState.SUCCESS
    return CheckState.PENDING if state == "pending" else CheckState.FAILURE


def _run_state(run: Mapping[str, Any]) -> CheckState:
    if run.get("status") != "completed":
        return CheckState.PENDING
    return (
        CheckState.SUCCESS
        if run.get("conclusion") in ("success", "neutral", "skipped")
        else CheckState.FAILURE
    )
