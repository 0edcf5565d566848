"""A stateful Bitbucket Cloud REST 2.0 emulator on 127.0.0.1, backed by real bare git repos.

What a `git push` puts in a bare repo is what the API shows (branches, PR commits with their author
linked to the account their email belongs to, diffstat, the raw diff), and a
squash merge writes a real commit on the destination branch (commit-tree of the merged tree with the
destination as parent, then update-ref). JSON shapes, paging (`pagelen`, `page`, `next`), BBQL `q`
filters and `sort`, status codes (202 merge tasks polled PENDING -> SUCCESS, refused merges, 401/403,
429 with Retry-After, 5xx blips, 404) follow the Bitbucket Cloud REST reference. A second listener
plays the Pipelines auth proxy (http://localhost:29418): an HTTP forward proxy that authenticates
requests for `http://api.bitbucket.org/...` with no token. The `bitbucket_harness` fixture wraps it
all in the `tests/hostkit.HostHarness` shape so the contract suite runs against it.
"""

from __future__ import annotations

import base64
import fnmatch
import itertools
import json
import os
import re
import secrets
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid as uuidlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

import pytest
import yaml
from hostkit import PullSpec, RequestLog

from emulators.closing_server import ClosingServer
from homeostat.adapters.hosts.bitbucket import BitbucketHost, MergeWait
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.core.hosts import HostKind, RepoRef

Json = dict[str, Any]

WRITE_SCOPES = ("account", "repository:admin", "pullrequest:write")
FAST_RETRY = RetryPolicy(attempts=4, base_delay=0.01, max_delay=2.0, max_total_wait=3.0)
FAST_MERGE_WAIT = MergeWait(timeout=2.0, interval=0.01)
BOT = "homeostat-bot"
PIPELINES = "bitbucket-pipelines"

# Scopes imply narrower ones, as Bitbucket's do.
_IMPLIED = {
    "repository:admin": ("repository:write", "repository"),
    "repository:write": ("repository",),
    "pullrequest:write": ("pullrequest", "repository:write", "repository"),
    "pullrequest": ("repository",),
    "pipeline:write": ("pipeline",),
}
_QUARTZ_FIELD = re.compile(r"^[\w*?,/#-]+$")
_PERMISSION_RANK = {"none": 0, "read": 1, "write": 2, "admin": 3}


# --- git plumbing ---------------------------------------------------------------------------------


def git(repo: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    full_env = {**os.environ, "LC_ALL": "C", **(env or {})}
    done = subprocess.run(
        ["git", "--git-dir", str(repo), *args], capture_output=True, text=True, env=full_env, check=False
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def git_date(moment: datetime) -> str:
    return f"{int(moment.timestamp())} +0000"


def rev(repo: Path, ref: str) -> str | None:
    out = git(repo, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False).strip()
    return out or None


def commit_files(
    repo: Path,
    parent: str | None,
    files: dict[str, str | None],
    message: str,
    author: tuple[str, str],
    when: datetime,
) -> str:
    """A commit with `files` changed on top of `parent` (None content deletes), built in a temp index."""
    with tempfile.TemporaryDirectory() as scratch:
        env = {
            "GIT_INDEX_FILE": str(Path(scratch) / "index"),
            "GIT_AUTHOR_NAME": author[0],
            "GIT_AUTHOR_EMAIL": author[1],
            "GIT_COMMITTER_NAME": author[0],
            "GIT_COMMITTER_EMAIL": author[1],
            "GIT_AUTHOR_DATE": git_date(when),
            "GIT_COMMITTER_DATE": git_date(when),
        }
        if parent:
            git(repo, "read-tree", parent, env=env)
        for path, content in files.items():
            if content is None:
                git(repo, "update-index", "--force-remove", path, env=env)
                continue
            blob = _hash_blob(repo, content)
            git(repo, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = git(repo, "write-tree", env=env).strip()
        args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
        return git(repo, *args, env=env).strip()


def _hash_blob(repo: Path, content: str) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(repo), "hash-object", "-w", "--stdin"],
        input=content.encode(),
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


def merged_tree(repo: Path, source: str, destination: str) -> str | None:
    """The tree of merging source into destination, or None on a conflict."""
    if git(repo, "merge-base", source, destination, check=False).strip() == destination:
        return git(repo, "rev-parse", f"{source}^{{tree}}").strip()
    done = subprocess.run(
        ["git", "--git-dir", str(repo), "merge-tree", "--write-tree", destination, source],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.split("\n", 1)[0].strip() if done.returncode == 0 else None


def log_commits(repo: Path, include: str, exclude: str | None) -> list[Json]:
    """Commits reachable from `include` and not from `exclude`, newest first, as Bitbucket shows them."""
    fmt = "%H%x00%P%x00%aI%x00%an%x00%ae%x00%B%x1e"
    args = ["log", f"--format={fmt}", include] + ([f"^{exclude}"] if exclude else [])
    out = git(repo, *args)
    commits = []
    for record in out.split("\x1e"):
        record = record.strip("\n")
        if not record:
            continue
        sha, parents, date, name, email, message = record.split("\x00", 5)
        commits.append(
            {
                "sha": sha,
                "parents": parents.split(),
                "date": datetime.fromisoformat(date).astimezone(UTC),
                "author": f"{name} <{email}>",
                "email": email,
                "message": message,
            }
        )
    return commits


def _empty_tree(repo: Path) -> str:
    return git(repo, "hash-object", "-t", "tree", "/dev/null").strip()


def unified_diff(repo: Path, old: str | None, new: str, paths: list[str], context: int = 3) -> bytes:
    """`git diff` of `old` to `new` (renames found), limited to `paths` taken literally when given:
    the git-style text Bitbucket's diff endpoint answers."""
    args = ["--literal-pathspecs", "diff", f"-U{context}", "-M", old or _empty_tree(repo), new, "--", *paths]
    return subprocess.run(
        ["git", "--git-dir", str(repo), *args],
        capture_output=True,
        check=True,
        env={**os.environ, "LC_ALL": "C"},
    ).stdout


def diffstat(repo: Path, old: str | None, new: str) -> list[Json]:
    base = old or _empty_tree(repo)
    counts: dict[str, tuple[int, int]] = {}
    numstat = git(repo, "diff", "--numstat", "-z", "-M", base, new).split("\x00")
    items = iter(numstat)
    for item in items:
        if not item:
            continue
        added, removed, path = item.split("\t", 2)
        if not path:  # a rename: the old and new paths follow
            next(items)
            path = next(items)
        counts[path] = (int(added) if added != "-" else 0, int(removed) if removed != "-" else 0)
    values: list[Json] = []
    statuses = iter(git(repo, "diff", "--name-status", "-z", "-M", base, new).split("\x00"))
    for code in statuses:
        if not code:
            continue
        old_path = new_path = next(statuses)
        if code.startswith(("R", "C")):
            new_path = next(statuses)
        status = {"A": "added", "D": "removed", "R": "renamed"}.get(code[0], "modified")
        added, removed = counts.get(new_path, (0, 0))
        values.append(
            {
                "type": "diffstat",
                "status": status,
                "lines_added": added,
                "lines_removed": removed,
                "old": None if status == "added" else _commit_file(old_path),
                "new": None if status == "removed" else _commit_file(new_path),
            }
        )
    return values


def _commit_file(path: str) -> Json:
    return {"path": path, "type": "commit_file", "escaped_path": path}


# --- state ----------------------------------------------------------------------------------------


@dataclass
class User:
    nickname: str
    display_name: str
    account_id: str
    uuid: str
    email: str

    def json(self) -> Json:
        return {
            "type": "user",
            "uuid": self.uuid,
            "account_id": self.account_id,
            "nickname": self.nickname,
            "display_name": self.display_name,
            "links": {"html": {"href": f"https://bitbucket.org/{quote(self.uuid)}/"}},
        }


@dataclass
class Token:
    user: str
    scopes: tuple[str, ...]
    email: str | None = None  # set for API tokens (Basic auth with the account email)
    revoked: bool = False


@dataclass
class Comment:
    id: int
    user: str
    raw: str
    created: datetime
    inline: Json | None = None
    parent: int | None = None
    deleted: bool = False
    updated: datetime | None = None  # set by an edit


@dataclass
class Pull:
    id: int
    title: str
    description: str
    author: str
    source: str
    destination: str
    created: datetime
    updated: datetime
    state: str = "OPEN"
    close_source_branch: bool = False
    reviewers: list[str] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    source_sha: str = ""  # frozen once the PR is closed
    base_sha: str = ""  # the destination commit the PR's commits are counted from, once merged
    merge_commit: str | None = None
    merge_message: str = ""
    closed_by: str | None = None
    approvals: list[str] = field(default_factory=list)
    approved_at: dict[str, str] = field(default_factory=dict)  # approver -> the source commit approved
    pipelines_seen: str = ""  # the source commit the PR's pipeline last ran for


@dataclass
class Task:
    id: str
    repo: tuple[str, str]
    pull: int
    polls_left: int | None  # None: never finishes
    user: str
    params: Json
    failure: str | None = None
    failure_shape: str = "error"
    result: tuple[int, Json] | None = None


@dataclass
class Repo:
    workspace: str
    slug: str
    bare: Path
    default_branch: str
    uuid: str = field(default_factory=lambda: "{" + str(uuidlib.uuid4()) + "}")
    pulls: dict[int, Pull] = field(default_factory=dict)
    restrictions: list[Json] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=dict)
    builds: dict[str, list[Json]] = field(default_factory=dict)
    reports: dict[tuple[str, str], Json] = field(default_factory=dict)
    annotations: dict[tuple[str, str], list[Json]] = field(default_factory=dict)
    schedules: list[Json] = field(default_factory=list)  # Pipelines schedules, as the API shows them
    private: bool = True

    @property
    def full_name(self) -> str:
        return f"{self.workspace}/{self.slug}"

    def mini(self) -> Json:
        return {"type": "repository", "full_name": self.full_name, "name": self.slug, "uuid": self.uuid}


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, detail: object = None, headers: dict[str, str] | None = None
    ):
        super().__init__(message)
        self.status = status
        self.message = message
        self.detail = detail
        self.headers = headers or {}


@dataclass
class Request:
    method: str
    path: str  # without /2.0 prefix
    query: dict[str, str]
    body: Any
    user: User
    scopes: tuple[str, ...]
    base: str  # http://127.0.0.1:port/2.0
    access_token: bool
    repeated: dict[str, list[str]] = field(default_factory=dict)  # every value of each query key


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


# --- BBQL (the subset the adapter and tests use) --------------------------------------------------

_TOKEN = re.compile(
    r'\s*(?:(?P<lp>\()|(?P<rp>\))|(?P<op>!=|>=|<=|!~|=|~|>|<)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<word>[^\s()=!~<>"]+))'
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if not match or match.end() == pos:
            raise ApiError(400, f"Invalid query: cannot parse near {text[pos : pos + 20]!r}")
        kind = match.lastgroup or ""
        out.append((kind, match.group(kind)))
        pos = match.end()
    return out


def bbql(text: str) -> Callable[[Json], bool]:
    tokens = _tokens(text)
    pos = 0

    def peek() -> tuple[str, str] | None:
        return tokens[pos] if pos < len(tokens) else None

    def take() -> tuple[str, str]:
        nonlocal pos
        if pos >= len(tokens):
            raise ApiError(400, "Invalid query: unexpected end")
        pos += 1
        return tokens[pos - 1]

    def expr() -> Callable[[Json], bool]:
        parts = [term()]
        while (tok := peek()) and tok == ("word", "OR"):
            take()
            parts.append(term())
        return lambda item: any(part(item) for part in parts)

    def term() -> Callable[[Json], bool]:
        parts = [factor()]
        while (tok := peek()) and tok == ("word", "AND"):
            take()
            parts.append(factor())
        return lambda item: all(part(item) for part in parts)

    def factor() -> Callable[[Json], bool]:
        kind, value = take()
        if kind == "lp":
            inner = expr()
            if take()[0] != "rp":
                raise ApiError(400, "Invalid query: missing )")
            return inner
        if kind != "word":
            raise ApiError(400, f"Invalid query: expected a field, got {value!r}")
        op_kind, op = take()
        if op_kind != "op":
            raise ApiError(400, f"Invalid query: expected an operator after {value}")
        literal = _literal(*take())
        return lambda item: _compare(_field(item, value), op, literal)

    predicate = expr()
    if pos != len(tokens):
        raise ApiError(400, "Invalid query: trailing input")
    return predicate


def _literal(kind: str, text: str) -> object:
    if kind == "str":
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    if kind != "word":
        raise ApiError(400, f"Invalid query: expected a value, got {text!r}")
    if text in ("null", "true", "false"):
        return {"null": None, "true": True, "false": False}[text]
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _field(item: Json, dotted: str) -> object:
    value: object = item
    for key in dotted.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def _as_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not re.match(r"^\d{4}-\d{2}-\d{2}", value):
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _compare(actual: object, op: str, expected: object) -> bool:
    if op in ("~", "!~"):
        found = str(expected).lower() in str(actual or "").lower()
        return found if op == "~" else not found
    if op in ("=", "!="):
        same = actual == expected or (
            actual is not None and expected is not None and str(actual) == str(expected)
        )
        return same if op == "=" else not same
    left, right = _as_time(actual), _as_time(expected)
    if left is None or right is None:
        return False
    return {">": left > right, ">=": left >= right, "<": left < right, "<=": left <= right}[op]


# --- the emulator ---------------------------------------------------------------------------------


Handler = Callable[..., Reply]


class BitbucketEmulator:
    """The server state and the REST routes; `serve()` starts the API and proxy listeners."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lock = threading.RLock()
        self.log = RequestLog()
        self.users: dict[str, User] = {}
        self.members: set[str] = set()
        self.tokens: dict[str, Token] = {}
        self.repos: dict[tuple[str, str], Repo] = {}
        self.tasks: dict[str, Task] = {}
        self.failures: list[tuple[int, int | None]] = []
        self.lost_answers: list[tuple[str, str, int]] = []
        self.merge_task_polls: int | None = 2
        self.page_cap: int | None = None  # a server-side page size below what clients ask for
        self.searches: list[str] = []  # every code search's search_query, in order
        self.unindexed: set[str] = set()  # workspace/slug of repos code search has not indexed
        self.sync_merges = False
        self.merge_failures: list[tuple[str, str]] = []
        self.build_result = "SUCCESSFUL"  # what a pull-request pipeline reports when it runs
        self.miss_force_pushes = False  # as Bitbucket can: a force-pushed PR head shows the old commit
        self.proxy_user = PIPELINES
        self.comment_ids = itertools.count(1001)
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        # Bitbucket's rolling-hour limit on /2.0/repositories/* per user (1,000 for a small workspace,
        # scaled up to 10,000), told in X-RateLimit-* headers; past it, 429 with a text/plain body and,
        # as Bitbucket Cloud answers, no Retry-After (`limit_retry_after`: with one). Requests are
        # counted per account (per credential when it names none); `limit_clock` is swappable for a
        # fake or a faster clock, and `spend_hour_on` plays another job on the same account.
        self.request_limit = 1000
        self.limit_retry_after: int | None = None
        self.limit_clock: Callable[[], float] = time.monotonic
        self.counted: dict[str, list[float]] = {}
        self.refused_requests = 0
        self.api_url = ""
        self.proxy_url = ""
        self._servers: list[ThreadingHTTPServer] = []
        self.routes: list[tuple[str, re.Pattern[str], Handler, str | None]] = []
        self._add_routes()
        self.user(PIPELINES, member=False)

    # users and tokens

    def user(self, nickname: str, *, member: bool = True) -> User:
        with self.lock:
            if nickname not in self.users:
                account_id = f"557058:{uuidlib.uuid5(uuidlib.NAMESPACE_DNS, nickname)}"
                self.users[nickname] = User(
                    nickname=nickname,
                    display_name=nickname.replace("-", " ").title(),
                    account_id=account_id,
                    uuid="{" + str(uuidlib.uuid5(uuidlib.NAMESPACE_URL, nickname)) + "}",
                    email=f"{nickname}@example.invalid",
                )
            if member:
                self.members.add(nickname)
            return self.users[nickname]

    def new_token(self, user: str, scopes: tuple[str, ...] = WRITE_SCOPES, *, api_token: bool = False) -> str:
        """A token built at run time (never a literal in the repository)."""
        account = self.user(user)
        secret = ("ATATT3x" if api_token else "ATCTT3x") + secrets.token_urlsafe(24)
        self.tokens[secret] = Token(user, scopes, account.email if api_token else None)
        return secret

    # serving

    def serve(self) -> None:
        api = _server(self, proxy=False)
        proxy = _server(self, proxy=True)
        self._servers = [api, proxy]
        for server in self._servers:
            threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        self.api_url = f"http://127.0.0.1:{api.server_address[1]}/"
        self.proxy_url = f"http://127.0.0.1:{proxy.server_address[1]}"

    def shutdown(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()

    def handle(self, method: str, target: str, headers: dict[str, str], raw: bytes, proxy: bool) -> Reply:
        parts = urlsplit(target)
        logged = parts.path + (f"?{parts.query}" if parts.query else "")
        with self.lock:
            self.log.entries.append((method, logged))
            limited = parts.path.startswith("/2.0/repositories/")
            who = self._account(headers, proxy)
            if limited and not self._count(who):
                retry = {} if self.limit_retry_after is None else {"Retry-After": str(self.limit_retry_after)}
                return _rate_limited({**self._limit_headers(0), **retry})
            try:
                if self.failures:
                    status, retry_after = self.failures.pop(0)
                    extra = {"Retry-After": str(retry_after)} if retry_after is not None else {}
                    if status == 429:
                        return _rate_limited(extra)
                    raise ApiError(
                        status,
                        "Rate limit for this resource has been exceeded"
                        if status == 429
                        else "Something went wrong",
                        headers=extra,
                    )
                reply = self._dispatch(method, parts.path, parts.query, headers, raw, proxy)
                if limited:
                    reply.headers.update(self._limit_headers(self._left(who)))
                for lost in self.lost_answers:
                    if lost[0] == method and lost[1] in parts.path:
                        self.lost_answers.remove(lost)
                        raise ApiError(lost[2], "Something went wrong")
                return reply
            except ApiError as exc:
                error: Json = {"message": exc.message}
                if exc.detail is not None:
                    error["detail"] = exc.detail
                return Reply(exc.status, {"type": "error", "error": error}, exc.headers)

    def _account(self, headers: dict[str, str], proxy: bool) -> str:
        """Whose hour a request counts against: its account's (Bitbucket counts authenticated calls by
        user), else its credential's."""
        try:
            return self._authenticate(headers, proxy)[0].nickname
        except ApiError:
            return headers.get("authorization", "")

    def spend_hour_on(self, user: str, ago: float = 0.0) -> None:
        """Another job on `user`'s account sent the hour's whole budget `ago` seconds ago (on
        `limit_clock`): every request to /2.0/repositories/* is refused until those age out of the
        rolling hour."""
        with self.lock:
            self.counted[user] = [self.limit_clock() - ago] * self.request_limit

    def _count(self, who: str) -> bool:
        """Count one request against `who`'s rolling hour; False (not counted) when none is left."""
        now = self.limit_clock()
        sent = [t for t in self.counted.get(who, []) if t > now - 3600]
        self.counted[who] = sent
        if len(sent) >= self.request_limit:
            self.refused_requests += 1
            return False
        sent.append(now)
        return True

    def _left(self, who: str) -> int:
        return self.request_limit - len(self.counted.get(who, []))

    def _limit_headers(self, left: int) -> dict[str, str]:
        headers = {"X-RateLimit-Limit": str(self.request_limit), "X-RateLimit-Resource": "api.repositories"}
        if left < self.request_limit // 5:
            headers["X-RateLimit-NearLimit"] = "true"
        return headers

    def _dispatch(
        self, method: str, path: str, query: str, headers: dict[str, str], raw: bytes, proxy: bool
    ) -> Reply:
        if not path.startswith("/2.0/"):
            raise ApiError(404, f"Resource not found: {path}")
        rel = path[len("/2.0") :]
        body = json.loads(raw) if raw.strip() else None
        repeated = parse_qs(query, keep_blank_values=True)
        params = {key: values[-1] for key, values in repeated.items()}
        for verb, pattern, handler, scope in self.routes:
            match = pattern.fullmatch(rel)
            if verb != method or not match:
                continue
            user, scopes, access = self._authenticate(headers, proxy)
            if scope and not _has_scope(scopes, scope):
                raise ApiError(
                    403,
                    "Your credentials lack one or more required privilege scopes.",
                    {"granted": list(scopes), "required": [scope]},
                )
            base = "http://api.bitbucket.org/2.0" if proxy else f"{self.api_url.rstrip('/')}/2.0"
            request = Request(method, rel, params, body, user, scopes, base, access, repeated)
            return handler(request, **{k: unquote(v) for k, v in match.groupdict().items()})
        raise ApiError(404, f"Resource not found: {method} {rel}")

    def _authenticate(self, headers: dict[str, str], proxy: bool) -> tuple[User, tuple[str, ...], bool]:
        if proxy:
            return self.users[self.proxy_user], ("repository:write", "pullrequest:write"), False
        header = headers.get("authorization", "")
        token: Token | None = None
        access = False
        if header.startswith("Bearer "):
            token = self.tokens.get(header[len("Bearer ") :].strip())
            access = True
            if token is not None and token.email is not None:
                token = None  # an API token must come with its email (Basic)
        elif header.startswith("Basic "):
            try:
                email, _, secret = base64.b64decode(header[len("Basic ") :]).decode().partition(":")
            except ValueError:
                email, secret = "", ""
            token = self.tokens.get(secret)
            if token is not None and token.email != email:
                token = None
        if token is None or token.revoked:
            raise ApiError(401, "Token is invalid, expired, or not supported for this endpoint.")
        return self.users[token.user], token.scopes, access

    # helpers used by handlers

    def repo(self, workspace: str, slug: str) -> Repo:
        found = self.repos.get((workspace.lower(), slug.lower()))
        if found is None:
            raise ApiError(404, f"Repository {workspace}/{slug} not found")
        return found

    def permission(self, repo: Repo, user: User) -> str:
        if user.nickname == PIPELINES:
            return "write"
        if user.nickname in repo.permissions:
            return repo.permissions[user.nickname]
        return "write" if user.nickname in self.members else "none"

    def need(self, repo: Repo, user: User, level: str) -> None:
        have = self.permission(repo, user)
        if _PERMISSION_RANK[have] < _PERMISSION_RANK[level]:
            if have == "none":
                raise ApiError(404, f"Repository {repo.full_name} not found")
            raise ApiError(403, f"You need {level} access to {repo.full_name} for this action.")

    def pull(self, repo: Repo, number: str | int) -> Pull:
        found = repo.pulls.get(int(number))
        if found is None:
            raise ApiError(404, f"Pull request #{number} not found in {repo.full_name}")
        return found

    def source_sha(self, repo: Repo, pull: Pull) -> str:
        if pull.state == "OPEN":
            live = rev(repo.bare, f"refs/heads/{pull.source}")
            if live:
                pull.source_sha = self._seen_tip(repo, pull.source, live) if self.miss_force_pushes else live
        return pull.source_sha

    @staticmethod
    def _seen_tip(repo: Repo, branch: str, live: str) -> str:
        """The branch tip as a Bitbucket that misses force pushes sees it: each push in the branch's
        reflog moves it only when it was a fast-forward, so after a force push the PR keeps showing
        the old head until an ordinary push lands on top (the repo must log ref updates)."""
        listed = git(repo.bare, "reflog", "show", "--format=%H", f"refs/heads/{branch}", check=False).split()
        if not listed:
            return live
        tips = list(reversed(listed))
        seen = tips[0]
        for old, new in itertools.pairwise(tips):
            ancestor = subprocess.run(
                ["git", "--git-dir", str(repo.bare), "merge-base", "--is-ancestor", old, new], check=False
            )
            if ancestor.returncode == 0:
                seen = new
        return seen

    def page(self, request: Request, values: list[Json], default: int = 10, maximum: int = 100) -> Reply:
        try:
            pagelen = max(
                1, min(int(request.query.get("pagelen", default)), maximum, self.page_cap or maximum)
            )
            number = max(1, int(request.query.get("page", 1)))
        except ValueError as exc:
            raise ApiError(400, "pagelen and page must be numbers") from exc
        chunk = values[(number - 1) * pagelen : number * pagelen]
        body: Json = {"pagelen": pagelen, "size": len(values), "page": number, "values": chunk}
        if number * pagelen < len(values):
            query = {**request.query, "page": str(number + 1)}
            body["next"] = f"{request.base}{quote(request.path)}?{urlencode(query)}"
        if number > 1:
            query = {**request.query, "page": str(number - 1)}
            body["previous"] = f"{request.base}{quote(request.path)}?{urlencode(query)}"
        return Reply(200, body)

    # JSON renderings

    def pull_json(self, request: Request, repo: Repo, pull: Pull, full: bool = True) -> Json:
        self_href = f"{request.base}/repositories/{repo.full_name}/pullrequests/{pull.id}"
        data: Json = {
            "type": "pullrequest",
            "id": pull.id,
            "title": pull.title,
            "description": pull.description,
            "summary": {"raw": pull.description, "markup": "markdown", "html": ""},
            "state": pull.state,
            "author": self.users[pull.author].json(),
            "source": self._endpoint(repo, pull.source, self.source_sha(repo, pull)),
            "destination": self._endpoint(repo, pull.destination, self._dest_sha(repo, pull)),
            "merge_commit": {"type": "commit", "hash": pull.merge_commit[:12]} if pull.merge_commit else None,
            "comment_count": sum(1 for c in pull.comments if not c.deleted),
            "task_count": 0,
            "close_source_branch": pull.close_source_branch,
            "closed_by": self.users[pull.closed_by].json() if pull.closed_by else None,
            "reason": "",
            "created_on": iso(pull.created),
            "updated_on": iso(pull.updated),
            "links": {
                "self": {"href": self_href},
                "html": {"href": f"https://bitbucket.org/{repo.full_name}/pull-requests/{pull.id}"},
                "commits": {"href": f"{self_href}/commits"},
                "comments": {"href": f"{self_href}/comments"},
                "merge": {"href": f"{self_href}/merge"},
                "decline": {"href": f"{self_href}/decline"},
                "diffstat": {"href": f"{self_href}/diffstat"},
            },
        }
        if full:
            approved = self.live_approvals(repo, pull)
            data["reviewers"] = [self.users[name].json() for name in pull.reviewers]
            data["participants"] = [
                {
                    "type": "participant",
                    "user": self.users[name].json(),
                    "role": "REVIEWER" if name in pull.reviewers else "PARTICIPANT",
                    "approved": name in approved,
                    "state": "approved" if name in approved else None,
                    "participated_on": iso(pull.updated) if name in approved else None,
                }
                for name in [*pull.reviewers, *(a for a in approved if a not in pull.reviewers)]
            ]
        return data

    def _dest_sha(self, repo: Repo, pull: Pull) -> str:
        if pull.state == "MERGED" and pull.base_sha:
            return pull.base_sha
        return rev(repo.bare, f"refs/heads/{pull.destination}") or ""

    def _endpoint(self, repo: Repo, branch: str, sha: str) -> Json:
        return {
            "branch": {"name": branch},
            "commit": {"type": "commit", "hash": sha[:12]},
            "repository": repo.mini(),
        }

    def comment_json(self, request: Request, repo: Repo, pull: Pull, comment: Comment) -> Json:
        href = f"{request.base}/repositories/{repo.full_name}/pullrequests/{pull.id}/comments/{comment.id}"
        data: Json = {
            "type": "pullrequest_comment",
            "id": comment.id,
            "created_on": iso(comment.created),
            "updated_on": iso(comment.updated or comment.created),
            "content": {"raw": "" if comment.deleted else comment.raw, "markup": "markdown", "html": ""},
            "user": self.users[comment.user].json(),
            "deleted": comment.deleted,
            "pending": False,
            "pullrequest": {"type": "pullrequest", "id": pull.id, "title": pull.title},
            "links": {
                "self": {"href": href},
                "html": {
                    "href": f"https://bitbucket.org/{repo.full_name}/pull-requests/{pull.id}/_/diff#comment-{comment.id}"
                },
            },
        }
        if comment.inline is not None:
            data["inline"] = dict(comment.inline)
        if comment.parent is not None:
            data["parent"] = {
                "id": comment.parent,
                "links": {"self": {"href": href.rsplit("/", 1)[0] + f"/{comment.parent}"}},
            }
        return data

    def commit_json(self, request: Request, repo: Repo, commit: Json) -> Json:
        return {
            "type": "commit",
            "hash": commit["sha"],
            "date": iso(commit["date"]),
            "author": self._commit_author(commit),
            "message": commit["message"],
            "summary": {"raw": commit["message"], "markup": "markdown", "html": ""},
            "parents": [{"type": "commit", "hash": parent} for parent in commit["parents"]],
            "repository": repo.mini(),
            "links": {
                "self": {"href": f"{request.base}/repositories/{repo.full_name}/commit/{commit['sha']}"}
            },
        }

    def _commit_author(self, commit: Json) -> Json:
        """The commit's author as Bitbucket shows it: the raw `Name <email>`, and the account the
        email belongs to as `user` (absent when it belongs to none)."""
        author: Json = {"type": "author", "raw": commit["author"]}
        email = str(commit.get("email") or "").lower()
        account = next((u for u in self.users.values() if email and u.email.lower() == email), None)
        if account is not None:
            author["user"] = account.json()
        return author

    # routes

    def _add_routes(self) -> None:
        repo = r"/repositories/(?P<ws>[^/]+)/(?P<slug>[^/]+)"
        pr = repo + r"/pullrequests/(?P<number>\d+)"
        report = repo + r"/commit/(?P<sha>[^/]+)/reports/(?P<report>[^/]+)"
        table: list[tuple[str, str, Handler, str | None]] = [
            ("GET", r"/user", self.get_user, None),
            ("GET", r"/user/permissions/repositories", self.get_permissions, None),
            ("GET", r"/workspaces/(?P<ws>[^/]+)/members", self.get_members, "account"),
            ("GET", repo, self.get_repo, "repository"),
            ("GET", repo + r"/refs/branches/(?P<branch>.+)", self.get_branch, "repository"),
            ("GET", repo + r"/src/(?P<commit>[^/]+)/(?P<path>.+)", self.get_src, "repository"),
            ("GET", repo + r"/src/(?P<commit>[^/]+)/?", self.list_src, "repository"),
            ("GET", r"/workspaces/(?P<ws>[^/]+)/search/code", self.search_code, "repository"),
            ("GET", repo + r"/pullrequests", self.list_pulls, "pullrequest"),
            ("POST", repo + r"/pullrequests", self.create_pull, "pullrequest:write"),
            ("GET", pr, self.get_pull, "pullrequest"),
            ("PUT", pr, self.update_pull, "pullrequest:write"),
            ("GET", pr + r"/comments", self.list_comments, "pullrequest"),
            ("POST", pr + r"/comments", self.create_comment, "pullrequest"),
            ("GET", pr + r"/comments/(?P<comment>\d+)", self.get_comment, "pullrequest"),
            ("PUT", pr + r"/comments/(?P<comment>\d+)", self.update_comment, "pullrequest"),
            ("GET", pr + r"/commits", self.list_pull_commits, "pullrequest"),
            ("GET", pr + r"/diffstat", self.pull_diffstat, "pullrequest"),
            ("POST", pr + r"/decline", self.decline, "pullrequest:write"),
            ("POST", pr + r"/merge", self.merge, "pullrequest:write"),
            ("GET", pr + r"/merge/task-status/(?P<task>[^/]+)", self.task_status, "pullrequest"),
            ("GET", repo + r"/diffstat/(?P<spec>[^/]+)", self.get_diffstat, "repository"),
            ("GET", repo + r"/diff/(?P<spec>[^/]+)", self.get_diff, "repository"),
            ("GET", repo + r"/branch-restrictions", self.list_restrictions, "repository:admin"),
            ("POST", repo + r"/branch-restrictions", self.create_restriction, "repository:admin"),
            ("POST", repo + r"/commit/(?P<sha>[^/]+)/statuses/build", self.post_build, "repository"),
            ("GET", repo + r"/commit/(?P<sha>[^/]+)/statuses", self.list_statuses, "repository"),
            ("POST", pr + r"/approve", self.approve, "pullrequest:write"),
            ("GET", repo + r"/pipelines_config/schedules/?", self.list_schedules, "pipeline"),
            ("POST", repo + r"/pipelines_config/schedules/?", self.create_schedule, "pipeline:write"),
            ("GET", repo + r"/pipelines_config/schedules/(?P<uuid>[^/]+)", self.get_schedule, "pipeline"),
            (
                "DELETE",
                repo + r"/pipelines_config/schedules/(?P<uuid>[^/]+)",
                self.delete_schedule,
                "pipeline:write",
            ),
            ("GET", repo + r"/commit/(?P<sha>[^/]+)/reports", self.list_reports, "repository"),
            ("PUT", report, self.put_report, "repository"),
            ("GET", report, self.get_report, "repository"),
            ("DELETE", report, self.delete_report, "repository"),
            ("POST", report + r"/annotations", self.post_annotations, "repository"),
            ("GET", report + r"/annotations", self.list_annotations, "repository"),
        ]
        self.routes = [(verb, re.compile(path), handler, scope) for verb, path, handler, scope in table]

    def get_user(self, request: Request) -> Reply:
        headers = {"X-OAuth-Scopes": ", ".join(request.scopes)} if request.access_token else {}
        return Reply(200, request.user.json(), headers)

    def get_permissions(self, request: Request) -> Reply:
        values: list[Json] = []
        if not request.access_token:  # access tokens are not users: Bitbucket lists nothing for them
            for found in self.repos.values():
                level = self.permission(found, request.user)
                if level != "none":
                    values.append(
                        {
                            "type": "repository_permission",
                            "permission": level,
                            "user": request.user.json(),
                            "repository": found.mini(),
                        }
                    )
        if "q" in request.query:
            values = [value for value in values if bbql(request.query["q"])(value)]
        return self.page(request, values)

    def get_members(self, request: Request, ws: str) -> Reply:
        values = [
            {"type": "workspace_membership", "user": self.users[name].json(), "workspace": {"slug": ws}}
            for name in sorted(self.members)
        ]
        return self.page(request, values, default=50, maximum=100)

    def get_repo(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        return Reply(
            200,
            {
                **found.mini(),
                "slug": found.slug,
                "is_private": found.private,
                "mainbranch": {"type": "branch", "name": found.default_branch},
            },
        )

    def get_branch(self, request: Request, ws: str, slug: str, branch: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        sha = rev(found.bare, f"refs/heads/{branch}")
        if sha is None:
            raise ApiError(404, f"Branch {branch} not found")
        commit = log_commits(found.bare, sha, f"{sha}~1" if rev(found.bare, f"{sha}~1") else None)[0]
        return Reply(
            200, {"type": "branch", "name": branch, "target": self.commit_json(request, found, commit)}
        )

    def get_src(self, request: Request, ws: str, slug: str, commit: str, path: str) -> Reply:
        """A file's raw bytes at a commit or branch (`/src/{commit}/{path}`), a folder's listing as
        a page of entries, 404 for neither, as Bitbucket's src endpoint answers."""
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        sha = rev(found.bare, f"refs/heads/{commit}") or rev(found.bare, commit)
        if sha is None:
            raise ApiError(404, f"Commit not found: {commit}")
        path = path.rstrip("/")
        kind = git(found.bare, "cat-file", "-t", f"{sha}:{path}", check=False).strip()
        if kind == "blob":
            data = subprocess.run(
                ["git", "--git-dir", str(found.bare), "cat-file", "blob", f"{sha}:{path}"],
                capture_output=True,
                check=True,
            ).stdout
            return Reply(200, data, {"Content-Type": "text/plain"})
        if kind == "tree":
            names = git(found.bare, "ls-tree", "--name-only", f"{sha}:{path}").splitlines()
            values = [{"type": "commit_file", "path": f"{path}/{name}"} for name in names]
            return self.page(request, values)
        raise ApiError(404, f"No such file or directory: {path}")

    def list_src(self, request: Request, ws: str, slug: str, commit: str) -> Reply:
        """The root folder's listing at a commit; `max_depth` lists the folders below it too, as
        Bitbucket does (default 1: the root only), paged at most 100 entries a page."""
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        sha = rev(found.bare, commit) or rev(found.bare, f"refs/heads/{commit}")
        if sha is None:
            raise ApiError(404, f"Commit {commit} not found")
        depth = int(request.query.get("max_depth", "1") or 1)
        out = git(found.bare, "ls-tree", "-r", "-t", "-z", sha)
        values: list[Json] = []
        for item in out.split("\0"):
            if not item:
                continue
            meta, path = item.split("\t", 1)
            if path.count("/") < depth:
                kind = "commit_file" if meta.split()[1] == "blob" else "commit_directory"
                values.append({"type": kind, "path": path, "commit": {"hash": sha}})
        return self.page(request, values)

    def search_code(self, request: Request, ws: str) -> Reply:
        """The workspace code search: `"term" repo:slug`, files of each repo's main branch holding the
        term as a whole word; `content_matches` (lines of code) unless `fields` leaves them out."""
        query = request.query.get("search_query", "")
        self.searches.append(query)
        slugs = re.findall(r"(?:^|\s)repo:(\S+)", query)
        terms = re.findall(r'"([^"]+)"', query)
        if not terms:
            raise ApiError(400, "search_query needs a term")
        values: list[Json] = []
        for found in self.repos.values():
            if found.workspace != ws or (slugs and found.slug not in slugs):
                continue
            if self.permission(found, request.user) == "none" or found.full_name in self.unindexed:
                continue
            sha = rev(found.bare, f"refs/heads/{found.default_branch}")
            for path in git(found.bare, "ls-tree", "-r", "--name-only", sha or "HEAD").splitlines():
                if path.rpartition("/")[2] in terms:  # file names match too
                    values.append(
                        {
                            "type": "code_search_result",
                            "content_match_count": 0,
                            "content_matches": [],
                            "path_matches": [{"text": path}],
                            "file": {"path": path, "type": "commit_file"},
                        }
                    )
            args = [arg for term in terms for arg in ("-e", term)]
            out = git(found.bare, "grep", "-l", "-w", "-F", *args, sha or "HEAD", "--", check=False)
            for line in out.splitlines():
                path = line.split(":", 1)[1]
                values.append(
                    {
                        "type": "code_search_result",
                        "content_match_count": 1,
                        "content_matches": [{"lines": [{"line": 1, "segments": [{"text": terms[0]}]}]}],
                        "path_matches": [],
                        "file": {"path": path, "type": "commit_file"},
                    }
                )
        reply = self.page(request, values)
        if request.query.get("fields"):
            wanted = request.query["fields"].split(",")
            body = reply.body
            kept: Json = {
                k: body[k] for k in ("size", "page", "pagelen", "next") if k in body and k in wanted
            }
            if "values.file.path" in wanted:
                kept["values"] = [{"file": {"path": v["file"]["path"]}} for v in body["values"]]
            reply = Reply(200, kept)
        return reply

    def list_pulls(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        states = [state.upper() for state in request.query.get("state", "OPEN").split(",")]
        values = [
            self.pull_json(request, found, p, full=False) for p in found.pulls.values() if p.state in states
        ]
        if "q" in request.query:
            values = [value for value in values if bbql(request.query["q"])(value)]
        sort = request.query.get("sort", "-id")
        key = sort.lstrip("-")
        values.sort(
            key=lambda value: str(_field(value, key)) if key != "id" else f"{value['id']:09d}",
            reverse=sort.startswith("-"),
        )
        return self.page(request, values, default=10, maximum=50)

    def create_pull(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        body = request.body or {}
        source = _field(body, "source.branch.name")
        if not isinstance(source, str) or not body.get("title"):
            raise ApiError(400, "title and source.branch.name are required")
        if rev(found.bare, f"refs/heads/{source}") is None:
            raise ApiError(400, f"source: branch {source} not found", {"source": ["branch not found"]})
        destination = _field(body, "destination.branch.name") or found.default_branch
        now = self.clock()
        number = max(found.pulls, default=0) + 1
        pull = Pull(
            id=number,
            title=str(body["title"]),
            description=str(body.get("description") or ""),
            author=request.user.nickname,
            source=source,
            destination=str(destination),
            created=now,
            updated=now,
            close_source_branch=bool(body.get("close_source_branch")),
        )
        pull.reviewers = self._reviewers(body.get("reviewers") or [], pull)
        found.pulls[number] = pull
        self._pin(found, pull)
        self.run_pipelines(found)
        data = self.pull_json(request, found, pull)
        return Reply(201, data, {"Location": data["links"]["self"]["href"]})

    def run_pipelines(self, repo: Repo) -> None:
        """Each open PR whose source moved since its last pipeline gets one: Pipelines starts a
        `pull-requests:` pipeline (a glob on the source branch) on the PR's creation and on every push to
        its branch, whoever pushed, unless the head commit says [skip ci] or [ci skip]. Its build status
        is `build_result`."""
        for pull in repo.pulls.values():
            head = self.source_sha(repo, pull) if pull.state == "OPEN" else ""
            if not head or head == pull.pipelines_seen:
                continue
            pull.pipelines_seen = head
            message = git(repo.bare, "log", "-1", "--format=%B", head).lower()
            if "[skip ci]" in message or "[ci skip]" in message:
                continue
            if self._pull_request_pipeline(repo, head, pull.source):
                status = {
                    "type": "commitstatus",
                    "key": f"pipeline-{len(repo.builds) + 1}",
                    "state": self.build_result,
                }
                repo.builds.setdefault(head, []).append(status)

    @staticmethod
    def _pull_request_pipeline(repo: Repo, sha: str, source: str) -> bool:
        text = git(repo.bare, "show", f"{sha}:bitbucket-pipelines.yml", check=False)
        try:
            spec = yaml.safe_load(text) if text else None
        except yaml.YAMLError:
            return False
        pipelines = spec.get("pipelines") if isinstance(spec, dict) else None
        globs = (pipelines or {}).get("pull-requests") if isinstance(pipelines, dict) else None
        if not isinstance(globs, dict):
            return False
        return any(fnmatch.fnmatchcase(source, str(glob).replace("**", "*")) for glob in globs)

    def list_statuses(self, request: Request, ws: str, slug: str, sha: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        self.run_pipelines(found)
        return self.page(
            request, list(found.builds.get(self._commit(found, sha), [])), default=10, maximum=100
        )

    def approve(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        pull = self.pull(found, number)
        if request.user.nickname == pull.author:
            raise ApiError(400, "You can't approve your own pull request.")
        self.add_approval(found, pull, request.user.nickname)
        return Reply(200, {"type": "participant", "user": request.user.json(), "approved": True})

    def add_approval(self, repo: Repo, pull: Pull, user: str) -> None:
        if user not in pull.approvals:
            pull.approvals.append(user)
        pull.approved_at[user] = self.source_sha(repo, pull)

    def live_approvals(self, repo: Repo, pull: Pull) -> list[str]:
        """The approvals still on the PR. With "Reset approvals when the source branch is modified" (or
        its Premium variant) on the destination, Bitbucket removes an approval when the source branch
        moves; the emulator's bare git names no push, so an approval given at another source commit is
        taken as removed."""
        resets = any(
            r["kind"] in ("reset_pullrequest_approvals_on_change", "smart_reset_pullrequest_approvals")
            and _glob_matches(str(r["pattern"]), pull.destination)
            for r in repo.restrictions
        )
        if not resets:
            return list(pull.approvals)
        head = self.source_sha(repo, pull)
        return [name for name in pull.approvals if pull.approved_at.get(name) == head]

    def _pin(self, repo: Repo, pull: Pull) -> None:
        """Keep the PR's commits reachable after its branch is deleted, as Bitbucket does."""
        sha = self.source_sha(repo, pull)
        if sha:
            git(repo.bare, "update-ref", f"refs/pull-requests/{pull.id}/from", sha)

    def _reviewers(self, wanted: list[Json], pull: Pull) -> list[str]:
        names: list[str] = []
        for item in wanted:
            account = next(
                (
                    u
                    for u in self.users.values()
                    if any(
                        item.get(k) and item.get(k) == getattr(u, k)
                        for k in ("uuid", "account_id", "nickname")
                    )
                ),
                None,
            )
            if account is None:
                raise ApiError(400, f"reviewers: no such user {item}", {"reviewers": ["unknown user"]})
            if account.nickname == pull.author:
                raise ApiError(
                    400, f"{account.display_name} is the author and cannot be included as a reviewer."
                )
            if account.nickname not in names:
                names.append(account.nickname)
        return names

    def get_pull(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        return Reply(200, self.pull_json(request, found, self.pull(found, number)))

    def update_pull(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        pull = self.pull(found, number)
        if pull.state != "OPEN":
            raise ApiError(400, f"You can't edit a pull request that is {pull.state.lower()}.")
        body = request.body or {}
        if "title" in body:
            pull.title = str(body["title"])
        if "description" in body:
            pull.description = str(body["description"] or "")
        destination = _field(body, "destination.branch.name")
        if isinstance(destination, str):
            pull.destination = destination
        if "reviewers" in body:
            pull.reviewers = self._reviewers(body["reviewers"] or [], pull)
        pull.updated = self.clock()
        return Reply(200, self.pull_json(request, found, pull))

    def list_comments(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        pull = self.pull(found, number)
        values = [
            self.comment_json(request, found, pull, c) for c in sorted(pull.comments, key=lambda c: c.id)
        ]
        if "q" in request.query:
            values = [value for value in values if bbql(request.query["q"])(value)]
        return self.page(request, values, default=10, maximum=100)

    def get_comment(self, request: Request, ws: str, slug: str, number: str, comment: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        pull = self.pull(found, number)
        for item in pull.comments:
            if item.id == int(comment):
                return Reply(200, self.comment_json(request, found, pull, item))
        raise ApiError(404, f"Comment {comment} not found")

    def update_comment(self, request: Request, ws: str, slug: str, number: str, comment: str) -> Reply:
        """Only a comment's author may change it; `updated_on` then shows the edit."""
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        pull = self.pull(found, number)
        item = next((c for c in pull.comments if c.id == int(comment) and not c.deleted), None)
        if item is None:
            raise ApiError(404, f"Comment {comment} not found")
        if item.user != request.user.nickname:
            raise ApiError(403, "You can only edit your own comments")
        raw = _field(request.body or {}, "content.raw")
        if not isinstance(raw, str) or not raw:
            raise ApiError(400, "content.raw is required", {"content": ["required"]})
        item.raw, item.updated = raw, self.clock()
        return Reply(200, self.comment_json(request, found, pull, item))

    def create_comment(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        pull = self.pull(found, number)
        body = request.body or {}
        raw = _field(body, "content.raw")
        if not isinstance(raw, str) or not raw:
            raise ApiError(400, "content.raw is required", {"content": ["required"]})
        parent = _field(body, "parent.id")
        inline = body.get("inline") if isinstance(body.get("inline"), dict) else None
        comment = self.add_comment(found, pull, request.user.nickname, raw, self.clock(), inline, parent)
        return Reply(201, self.comment_json(request, found, pull, comment))

    def add_comment(
        self,
        repo: Repo,
        pull: Pull,
        user: str,
        raw: str,
        when: datetime,
        inline: Json | None = None,
        parent: object = None,
    ) -> Comment:
        parent_id = int(parent) if isinstance(parent, (int, str)) and str(parent).isdigit() else None
        if parent_id is not None:
            parent_comment = next((c for c in pull.comments if c.id == parent_id), None)
            if parent_comment is None:
                raise ApiError(400, f"parent: comment {parent_id} not found on this pull request")
            inline = inline or parent_comment.inline  # replies to inline comments carry the anchor too
        if inline is not None:
            inline = {
                "from": inline.get("from"),
                "to": inline.get("to"),
                "path": str(inline.get("path") or ""),
            }
        comment = Comment(next(self.comment_ids), user, raw, when, inline, parent_id)
        pull.comments.append(comment)
        pull.updated = max(pull.updated, when)
        return comment

    def list_pull_commits(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        pull = self.pull(found, number)
        commits = self.pull_commits(found, pull)
        values = [self.commit_json(request, found, commit) for commit in commits]
        return self.page(request, values, default=10, maximum=100)

    def pull_commits(self, repo: Repo, pull: Pull) -> list[Json]:
        head = self.source_sha(repo, pull)
        if not head:
            return []
        base = (
            pull.base_sha
            if pull.state == "MERGED" and pull.base_sha
            else rev(repo.bare, f"refs/heads/{pull.destination}")
        )
        return log_commits(repo.bare, head, base)

    def pull_diffstat(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        pull = self.pull(found, number)
        head = self.source_sha(found, pull)
        base = self._dest_sha(found, pull)
        merge_base = git(found.bare, "merge-base", head, base, check=False).strip() or None
        return self.page(request, diffstat(found.bare, merge_base, head), default=500, maximum=500)

    def get_diffstat(self, request: Request, ws: str, slug: str, spec: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        base, new = self._spec_range(found, spec)
        return self.page(request, diffstat(found.bare, base, new), default=500, maximum=500)

    def get_diff(self, request: Request, ws: str, slug: str, spec: str) -> Reply:
        """The raw unified diff of `spec` as text/plain (no paging), limited to the repeated `path`
        parameters, with `context` lines around each change."""
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        base, new = self._spec_range(found, spec)
        context = int(request.query.get("context") or 3)
        text = unified_diff(found.bare, base, new, request.repeated.get("path", []), context)
        return Reply(200, text, {"Content-Type": "text/plain"})

    @staticmethod
    def _spec_range(found: Repo, spec: str) -> tuple[str | None, str]:
        """`a..b` is what a has since its merge base with b (git's `b...a`); one commit diffs its parent."""
        if ".." in spec:
            new_ref, old_ref = spec.split("..", 1)
            new, old = rev(found.bare, new_ref), rev(found.bare, old_ref)
            if new is None or old is None:
                raise ApiError(404, f"Commit not found: {spec}")
            return git(found.bare, "merge-base", new, old, check=False).strip() or None, new
        new = rev(found.bare, spec)
        if new is None:
            raise ApiError(404, f"Commit not found: {spec}")
        return rev(found.bare, f"{new}~1"), new

    def decline(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        pull = self.pull(found, number)
        if pull.state != "OPEN":
            raise ApiError(400, f"You can't decline a pull request that is {pull.state.lower()}.")
        self.close_pull(found, pull, request.user.nickname, self.clock())
        return Reply(200, self.pull_json(request, found, pull))

    def close_pull(self, repo: Repo, pull: Pull, user: str, when: datetime, state: str = "DECLINED") -> None:
        self.source_sha(repo, pull)
        pull.state, pull.closed_by, pull.updated = state, user, when

    def merge(self, request: Request, ws: str, slug: str, number: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        pull = self.pull(found, number)
        params = request.body or {}
        strategy = params.get("merge_strategy", "merge_commit")
        if strategy not in ("merge_commit", "squash", "fast_forward"):
            raise ApiError(400, f"merge_strategy: {strategy} is not a valid merge strategy")
        self.merge_checks(found, pull)
        if request.query.get("async", "false").lower() == "true" and not self.sync_merges:
            task = Task(
                secrets.token_hex(8),
                (found.workspace, found.slug),
                pull.id,
                self.merge_task_polls,
                request.user.nickname,
                params,
            )
            if self.merge_failures:
                task.failure, task.failure_shape = self.merge_failures.pop(0)
            self.tasks[task.id] = task
            pull_href = f"{request.base}/repositories/{found.full_name}/pullrequests/{pull.id}"
            location = f"{pull_href}/merge/task-status/{task.id}"
            return Reply(202, None, {"Location": location})
        self.do_merge(found, pull, request.user.nickname, params, self.clock())
        return Reply(200, self.pull_json(request, found, pull))

    def merge_checks(self, repo: Repo, pull: Pull) -> None:
        """Merge checks block only under "Prevent a merge with unresolved merge checks"
        (`enforce_merge_checks`, Premium); without it they warn in the UI and the merge goes through."""
        if pull.state != "OPEN":
            raise ApiError(400, f"You can't merge a pull request that is {pull.state.lower()}.")
        self.run_pipelines(repo)
        head = self.source_sha(repo, pull)
        applying = [r for r in repo.restrictions if _glob_matches(str(r["pattern"]), pull.destination)]
        if not any(r["kind"] == "enforce_merge_checks" for r in applying):
            return
        for restriction in applying:
            needed = int(restriction.get("value") or 1)
            if restriction["kind"] == "require_passing_builds_to_merge":
                passing = sum(1 for b in repo.builds.get(head, []) if b["state"] == "SUCCESSFUL")
                if passing < needed:
                    raise ApiError(
                        400,
                        f"Merge checks failed: the last commit needs at least {needed} successful build"
                        f"{'s' if needed != 1 else ''} and has {passing}.",
                        {"merge_checks": ["require_passing_builds_to_merge"]},
                    )
            elif restriction["kind"] == "require_approvals_to_merge":
                have = len([name for name in self.live_approvals(repo, pull) if name != pull.author])
                if have < needed:
                    raise ApiError(
                        400,
                        f"Merge checks failed: the pull request needs at least {needed} approval"
                        f"{'s' if needed != 1 else ''} and has {have}.",
                        {"merge_checks": ["require_approvals_to_merge"]},
                    )

    def do_merge(self, repo: Repo, pull: Pull, user: str, params: Json, when: datetime) -> None:
        source = self.source_sha(repo, pull)
        destination = rev(repo.bare, f"refs/heads/{pull.destination}")
        if not source or not destination:
            raise ApiError(409, "The source or destination branch no longer exists.")
        tree = merged_tree(repo.bare, source, destination)
        if tree is None:
            raise ApiError(409, "Conflicts during merge.")
        message = str(
            params.get("message") or f"Merged in {pull.source} (pull request #{pull.id})\n\n{pull.title}"
        )
        merger = self.users[user]
        env = {
            "GIT_AUTHOR_NAME": merger.display_name,
            "GIT_AUTHOR_EMAIL": merger.email,
            "GIT_COMMITTER_NAME": "Bitbucket",
            "GIT_COMMITTER_EMAIL": "noreply@bitbucket.invalid",
            "GIT_AUTHOR_DATE": git_date(when),
            "GIT_COMMITTER_DATE": git_date(when),
        }
        parents = ["-p", destination] + (
            ["-p", source] if params.get("merge_strategy") == "merge_commit" else []
        )
        commit = git(repo.bare, "commit-tree", tree, *parents, "-m", message, env=env).strip()
        git(repo.bare, "update-ref", f"refs/heads/{pull.destination}", commit, destination)
        close_branch = params.get("close_source_branch", pull.close_source_branch)
        if close_branch:
            git(repo.bare, "update-ref", "-d", f"refs/heads/{pull.source}", check=False)
        pull.base_sha, pull.merge_commit, pull.merge_message = destination, commit, message
        self.close_pull(repo, pull, user, when, state="MERGED")

    def task_status(self, request: Request, ws: str, slug: str, number: str, task: str) -> Reply:
        found = self.repo(ws, slug)
        item = self.tasks.get(task)
        if item is None or item.pull != int(number) or item.repo != (found.workspace, found.slug):
            raise ApiError(400, "The task ID does not relate to this pull request.")
        href = {"self": {"href": f"{request.base}{request.path}"}}
        if item.result is not None:
            return Reply(*item.result)
        if item.polls_left is None or item.polls_left > 0:
            if item.polls_left is not None:
                item.polls_left -= 1
            return Reply(200, {"task_status": "PENDING", "links": href})
        pull = self.pull(found, number)
        try:
            if item.failure is not None:
                raise ApiError(400, item.failure)
            self.merge_checks(found, pull)
            self.do_merge(found, pull, item.user, item.params, self.clock())
            item.result = (
                200,
                {
                    "task_status": "SUCCESS",
                    "links": href,
                    "merge_result": self.pull_json(request, found, pull),
                },
            )
        except ApiError as exc:
            if item.failure_shape == "status":
                item.result = (
                    200,
                    {"task_status": "FAILED", "links": href, "error": {"message": exc.message}},
                )
            else:
                item.result = (400, {"type": "error", "error": {"message": exc.message}})
        return Reply(*item.result)

    def list_restrictions(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "admin")
        values = list(found.restrictions)
        for key in ("kind", "pattern"):
            if key in request.query:
                values = [value for value in values if value.get(key) == request.query[key]]
        return self.page(request, values, default=10, maximum=100)

    def create_restriction(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "admin")
        return Reply(201, self.add_restriction(found, dict(request.body or {})))

    def add_restriction(self, repo: Repo, body: Json) -> Json:
        restriction = {
            "type": "branchrestriction",
            "id": len(repo.restrictions) + 1,
            "kind": body.get("kind"),
            "branch_match_kind": body.get("branch_match_kind", "glob"),
            "pattern": body.get("pattern", ""),
            "value": body.get("value"),
            "users": body.get("users", []),
            "groups": body.get("groups", []),
        }
        repo.restrictions.append(restriction)
        return restriction

    # Pipelines schedules: a custom pipeline on a branch, on a seven-field (Quartz) cron in UTC

    def list_schedules(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        return self.page(request, list(found.schedules), default=10, maximum=100)

    def get_schedule(self, request: Request, ws: str, slug: str, uuid: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        return Reply(200, self._schedule(found, uuid))

    def create_schedule(self, request: Request, ws: str, slug: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        body = request.body if isinstance(request.body, dict) else {}
        target = body.get("target") if isinstance(body.get("target"), dict) else {}
        selector = target.get("selector") if isinstance(target.get("selector"), dict) else {}
        if not body.get("cron_pattern") or not target.get("ref_name") or not selector.get("pattern"):
            raise ApiError(400, "cron_pattern, target.ref_name and target.selector.pattern are required")
        if target.get("ref_type") != "branch" or selector.get("type") != "custom":
            raise ApiError(400, "Only branch targets with a custom pipeline selector can be scheduled")
        fields = str(body["cron_pattern"]).split()
        if (
            len(fields) != 7
            or not all(_QUARTZ_FIELD.match(item) for item in fields)
            or "?" not in fields[3::2]
        ):
            raise ApiError(400, f"Invalid cron expression: {body['cron_pattern']}")
        now = iso(self.clock())
        schedule = {
            "type": "pipeline_schedule",
            "uuid": "{" + str(uuidlib.uuid4()) + "}",
            "enabled": bool(body.get("enabled", True)),
            "cron_pattern": str(body["cron_pattern"]),
            "target": {
                "type": "pipeline_ref_target",
                "ref_type": "branch",
                "ref_name": str(target["ref_name"]),
                "selector": {"type": "custom", "pattern": str(selector["pattern"])},
            },
            "created_on": now,
            "updated_on": now,
        }
        found.schedules.append(schedule)
        return Reply(201, schedule)

    def delete_schedule(self, request: Request, ws: str, slug: str, uuid: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        schedule = self._schedule(found, uuid)
        found.schedules.remove(schedule)
        return Reply(204)

    @staticmethod
    def _schedule(repo: Repo, uuid: str) -> Json:
        for schedule in repo.schedules:
            if schedule["uuid"] == uuid:
                return schedule
        raise ApiError(404, f"Schedule {uuid} not found")

    def post_build(self, request: Request, ws: str, slug: str, sha: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "write")
        full = self._commit(found, sha)
        status = {"type": "commitstatus", **(request.body or {})}
        found.builds.setdefault(full, []).append(status)
        return Reply(201, status)

    def _commit(self, repo: Repo, sha: str) -> str:
        full = rev(repo.bare, sha) if re.fullmatch(r"[0-9a-fA-F]{7,40}", sha) else None
        if full is None:
            raise ApiError(404, f"Commit {sha} not found")
        return full

    def list_reports(self, request: Request, ws: str, slug: str, sha: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        full = self._commit(found, sha)
        return self.page(
            request, [r for (c, _), r in found.reports.items() if c == full], default=10, maximum=100
        )

    def put_report(self, request: Request, ws: str, slug: str, sha: str, report: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        full = self._commit(found, sha)
        body = request.body
        if not isinstance(body, dict) or not body.get("title") or not body.get("report_type"):
            raise ApiError(400, "title and report_type are required", {"title": ["required"]})
        if len(body.get("data") or []) > 10:
            raise ApiError(400, "data: a report holds at most 10 data fields")
        if len(str(body.get("details") or "")) > 2000:  # Bitbucket's own message for it
            raise ApiError(400, "The details field cannot contain more than 2000 characters.")
        now = iso(self.clock())
        previous = found.reports.get((full, report))
        stored = {
            **body,
            "type": "report",
            "uuid": previous["uuid"] if previous else "{" + str(uuidlib.uuid4()) + "}",
            "external_id": report,
            "created_on": previous["created_on"] if previous else now,
            "updated_on": now,
        }
        found.reports[(full, report)] = stored
        found.annotations.setdefault((full, report), [])
        return Reply(200, stored)

    def get_report(self, request: Request, ws: str, slug: str, sha: str, report: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        stored = found.reports.get((self._commit(found, sha), report))
        if stored is None:
            raise ApiError(404, f"Report {report} not found")
        return Reply(200, stored)

    def delete_report(self, request: Request, ws: str, slug: str, sha: str, report: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        full = self._commit(found, sha)
        if found.reports.pop((full, report), None) is None:
            raise ApiError(404, f"Report {report} not found")
        found.annotations.pop((full, report), None)
        return Reply(204)

    def post_annotations(self, request: Request, ws: str, slug: str, sha: str, report: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        key = (self._commit(found, sha), report)
        if key not in found.reports:
            raise ApiError(404, f"Report {report} not found")
        batch = request.body
        if not isinstance(batch, list):
            raise ApiError(400, "Expected a JSON array of annotations")
        if len(batch) > 100:
            raise ApiError(400, f"You can upload at most 100 annotations per request, got {len(batch)}.")
        stored = found.annotations[key]
        created = []
        for item in batch:
            if not isinstance(item, dict) or not item.get("external_id") or not item.get("summary"):
                raise ApiError(400, "Every annotation needs external_id and summary")
            stored[:] = [a for a in stored if a["external_id"] != item["external_id"]]
            annotation = {**item, "type": "report_annotation", "uuid": "{" + str(uuidlib.uuid4()) + "}"}
            stored.append(annotation)
            created.append(annotation)
        if len(stored) > 1000:
            raise ApiError(400, "A report holds at most 1000 annotations.")
        return Reply(200, created)

    def list_annotations(self, request: Request, ws: str, slug: str, sha: str, report: str) -> Reply:
        found = self.repo(ws, slug)
        self.need(found, request.user, "read")
        key = (self._commit(found, sha), report)
        if key not in found.reports:
            raise ApiError(404, f"Report {report} not found")
        return self.page(request, list(found.annotations[key]), default=10, maximum=100)


def _has_scope(granted: tuple[str, ...], needed: str) -> bool:
    have = set(granted)
    for scope in granted:
        have.update(_IMPLIED.get(scope, ()))
    return needed in have


def _rate_limited(headers: dict[str, str]) -> Reply:
    """Bitbucket Cloud's 429: a text/plain line, not its JSON error object."""
    body = b"Rate limit for this resource has been exceeded"
    return Reply(429, body, {"Content-Type": "text/plain", **headers})


def _server(emulator: BitbucketEmulator, *, proxy: bool) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            target = self.path
            if proxy and not target.startswith(("http://", "https://")):
                reply = Reply(400, {"type": "error", "error": {"message": "the proxy takes absolute URIs"}})
            else:
                headers = {key.lower(): value for key, value in self.headers.items()}
                try:
                    reply = emulator.handle(self.command, target, headers, raw, proxy)
                except Exception as exc:  # a bug in the emulator: answer 500 and say what it was
                    reply = Reply(500, {"type": "error", "error": {"message": f"emulator error: {exc!r}"}})
            raw_file = isinstance(reply.body, bytes)  # a file's own bytes (`get_src`)
            payload = (
                b"" if reply.body is None else reply.body if raw_file else json.dumps(reply.body).encode()
            )
            self.send_response(reply.status)
            for key, value in reply.headers.items():
                self.send_header(key, value)
            if payload and not raw_file:
                self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            return

    server = ClosingServer(("127.0.0.1", 0), Handler)
    return server


# --- the harness ----------------------------------------------------------------------------------


class BitbucketHarness:
    """`tests/hostkit.HostHarness` over the emulator, plus Bitbucket-only knobs for this host's own tests."""

    name = "bitbucket"

    def __init__(self, emulator: BitbucketEmulator, root: Path) -> None:
        self.emulator = emulator
        self.root = root
        self.requests = emulator.log
        self.token = emulator.new_token(BOT)

    @property
    def api_url(self) -> str:
        return self.emulator.api_url

    @property
    def proxy_url(self) -> str:
        return self.emulator.proxy_url

    def adapter(self, token: str | None = None, **options: Any) -> BitbucketHost:
        options.setdefault("retry", FAST_RETRY)
        options.setdefault("merge_wait", FAST_MERGE_WAIT)
        return BitbucketHost(
            self.api_url, token=token or self.token, token_variable="HOMEOSTAT_BITBUCKET_TOKEN", **options
        )

    def api_token_adapter(self, user: str = BOT, **options: Any) -> BitbucketHost:
        """The API-token path: Basic auth with the account email and an API token."""
        secret = self.emulator.new_token(user, api_token=True)
        options.setdefault("retry", FAST_RETRY)
        options.setdefault("merge_wait", FAST_MERGE_WAIT)
        return BitbucketHost(self.api_url, token=secret, email=self.emulator.user(user).email, **options)

    # the world

    def create_repo(self, owner: str, name: str, default_branch: str = "main") -> RepoRef:
        bare = self.root / owner / f"{name}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", "-b", default_branch, str(bare)], check=True)
        repo = Repo(owner, name, bare, default_branch)
        first = commit_files(
            bare,
            None,
            {"README.md": f"# {name}\n"},
            "Initial commit",
            _identity(BOT),
            self._now() - timedelta(days=30),
        )
        git(bare, "update-ref", f"refs/heads/{default_branch}", first)
        with self.emulator.lock:
            self.emulator.user(BOT)
            repo.permissions[BOT] = "admin"
            self.emulator.repos[(owner.lower(), name.lower())] = repo
        return RepoRef(HostKind.BITBUCKET, owner, name)

    def bare_path(self, repo: RepoRef) -> Path:
        return self._repo(repo).bare

    def add_member(self, handle: str, teams: tuple[str, ...] = ()) -> None:
        self.emulator.user(handle)

    def push_commit(
        self,
        repo: RepoRef,
        branch: str,
        files: dict[str, str | None],
        message: str = "Change",
        *,
        author: str = BOT,
        when: datetime | None = None,
        base: str | None = None,
    ) -> str:
        """Commit `files` on top of `branch` (created from `base`, default the main branch) and push it."""
        state = self._repo(repo)
        parent = rev(state.bare, f"refs/heads/{branch}") or rev(
            state.bare, f"refs/heads/{base or state.default_branch}"
        )
        sha = commit_files(state.bare, parent, files, message, _identity(author), when or self._now())
        git(state.bare, "update-ref", f"refs/heads/{branch}", sha)
        return sha

    def open_as(
        self,
        repo: RepoRef,
        author: str,
        branch: str,
        title: str,
        files: dict[str, str],
        *,
        body: str = "",
        when: datetime | None = None,
    ) -> int:
        """A person pushes a branch and opens a PR from it."""
        when = when or self._now()
        self.emulator.user(author)
        self.push_commit(repo, branch, files, title, author=author, when=when)
        state = self._repo(repo)
        with self.emulator.lock:
            number = max(state.pulls, default=0) + 1
            pull = Pull(
                number,
                title,
                body,
                author,
                branch,
                state.default_branch,
                when,
                when,
                close_source_branch=True,
            )
            state.pulls[number] = pull
            self.emulator._pin(state, pull)
        return number

    def comment_as(
        self,
        repo: RepoRef,
        number: int,
        user: str,
        body: str,
        *,
        path: str | None = None,
        line: int | None = None,
        parent: int | None = None,
        when: datetime | None = None,
    ) -> int:
        self.emulator.user(user)
        state = self._repo(repo)
        with self.emulator.lock:
            pull = self.emulator.pull(state, number)
            inline = {"path": path, "to": line} if path else None
            return self.emulator.add_comment(state, pull, user, body, when or self._now(), inline, parent).id

    def merged_pull(self, repo: RepoRef, spec: PullSpec) -> int:
        merged_at = spec.merged_at if spec.merged_at.tzinfo else spec.merged_at.replace(tzinfo=UTC)
        state = self._repo(repo)
        branch = f"feature/{_slug(spec.title)}-{len(state.pulls) + 1}"
        number = self.open_as(
            repo,
            spec.author,
            branch,
            spec.title,
            dict(spec.files),
            body=spec.body,
            when=merged_at - timedelta(hours=3),
        )
        for index, thread in enumerate(spec.threads):
            said = merged_at - timedelta(hours=2) + timedelta(seconds=20 * index)  # one review round
            root = self.comment_as(
                repo, number, thread.author, thread.body, path=thread.path, line=thread.line, when=said
            )
            for offset, reply in enumerate(thread.replies, start=1):
                self.comment_as(
                    repo, number, reply.author, reply.body, parent=root, when=said + timedelta(seconds=offset)
                )
        for index, thread in enumerate(spec.threads):
            later = merged_at - timedelta(hours=1) + timedelta(minutes=index)
            if thread.followed_by_commit:
                current = self._file(state, branch, thread.path)
                self.push_commit(
                    repo,
                    branch,
                    {thread.path: thread.followed_text(current, index)},
                    f"Address review on {thread.path}",
                    author=thread.follow_up_by or spec.author,
                    when=later,
                )
            if thread.touch_other_file:
                other = f"notes/other-{index}.md"
                self.push_commit(
                    repo,
                    branch,
                    {other: f"unrelated change {index}\n"},
                    "Unrelated change",
                    author=spec.author,
                    when=later + timedelta(seconds=30),
                )
        self._edit_threads(state, number, spec, merged_at - timedelta(minutes=30))
        self.merge_as(repo, number, spec.merged_by or repo.owner, when=merged_at)
        return number

    def edit_comment(self, repo: RepoRef, number: int, comment_id: int, body: str, user: str) -> None:
        """PUT the comment's new text as `user`, as Bitbucket's edit does."""
        token = self.emulator.new_token(user)
        path = (
            f"{self.api_url.rstrip('/')}/2.0/repositories/{repo.owner}/{repo.name}/pullrequests/{number}"
            f"/comments/{comment_id}"
        )
        request = urllib.request.Request(
            path,
            data=json.dumps({"content": {"raw": body}}).encode(),
            method="PUT",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - the local emulator
            assert answer.status == 200

    def _edit_threads(self, state: Repo, number: int, spec: PullSpec, at: datetime) -> None:
        """Each `edited` root gets its new text, after every follow-up commit and before the merge."""
        with self.emulator.lock:
            pull = self.emulator.pull(state, number)
            roots = [c for c in sorted(pull.comments, key=lambda c: c.id) if c.parent is None]
            for index, (root, thread) in enumerate(zip(roots, spec.threads, strict=True)):
                if thread.edited:
                    root.raw, root.updated = thread.edited, at + timedelta(seconds=index)

    @staticmethod
    def _file(state: Repo, branch: str, path: str) -> str:
        done = subprocess.run(
            ["git", "--git-dir", str(state.bare), "show", f"refs/heads/{branch}:{path}"],
            capture_output=True,
            text=True,
            check=False,
        )
        return done.stdout if done.returncode == 0 else ""

    def open_pull_state(self, repo: RepoRef, number: int) -> dict[str, object]:
        state = self._repo(repo)
        with self.emulator.lock:
            pull = self.emulator.pull(state, number)
            return {
                "state": {"OPEN": "open", "MERGED": "merged"}.get(pull.state, "closed"),
                "bitbucket_state": pull.state,
                "title": pull.title,
                "body": pull.description,
                "head": pull.source,
                "base": pull.destination,
                "author": pull.author,
                "reviewers": list(pull.reviewers),
                "teams": [],
                "comments": [c.raw for c in pull.comments if c.inline is None and not c.deleted],
                "merged_by": pull.closed_by if pull.state == "MERGED" else None,
                "closed_by": pull.closed_by,
                "merge_commit_sha": pull.merge_commit,
                "merge_message": pull.merge_message,
                "head_sha": self.emulator.source_sha(state, pull),
            }

    def merge_as(self, repo: RepoRef, number: int, user: str, *, when: datetime | None = None) -> None:
        self.emulator.user(user)
        state = self._repo(repo)
        with self.emulator.lock:
            pull = self.emulator.pull(state, number)
            params = {"merge_strategy": "squash", "close_source_branch": pull.close_source_branch}
            self.emulator.do_merge(state, pull, user, params, when or self._now())

    def close_as(self, repo: RepoRef, number: int, user: str) -> None:
        self.emulator.user(user)
        state = self._repo(repo)
        with self.emulator.lock:
            self.emulator.close_pull(state, self.emulator.pull(state, number), user, self._now())

    def supersede(self, repo: RepoRef, number: int, user: str = BOT) -> None:
        state = self._repo(repo)
        with self.emulator.lock:
            self.emulator.close_pull(
                state, self.emulator.pull(state, number), user, self._now(), state="SUPERSEDED"
            )

    def protect_branch(self, repo: RepoRef, branch: str, required_checks: tuple[str, ...] = ("ci",)) -> None:
        state = self._repo(repo)
        with self.emulator.lock:
            self.emulator.add_restriction(
                state,
                {
                    "kind": "require_passing_builds_to_merge",
                    "pattern": branch,
                    "value": max(1, len(required_checks)),
                },
            )
            self.emulator.add_restriction(state, {"kind": "force", "pattern": branch})
            self.emulator.add_restriction(state, {"kind": "enforce_merge_checks", "pattern": branch})

    def add_merge_checks(
        self, repo: RepoRef, branch: str, *, approvals: int = 0, builds: int = 0, enforced: bool = True
    ) -> None:
        """Merge checks on `branch`: `approvals` and `builds` (successful builds on the last commit);
        `enforced` is Premium's "Prevent a merge with unresolved merge checks"."""
        state = self._repo(repo)
        with self.emulator.lock:
            if approvals:
                self.emulator.add_restriction(
                    state, {"kind": "require_approvals_to_merge", "pattern": branch, "value": approvals}
                )
            if builds:
                self.emulator.add_restriction(
                    state, {"kind": "require_passing_builds_to_merge", "pattern": branch, "value": builds}
                )
            if enforced:
                self.emulator.add_restriction(state, {"kind": "enforce_merge_checks", "pattern": branch})

    def approve(self, repo: RepoRef, number: int, user: str) -> None:
        self.emulator.user(user)
        with self.emulator.lock:
            state = self._repo(repo)
            self.emulator.add_approval(state, self.emulator.pull(state, number), user)

    def set_build(self, repo: RepoRef, sha: str, key: str = "ci", result: str = "SUCCESSFUL") -> None:
        state = self._repo(repo)
        with self.emulator.lock:
            state.builds.setdefault(sha, []).append({"type": "commitstatus", "key": key, "state": result})

    def miss_force_pushes(self, repo: RepoRef) -> None:
        """From now on, a force push to a PR branch of `repo` goes unseen until an ordinary push."""
        git(self._repo(repo).bare, "config", "core.logAllRefUpdates", "always")
        self.emulator.miss_force_pushes = True

    def set_visibility(self, repo: RepoRef, visibility: str) -> None:
        """public or private (Bitbucket has no internal), as `is_private` reports it."""
        self._repo(repo).private = visibility != "public"

    def schedules(self, repo: RepoRef) -> list[Json]:
        return list(self._repo(repo).schedules)

    def set_permission(self, repo: RepoRef, user: str, level: str) -> None:
        self.emulator.user(user)
        self._repo(repo).permissions[user] = level

    def limit_page_size(self, size: int) -> None:
        """Serve at most `size` values a page whatever `pagelen` asks, so paging shows on a few PRs."""
        self.emulator.page_cap = size

    def fail_next(self, status: int, times: int = 1, retry_after: int | None = None) -> None:
        with self.emulator.lock:
            self.emulator.failures.extend([(status, retry_after)] * times)

    def spend_hour_on(self, user: str = BOT, ago: float = 0.0) -> None:
        """Another job on `user`'s account spent the rolling hour `ago` seconds ago (the emulator's
        `limit_clock`): Bitbucket answers 429, text/plain, no Retry-After, until it ages out."""
        self.emulator.spend_hour_on(user, ago)

    def lose_next_answer(self, method: str, path_contains: str, status: int = 500) -> None:
        """The next matching request is carried out, then answered `status`, as when a proxy times out."""
        with self.emulator.lock:
            self.emulator.lost_answers.append((method, path_contains, status))

    def fail_next_merge_task(self, reason: str, *, shape: str = "error") -> None:
        """The next asynchronous merge task ends FAILED with `reason` (shape "error": a 400 error body)."""
        self.emulator.merge_failures.append((reason, shape))

    def revoke_token(self) -> None:
        self.emulator.tokens[self.token].revoked = True

    def new_token(self, user: str = BOT, scopes: tuple[str, ...] = WRITE_SCOPES) -> str:
        return self.emulator.new_token(user, scopes)

    # Code Insights as stored

    def reports(self, repo: RepoRef, sha: str) -> dict[str, Json]:
        state = self._repo(repo)
        return {report: data for (commit, report), data in state.reports.items() if commit == sha}

    def annotations(self, repo: RepoRef, sha: str, report: str) -> list[Json]:
        return list(self._repo(repo).annotations.get((sha, report), []))

    def head(self, repo: RepoRef, branch: str | None = None) -> str:
        state = self._repo(repo)
        return rev(state.bare, f"refs/heads/{branch or state.default_branch}") or ""

    def _repo(self, repo: RepoRef) -> Repo:
        return self.emulator.repo(repo.owner, repo.name)

    def _now(self) -> datetime:
        return self.emulator.clock()


def _identity(who: str) -> tuple[str, str]:
    """A commit's (name, email): `Name <email>` as written, or a nickname, which commits with the
    address its account has here (so Bitbucket links the commit to it)."""
    named = re.fullmatch(r"(?P<name>[^<]*?)\s*<(?P<email>[^>]*)>", who)
    if named:
        return named["name"] or named["email"], named["email"]
    return who.replace("-", " ").title(), f"{who}@example.invalid"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:30] or "change"


@pytest.fixture
def bitbucket_emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BitbucketEmulator]:
    emulator = BitbucketEmulator(tmp_path_factory.mktemp("bitbucket"))
    emulator.serve()
    try:
        yield emulator
    finally:
        emulator.shutdown()


@pytest.fixture
def bitbucket_harness(bitbucket_emulator: BitbucketEmulator) -> BitbucketHarness:
    return BitbucketHarness(bitbucket_emulator, bitbucket_emulator.root)


def _glob_matches(pattern: str, branch: str) -> bool:
    regex = "".join(".*" if part == "*" else re.escape(part) for part in re.split(r"(\*)", pattern))
    return re.fullmatch(regex, branch) is not None
