"""Bitbucket Cloud behind the `CodeHost` interface, over atlassian-python-api.

The client is used as an authenticated HTTP session only (`Cloud.request` with raw REST 2.0 paths):
its object API re-fetches every PR one by one, its `merge()` takes no commit message and ignores a
202, and its retries are off by default. So this module owns paging, retries with a capped wait,
the asynchronous merge poll and error text. Tokens never reach a log line or an error: errors name
the environment variable the token came from, and any text a server sends back is scrubbed of it.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Any, cast
from urllib.parse import quote, urlsplit

import requests
from atlassian.bitbucket.cloud import Cloud

from homeostat.adapters.hosts.bitbucket_diff import DiffFiles, read_diff
from homeostat.adapters.hosts.http_retry import (
    RetriesExhausted,
    RetryPolicy,
    Transient,
    host_retry,
    transient_status,
)
from homeostat.adapters.hosts.pace import BITBUCKET_REQUESTS, Pacer, Window
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
    comment_url,
    pull_url,
)
from homeostat.errors import AuthError, ConfigError, HostError, RateLimitError

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.bitbucket.org/"
ACCESS_TOKEN_VARIABLE = "HOMEOSTAT_BITBUCKET_TOKEN"
API_TOKEN_VARIABLE = "BITBUCKET_API_TOKEN"
EMAIL_VARIABLE = "BITBUCKET_EMAIL"
API_URL_VARIABLE = "BITBUCKET_API_URL"

WRITE_SCOPES = "pullrequest:write and repository:write"
READ_SCOPES = "pullrequest and repository (read)"

Json = dict[str, Any]

_STATES = {
    "OPEN": PullState.OPEN,
    "MERGED": PullState.MERGED,
    "DECLINED": PullState.CLOSED,
    "SUPERSEDED": PullState.CLOSED,
}
SRC_DEPTH = 64  # folders deep the src listing goes
SRC_PAGES = 500  # src listing pages read at most (100 entries each)
_ACCOUNT_ID = re.compile(r"^(?:\d+:[0-9a-fA-F-]{8,}|[0-9a-f]{24})$")
_RESTRICTION_REVIEW_KINDS = ("require_approvals_to_merge", "require_default_reviewer_approvals_to_merge")
# "Reset approvals when the source branch is modified", or its Premium variant that keeps them when
# the diff is unchanged: either way a change to a PR needs a fresh approval.
_RESTRICTION_RESET_KINDS = frozenset(
    {"reset_pullrequest_approvals_on_change", "smart_reset_pullrequest_approvals"}
)


class TransientHostError(HostError):
    """Bitbucket kept failing (5xx, 429, timeouts) past the retry budget: the outcome is unknown."""


class RateLimitedError(TransientHostError, RateLimitError):
    """Bitbucket's hourly limit outlasted the waits a run allows."""


class ForbiddenError(AuthError):
    """A 403: the token is valid but lacks a permission (callers that can live without it catch this)."""


@dataclass(frozen=True)
class MergeWait:
    """How long to poll an asynchronous merge task before calling the outcome unknown."""

    timeout: float = 120.0
    interval: float = 2.0


# --- HTTP layer ---------------------------------------------------------------------------------


@dataclass
class BitbucketApi:
    """One authenticated client plus the policy every call shares: retries, auth errors, scrubbing."""

    client: Cloud
    variable: str  # the environment variable the credential came from, named in errors
    secret: str = field(repr=False, default="")
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    basic_auth: bool = False
    proxy: str = ""  # set when the Pipelines auth proxy authenticates instead of a token
    # Requests to /2.0/repositories/* count against a rolling hour (1,000 for a small workspace): paced
    # under it, and under the figure Bitbucket states in X-RateLimit-Limit once it has stated one.
    pacer: Pacer = field(default_factory=lambda: Pacer(BITBUCKET_REQUESTS, name="Bitbucket requests"))

    def call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str | int | list[str]] | None = None,
        body: object = None,
        absolute: bool = False,
        accept: Sequence[int] = (),
        need: str = READ_SCOPES,
        retry_5xx: bool = True,
    ) -> requests.Response:
        """Send one request with retries; statuses in `accept` come back to the caller, other errors raise.

        `retry_5xx=False` is for writes that must not be repeated blindly: a 5xx raises
        `TransientHostError` at once so the caller can look for the write's effect first.
        """
        if absolute:
            self._check_origin(path)
        where = f"{method} {self._where(path)}"

        def attempt(_: int) -> requests.Response:
            return self._attempt(method, path, params, body, absolute, retry_5xx)

        try:
            # the retry's waits wake the run as the pacer's own do (`while_paced`)
            waking = replace(self.retry, sleep=partial(self.pacer.pause, sleep=self.retry.sleep))
            response = waking.run(attempt, _blip, what=f"Bitbucket {where}", log=log)
        except RetriesExhausted as gave_up:
            error = RateLimitedError if gave_up.transient.rate_limited else TransientHostError
            raise error(_gave_up_message(where, gave_up)) from None
        return self._check(method, path, response, accept, need)

    def _attempt(
        self,
        method: str,
        path: str,
        params: Mapping[str, str | int | list[str]] | None,
        body: object,
        absolute: bool,
        retry_5xx: bool,
    ) -> requests.Response:
        """One try; a connection failure, 429 or 5xx is raised as a `_Blip` for the policy to judge."""
        paced = "repositories/" in path
        if paced:
            self.pacer.before()
        try:
            response = self.client.request(
                method,
                path,
                params=dict(params) if params else None,
                json=cast("dict[str, Any] | None", body),
                absolute=absolute,
                advanced_mode=True,
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise _Blip(Transient(f"could not reach Bitbucket ({type(exc).__name__})")) from None
        status = response.status_code
        log.debug("Bitbucket: %s %s -> %s", method, self._where(path), status)
        stated = str(response.headers.get("X-RateLimit-Limit", "")).strip()
        if paced and stated.isdigit() and int(stated) > 0:
            self.pacer.adopt(Window(int(stated), 3600.0))
        if status == 555:  # Bitbucket's "the merge timed out": the caller decides
            return response
        transient = transient_status(status, response.headers) if status == 429 or status >= 500 else None
        if transient is None:
            return response
        if transient.rate_limited:  # hold every paced request: its Retry-After, else at least a minute
            transient = Transient(transient.reason, self.pacer.hold(transient.wait), rate_limited=True)
        if not retry_5xx and not transient.rate_limited:
            raise TransientHostError(
                f"Bitbucket answered {status} to {method} {self._where(path)}: the outcome is unknown"
            )
        raise _Blip(transient)

    def _check(
        self, method: str, path: str, response: requests.Response, accept: Sequence[int], need: str
    ) -> requests.Response:
        status = response.status_code
        if status in accept:
            return response
        if status == 401:
            raise AuthError(self.refused_message(401, f"{method} {self._where(path)}", need))
        if status == 403:
            raise ForbiddenError(self.refused_message(403, f"{method} {self._where(path)}", need))
        if status >= 400:
            raise HostError(
                f"Bitbucket answered {status} to {method} {self._where(path)}: {self.error_text(response)}"
            )
        return response

    def refused_message(self, status: int, what: str = "", need: str = WRITE_SCOPES) -> str:
        if self.proxy:
            return (
                f"the Bitbucket Pipelines auth proxy at {self.proxy} refused {what or 'the request'}"
                f" ({status}): run inside a Pipelines step, or set {self.variable} to a token with {need}"
            )
        who = f"{self.variable} with {EMAIL_VARIABLE}" if self.basic_auth else self.variable
        if status == 401:
            return f"Bitbucket refused the token in {who} (401): set a token with {WRITE_SCOPES}"
        return f"Bitbucket refused the token in {who} (403) for {what}: set a token with {need}"

    def error_text(self, response: requests.Response) -> str:
        """The server's own error message, scrubbed of the secret and cut to one readable line."""
        try:
            data = response.json()
        except ValueError:
            data = None
        text = ""
        if isinstance(data, dict) and isinstance(data.get("error"), dict):
            error = data["error"]
            text = str(error.get("message") or "")
            detail = error.get("detail")
            if detail:
                text = f"{text} ({detail if isinstance(detail, str) else json.dumps(detail)})"
        if not text:
            text = response.reason or "no error message"
        return self.scrub(" ".join(text.split()))[:400]

    def scrub(self, text: str) -> str:
        return text.replace(self.secret, "[token]") if self.secret else text

    def json(self, response: requests.Response, method: str, path: str) -> Json:
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise HostError(
                f"Bitbucket answered {response.status_code} without a JSON object"
                f" to {method} {self._where(path)}"
            )
        return data

    def get(self, path: str, params: Mapping[str, str | int] | None = None, **kwargs: Any) -> Json:
        return self.json(self.call("GET", path, params=params, **kwargs), "GET", path)

    def pages(self, path: str, params: Mapping[str, str | int], need: str = READ_SCOPES) -> Iterator[Json]:
        """Every value of a paged collection, following `next` links."""
        page = self.get(path, params, need=need)
        while True:
            values = page.get("values") or []
            yield from (value for value in values if isinstance(value, dict))
            next_url = page.get("next")
            if not next_url or not values:
                return
            page = self.get(str(next_url), absolute=True, need=need)

    def _check_origin(self, url: str) -> None:
        """Follow only links on the API's own host, so the credential is never sent elsewhere."""
        if urlsplit(url).netloc.lower() != urlsplit(self.client.url).netloc.lower():
            raise HostError(
                f"Bitbucket linked to another host ({urlsplit(url).netloc}); refusing to follow it"
            )

    def _where(self, path: str) -> str:
        parts = urlsplit(path)
        text = parts.path if parts.netloc else path.split("?", 1)[0]
        base = urlsplit(self.client.url).path.rstrip("/")
        if base and text.startswith(base + "/"):
            text = text[len(base) + 1 :]
        return self.scrub(text.lstrip("/"))


class _Blip(Exception):
    """A failure that may pass, carried to the retry policy (never shown to a person)."""

    def __init__(self, transient: Transient) -> None:
        super().__init__(transient.reason)
        self.transient = transient


def _blip(exc: BaseException) -> Transient | None:
    return exc.transient if isinstance(exc, _Blip) else None


def _gave_up_message(where: str, gave_up: RetriesExhausted) -> str:
    reason = gave_up.transient.reason
    if gave_up.asked:
        return (
            f"Bitbucket asked to wait {gave_up.asked:g}s ({reason}) on {where}, longer than this run waits:"
            " rerun later"
        )
    return (
        f"Bitbucket kept failing ({reason}) on {where} after {gave_up.attempts} tries"
        f" ({gave_up.waited:g}s of waiting): it may be down or rate-limiting; rerun later"
    )


def make_client(api_url: str, *, token: str, email: str | None, timeout: int) -> Cloud:
    """A Cloud client with its own retries off (ours are bounded); no network call happens here."""
    auth: dict[str, Any] = {"username": email, "password": token} if email else {"token": token}
    return Cloud(  # type: ignore[no-untyped-call]
        url=api_url,
        timeout=timeout,
        backoff_and_retry=False,
        retry_with_header=False,
        **auth,
    )


# --- JSON to host-neutral values (pure) -----------------------------------------------------------


def handle_of(account: object) -> str:
    """A person's handle: the nickname Bitbucket shows, else display name, else account id."""
    if not isinstance(account, dict):
        return "unknown"
    for key in ("nickname", "username", "display_name", "account_id", "uuid"):
        value = account.get(key)
        if value:
            return str(value)
    return "unknown"


def parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _need_time(value: object, what: str) -> datetime:
    parsed = parse_time(value)
    if parsed is None:
        raise HostError(f"Bitbucket sent no readable time for {what}: {value!r}")
    return parsed


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _bbql_time(moment: datetime) -> str:
    return _utc(moment).isoformat(timespec="seconds")


def _dig(data: object, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def pull_info(repo: RepoRef, data: Json) -> PullInfo:
    raw_state = str(data.get("state") or "")
    state = _STATES.get(raw_state)
    if state is None:
        raise HostError(
            f"Bitbucket sent an unknown state {raw_state!r} for PR #{data.get('id')} in {repo.full_name}"
        )
    changed = parse_time(data.get("updated_on"))
    number = int(data["id"])
    return PullInfo(
        repo=repo,
        number=number,
        url=pull_url(repo, number),
        state=state,
        title=str(data.get("title") or ""),
        body=str(data.get("description") or _dig(data, "summary", "raw") or ""),
        head_branch=str(_dig(data, "source", "branch", "name") or ""),
        base_branch=str(_dig(data, "destination", "branch", "name") or ""),
        author=handle_of(data.get("author")),
        head_sha=str(_dig(data, "source", "commit", "hash") or ""),
        merged_by=handle_of(data.get("closed_by"))
        if raw_state == "MERGED" and data.get("closed_by")
        else None,
        merged_at=changed if raw_state == "MERGED" else None,
        closed_at=changed if raw_state != "OPEN" else None,
        created_at=parse_time(data.get("created_on")),
    )


def participant_approvals(data: Json) -> list[Approval]:
    """The approvals in a PR's JSON: its participants with `approved: true`, each once."""
    found: dict[str, Approval] = {}
    for participant in data.get("participants") or ():
        if isinstance(participant, dict) and participant.get("approved") is True:
            login = handle_of(participant.get("user"))
            found.setdefault(login, Approval(login))
    return list(found.values())


def merged_pull(repo: RepoRef, data: Json) -> MergedPull:
    """Bitbucket has no merge time: a merged PR's `updated_on` is when it merged (or was last touched)."""
    number = int(data["id"])
    return MergedPull(
        repo=repo,
        number=number,
        title=str(data.get("title") or ""),
        body=str(data.get("description") or _dig(data, "summary", "raw") or ""),
        author=handle_of(data.get("author")),
        merged_at=_need_time(data.get("updated_on"), f"PR #{number} in {repo.full_name}"),
        url=pull_url(repo, number),
        head_sha=str(_dig(data, "source", "commit", "hash") or ""),
        base_branch=str(_dig(data, "destination", "branch", "name") or ""),
        created_at=parse_time(data.get("created_on")),
    )


@dataclass(frozen=True)
class RawComment:
    id: int
    parent: int | None
    path: str
    line: int | None
    author: str
    body: str
    created: datetime
    deleted: bool
    updated: datetime | None = None  # `updated_on`: a later time means the comment was edited


def raw_comment(data: Json) -> RawComment:
    found = data.get("inline")
    inline: Json = found if isinstance(found, dict) else {}
    line = inline.get("to") or inline.get("from")
    parent = _dig(data, "parent", "id")
    return RawComment(
        id=int(data["id"]),
        parent=int(parent) if parent is not None else None,
        path=str(inline.get("path") or ""),
        line=int(line) if line is not None else None,
        author=handle_of(data.get("user")),
        body=str(_dig(data, "content", "raw") or ""),
        created=_need_time(data.get("created_on"), f"comment {data.get('id')}"),
        deleted=bool(data.get("deleted")),
        updated=parse_time(data.get("updated_on")),
    )


def group_threads(comments: Sequence[RawComment], *, inline_only: bool = True) -> list[list[RawComment]]:
    """Comments grouped under their root (parent chains followed up), roots in id order, replies by time."""
    by_id = {comment.id: comment for comment in comments}

    def root_of(comment: RawComment) -> RawComment:
        seen = {comment.id}
        while comment.parent is not None and comment.parent in by_id and comment.parent not in seen:
            comment = by_id[comment.parent]
            seen.add(comment.id)
        return comment

    threads: dict[int, list[RawComment]] = {}
    for comment in sorted(comments, key=lambda c: (c.created, c.id)):
        root = root_of(comment)
        if root.deleted or (inline_only and not root.path):
            continue
        thread = threads.setdefault(root.id, [root])
        if comment.id != root.id and not comment.deleted:
            thread.append(comment)
    return [threads[key] for key in sorted(threads)]


@dataclass(frozen=True)
class PullCommit:
    sha: str
    date: datetime
    parents: tuple[str, ...]
    author: str = ""  # the handle of the account the author's email belongs to; "" for none


def pull_commit(data: Json) -> PullCommit:
    """A PR commit; Bitbucket links its author to an account (`author.user`) only when the commit's
    email belongs to one, so `author` is "" for the rest (never the raw name, which anyone can set)."""
    parents = tuple(str(p.get("hash")) for p in data.get("parents") or [] if isinstance(p, dict))
    account = _dig(data, "author", "user")
    return PullCommit(
        str(data["hash"]),
        _need_time(data.get("date"), f"commit {data.get('hash')}"),
        parents,
        handle_of(account) if isinstance(account, dict) else "",
    )


@dataclass(frozen=True)
class Followed:
    """What came after a root comment: when the first commit after it was made (None when no commit
    came after, or none touched its file) and who wrote those commits and what they added."""

    at: datetime | None = None
    follow_up: FollowUp | None = None


def follow_up_of(
    commits: Sequence[PullCommit], after: datetime, path: str, diff: DiffFiles | None
) -> FollowUp | None:
    """The commits after `after` (oldest first) and the lines they added to and removed from `path`
    (every file for a general comment); None when the diff could not be read."""
    if diff is None:
        return None
    later = sorted((c for c in reversed(commits) if c.date > after), key=lambda commit: commit.date)
    added, removed = (
        by_file.get(path, []) if path else [line for found in by_file.values() for line in found]
        for by_file in (diff.added, diff.removed)
    )
    return FollowUp.of((commit.author for commit in later), added, removed=removed)


def pull_tip(commits: Sequence[PullCommit]) -> str:
    """The PR's head: the commit no other PR commit descends from (the list is newest first)."""
    parents = {parent for commit in commits for parent in commit.parents}
    return next((commit.sha for commit in commits if commit.sha not in parents), commits[0].sha)


def boundary_before(commits: Sequence[PullCommit], when: datetime) -> str | None:
    """The last PR commit at or before `when` (what the comment saw), or None when nothing came after it.

    Diffing the PR head against it gives the files changed after the comment. With no commit before
    the comment, the oldest commit's parent is the boundary, so every PR commit counts.
    """
    if not any(commit.date > when for commit in commits):
        return None
    earlier = [commit for commit in commits if commit.date <= when]
    if earlier:
        return max(earlier, key=lambda commit: commit.date).sha
    oldest = min(commits, key=lambda commit: commit.date)
    return oldest.parents[0] if oldest.parents else ""


def diffstat_paths(values: Sequence[Json]) -> set[str]:
    paths: set[str] = set()
    for value in values:
        for side in ("old", "new"):
            path = _dig(value, side, "path")
            if path:
                paths.add(str(path))
    return paths


def restriction_applies(restriction: Json, branch: str) -> bool:
    """Glob restrictions match like Bitbucket's: `*` is any run of characters, all else is literal."""
    if restriction.get("branch_match_kind", "glob") != "glob":
        return False
    pattern = str(restriction.get("pattern") or "")
    regex = "".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", pattern))
    return re.fullmatch(regex, branch) is not None


def merge_checks_of(branch: str, restrictions: Sequence[Json]) -> tuple[RuleSet, ...]:
    """The merge checks that apply to `branch`, as one rule set (Bitbucket keeps one per branch)."""
    applying = [r for r in restrictions if restriction_applies(r, branch)]
    kinds = {str(r.get("kind")) for r in applying}
    reviews = [int(r.get("value") or 0) for r in applying if r.get("kind") in _RESTRICTION_REVIEW_KINDS]
    builds = [
        int(r.get("value") or 0) for r in applying if r.get("kind") == "require_passing_builds_to_merge"
    ]
    if not reviews and not builds:
        return ()
    return (
        RuleSet(
            "merge checks",
            approvals=max(reviews, default=0),
            builds=max(builds, default=0),
            enforced="enforce_merge_checks" in kinds,
            bypass_visible=False,
        ),
    )


def _build_state(state: str) -> CheckState:
    if state == "SUCCESSFUL":
        return CheckState.SUCCESS
    return CheckState.PENDING if state == "INPROGRESS" else CheckState.FAILURE


def protection_from(branch: str, restrictions: Sequence[Json]) -> BranchProtection:
    applying = [r for r in restrictions if restriction_applies(r, branch)]
    kinds = {str(r.get("kind")) for r in applying}
    reviews = [int(r.get("value") or 0) for r in applying if r.get("kind") in _RESTRICTION_REVIEW_KINDS]
    builds = [
        int(r.get("value") or 0) for r in applying if r.get("kind") == "require_passing_builds_to_merge"
    ]
    checks = (f"{max(builds)} passing build{'s' if max(builds) != 1 else ''}",) if builds else ()
    return BranchProtection(
        branch=branch,
        protected=bool(applying),
        required_reviews=max(reviews, default=0),
        required_checks=checks,
        allows_force_push="force" not in kinds,
        keeps_stale_approvals=bool(reviews) and not kinds & _RESTRICTION_RESET_KINDS,
    )


# --- The adapter ----------------------------------------------------------------------------------


class BitbucketHost:
    """`CodeHost` for Bitbucket Cloud. Constructing it makes no network call."""

    kind = HostKind.BITBUCKET
    capabilities: frozenset[Capability] = frozenset(
        {
            Capability.SQUASH_MESSAGE,
            Capability.ASYNC_MERGE,
            Capability.BRANCH_PROTECTION,
            Capability.TOKEN_SCOPES,
        }
    )

    def __init__(
        self,
        api_url: str = DEFAULT_API_URL,
        *,
        token: str,
        email: str | None = None,
        token_variable: str | None = None,
        retry: RetryPolicy | None = None,
        merge_wait: MergeWait | None = None,
        timeout: int = 30,
    ) -> None:
        if not token:
            raise ConfigError(missing_token_message())
        variable = token_variable or (API_TOKEN_VARIABLE if email else ACCESS_TOKEN_VARIABLE)
        self.api_url = api_url
        self.client = make_client(api_url, token=token, email=email, timeout=timeout)
        self.api = BitbucketApi(self.client, variable, token, retry or host_retry(), basic_auth=bool(email))
        self.merge_wait = merge_wait or MergeWait()

    def __repr__(self) -> str:
        return f"BitbucketHost({self.api_url!r}, token from {self.api.variable})"

    def while_paced(self, callback: Callable[[], None] | None) -> None:
        """Call `callback` every `WAKE_EVERY` seconds while a request waits for the workspace's hourly
        limit or a limit Bitbucket declared."""
        self.api.pacer.on_wait = callback

    # paths

    @staticmethod
    def _repo_path(repo: RepoRef) -> str:
        return f"repositories/{quote(repo.owner, safe='')}/{quote(repo.name, safe='')}"

    def _pull_path(self, repo: RepoRef, number: int) -> str:
        return f"{self._repo_path(repo)}/pullrequests/{int(number)}"

    # reading merged PRs and their review threads

    def list_merged_pulls(
        self, repo: RepoRef, since: datetime, until: datetime | None = None
    ) -> list[MergedPull]:
        """One paged query (no per-PR fetch), newest first, merged in [since, until)."""
        query = f"updated_on >= {_bbql_time(since)}"
        if until is not None:
            query += f" AND updated_on < {_bbql_time(until)}"
        params: dict[str, str | int] = {"state": "MERGED", "sort": "-updated_on", "q": query, "pagelen": 50}
        pulls: list[MergedPull] = []
        for data in self.api.pages(f"{self._repo_path(repo)}/pullrequests", params):
            pull = merged_pull(repo, data)
            if pull.merged_at < _utc(since):
                break  # sorted newest first: everything after is older
            if until is None or pull.merged_at < _utc(until):
                pulls.append(pull)
        return sorted(pulls, key=lambda pull: pull.merged_at, reverse=True)

    def review_threads(self, pull: MergedPull) -> list[ReviewThread]:
        """Inline comments grouped by thread: 1 request without threads, else 2 + one diff per review
        round (+ a diffstat for a round whose diff cannot say which files changed)."""
        threads = group_threads(self._comments(pull.repo, pull.number))
        followed = self._followed(pull.repo, pull.number, threads)
        return [
            self._thread(pull.repo, pull.number, pull.title, pull.author, thread, followed[thread[0].id])
            for thread in threads
        ]

    def get_comment_thread(self, ref: CommentRef) -> ReviewThread:
        data = self.api.get(self._pull_path(ref.repo, ref.pull))
        comments = self._comments(ref.repo, ref.pull)
        for thread in group_threads(comments, inline_only=False):
            if any(comment.id == ref.comment_id for comment in thread):
                followed = self._followed(ref.repo, ref.pull, [thread])
                title, author = str(data.get("title") or ""), handle_of(data.get("author"))
                return self._thread(ref.repo, ref.pull, title, author, thread, followed[thread[0].id])
        raise HostError(
            f"Bitbucket has no comment {ref.comment_id} on PR #{ref.pull} in {ref.repo.full_name}"
            " (deleted, or the URL names another PR)"
        )

    def _comments(self, repo: RepoRef, number: int) -> list[RawComment]:
        path = f"{self._pull_path(repo, number)}/comments"
        return [raw_comment(data) for data in self.api.pages(path, {"pagelen": 100})]

    def _followed(
        self, repo: RepoRef, number: int, threads: Sequence[list[RawComment]]
    ) -> dict[int, Followed]:
        """For each root comment a PR commit after it touched the file of (a general comment: any
        commit): when the first commit after it was made, who wrote the commits after it and the lines
        they added to and removed from its file; an empty `Followed` for the others. One diff per review round."""
        result = {thread[0].id: Followed() for thread in threads}
        if not threads:
            return result
        path = f"{self._pull_path(repo, number)}/commits"
        commits = [pull_commit(data) for data in self.api.pages(path, {"pagelen": 100})]
        if not commits:
            return result
        head = pull_tip(commits)
        rounds: dict[str, list[RawComment]] = {}
        for thread in threads:
            boundary = boundary_before(commits, thread[0].created)
            if boundary is not None:
                rounds.setdefault(boundary, []).append(thread[0])
        for boundary, roots in rounds.items():
            changed, diff = self._after(repo, head, boundary, roots)
            for root in roots:
                if root.path and root.path not in changed:
                    continue
                first_after = min(commit.date for commit in commits if commit.date > root.created)
                result[root.id] = Followed(first_after, follow_up_of(commits, root.created, root.path, diff))
        return result

    def _after(
        self, repo: RepoRef, head: str, boundary: str, roots: Sequence[RawComment]
    ) -> tuple[set[str], DiffFiles | None]:
        """The paths `head` changed since `boundary` among the roots' files, and the diff's lines it
        added and removed by file (None when unknown): one diff limited to the commented files (every file when a general
        comment is among the roots). The diffstat is asked only when the diff cannot say: a file section
        with no `---`/`+++` header (binary, mode or rename only), or a diff too large (555)."""
        files = sorted({root.path for root in roots})
        diff = self._diff(repo, head, boundary, [] if "" in files else files)
        if diff is None:
            return self._changed_paths(repo, head, boundary), None
        if diff.unnamed and not set(files) <= diff.touched | {""}:
            return diff.touched | self._changed_paths(repo, head, boundary), diff
        return diff.touched, diff

    def _diff(self, repo: RepoRef, head: str, boundary: str, files: list[str]) -> DiffFiles | None:
        """The diff of `head` since `boundary`, limited by its own `path` filter, with no context lines;
        None when Bitbucket gives up on a diff too large (555)."""
        spec = f"{head}..{boundary}" if boundary else head
        path = f"{self._repo_path(repo)}/diff/{quote(spec, safe='.')}"
        params: dict[str, str | int | list[str]] = {"context": 0, "path": files}
        response = self.api.call("GET", path, params=params, accept=(555,))
        if response.status_code == 555:
            log.info(
                "Bitbucket: the diff %s of %s timed out; who followed it is unknown", spec, repo.full_name
            )
            return None
        return read_diff(response.content.decode("utf-8", "replace"))

    def _changed_paths(self, repo: RepoRef, head: str, boundary: str) -> set[str]:
        spec = f"{head}..{boundary}" if boundary else head
        path = f"{self._repo_path(repo)}/diffstat/{quote(spec, safe='.')}"
        return diffstat_paths(list(self.api.pages(path, {"pagelen": 500})))

    @staticmethod
    def _thread(
        repo: RepoRef,
        number: int,
        title: str,
        author: str,
        thread: list[RawComment],
        followed: Followed,
    ) -> ReviewThread:
        root = thread[0]

        def review_comment(comment: RawComment) -> ReviewComment:
            return ReviewComment(
                id=comment.id,
                author=comment.author,
                body=comment.body,
                path=comment.path or root.path,
                line=comment.line if comment.line is not None else root.line,
                created_at=comment.created,
                url=comment_url(repo, number, comment.id),
                in_reply_to=None if comment.id == root.id else root.id,
                updated_at=comment.updated,
            )

        return ReviewThread(
            repo=repo,
            pull=number,
            pull_title=title,
            pull_author=author,
            root=review_comment(root),
            replies=tuple(review_comment(comment) for comment in thread[1:]),
            followed_by_commit=followed.at is not None,
            followed_at=followed.at,
            follow_up=followed.follow_up,
        )

    # writing PRs

    def open_pull(self, repo: RepoRef, head: str, base: str, title: str, body: str) -> PullInfo:
        """Create the PR, or update and return the open one already on `head` (so reruns never duplicate)."""
        existing = self._open_pull_on(repo, head)
        if existing is not None:
            return self._update_pull(repo, existing, title, body, base)
        payload = {
            "title": title,
            "description": body,
            "source": {"branch": {"name": head}},
            "destination": {"branch": {"name": base}},
            "close_source_branch": True,
        }
        path = f"{self._repo_path(repo)}/pullrequests"
        try:
            response = self.api.call("POST", path, body=payload, need=WRITE_SCOPES, retry_5xx=False)
        except TransientHostError:
            existing = self._open_pull_on(repo, head)  # the failed create may have happened after all
            if existing is not None:
                return self._update_pull(repo, existing, title, body, base)
            response = self.api.call("POST", path, body=payload, need=WRITE_SCOPES)
        return pull_info(repo, self.api.json(response, "POST", path))

    def _open_pull_on(self, repo: RepoRef, head: str) -> Json | None:
        params: dict[str, str | int] = {
            "state": "OPEN",
            "q": f'source.branch.name = "{_bbql_string(head)}"',
            "pagelen": 50,
        }
        for data in self.api.pages(f"{self._repo_path(repo)}/pullrequests", params):
            if _dig(data, "source", "branch", "name") == head:
                return data
        return None

    def _update_pull(self, repo: RepoRef, data: Json, title: str, body: str, base: str) -> PullInfo:
        payload: Json = {"title": title, "description": body}
        if _dig(data, "destination", "branch", "name") != base:
            payload["destination"] = {"branch": {"name": base}}
        path = self._pull_path(repo, int(data["id"]))
        response = self.api.call("PUT", path, body=payload, need=WRITE_SCOPES)
        return pull_info(repo, self.api.json(response, "PUT", path))

    def request_reviewers(
        self, repo: RepoRef, number: int, users: Sequence[str], teams: Sequence[str] = ()
    ) -> None:
        """Add users to the PR's reviewers, keeping those already there. Bitbucket has no team reviewers."""
        if teams:
            raise HostError(
                f"Bitbucket has no team reviewers: cannot request {', '.join(teams)} on PR #{number}"
                f" in {repo.full_name}; list the team's members in team.reviewers instead"
            )
        if not users:
            return
        path = self._pull_path(repo, number)
        data = self.api.get(path)
        current = [r for r in data.get("reviewers") or [] if isinstance(r, dict)]
        author = data.get("author") if isinstance(data.get("author"), dict) else {}
        wanted = self._resolve_users(repo.owner, users)
        reviewers = [_reviewer_ref(r) for r in current]
        for person in wanted:
            if _same_account(person, author):
                log.info("Bitbucket: not requesting %s on PR #%s: they wrote it", handle_of(person), number)
                continue
            if not any(_same_account(person, r) for r in current):
                reviewers.append(_reviewer_ref(person))
                current.append(person)
        if len(reviewers) == len(data.get("reviewers") or []):
            return
        payload = {"title": data.get("title") or "", "reviewers": reviewers}
        self.api.call("PUT", path, body=payload, need=WRITE_SCOPES)

    def _resolve_users(self, workspace: str, handles: Sequence[str]) -> list[Json]:
        """Account ids and {uuids} are used as they are; nicknames are looked up among workspace members."""
        people: list[Json] = []
        members: list[Json] | None = None
        for handle in handles:
            direct = _account_ref(handle)
            if direct is None:
                members = self._members(workspace) if members is None else members
                direct = _member_named(members, handle)
            if direct is None:
                raise HostError(
                    f"Bitbucket workspace {workspace} has no member {handle!r} to request as a reviewer:"
                    " use their nickname as Bitbucket shows it, or their account id"
                )
            people.append(direct)
        return people

    def _members(self, workspace: str) -> list[Json]:
        path = f"workspaces/{quote(workspace, safe='')}/members"
        users = (member.get("user") for member in self.api.pages(path, {"pagelen": 100}))
        return [user for user in users if isinstance(user, dict)]

    def add_comment(self, repo: RepoRef, number: int, body: str) -> None:
        path = f"{self._pull_path(repo, number)}/comments"
        self.api.call("POST", path, body={"content": {"raw": body}}, need=WRITE_SCOPES)

    def pull_comments(self, repo: RepoRef, number: int) -> list[str]:
        """The PR's general comments (not inline, not deleted), oldest first."""
        found = [c for c in self._comments(repo, number) if not c.path and not c.deleted]
        return [c.body for c in sorted(found, key=lambda c: (c.created, c.id))]

    def pull_approvals(self, repo: RepoRef, number: int) -> list[Approval]:
        """The participants marked approved; Bitbucket Cloud records no commit for an approval."""
        return participant_approvals(self.api.get(self._pull_path(repo, number)))

    def close_pull(self, repo: RepoRef, number: int) -> None:
        """Decline the PR; a PR already declined or merged is left as it is."""
        path = self._pull_path(repo, number)
        if self.api.get(path).get("state") != "OPEN":
            return
        self.api.call("POST", f"{path}/decline", body={}, need=WRITE_SCOPES)

    def get_pull(self, repo: RepoRef, number: int) -> PullInfo:
        return pull_info(repo, self.api.get(self._pull_path(repo, number)))

    def list_open_pulls(self, repo: RepoRef, branch_prefix: str) -> list[PullInfo]:
        params: dict[str, str | int] = {"state": "OPEN", "pagelen": 50}
        if branch_prefix:
            params["q"] = f'source.branch.name ~ "{_bbql_string(branch_prefix)}"'
        found = [
            pull_info(repo, data) for data in self.api.pages(f"{self._repo_path(repo)}/pullrequests", params)
        ]
        return [pull for pull in found if pull.head_branch.startswith(branch_prefix)]

    # merging

    def merge_pull(
        self, repo: RepoRef, number: int, title: str, message: str, expected_head: str | None = None
    ) -> MergeResult:
        """Squash-merge with our message, asynchronously, polling the task; refusals come back as values.

        `expected_head` is checked before the merge request (Bitbucket cannot make it a merge condition,
        so `Capability.EXPECTED_HEAD` is not declared: a push between the check and the merge is not caught).
        """
        path = self._pull_path(repo, number)
        before = self.api.get(path)
        settled = _settled(before, number)
        if settled is not None:
            return settled
        head = str(_dig(before, "source", "commit", "hash") or "")
        if expected_head and not _same_sha(head, expected_head):
            return MergeResult(
                merged=False, reason=f"PR #{number} head moved to {head[:12]} (expected {expected_head[:12]})"
            )
        payload = {
            "type": "pullrequest_merge_parameters",
            "merge_strategy": "squash",
            "message": f"{title}\n\n{message}".strip(),
            "close_source_branch": True,
        }
        response = self.api.call(
            "POST",
            f"{path}/merge",
            params={"async": "true"},
            body=payload,
            accept=(400, 405, 409, 555),
            need=WRITE_SCOPES,
        )
        if response.status_code == 202:
            return self._await_merge(repo, number, response.headers.get("Location", ""))
        if response.status_code in (200, 201):
            return _merged_result(self.api.json(response, "POST", f"{path}/merge"))
        return self._refused(repo, number, response.status_code, self.api.error_text(response))

    def _await_merge(self, repo: RepoRef, number: int, location: str) -> MergeResult:
        if not location:
            raise HostError(
                f"Bitbucket accepted the merge of PR #{number} in {repo.full_name} without a task to poll"
            )
        deadline = time.monotonic() + self.merge_wait.timeout
        while True:
            response = self.api.call("GET", location, absolute=True, accept=(400,))
            if response.status_code == 400:
                return self._refused(repo, number, 400, self.api.error_text(response))
            task = self.api.json(response, "GET", location)
            status = str(task.get("task_status") or "").upper()
            if status == "SUCCESS":
                result = task.get("merge_result")
                return _merged_result(result if isinstance(result, dict) else {})
            if status == "FAILED":
                return self._refused(
                    repo, number, 200, self.api.error_text(response) if task.get("error") else ""
                )
            if time.monotonic() + self.merge_wait.interval > deadline:
                break
            time.sleep(self.merge_wait.interval)
        settled = _settled(self.api.get(self._pull_path(repo, number)), number)
        if settled is not None and settled.merged:
            return settled
        raise HostError(
            f"Bitbucket had not finished merging PR #{number} in {repo.full_name} after"
            f" {self.merge_wait.timeout:g}s (task still pending); it may still merge:"
            " check the PR before rerunning"
        )

    def _refused(self, repo: RepoRef, number: int, status: int, text: str) -> MergeResult:
        """A refusal, unless the PR turns out merged (a retried request after a merge that went through)."""
        settled = _settled(self.api.get(self._pull_path(repo, number)), number)
        if settled is not None and settled.merged:
            return settled
        reason = f"Bitbucket refused to merge PR #{number} ({status})"
        return MergeResult(merged=False, reason=f"{reason}: {text}" if text else reason)

    # settings the runs check before relying on them

    def branch_protection(self, repo: RepoRef, branch: str) -> BranchProtection:
        """Branch restrictions that apply to `branch`; reading them takes repository:admin, else unknown."""
        path = f"{self._repo_path(repo)}/branch-restrictions"
        try:
            restrictions = list(self.api.pages(path, {"pagelen": 100}))
        except ForbiddenError:
            return BranchProtection(branch=branch, protected=False, known=False)
        return protection_from(branch, restrictions)

    def merge_rules(self, repo: RepoRef, branch: str) -> MergeRules:
        """The merge checks of the branch restrictions on `branch`. They block a merge only with
        "Prevent a merge with unresolved merge checks" (`enforce_merge_checks`, Bitbucket Premium);
        otherwise they warn in the UI and the merge goes through. Bitbucket has no bypass list."""
        path = f"{self._repo_path(repo)}/branch-restrictions"
        try:
            restrictions = list(self.api.pages(path, {"pagelen": 100}))
        except ForbiddenError:
            note = "the token may not read the branch restrictions (it takes repository admin)"
            return MergeRules(branch, complete=False, note=note)
        return MergeRules(branch, merge_checks_of(branch, restrictions))

    def commit_checks(self, repo: RepoRef, sha: str) -> dict[str, CheckState]:
        """The build statuses on `sha` by key (Pipelines reports one per pipeline run)."""
        path = f"{self._repo_path(repo)}/commit/{sha}/statuses"
        states: dict[str, CheckState] = {}
        for status in self.api.pages(path, {"pagelen": 100}):
            states[str(status.get("key"))] = _build_state(str(status.get("state")))
        return states

    def token_reach(self, repo: RepoRef) -> TokenReach:
        response = self.api.call("GET", "user")
        user = handle_of(self.api.json(response, "GET", "user"))
        scopes = tuple(s.strip() for s in response.headers.get("X-OAuth-Scopes", "").split(",") if s.strip())
        params: dict[str, str | int] = {
            "q": f'repository.full_name = "{_bbql_string(repo.full_name)}"',
            "pagelen": 10,
        }
        permissions = list(self.api.pages("user/permissions/repositories", params))
        permission = str(permissions[0].get("permission") or "none") if permissions else ""
        notes: tuple[str, ...] = ()
        if not permission:
            permission, notes = self._permission_from_scopes(repo, scopes)
        return TokenReach(
            user=user,
            can_read=permission in ("read", "write", "admin"),
            can_write=permission in ("write", "admin"),
            can_admin=permission == "admin",
            scopes=scopes,
            notes=notes,
        )

    # code names, for the deep dive's code check (never a file's content)

    def code_tree(self, repo: RepoRef) -> CodeTree:
        """The main branch's file names, from the src listing with `max_depth` (100 entries a page;
        past `SRC_PAGES` pages the listing is marked truncated, so an absent path proves nothing)."""
        path = self._repo_path(repo)
        branch = str(_dig(self.api.get(path), "mainbranch", "name") or "")
        if not branch:
            raise HostError(f"Bitbucket names no main branch for {repo.full_name}")
        sha = str(
            _dig(self.api.get(f"{path}/refs/branches/{quote(branch, safe='')}"), "target", "hash") or ""
        )
        if not sha:
            raise HostError(f"Bitbucket gave no commit for {branch} of {repo.full_name}")
        paths: list[str] = []
        seen = 0
        for entry in self.api.pages(f"{path}/src/{sha}/", {"max_depth": SRC_DEPTH, "pagelen": 100}):
            seen += 1
            if seen > SRC_PAGES * 100:
                return CodeTree(repo.full_name, sha, tuple(paths), truncated=True)
            if entry.get("type") == "commit_file":
                paths.append(str(entry.get("path", "")))
        return CodeTree(repo.full_name, sha, tuple(paths))

    def search_code(self, repo: RepoRef, term: str) -> CodeHits:
        """The workspace code search, in the one repo: the count and the first page's paths (`fields`
        leaves the matched lines out, so no code comes back). A workspace without code search indexed
        answers an error, which leaves the rules it touched alone."""
        params: dict[str, str | int] = {
            "search_query": f'"{term}" repo:{repo.name}',
            "pagelen": 100,
            "fields": "size,values.file.path",
        }
        data = self.api.get(f"workspaces/{quote(repo.owner, safe='')}/search/code", params)
        values = data.get("values") or []
        paths = tuple(str(_dig(v, "file", "path") or "") for v in values if isinstance(v, dict))
        return CodeHits(int(data.get("size") or 0), paths)

    def finds_file(self, repo: RepoRef, path: str) -> bool:
        """Whether the workspace's code search has the repo indexed, asked by a file name the tree
        holds (Bitbucket's search matches file names too)."""
        name = path.rpartition("/")[2]
        params: dict[str, str | int] = {
            "search_query": f'"{name}" repo:{repo.name}',
            "pagelen": 1,
            "fields": "size",
        }
        data = self.api.get(f"workspaces/{quote(repo.owner, safe='')}/search/code", params)
        return int(data.get("size") or 0) > 0

    def repo_visibility(self, repo: RepoRef) -> str:
        return "private" if self.api.get(self._repo_path(repo)).get("is_private") else "public"

    def file_text(self, repo: RepoRef, path: str) -> str | None:
        """A file of the repo's main branch as text (the src endpoint), or None when there is none
        (a folder, which the endpoint answers with a listing, is none either)."""
        branch = (self.api.get(self._repo_path(repo)).get("mainbranch") or {}).get("name")
        if not branch:
            return None
        where = f"{self._repo_path(repo)}/src/{quote(str(branch), safe='')}/{quote(path, safe='/')}"
        response = self.api.call("GET", where, accept=(404,))
        if response.status_code == 404 or "json" in response.headers.get("Content-Type", ""):
            return None
        return response.content.decode("utf-8", "replace")

    def _permission_from_scopes(self, repo: RepoRef, scopes: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
        """Access tokens list no user permission; what they may do is their scopes on the repo they reach."""
        response = self.api.call("GET", self._repo_path(repo), accept=(403, 404))
        if response.status_code != 200:
            return "none", (f"the token cannot see {repo.full_name} ({response.status_code})",)
        note = (f"{repo.full_name} lists no permission for this token; judged from its scopes",)
        if "repository:admin" in scopes:
            return "admin", note
        if "repository:write" in scopes or "pullrequest:write" in scopes:
            return "write", note
        return "read", note


def _implements_code_host(host: BitbucketHost) -> CodeHost:
    """Never called: mypy checks here that `BitbucketHost` satisfies the `CodeHost` Protocol."""
    return host


def _bbql_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _same_sha(short: str, full: str) -> bool:
    """Bitbucket shows 12-character hashes; compare on the shorter of the two."""
    size = min(len(short), len(full))
    return size >= 7 and short[:size].lower() == full[:size].lower()


def _settled(data: Json, number: int) -> MergeResult | None:
    """None for an open PR; a merged result, or a refusal naming the state, for one that is not."""
    state = str(data.get("state") or "")
    if state == "OPEN":
        return None
    if state == "MERGED":
        return _merged_result(data)
    return MergeResult(merged=False, reason=f"PR #{number} is {state.lower() or 'not open'}")


def _merged_result(data: Json) -> MergeResult:
    sha = _dig(data, "merge_commit", "hash")
    return MergeResult(merged=True, sha=str(sha) if sha else None)


def _account_ref(handle: str) -> Json | None:
    if handle.startswith("{") and handle.endswith("}"):
        return {"uuid": handle}
    return {"account_id": handle} if _ACCOUNT_ID.match(handle) else None


def _member_named(members: Sequence[Json], handle: str) -> Json | None:
    wanted = handle.lower()
    for member in members:
        if wanted in (str(member.get("nickname", "")).lower(), str(member.get("display_name", "")).lower()):
            return member
    return None


def _reviewer_ref(account: Json) -> Json:
    for key in ("uuid", "account_id"):
        if account.get(key):
            return {key: account[key]}
    return {"uuid": account.get("uuid")}


def _same_account(one: Json, other: object) -> bool:
    if not isinstance(other, dict):
        return False
    return any(one.get(key) and one.get(key) == other.get(key) for key in ("uuid", "account_id"))


def missing_token_message() -> str:
    return (
        f"no Bitbucket token: set {ACCESS_TOKEN_VARIABLE} (a repository or workspace access token) or"
        f" {API_TOKEN_VARIABLE} with {EMAIL_VARIABLE} (an Atlassian API token and its account's email)"
    )


def bitbucket_host_from_env(env: Mapping[str, str], **options: Any) -> BitbucketHost:
    """The adapter from the environment: an access token (Bearer) first, else an API token with its email."""
    api_url = env.get(API_URL_VARIABLE, "").strip() or DEFAULT_API_URL
    if urlsplit(api_url).scheme not in ("http", "https") or not urlsplit(api_url).netloc:
        raise ConfigError(f"{API_URL_VARIABLE} is not a URL: {api_url!r} (expected e.g. {DEFAULT_API_URL})")
    access = env.get(ACCESS_TOKEN_VARIABLE, "").strip()
    if access:
        return BitbucketHost(api_url, token=access, token_variable=ACCESS_TOKEN_VARIABLE, **options)
    api_token = env.get(API_TOKEN_VARIABLE, "").strip()
    email = env.get(EMAIL_VARIABLE, "").strip()
    if api_token and not email:
        raise ConfigError(
            f"{API_TOKEN_VARIABLE} is set but {EMAIL_VARIABLE} is not: set {EMAIL_VARIABLE} to the email"
            f" of the Atlassian account the API token belongs to, or use {ACCESS_TOKEN_VARIABLE} with an"
            " access token"
        )
    if not api_token:
        raise ConfigError(missing_token_message())
    return BitbucketHost(api_url, token=api_token, email=email, token_variable=API_TOKEN_VARIABLE, **options)
