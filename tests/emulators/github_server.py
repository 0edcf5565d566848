"""A stateful GitHub REST emulator on 127.0.0.1, backed by real bare git repos, and `github_harness`.

It answers every call the GitHub adapter makes with the JSON shapes PyGithub reads, pages lists with
Link headers (`per_page`, `page`, at most 100 a page), and answers with GitHub's status codes: 401 for a
bad token, 403/429 rate limits with Retry-After, 404, 405 for a refused merge, 409 for a stale head, 422
for invalid input, and injected 5xx blips. Branches, commits and compares are read from the bare repo on
every request, so a `git push` to it is what the API shows; a squash merge writes a real commit on the
base branch with git plumbing (merge-tree, commit-tree, update-ref).

Tests drive it through `GitHubHarness` (the `tests/hostkit.HostHarness` shape) and, for GitHub-only
cases, through `harness.emulator`.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import pytest
from graphql import GraphQLError
from hostkit import PullSpec, RequestLog

from emulators.closing_server import ClosingServer
from emulators.github_graphql import GraphQLEndpoint, connection
from emulators.github_rules import (
    ACTIONS_APP_ID,
    ACTIONS_LOGIN,
    CheckLog,
    Protection,
    Ruleset,
    Suppressed,
    WorkflowRun,
    approval_blocker,
    approvals,
    pull_request_jobs,
    skipped,
    status_blockers,
)
from homeostat.adapters.hosts.github import GitHubHost
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.core.hosts import HostKind, RepoRef

API_PREFIX = "/api/v3"
BOT = "homeostat-bot"
FAST_RETRY = RetryPolicy(attempts=4, base_delay=0.01, max_delay=2.0, max_total_wait=5.0)

Json = dict[str, Any]
Change = tuple[dict[str, str], str, str, datetime]  # files, message, author, when
# github.com's no-reply addresses: `<login>@` and `<id>+<login>@` link a commit to that account
NOREPLY_DOMAIN = "users.noreply.github.com"
_NOREPLY = re.compile(rf"^(?:(?P<id>\d+)\+)?(?P<login>[^@+]+)@{re.escape(NOREPLY_DOMAIN)}$", re.IGNORECASE)
_NAMED = re.compile(r"^(?P<name>[^<]*?)\s*<(?P<email>[^>]*)>$")


def identity(who: str) -> tuple[str, str]:
    """A commit's (name, email): `Name <email>` as written, or a login, which commits as that
    account's no-reply address (what GitHub's web editor and a user who keeps their email private do)."""
    named = _NAMED.match(who)
    if named:
        return named["name"] or named["email"], named["email"]
    return who, f"{who}@{NOREPLY_DOMAIN}"


# --- git plumbing over one bare repo -----------------------------------------------------------


class Git:
    """Plumbing on a bare repo; no work tree, so the emulator never checks anything out."""

    def __init__(self, bare: Path) -> None:
        self.bare = bare

    def run(
        self, *args: str, env: dict[str, str] | None = None, stdin: str | None = None, check: bool = True
    ) -> str:
        result = subprocess.run(
            ["git", "--git-dir", str(self.bare), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            check=False,
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout

    def rev(self, ref: str) -> str | None:
        out = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False).strip()
        return out or None

    def branches(self) -> dict[str, str]:
        out = self.run("for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads/")
        return dict(line.split(" ", 1) for line in out.splitlines() if line)

    def commit(
        self,
        parents: list[str],
        files: dict[str, str | None],
        message: str,
        author: str,
        when: datetime,
    ) -> str:
        """A commit with `files` written over the first parent's tree (None deletes a path)."""
        with tempfile.TemporaryDirectory() as scratch:
            env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
            if parents:
                self.run("read-tree", parents[0], env=env)
            for path, text in files.items():
                if text is None:
                    self.run("update-index", "--force-remove", path, env=env)
                    continue
                blob = self.run("hash-object", "-w", "--stdin", stdin=text).strip()
                self.run("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}", env=env)
            tree = self.run("write-tree", env=env).strip()
        return self.commit_tree(tree, parents, message, author, author, when)

    def commit_tree(
        self, tree: str, parents: list[str], message: str, author: str, committer: str, when: datetime
    ) -> str:
        stamp = f"{int(when.timestamp())} +0000"
        (author_name, author_email), (committer_name, committer_email) = identity(author), identity(committer)
        env = {
            "GIT_AUTHOR_NAME": author_name,
            "GIT_AUTHOR_EMAIL": author_email,
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_NAME": committer_name,
            "GIT_COMMITTER_EMAIL": committer_email,
            "GIT_COMMITTER_DATE": stamp,
        }
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        return self.run(*args, env=env, stdin=message).strip()

    def update_ref(self, ref: str, new: str, old: str | None = None) -> bool:
        args = ["update-ref", ref, new] + ([old] if old else [])
        return (
            subprocess.run(
                ["git", "--git-dir", str(self.bare), *args], capture_output=True, check=False
            ).returncode
            == 0
        )

    def update_refs(self, updates: list[tuple[str, str, str | None]]) -> bool:
        """Several ref updates in one transaction: all happen, or none (a moved old value refuses)."""
        lines = "".join(f"update {ref} {new}{' ' + old if old else ''}\n" for ref, new, old in updates)
        command = ["git", "--git-dir", str(self.bare), "update-ref", "--stdin"]
        return (
            subprocess.run(command, input=lines, capture_output=True, text=True, check=False).returncode == 0
        )

    def chain(self, branch: str, parent: str, commits: list[Change]) -> list[str]:
        """Commits on `branch`, one after another from `parent`, in one fast-import run; the harness
        builds hundreds of PRs, and one process per step is what costs."""
        script: list[bytes] = []
        for index, (files, message, author, when) in enumerate(commits, start=1):
            name, email = identity(author)
            who = f"{name} <{email}> {int(when.timestamp())} +0000"
            text = message.encode() + b"\n"
            script += [f"commit refs/heads/{branch}\nmark :{index}\n".encode(), f"author {who}\n".encode()]
            script += [f"committer {who}\n".encode(), f"data {len(text)}\n".encode(), text]
            if index == 1:
                script.append(f"from {parent}\n".encode())
            for path, content in files.items():
                data = content.encode()
                script += [f"M 100644 inline {path}\ndata {len(data)}\n".encode(), data, b"\n"]
            script.append(b"\n")
        with tempfile.TemporaryDirectory() as scratch:
            marks = Path(scratch) / "marks"
            command = ["git", "--git-dir", str(self.bare), "fast-import", "--quiet", "--force"]
            subprocess.run(
                [*command, f"--export-marks={marks}"], input=b"".join(script), capture_output=True, check=True
            )
            shas = dict(line.split(" ", 1) for line in marks.read_text().splitlines())
        return [shas[f":{index}"] for index in range(1, len(commits) + 1)]

    def merged_tree(self, base: str, head: str) -> str | None:
        """The tree of merging `head` into `base` (the head's own tree when it contains the base), or
        None on a conflict."""
        result = subprocess.run(
            ["git", "--git-dir", str(self.bare), "merge-tree", "--write-tree", base, head],
            capture_output=True,
            text=True,
            check=False,
        )
        return result.stdout.split("\n", 1)[0].strip() if result.returncode == 0 else None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return (
            subprocess.run(
                ["git", "--git-dir", str(self.bare), "merge-base", "--is-ancestor", older, newer],
                capture_output=True,
                check=False,
            ).returncode
            == 0
        )

    def merge_base(self, first: str, second: str) -> str | None:
        return self.run("merge-base", first, second, check=False).strip() or None

    def log(self, *revisions: str, walk: bool = True) -> list[dict[str, Any]]:
        """Commits as dicts, oldest first; `walk=False` reads exactly the given shas."""
        fmt = "%H%x1f%T%x1f%P%x1f%an%x1f%ae%x1f%at%x1f%cn%x1f%ce%x1f%ct%x1f%B%x1e"
        args = ["log", f"--format={fmt}"] + (["--reverse"] if walk else ["--no-walk=unsorted"])
        out = self.run(*args, *revisions)
        commits = []
        for record in out.split("\x1e"):
            record = record.strip("\n")
            if not record:
                continue
            sha, tree, parents, an, ae, at, cn, ce, ct, body = record.split("\x1f")
            commits.append(
                {
                    "sha": sha,
                    "tree": tree,
                    "parents": parents.split(),
                    "author": (an, ae, int(at)),
                    "committer": (cn, ce, int(ct)),
                    "message": body.rstrip("\n"),
                }
            )
        return commits

    def changed(self, base: str, head: str) -> list[dict[str, Any]]:
        out = self.run("diff", "--name-status", "-M", "-z", base, head)
        fields = out.split("\0")
        files: list[dict[str, Any]] = []
        index = 0
        while index < len(fields) and fields[index]:
            status = fields[index]
            if status.startswith("R"):
                files.append(
                    {
                        "status": "renamed",
                        "previous_filename": fields[index + 1],
                        "filename": fields[index + 2],
                    }
                )
                index += 3
                continue
            names = {"A": "added", "D": "removed", "M": "modified", "T": "changed"}
            files.append({"status": names.get(status[0], "modified"), "filename": fields[index + 1]})
            index += 2
        return files

    def patches(self, base: str, head: str) -> dict[str, str]:
        """Each changed text file's unified diff hunks between the two commits, by its path at `head`
        (GitHub's `patch`: from the first `@@`, no file header); a binary file has none."""
        out = self.run("-c", "core.quotePath=off", "diff", "-M", "--no-color", "--no-ext-diff", base, head)
        found: dict[str, str] = {}
        for chunk in re.split(r"^diff --git .*\n", out, flags=re.MULTILINE)[1:]:
            lines = chunk.split("\n")
            hunk = next((index for index, line in enumerate(lines) if line.startswith("@@")), None)
            header = lines[:hunk]
            names = [line[6:].rstrip("\t") for line in header if line.startswith(("+++ b/", "--- a/"))]
            if names and hunk is not None:
                found[names[-1]] = "\n".join(lines[hunk:]).rstrip("\n")
        return found

    def tree_entries(self, commit: str) -> list[tuple[str, str, str, str]]:
        out = self.run("ls-tree", "-r", "-z", commit)
        entries = []
        for item in out.split("\0"):
            if item:
                meta, path = item.split("\t", 1)
                mode, kind, sha = meta.split()
                entries.append((mode, kind, sha, path))
        return entries


# --- state ---------------------------------------------------------------------------------------


@dataclass
class Token:
    login: str
    scopes: str | None = "repo, workflow"  # None: a fine-grained token, no X-OAuth-Scopes header
    revoked: bool = False
    kind: str = "user"  # user (a PAT) | actions (a workflow's GITHUB_TOKEN) | app (an installation token)
    app_id: int | None = None


@dataclass
class ReviewCommentRecord:
    id: int
    pull: int
    user: str
    body: str
    path: str
    line: int
    commit_id: str
    created_at: datetime
    in_reply_to: int | None = None
    updated_at: datetime | None = None  # set by an edit


@dataclass
class IssueCommentRecord:
    id: int
    pull: int
    user: str
    body: str
    created_at: datetime


@dataclass
class PullRecord:
    number: int
    id: int
    title: str
    body: str
    user: str
    head_ref: str
    base_ref: str
    created_at: datetime
    updated_at: datetime
    head_owner: str  # owner of the repo the head branch lives in (a fork's owner for a fork PR)
    head_sha: str = ""  # frozen once closed; live from the branch while open
    state: str = "open"
    closed_at: datetime | None = None
    merged_at: datetime | None = None
    merged_by: str | None = None
    merge_commit_sha: str | None = None
    reviewers: list[str] = field(default_factory=list)
    teams: list[str] = field(default_factory=list)
    review_comments: list[ReviewCommentRecord] = field(default_factory=list)
    comments: list[IssueCommentRecord] = field(default_factory=list)
    fork: bool = False
    reviews: list[ReviewRecord] = field(default_factory=list)
    opener: Token | None = None  # the token that opened it; pushes to its branch are taken to be its
    seen_head: str = ""  # the head the last pull_request event was sent for


@dataclass(frozen=True)
class ReviewRecord:
    """A submitted review: who, its verdict (APPROVED, CHANGES_REQUESTED, COMMENTED) and the head
    commit it was given at, as GitHub records them."""

    id: int
    login: str
    state: str
    commit_id: str
    submitted_at: datetime


@dataclass
class RepoRecord:
    id: int
    owner: str
    name: str
    default_branch: str
    git: Git
    pulls: dict[int, PullRecord] = field(default_factory=dict)
    protections: dict[str, Protection] = field(default_factory=dict)
    rulesets: list[Ruleset] = field(default_factory=list)
    checks: CheckLog = field(default_factory=CheckLog)
    variables: dict[str, str] = field(default_factory=dict)  # Actions variables (vars.NAME)
    permissions: dict[str, str] = field(default_factory=dict)  # login -> admin | write | read
    visibility: str = "private"  # private | public | internal

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


class ApiError(Exception):
    def __init__(
        self, status: int, message: str, headers: dict[str, str] | None = None, **extra: Any
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body: Json = {"message": message, "documentation_url": "https://docs.github.com/rest", **extra}
        self.headers = headers or {}


@dataclass
class Response:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: Any
    login: str
    match: re.Match[str]
    token: Token | None = None

    def int_query(self, name: str, default: int) -> int:
        value = self.query.get(name, "")
        return int(value) if value.isdigit() else default


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


# --- the emulator --------------------------------------------------------------------------------


class GitHubEmulator:
    """GitHub's REST API over in-memory records and bare git repos; thread-safe behind one lock."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests = RequestLog()
        self.lock = threading.RLock()
        self.tokens: dict[str, Token] = {}
        self.users: dict[str, int] = {}
        self.emails: dict[str, str] = {}  # a user's verified email (lower case) -> login
        self.signed: set[str] = set()  # commits whose signature GitHub verified (the web editor's, say)
        self.teams: dict[str, set[str]] = {}
        self.members: set[str] = set()  # the organisation's people: collaborators on every repo
        self.repos: dict[str, RepoRecord] = {}
        self.failures: list[tuple[int, int | None]] = []
        # (method, path part, status, retry-after, times left): a limit hit by one kind of request
        self.failures_on: list[list[Any]] = []
        self.stalls: list[float] = []  # seconds to sit on each of the next requests before answering
        self.lost_answers: list[tuple[str, str, int]] = []  # (method, path part, status): done, then failed
        self.max_per_page = 100
        self.search_limit = 10  # code searches per token per window: GitHub allows 10 a minute
        self.search_window = 60.0
        self.searches: list[str] = []  # every code search's q, in order
        self.unindexed: set[str] = set()  # owner/name of repos code search has not indexed (finds nothing)
        self._searched: dict[str, list[float]] = {}
        self.check_conclusions = {}
        self.seconds_serving = 0.0  # time spent answering, so a benchmark can tell client from server
        # GitHub's secondary limits on content-creating requests, per token: 80 a minute, 500 an hour.
        # Past them it answers 403 "secondary rate limit" (`limit_retry_after`: with that Retry-After;
        # None: without one, so a client must wait at least a minute). `clock` is swappable for a fake.
        self.write_limits: list[tuple[int, float]] = [(80, 60.0), (500, 3600.0)]
        self.limit_retry_after: int | None = None
        self.clock: Callable[[], float] = time.monotonic
        self.writes: dict[str, list[float]] = {}
        self.refused_writes = 0
        # GitHub's primary rate limit (5,000 requests an hour per token): every REST request counts but
        # a conditional GET answered 304 Not Modified (`If-None-Match` naming the answer's ETag).
        self.primary_limit = 5000
        self.counted: dict[str, int] = {}  # login -> requests counted against the primary limit
        self.not_modified = 0
        self.graphql = GraphQLEndpoint(self._graphql_root)
        self._graphql_login = ""
        self._refs: dict[str, dict[str, str]] | None = None
        self._ids = iter(range(1_000_001, 10**9))
        self._server = ClosingServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.api_url = f"{self.origin}{API_PREFIX}"
        self._routes = self._route_table()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_id(self) -> int:
        return next(self._ids)

    # --- setup used by the harness ---

    def add_user(self, login: str, emails: tuple[str, ...] = ()) -> None:
        """A user account, with the verified emails its commits link by."""
        with self.lock:
            self.users.setdefault(login, self.next_id())
            self.emails.update({email.lower(): login for email in emails})

    def linked_login(self, email: str) -> str | None:
        """The account GitHub links a commit's author (or committer) email to: a user's verified
        email, or their no-reply address (`<login>@` or `<id>+<login>@users.noreply.github.com`,
        where the id must be theirs); None when it is no account's, and the commit shows unlinked."""
        if email.lower() in self.emails:
            return self.emails[email.lower()]
        noreply = _NOREPLY.match(email)
        if noreply is None:
            return None
        login = next((user for user in self.users if user.lower() == noreply["login"].lower()), None)
        if login is None or (noreply["id"] is not None and int(noreply["id"]) != self.users[login]):
            return None
        return login

    def add_token(self, token: str, login: str, scopes: str | None = "repo, workflow") -> None:
        self.add_user(login)
        self.tokens[token] = Token(login, scopes)

    def add_repo(self, owner: str, name: str, default_branch: str) -> RepoRecord:
        bare = self.root / owner / f"{name}.git"
        bare.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "init", "--bare", "--quiet", f"--initial-branch={default_branch}", str(bare)], check=True
        )
        git = Git(bare)
        first = git.commit(
            [], {"README.md": f"# {name}\n"}, "Initial commit", owner, _now() - timedelta(days=400)
        )
        git.update_ref(f"refs/heads/{default_branch}", first)
        self.add_user(owner)
        record = RepoRecord(self.next_id(), owner, name, default_branch, git)
        record.permissions[BOT] = "admin"
        record.permissions[owner] = "admin"
        record.permissions.update(
            {member: "write" for member in self.members if member not in record.permissions}
        )
        with self.lock:
            self.repos[record.full_name.lower()] = record
        return record

    def repo(self, owner: str, name: str) -> RepoRecord:
        record = self.repos.get(f"{owner}/{name}".lower())
        if record is None:
            raise ApiError(404, "Not Found")
        return record

    def branch_sha(self, repo: RepoRecord, branch: str) -> str | None:
        """A branch tip, read once per request for all branches (a list of 100 PRs needs them all)."""
        if self._refs is None:
            return repo.git.rev(f"refs/heads/{branch}")
        key = repo.full_name.lower()
        if key not in self._refs:
            self._refs[key] = repo.git.branches()
        return self._refs[key].get(branch)

    def head_sha(self, repo: RepoRecord, pull: PullRecord) -> str:
        if pull.state == "open" and not pull.fork:
            live = self.branch_sha(repo, pull.head_ref)
            if live:
                return live
        return pull.head_sha

    def new_pull(
        self,
        repo: RepoRecord,
        head: str,
        base: str,
        title: str,
        body: str,
        user: str,
        when: datetime,
        head_sha: str | None = None,
    ) -> PullRecord:
        """A PR record; GitHub keeps `refs/pull/N/head`, so its commits outlive the branch."""
        number = max(repo.pulls, default=0) + 1
        sha = head_sha or repo.git.rev(f"refs/heads/{head}") or ""
        pull = PullRecord(number, self.next_id(), title, body, user, head, base, when, when, repo.owner, sha)
        repo.pulls[number] = pull
        if sha:
            repo.git.update_ref(f"refs/pull/{number}/head", sha)
        return pull

    def merge(
        self,
        repo: RepoRecord,
        pull: PullRecord,
        by: str,
        title: str,
        message: str,
        method: str,
        when: datetime,
    ) -> str:
        """Squash (or merge-commit) the PR into its base with real git objects; ApiError 405 on a conflict."""
        head = self.head_sha(repo, pull)
        base = repo.git.rev(f"refs/heads/{pull.base_ref}")
        if base is None:
            raise ApiError(405, "Base branch was deleted")
        tree = repo.git.merged_tree(base, head)
        if tree is None:
            raise ApiError(405, "Pull Request is not mergeable")
        parents = [base] if method == "squash" else [base, head]
        text = f"{title}\n\n{message}".rstrip("\n") + "\n" if message else f"{title}\n"
        sha = repo.git.commit_tree(tree, parents, text, pull.user, "GitHub <noreply@github.com>", when)
        updates = [(f"refs/heads/{pull.base_ref}", sha, base), (f"refs/pull/{pull.number}/head", head, None)]
        if not repo.git.update_refs(updates):
            raise ApiError(409, "Base branch was modified. Review and try the merge again.")
        pull.head_sha, pull.state, pull.merged_by, pull.merge_commit_sha = head, "closed", by, sha
        pull.merged_at = pull.closed_at = pull.updated_at = when
        return sha

    def close(self, repo: RepoRecord, pull: PullRecord, when: datetime) -> None:
        pull.head_sha = self.head_sha(repo, pull)
        pull.state, pull.closed_at, pull.updated_at = "closed", when, when

    # --- workflows, checks and the rules of merging (tests/emulators/github_rules.py) ---

    check_conclusions: dict[str, str]  # a check name -> the conclusion its job reports (default success)

    def pull_request_event(self, repo: RepoRecord, pull: PullRecord, event: str) -> None:
        """Run the head commit's pull_request workflows, unless the actor's events start none."""
        head = self.head_sha(repo, pull)
        pull.seen_head = head
        actor = pull.opener
        who = actor.login if actor is not None else pull.user
        if actor is not None and actor.kind == "actions":
            why = "an event caused by the workflow's GITHUB_TOKEN starts no workflow"
            repo.checks.suppressed.append(Suppressed(event, head, who, why))
            return
        [commit] = repo.git.log(head, walk=False)
        if skipped(commit["message"]):
            repo.checks.suppressed.append(Suppressed(event, head, who, "[skip ci] in the head commit"))
            return
        for path, text in self._workflows(repo, head).items():
            jobs = pull_request_jobs(text, pull.base_ref)
            if jobs is None:
                continue
            repo.checks.workflow_runs.append(WorkflowRun(path, event, head, who, jobs))
            for job in jobs:
                repo.checks.runs.setdefault(head, {})[job] = self.check_conclusions.get(job, "success")

    def _workflows(self, repo: RepoRecord, sha: str) -> dict[str, str]:
        found = {}
        for _mode, kind, blob, path in repo.git.tree_entries(sha):
            if kind == "blob" and path.startswith(".github/workflows/") and path.endswith((".yml", ".yaml")):
                found[path] = repo.git.run("cat-file", "blob", blob)
        return found

    def synchronize(self, repo: RepoRecord) -> None:
        """A push to an open PR's branch is a `synchronize` event; the emulator's git is a plain bare
        repo that names no pusher, so a push is taken to be by the PR's opener (the run that pushes is
        the run that opened it)."""
        for pull in repo.pulls.values():
            if pull.state == "open" and not pull.fork and pull.seen_head:
                if self.head_sha(repo, pull) != pull.seen_head:
                    self.pull_request_event(repo, pull, "synchronize")

    def merge_blockers(self, repo: RepoRecord, pull: PullRecord, token: Token | None) -> str:
        """GitHub's 405 message when a rule blocks this token's merge, else ""."""
        head = self.head_sha(repo, pull)
        writers = {login for login, level in repo.permissions.items() if level in ("admin", "write")}
        have = approvals([(r.login, r.state) for r in pull.reviews], pull.user, writers)
        login = token.login if token is not None else ""
        app = token.app_id if token is not None else None
        # GitHub dismisses the approvals given before a push where a rule says so; the emulator's
        # bare git names no push, so a review given at another head is taken as dismissed
        fresh = approvals(
            [(r.login, r.state) for r in pull.reviews if r.commit_id == head], pull.user, writers
        )
        classic = repo.protections.get(pull.base_ref)
        admin_past = repo.permissions.get(login) == "admin" and token is not None and token.kind == "user"
        if classic is not None and not (admin_past and not classic.enforce_admins):
            blockers = status_blockers(repo.checks, head, classic.checks)
            if app is None or app not in classic.bypass_apps:
                blockers += approval_blocker(classic.approvals, fresh if classic.dismiss_stale else have)
            if blockers:
                return blockers[0]
        violations: list[str] = []
        for ruleset in repo.rulesets:
            if ruleset.enforcement != "active" or not ruleset.targets(pull.base_ref, repo.default_branch):
                continue
            if app is not None and app in ruleset.bypass_apps:
                continue
            if ruleset.approvals is not None:
                violations += approval_blocker(ruleset.approvals, fresh if ruleset.dismiss_stale else have)
            violations += status_blockers(repo.checks, head, ruleset.checks)
        if violations:
            return "Repository rule violations found\n\n" + "\n\n".join(dict.fromkeys(violations)) + "\n\n"
        return ""

    # --- HTTP ---

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes) -> Response:
        self.requests.entries.append((method, raw_path))
        if self.stalls:
            time.sleep(self.stalls.pop(0))  # a hung upstream: the client's timeout fires first
        started = time.perf_counter()
        with self.lock:
            self._refs = {}
            try:
                return self._answer(method, raw_path, headers, raw_body)
            finally:
                self._refs = None
                self.seconds_serving += time.perf_counter() - started

    def _answer(self, method: str, raw_path: str, headers: dict[str, str], raw_body: bytes) -> Response:
        if self.failures:
            return self._injected(*self.failures.pop(0))
        matched = next(
            (f for f in self.failures_on if f[0] == method and f[1] in raw_path and f[4] > 0), None
        )
        if matched is not None:
            matched[4] -= 1
            return self._injected(matched[2], matched[3])
        token = self._token(headers)
        if token is None:
            return Response(
                401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
            )
        if raw_path.split("?")[0] == "/api/graphql" and method == "POST":
            return self._graphql(raw_body, token.login)
        if method != "GET" and self._over_write_limit(headers):
            return self._secondary_limit()
        try:
            response = self._dispatch(method, raw_path, raw_body, token)
        except ApiError as error:
            response = Response(error.status, error.body, error.headers)
        if method == "GET" and response.status == 200:
            response = self._conditional(response, headers.get("if-none-match", ""))
        if response.status != 304:
            self.counted[token.login] = self.counted.get(token.login, 0) + 1
        lost = next((item for item in self.lost_answers if item[0] == method and item[1] in raw_path), None)
        if lost is not None and response.status < 300:
            self.lost_answers.remove(lost)
            return self._injected(lost[2], None)
        if token.scopes is not None:
            response.headers.setdefault("X-OAuth-Scopes", token.scopes)
        reset = str(int(time.time()) + 3600)
        left = max(0, self.primary_limit - self.counted.get(token.login, 0))
        for name, value in {
            "X-RateLimit-Limit": str(self.primary_limit),
            "X-RateLimit-Remaining": str(left),
            "X-RateLimit-Reset": reset,
        }.items():
            response.headers.setdefault(name, value)  # code search answers with its own limit
        return response

    def _conditional(self, response: Response, condition: str) -> Response:
        """An ETag on every 200 GET (a digest of the body and its Link header, as GitHub's change with
        the answer), and 304 Not Modified with no body when the request names it."""
        body = (
            response.body if isinstance(response.body, bytes) else json.dumps(response.body, sort_keys=True)
        )
        digest = hashlib.sha1(repr((body, response.headers.get("Link", ""))).encode()).hexdigest()
        etag = f'W/"{digest}"'
        response.headers["ETag"] = etag
        if etag in {tag.strip() for tag in condition.split(",")}:
            self.not_modified += 1
            return Response(304, None, {"ETag": etag})
        return response

    @property
    def counted_requests(self) -> int:
        """REST requests counted against the primary limit, all tokens together (304s are not)."""
        return sum(self.counted.values())

    # --- GraphQL (POST /api/graphql; queries only, never counted as content-creating) ---

    def _graphql(self, raw_body: bytes, login: str) -> Response:
        try:
            body = json.loads(raw_body) if raw_body else {}
        except ValueError:
            return Response(400, {"message": "Problems parsing JSON"})
        self._graphql_login = login
        return Response(200, self.graphql.answer(body if isinstance(body, dict) else {}))

    def _graphql_root(self, cost: int) -> dict[str, Any]:
        login = self._graphql_login

        def repository(_info: Any, owner: str, name: str) -> dict[str, Any] | None:
            record = self.repos.get(f"{owner}/{name}".lower())
            if record is None or login not in record.permissions:
                raise GraphQLError(f"Could not resolve to a Repository with the name '{owner}/{name}'.")
            return self._gql_repo(record)

        return {
            "repository": repository,
            "rateLimit": lambda _info, dryRun=False: self.graphql.rate_limit(cost),
        }

    def _gql_repo(self, repo: RepoRecord) -> dict[str, Any]:
        def pull_requests(
            _info: Any,
            states: list[str] | None = None,
            orderBy: dict[str, str] | None = None,  # noqa: N803 - GitHub's argument name
            first: int | None = None,
            after: str | None = None,
            last: int | None = None,
        ) -> dict[str, Any]:
            def state(p: PullRecord) -> str:
                return "MERGED" if p.merged_at else ("CLOSED" if p.state == "closed" else "OPEN")

            pulls = [p for p in repo.pulls.values() if not states or state(p) in states]
            order = orderBy or {"field": "CREATED_AT", "direction": "ASC"}
            if order["field"] == "UPDATED_AT":
                pulls.sort(key=lambda p: (p.updated_at, p.number))
            else:
                pulls.sort(key=lambda p: (p.created_at, p.number))
            if order["direction"] == "DESC":
                pulls.reverse()
            page = connection(pulls, first, after, last)
            page["nodes"] = [self._gql_pull(repo, p, state(p)) for p in page["nodes"]]
            return page

        def git_object(
            _info: Any, oid: str | None = None, expression: str | None = None
        ) -> dict[str, Any] | None:
            blob = _gql_blob(repo.git, oid) if oid else None
            if blob is not None:
                return blob
            sha = repo.git.rev(oid or expression or "")
            return self._gql_commit(repo, sha) if sha else None

        return {
            "name": repo.name,
            "nameWithOwner": repo.full_name,
            "pullRequests": pull_requests,
            "object": git_object,
        }

    def _gql_pull(self, repo: RepoRecord, pull: PullRecord, state: str) -> dict[str, Any]:
        roots = sorted((c for c in pull.review_comments if c.in_reply_to is None), key=lambda c: c.id)
        by_id = {c.id: c for c in pull.review_comments}

        def thread(root: ReviewCommentRecord) -> dict[str, Any]:
            members = sorted(
                (c for c in pull.review_comments if c is root or c.in_reply_to == root.id),
                key=lambda c: (c.created_at, c.id),
            )

            def comments(
                _info: Any, first: int | None = None, after: str | None = None, last: int | None = None
            ) -> dict[str, Any]:
                page = connection(members, first, after, last)
                page["nodes"] = [self._gql_comment(repo, c, by_id) for c in page["nodes"]]
                return page

            return {"isResolved": False, "isOutdated": False, "path": root.path, "comments": comments}

        def review_threads(
            _info: Any, first: int | None = None, after: str | None = None, last: int | None = None
        ) -> dict[str, Any]:
            page = connection(roots, first, after, last)
            page["nodes"] = [thread(root) for root in page["nodes"]]
            return page

        def commits(
            _info: Any, first: int | None = None, after: str | None = None, last: int | None = None
        ) -> dict[str, Any]:
            page = connection(self._pull_commits(repo, pull), first, after, last)
            page["nodes"] = [{"commit": self._gql_commit(repo, c["sha"], c)} for c in page["nodes"]]
            return page

        return {
            "number": pull.number,
            "title": pull.title,
            "body": pull.body or "",
            "url": f"{self.origin}/{repo.full_name}/pull/{pull.number}",
            "state": state,
            "createdAt": _iso(pull.created_at),
            "updatedAt": _iso(pull.updated_at),
            "mergedAt": _iso(pull.merged_at),
            "headRefOid": self.head_sha(repo, pull),
            "headRefName": pull.head_ref,
            "baseRefName": pull.base_ref,
            "author": {"__typename": "User", "login": pull.user},
            "reviewThreads": review_threads,
            "commits": commits,
        }

    def _gql_comment(
        self, repo: RepoRecord, comment: ReviewCommentRecord, by_id: dict[int, ReviewCommentRecord]
    ) -> dict[str, Any]:
        parent = by_id.get(comment.in_reply_to) if comment.in_reply_to is not None else None
        return {
            "databaseId": comment.id,
            "body": comment.body,
            "path": comment.path,
            "line": comment.line,
            "originalLine": comment.line,
            "createdAt": _iso(comment.created_at),
            "updatedAt": _iso(comment.updated_at or comment.created_at),
            "url": f"{self.origin}/{repo.full_name}/pull/{comment.pull}#discussion_r{comment.id}",
            "author": {"__typename": "User", "login": comment.user},
            "replyTo": (lambda _info: self._gql_comment(repo, parent, by_id)) if parent else None,
            "commit": lambda _info: self._gql_commit(repo, comment.commit_id),
            "originalCommit": lambda _info: self._gql_commit(repo, comment.commit_id),
        }

    def _gql_commit(
        self, repo: RepoRecord, sha: str, known: dict[str, Any] | None = None
    ) -> dict[str, Any] | None:
        if known is None:
            if not sha or repo.git.rev(sha) is None:
                return None
            [known] = repo.git.log(sha, walk=False)

        def parents(_info: Any, first: int | None = None, after: str | None = None) -> dict[str, Any]:
            page = connection(known["parents"], first, after)
            page["nodes"] = [{"__typename": "Commit", "oid": p} for p in page["nodes"]]
            return page

        def file(_info: Any, path: str) -> dict[str, Any] | None:
            out = repo.git.run("ls-tree", "-z", known["sha"], "--", path, check=False)
            entry = next((e for e in out.split("\0") if e and e.split("\t", 1)[1] == path), None)
            if entry is None:
                return None
            mode, _kind, oid = entry.split("\t", 1)[0].split()
            return {"oid": oid, "mode": int(mode, 8), "path": path, "name": path.rsplit("/", 1)[-1]}

        def actor(who: tuple[str, str, int]) -> dict[str, Any]:
            login = self.linked_login(who[1])
            return {
                "name": who[0],
                "email": who[1],
                "date": _iso(datetime.fromtimestamp(who[2], UTC)),
                "user": {"__typename": "User", "login": login} if login is not None else None,
            }

        return {
            "__typename": "Commit",
            "oid": known["sha"],
            "committedDate": _iso(datetime.fromtimestamp(known["committer"][2], UTC)),
            "author": actor(known["author"]),
            "committer": actor(known["committer"]),
            "parents": parents,
            "file": file,
            "signature": self._signature(known["sha"]),
        }

    def _signature(self, sha: str) -> dict[str, Any] | None:
        """GraphQL's `Commit.signature`: null for an unsigned commit."""
        if sha not in self.signed:
            return None
        return {"__typename": "GpgSignature", "isValid": True, "state": "VALID", "signature": _SIGNATURE}

    def _over_write_limit(self, headers: dict[str, str]) -> bool:
        """Count one content-creating request for this token; True when it is over a limit (and refused,
        so not counted)."""
        now = self.clock()
        sent = self.writes.setdefault(headers.get("authorization", ""), [])
        if any(sum(1 for t in sent if t > now - seconds) >= count for count, seconds in self.write_limits):
            self.refused_writes += 1
            return True
        sent.append(now)
        return False

    def _secondary_limit(self) -> Response:
        headers = {} if self.limit_retry_after is None else {"Retry-After": str(self.limit_retry_after)}
        message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
        return Response(
            403, {"message": message, "documentation_url": "https://docs.github.com/rest"}, headers
        )

    def _injected(self, status: int, retry_after: int | None) -> Response:
        headers: dict[str, str] = {}
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        if status == 403:
            if retry_after is None:
                headers.update({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()))})
                return Response(403, {"message": "API rate limit exceeded for user ID 1."}, headers)
            return Response(
                403,
                {
                    "message": "You have exceeded a secondary rate limit. "
                    "Please wait a few minutes before you try again."
                },
                headers,
            )
        if status == 429:
            return Response(429, {"message": "You have exceeded a secondary rate limit."}, headers)
        if status == 502:
            return Response(
                502,
                b"<html><body><h1>502 Bad Gateway</h1></body></html>",
                {"Content-Type": "text/html"} | headers,
            )
        return Response(status, {"message": "Server Error"}, headers)

    def _token(self, headers: dict[str, str]) -> Token | None:
        value = headers.get("authorization", "")
        scheme, _, secret = value.partition(" ")
        token = self.tokens.get(secret.strip()) if scheme.lower() in ("token", "bearer") else None
        return token if token is not None and not token.revoked else None

    def _dispatch(self, method: str, raw_path: str, raw_body: bytes, token: Token) -> Response:
        parts = urlsplit(raw_path)
        path = unquote(parts.path)
        if not path.startswith(API_PREFIX):
            raise ApiError(404, "Not Found")
        path = path[len(API_PREFIX) :] or "/"
        query = dict(parse_qsl(parts.query))
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            raise ApiError(400, "Problems parsing JSON") from None
        for verb, pattern, handler in self._routes:
            match = pattern.match(path)
            if match and verb == method:
                return handler(Request(method, path, query, body, token.login, match, token))
        if any(pattern.match(path) for _verb, pattern, _handler in self._routes):
            raise ApiError(404, "Not Found")
        raise ApiError(404, "Not Found")

    def _route_table(self) -> list[tuple[str, re.Pattern[str], Callable[[Request], Response]]]:
        repo = r"^/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
        table: list[tuple[str, str, Callable[[Request], Response]]] = [
            ("GET", r"^/user$", self._get_user),
            ("GET", r"^/search/code$", self._search_code),
            ("GET", repo + r"$", self._get_repo),
            ("GET", repo + r"/pulls$", self._list_pulls),
            ("POST", repo + r"/pulls$", self._create_pull),
            ("GET", repo + r"/pulls/comments/(?P<id>\d+)$", self._get_review_comment),
            ("PATCH", repo + r"/pulls/comments/(?P<id>\d+)$", self._edit_review_comment),
            ("GET", repo + r"/pulls/(?P<number>\d+)$", self._get_pull),
            ("PATCH", repo + r"/pulls/(?P<number>\d+)$", self._edit_pull),
            ("GET", repo + r"/pulls/(?P<number>\d+)/comments$", self._list_review_comments),
            ("GET", repo + r"/pulls/(?P<number>\d+)/commits$", self._list_pull_commits),
            ("POST", repo + r"/pulls/(?P<number>\d+)/requested_reviewers$", self._request_reviewers),
            ("PUT", repo + r"/pulls/(?P<number>\d+)/merge$", self._merge_pull),
            ("GET", repo + r"/pulls/(?P<number>\d+)/merge$", self._is_merged),
            ("GET", repo + r"/issues/(?P<number>\d+)/comments$", self._list_issue_comments),
            ("POST", repo + r"/issues/(?P<number>\d+)/comments$", self._create_issue_comment),
            ("GET", repo + r"/compare/(?P<basehead>.+)$", self._compare),
            ("GET", repo + r"/git/trees/(?P<sha>[^/]+)$", self._get_tree),
            ("GET", repo + r"/contents/(?P<path>.+)$", self._get_contents),
            ("GET", repo + r"/branches/(?P<branch>.+)/protection$", self._get_protection),
            ("GET", repo + r"/rules/branches/(?P<branch>.+)$", self._get_branch_rules),
            ("GET", repo + r"/rulesets$", self._list_rulesets),
            ("GET", repo + r"/rulesets/(?P<id>\d+)$", self._get_ruleset),
            ("GET", repo + r"/commits/(?P<ref>[^/]+)/check-runs$", self._list_check_runs),
            ("GET", repo + r"/commits/(?P<ref>[^/]+)/status$", self._combined_status),
            ("POST", repo + r"/pulls/(?P<number>\d+)/reviews$", self._create_review),
            ("GET", repo + r"/pulls/(?P<number>\d+)/reviews$", self._list_reviews),
            ("GET", repo + r"/actions/variables/(?P<variable>[^/]+)$", self._get_variable),
            ("GET", repo + r"/branches/(?P<branch>.+)$", self._get_branch),
        ]
        return [(verb, re.compile(pattern), handler) for verb, pattern, handler in table]

    # --- JSON shapes ---

    def user_json(self, login: str) -> Json:
        uid = self.users.get(login) or self.next_id()
        return {
            "login": login,
            "id": uid,
            "node_id": f"U_{uid}",
            "avatar_url": f"{self.origin}/avatars/{login}",
            "url": f"{self.api_url}/users/{login}",
            "html_url": f"{self.origin}/{login}",
            "type": "User",
            "site_admin": False,
        }

    def linked_user_json(self, email: str) -> Json | None:
        """The user a commit's email links to, as a commit's `author`/`committer` shows it, or null."""
        login = self.linked_login(email)
        return self.user_json(login) if login is not None else None

    def team_json(self, owner: str, slug: str) -> Json:
        return {
            "id": abs(hash(slug)) % 10**6,
            "node_id": f"T_{slug}",
            "url": f"{self.api_url}/orgs/{owner}/teams/{slug}",
            "html_url": f"{self.origin}/orgs/{owner}/teams/{slug}",
            "name": slug,
            "slug": slug,
            "description": "",
            "privacy": "closed",
            "permission": "push",
            "parent": None,
        }

    def repo_json(self, repo: RepoRecord, login: str | None = None) -> Json:
        api = f"{self.api_url}/repos/{repo.full_name}"
        data: Json = {
            "id": repo.id,
            "node_id": f"R_{repo.id}",
            "name": repo.name,
            "full_name": repo.full_name,
            "private": repo.visibility != "public",
            "owner": self.user_json(repo.owner),
            "html_url": f"{self.origin}/{repo.full_name}",
            "description": None,
            "fork": False,
            "url": api,
            "pulls_url": f"{api}/pulls{{/number}}",
            "default_branch": repo.default_branch,
            "visibility": repo.visibility,
        }
        if login is not None:
            level = repo.permissions.get(login, "")
            data["permissions"] = {
                "admin": level == "admin",
                "maintain": level == "admin",
                "push": level in ("admin", "write"),
                "triage": level in ("admin", "write"),
                "pull": level in ("admin", "write", "read"),
            }
        return data

    def commit_json(self, repo: RepoRecord, commit: dict[str, Any]) -> Json:
        api = f"{self.api_url}/repos/{repo.full_name}"
        sha = commit["sha"]

        def person(who: tuple[str, str, int]) -> Json:
            return {"name": who[0], "email": who[1], "date": _iso(datetime.fromtimestamp(who[2], UTC))}

        return {
            "sha": sha,
            "node_id": f"C_{sha[:16]}",
            "url": f"{api}/commits/{sha}",
            "html_url": f"{self.origin}/{repo.full_name}/commit/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "commit": {
                "url": f"{api}/git/commits/{sha}",
                "author": person(commit["author"]),
                "committer": person(commit["committer"]),
                "message": commit["message"],
                "tree": {"sha": commit["tree"], "url": f"{api}/git/trees/{commit['tree']}"},
                "comment_count": 0,
                "verification": self.verification_json(repo, sha),
            },
            "author": self.linked_user_json(commit["author"][1]),
            "committer": self.linked_user_json(commit["committer"][1]),
            "parents": [
                {
                    "sha": p,
                    "url": f"{api}/commits/{p}",
                    "html_url": f"{self.origin}/{repo.full_name}/commit/{p}",
                }
                for p in commit["parents"]
            ],
        }

    def verification_json(self, repo: RepoRecord, sha: str) -> Json:
        """A commit's `verification` as GitHub gives it: verified with reason `valid` for a commit whose
        signature it verified, else `unsigned` with no signature or payload."""
        if sha not in self.signed:
            return {
                "verified": False,
                "reason": "unsigned",
                "signature": None,
                "payload": None,
                "verified_at": None,
            }
        return {
            "verified": True,
            "reason": "valid",
            "signature": _SIGNATURE,
            "payload": repo.git.run("cat-file", "commit", sha),
            "verified_at": _iso(datetime.fromtimestamp(0, UTC)),
        }

    def pull_json(self, repo: RepoRecord, pull: PullRecord, full: bool) -> Json:
        api = f"{self.api_url}/repos/{repo.full_name}"
        html = f"{self.origin}/{repo.full_name}/pull/{pull.number}"
        head_sha = self.head_sha(repo, pull)
        base_sha = self.branch_sha(repo, pull.base_ref) or ""
        head_repo = self.repo_json(repo)
        if pull.fork:
            head_repo = {
                **head_repo,
                "full_name": f"{pull.head_owner}/{repo.name}",
                "fork": True,
                "owner": self.user_json(pull.head_owner),
            }
        data: Json = {
            "url": f"{api}/pulls/{pull.number}",
            "id": pull.id,
            "node_id": f"PR_{pull.id}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{pull.number}",
            "commits_url": f"{api}/pulls/{pull.number}/commits",
            "review_comments_url": f"{api}/pulls/{pull.number}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{pull.number}/comments",
            "statuses_url": f"{api}/statuses/{head_sha}",
            "number": pull.number,
            "state": pull.state,
            "locked": False,
            "title": pull.title,
            "user": self.user_json(pull.user),
            "body": pull.body or None,
            "labels": [],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": _iso(pull.created_at),
            "updated_at": _iso(pull.updated_at),
            "closed_at": _iso(pull.closed_at),
            "merged_at": _iso(pull.merged_at),
            "merge_commit_sha": pull.merge_commit_sha,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [self.user_json(login) for login in pull.reviewers],
            "requested_teams": [self.team_json(repo.owner, slug) for slug in pull.teams],
            "head": {
                "label": f"{pull.head_owner}:{pull.head_ref}",
                "ref": pull.head_ref,
                "sha": head_sha,
                "user": self.user_json(pull.head_owner),
                "repo": head_repo,
            },
            "base": {
                "label": f"{repo.owner}:{pull.base_ref}",
                "ref": pull.base_ref,
                "sha": base_sha,
                "user": self.user_json(repo.owner),
                "repo": self.repo_json(repo),
            },
            "_links": {"self": {"href": f"{api}/pulls/{pull.number}"}, "html": {"href": html}},
            "author_association": "MEMBER",
            "auto_merge": None,
            "draft": False,
        }
        if full:
            data.update(
                {
                    "merged": pull.merged_at is not None,
                    "mergeable": pull.state == "open",
                    "rebaseable": pull.state == "open",
                    "mergeable_state": "clean" if pull.state == "open" else "unknown",
                    "merged_by": self.user_json(pull.merged_by) if pull.merged_by else None,
                    "comments": len(pull.comments),
                    "review_comments": len(pull.review_comments),
                    "maintainer_can_modify": False,
                    "commits": len(self._pull_commits(repo, pull)),
                    "additions": 0,
                    "deletions": 0,
                    "changed_files": 0,
                }
            )
        return data

    def review_comment_json(self, repo: RepoRecord, comment: ReviewCommentRecord) -> Json:
        api = f"{self.api_url}/repos/{repo.full_name}"
        html = f"{self.origin}/{repo.full_name}/pull/{comment.pull}#discussion_r{comment.id}"
        data: Json = {
            "url": f"{api}/pulls/comments/{comment.id}",
            "pull_request_review_id": comment.id + 7,
            "id": comment.id,
            "node_id": f"PRRC_{comment.id}",
            "diff_hunk": f"@@ -1,1 +1,{comment.line} @@",
            "path": comment.path,
            "position": comment.line,
            "original_position": comment.line,
            "commit_id": comment.commit_id,
            "original_commit_id": comment.commit_id,
            "user": self.user_json(comment.user),
            "body": comment.body,
            "created_at": _iso(comment.created_at),
            "updated_at": _iso(comment.updated_at or comment.created_at),
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{comment.pull}",
            "author_association": "MEMBER",
            "_links": {"self": {"href": f"{api}/pulls/comments/{comment.id}"}, "html": {"href": html}},
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "line": comment.line,
            "original_line": comment.line,
            "side": "RIGHT",
            "subject_type": "line",
        }
        if comment.in_reply_to is not None:  # GitHub omits the key on a thread's root
            data["in_reply_to_id"] = comment.in_reply_to
        return data

    def issue_comment_json(self, repo: RepoRecord, comment: IssueCommentRecord) -> Json:
        api = f"{self.api_url}/repos/{repo.full_name}"
        return {
            "id": comment.id,
            "node_id": f"IC_{comment.id}",
            "url": f"{api}/issues/comments/{comment.id}",
            "html_url": f"{self.origin}/{repo.full_name}/pull/{comment.pull}#issuecomment-{comment.id}",
            "body": comment.body,
            "user": self.user_json(comment.user),
            "created_at": _iso(comment.created_at),
            "updated_at": _iso(comment.created_at),
            "issue_url": f"{api}/issues/{comment.pull}",
            "author_association": "MEMBER",
        }

    # --- pagination ---

    def page(self, request: Request, items: list[Any]) -> Response:
        per_page = max(1, min(request.int_query("per_page", 30), 100, self.max_per_page))
        number = max(1, request.int_query("page", 1))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(number - 1) * per_page : number * per_page]
        links = []

        def link(page: int, rel: str) -> str:
            params = {**request.query, "per_page": str(per_page), "page": str(page)}
            return f'<{self.api_url}{request.path}?{urlencode(params)}>; rel="{rel}"'

        if number > 1:
            links += [link(number - 1, "prev"), link(1, "first")]
        if number < last:
            links += [link(number + 1, "next"), link(last, "last")]
        return Response(200, chunk, {"Link": ", ".join(links)} if links else {})

    # --- handlers ---

    def _pull(self, request: Request) -> tuple[RepoRecord, PullRecord]:
        repo = self.repo(request.match["owner"], request.match["name"])
        pull = repo.pulls.get(int(request.match["number"]))
        if pull is None:
            raise ApiError(404, "Not Found")
        return repo, pull

    def _readable(self, request: Request) -> RepoRecord:
        repo = self.repo(request.match["owner"], request.match["name"])
        if request.login not in repo.permissions:
            raise ApiError(404, "Not Found")
        return repo

    def _writable(self, request: Request, repo: RepoRecord) -> None:
        if repo.permissions.get(request.login) not in ("admin", "write"):
            raise ApiError(403, "Resource not accessible by personal access token")

    def _get_user(self, request: Request) -> Response:
        if request.token is not None and request.token.kind in ("actions", "app"):
            raise ApiError(403, "Resource not accessible by integration")
        data = self.user_json(request.login)
        data.update({"name": request.login, "email": None, "two_factor_authentication": True})
        return Response(200, data)

    def _get_repo(self, request: Request) -> Response:
        return Response(200, self.repo_json(self._readable(request), request.login))

    def _list_pulls(self, request: Request) -> Response:
        repo = self._readable(request)
        state = request.query.get("state", "open")
        pulls = [p for p in repo.pulls.values() if state == "all" or p.state == state]
        if "head" in request.query:
            owner, _, ref = request.query["head"].partition(":")
            pulls = [p for p in pulls if p.head_owner.lower() == owner.lower() and p.head_ref == ref]
        if "base" in request.query:
            pulls = [p for p in pulls if p.base_ref == request.query["base"]]
        sort = request.query.get("sort", "created")
        direction = request.query.get("direction", "desc" if sort == "created" else "asc")
        keyed: Callable[[PullRecord], Any] = (
            (lambda p: (p.updated_at, p.number))
            if sort == "updated"
            else (lambda p: (p.created_at, p.number))
        )
        pulls.sort(key=keyed, reverse=direction == "desc")
        page = self.page(request, pulls)
        page.body = [self.pull_json(repo, pull, full=False) for pull in page.body]
        return page

    def _create_pull(self, request: Request) -> Response:
        repo = self._readable(request)
        self._writable(request, repo)
        body = request.body or {}
        head = str(body.get("head", "")).split(":")[-1]
        base = str(body.get("base", ""))
        title = body.get("title")
        invalid = {"message": "Validation Failed"}
        if not title:
            raise ApiError(
                422,
                "Validation Failed",
                errors=[{"resource": "PullRequest", "field": "title", "code": "missing_field"}],
            )
        head_sha, base_sha = repo.git.rev(f"refs/heads/{head}"), repo.git.rev(f"refs/heads/{base}")
        if head_sha is None or base_sha is None:
            field_name = "head" if head_sha is None else "base"
            raise ApiError(
                422,
                invalid["message"],
                errors=[{"resource": "PullRequest", "field": field_name, "code": "invalid"}],
            )
        for pull in repo.pulls.values():
            if pull.state == "open" and pull.head_ref == head and pull.base_ref == base and not pull.fork:
                raise ApiError(
                    422,
                    "Validation Failed",
                    errors=[
                        {
                            "resource": "PullRequest",
                            "code": "custom",
                            "message": f"A pull request already exists for {repo.owner}:{head}.",
                        }
                    ],
                )
        if repo.git.is_ancestor(head_sha, base_sha):
            raise ApiError(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"No commits between {base} and {head}",
                    }
                ],
            )
        pull = self.new_pull(repo, head, base, str(title), str(body.get("body") or ""), request.login, _now())
        pull.opener = request.token
        self.pull_request_event(repo, pull, "opened")
        return Response(201, self.pull_json(repo, pull, full=True))

    def _get_pull(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._readable(request)
        self.synchronize(repo)
        return Response(200, self.pull_json(repo, pull, full=True))

    def _edit_pull(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._writable(request, self._readable(request))
        body = request.body or {}
        if "title" in body:
            pull.title = str(body["title"])
        if "body" in body:
            pull.body = str(body["body"] or "")
        if "base" in body and body["base"] != pull.base_ref:
            if repo.git.rev(f"refs/heads/{body['base']}") is None:
                raise ApiError(
                    422,
                    "Validation Failed",
                    errors=[{"resource": "PullRequest", "field": "base", "code": "invalid"}],
                )
            pull.base_ref = str(body["base"])
        if body.get("state") == "closed" and pull.state == "open":
            self.close(repo, pull, _now())
        elif body.get("state") == "open" and pull.state == "closed" and pull.merged_at is None:
            pull.state, pull.closed_at = "open", None
        pull.updated_at = _now()
        return Response(200, self.pull_json(repo, pull, full=True))

    def _list_review_comments(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._readable(request)
        page = self.page(request, sorted(pull.review_comments, key=lambda c: c.id))
        page.body = [self.review_comment_json(repo, comment) for comment in page.body]
        return page

    def _get_review_comment(self, request: Request) -> Response:
        repo = self._readable(request)
        wanted = int(request.match["id"])
        for pull in repo.pulls.values():
            for comment in pull.review_comments:
                if comment.id == wanted:
                    return Response(200, self.review_comment_json(repo, comment))
        raise ApiError(404, "Not Found")

    def _edit_review_comment(self, request: Request) -> Response:
        """GitHub lets the comment's author (or someone with write access) change its body; the
        comment keeps its `created_at` and shows the edit in `updated_at`."""
        repo = self._readable(request)
        wanted = int(request.match["id"])
        for pull in repo.pulls.values():
            for comment in pull.review_comments:
                if comment.id == wanted:
                    if comment.user != request.login:
                        self._writable(request, repo)
                    text = (request.body or {}).get("body")
                    if not text:
                        raise ApiError(
                            422,
                            "Validation Failed",
                            errors=[
                                {
                                    "resource": "PullRequestReviewComment",
                                    "field": "body",
                                    "code": "missing_field",
                                }
                            ],
                        )
                    comment.body, comment.updated_at = str(text), _now()
                    return Response(200, self.review_comment_json(repo, comment))
        raise ApiError(404, "Not Found")

    def _pull_commits(self, repo: RepoRecord, pull: PullRecord) -> list[dict[str, Any]]:
        head = self.head_sha(repo, pull)
        if pull.merge_commit_sha:
            return repo.git.log(head, f"^{pull.merge_commit_sha}^1")
        base = repo.git.rev(f"refs/heads/{pull.base_ref}")
        return repo.git.log(head, f"^{base}") if base else repo.git.log(head)

    def _list_pull_commits(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._readable(request)
        page = self.page(request, self._pull_commits(repo, pull)[:250])
        page.body = [self.commit_json(repo, commit) for commit in page.body]
        return page

    def _request_reviewers(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._writable(request, self._readable(request))
        body = request.body or {}
        users = [str(u) for u in body.get("reviewers") or []]
        teams = [str(t) for t in body.get("team_reviewers") or []]
        if pull.user in users:
            raise ApiError(422, "Review cannot be requested from pull request author.")
        unknown = [u for u in users if u not in repo.permissions] + [t for t in teams if t not in self.teams]
        if unknown:
            raise ApiError(
                422,
                "Reviews may only be requested from collaborators. One or more of the users or teams you "
                f"specified is not a collaborator of the {repo.full_name} project.",
            )
        pull.reviewers += [u for u in users if u not in pull.reviewers]
        pull.teams += [t for t in teams if t not in pull.teams]
        pull.updated_at = _now()
        return Response(201, self.pull_json(repo, pull, full=False))

    def _merge_pull(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._writable(request, self._readable(request))
        body = request.body or {}
        method = body.get("merge_method", "merge")
        if method not in ("merge", "squash"):
            raise ApiError(405, f"{str(method).capitalize()} merges are not allowed on this repository.")
        if pull.state != "open":
            raise ApiError(405, "Pull Request is not mergeable")
        head = self.head_sha(repo, pull)
        if body.get("sha") and body["sha"] != head:
            raise ApiError(409, "Head branch was modified. Review and try the merge again.")
        self.synchronize(repo)
        blocked = self.merge_blockers(repo, pull, request.token)
        if blocked:
            raise ApiError(405, blocked)
        title = body.get("commit_title") or f"{pull.title} (#{pull.number})"
        sha = self.merge(
            repo, pull, request.login, str(title), str(body.get("commit_message") or ""), method, _now()
        )
        return Response(200, {"sha": sha, "merged": True, "message": "Pull Request successfully merged"})

    def _is_merged(self, request: Request) -> Response:
        _repo, pull = self._pull(request)
        if pull.merged_at is None:
            raise ApiError(404, "Not Found")
        return Response(204)

    def _list_issue_comments(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._readable(request)
        page = self.page(request, list(pull.comments))
        page.body = [self.issue_comment_json(repo, comment) for comment in page.body]
        return page

    def _create_issue_comment(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._readable(request)
        text = (request.body or {}).get("body")
        if not text:
            raise ApiError(
                422,
                "Validation Failed",
                errors=[{"resource": "IssueComment", "field": "body", "code": "missing_field"}],
            )
        comment = IssueCommentRecord(self.next_id(), pull.number, request.login, str(text), _now())
        pull.comments.append(comment)
        pull.updated_at = comment.created_at
        return Response(201, self.issue_comment_json(repo, comment))

    def _resolve(self, repo: RepoRecord, name: str) -> str:
        ref = name.split(":", 1)[-1]
        sha = repo.git.rev(f"refs/heads/{ref}") or (
            repo.git.rev(ref) if re.fullmatch(r"[0-9a-f]{7,40}", ref) else None
        )
        if sha is None:
            raise ApiError(404, "Not Found")
        return sha

    def _compare(self, request: Request) -> Response:
        repo = self._readable(request)
        base_name, sep, head_name = request.match["basehead"].partition("...")
        if not sep:
            raise ApiError(404, "Not Found")
        base, head = self._resolve(repo, base_name), self._resolve(repo, head_name)
        merge_base = repo.git.merge_base(base, head)
        if merge_base is None:
            raise ApiError(404, f"No common ancestor between {base_name} and {head_name}.")
        ahead = repo.git.log(head, f"^{merge_base}") if head != merge_base else []
        behind = int(repo.git.run("rev-list", "--count", base, f"^{merge_base}")) if base != merge_base else 0
        if base == head:
            status = "identical"
        elif not behind:
            status = "ahead"
        elif not ahead:
            status = "behind"
        else:
            status = "diverged"
        per_page = max(1, min(request.int_query("per_page", 250), 250))
        number = max(1, request.int_query("page", 1))
        api = f"{self.api_url}/repos/{repo.full_name}"
        ends = {commit["sha"]: commit for commit in repo.git.log(base, merge_base, walk=False)}
        files = [
            _compare_file(api, item, patches.get(item["filename"]))
            for patches in [repo.git.patches(merge_base, head)]
            for item in repo.git.changed(merge_base, head)[:300]
        ]
        data = {
            "url": f"{api}/compare/{request.match['basehead']}",
            "html_url": f"{self.origin}/{repo.full_name}/compare/{request.match['basehead']}",
            "permalink_url": f"{self.origin}/{repo.full_name}/compare/{base}...{head}",
            "diff_url": f"{self.origin}/{repo.full_name}/compare/{request.match['basehead']}.diff",
            "patch_url": f"{self.origin}/{repo.full_name}/compare/{request.match['basehead']}.patch",
            "base_commit": self.commit_json(repo, ends[base]),
            "merge_base_commit": self.commit_json(repo, ends[merge_base]),
            "status": status,
            "ahead_by": len(ahead),
            "behind_by": behind,
            "total_commits": len(ahead),
            "commits": [
                self.commit_json(repo, c) for c in ahead[(number - 1) * per_page : number * per_page]
            ],
            "files": files,
        }
        return Response(200, data)

    def _get_tree(self, request: Request) -> Response:
        repo = self._readable(request)
        sha = self._resolve(repo, request.match["sha"])
        api = f"{self.api_url}/repos/{repo.full_name}"
        entries = [
            {
                "path": path,
                "mode": mode,
                "type": kind,
                "sha": blob,
                "size": 0,
                "url": f"{api}/git/blobs/{blob}",
            }
            for mode, kind, blob, path in repo.git.tree_entries(sha)
        ]
        tree = repo.git.run("rev-parse", f"{sha}^{{tree}}").strip()
        return Response(
            200, {"sha": tree, "url": f"{api}/git/trees/{tree}", "tree": entries, "truncated": False}
        )

    def _get_contents(self, request: Request) -> Response:
        """A file of the default branch (or `?ref=`) as the contents API gives it: base64 content for a
        file, a list for a folder, 404 for neither."""
        repo = self._readable(request)
        ref = str(request.query.get("ref") or repo.default_branch)
        sha = self._resolve(repo, ref)
        path = request.match["path"].strip("/")
        kind = repo.git.run("cat-file", "-t", f"{sha}:{path}", check=False).strip()
        api = f"{self.api_url}/repos/{repo.full_name}/contents"
        if kind == "tree":
            names = repo.git.run("ls-tree", "--name-only", f"{sha}:{path}").splitlines()
            return Response(200, [{"type": "file", "name": n, "path": f"{path}/{n}"} for n in names])
        if kind != "blob":
            raise ApiError(404, "Not Found")
        data = repo.git.run("cat-file", "blob", f"{sha}:{path}").encode()
        return Response(
            200,
            {
                "type": "file",
                "encoding": "base64",
                "size": len(data),
                "name": path.rsplit("/", 1)[-1],
                "path": path,
                "sha": repo.git.run("rev-parse", f"{sha}:{path}").strip(),
                "url": f"{api}/{path}",
                "content": base64.encodebytes(data).decode(),
            },
        )

    def _search_code(self, request: Request) -> Response:
        """GitHub's REST code search as the deep dive uses it: `"term" repo:owner/name`, counted over
        the default branch's files holding the term as a whole word. Its own rate limit (10 a minute
        per token; `search_limit` a `search_window`) answers 403 with `X-RateLimit-Remaining: 0` and
        the reset, as GitHub does; an unreadable repo is 422, as GitHub answers."""
        now = time.time()
        recent = [t for t in self._searched.get(request.login, []) if now - t < self.search_window]
        if len(recent) >= self.search_limit:
            reset = str(int(min(recent) + self.search_window) + 1)
            headers = {
                "X-RateLimit-Limit": str(self.search_limit),
                "X-RateLimit-Remaining": "0",
                "X-RateLimit-Resource": "search",
            }
            raise ApiError(
                403, "API rate limit exceeded for user ID 1.", headers | {"X-RateLimit-Reset": reset}
            )
        self._searched[request.login] = [*recent, now]
        query = request.query.get("q", "")
        self.searches.append(query)
        names = re.findall(r"(?:^|\s)repo:(\S+)", query)
        terms = re.findall(r'"([^"]+)"', query) or [word for word in query.split() if ":" not in word]
        filenames = re.findall(r"(?:^|\s)filename:(\S+)", query)
        if not (terms or filenames) or not names:
            raise ApiError(422, "Validation Failed", errors=[{"message": "a term and repo: are needed here"}])
        items: list[Json] = []
        for full in names:
            owner, _, name = full.partition("/")
            repo = self.repos.get(f"{owner}/{name}".lower())
            if repo is None or request.login not in repo.permissions:
                raise ApiError(
                    422,
                    "Validation Failed",
                    errors=[
                        {
                            "message": "The listed users and repositories cannot be searched either "
                            "because the resources do not exist or you do not have permission to view them."
                        }
                    ],
                )
            sha = repo.git.rev(f"refs/heads/{repo.default_branch}")
            if sha is None or repo.full_name.lower() in self.unindexed:
                continue
            if filenames and not terms:  # a file-name search needs no term
                for _mode, _kind, _blob, path in repo.git.tree_entries(sha):
                    if path.rpartition("/")[2] in filenames:
                        items.append(
                            {
                                "name": path.rpartition("/")[2],
                                "path": path,
                                "sha": sha,
                                "score": 1.0,
                                "repository": {"full_name": repo.full_name},
                            }
                        )
                continue
            args = [arg for term in terms for arg in ("-e", term)]
            out = repo.git.run("grep", "-l", "-w", "-F", "--all-match", *args, sha, "--", check=False)
            for line in out.splitlines():
                path = line.split(":", 1)[1]
                items.append(
                    {
                        "name": path.rpartition("/")[2],
                        "path": path,
                        "sha": sha,
                        "score": 1.0,
                        "repository": {"full_name": repo.full_name},
                    }
                )
        per_page = min(request.int_query("per_page", 30), 100)
        left = self.search_limit - len(self._searched[request.login])
        headers = {
            "X-RateLimit-Limit": str(self.search_limit),
            "X-RateLimit-Remaining": str(left),
            "X-RateLimit-Reset": str(int(now + self.search_window)),
            "X-RateLimit-Resource": "search",
        }
        body = {"total_count": len(items), "incomplete_results": False, "items": items[:per_page]}
        return Response(200, body, headers)

    def _branch_sha(self, repo: RepoRecord, branch: str) -> str:
        sha = repo.git.rev(f"refs/heads/{branch}")
        if sha is None:
            raise ApiError(404, "Branch not found")
        return sha

    def _get_branch(self, request: Request) -> Response:
        repo = self._readable(request)
        branch = request.match["branch"]
        sha = self._branch_sha(repo, branch)
        api = f"{self.api_url}/repos/{repo.full_name}"
        protection = repo.protections.get(branch)
        checks = protection.checks if protection is not None else None
        data = {
            "name": branch,
            "commit": {"sha": sha, "url": f"{api}/commits/{sha}"},
            "_links": {
                "self": f"{api}/branches/{branch}",
                "html": f"{self.origin}/{repo.full_name}/tree/{branch}",
            },
            "protected": protection is not None,
            "protection": {
                "enabled": protection is not None,
                "required_status_checks": {
                    "enforcement_level": "non_admins" if checks else "off",
                    "contexts": list(checks or ()),
                    "checks": [],
                },
            },
            "protection_url": f"{api}/branches/{branch}/protection",
        }
        return Response(200, data)

    def _get_protection(self, request: Request) -> Response:
        repo = self._readable(request)
        branch = request.match["branch"]
        self._branch_sha(repo, branch)
        if repo.permissions.get(request.login) != "admin":
            raise ApiError(403, "Resource not accessible by personal access token")
        protection = repo.protections.get(branch)
        if protection is None:
            raise ApiError(404, "Branch not protected")
        checks = protection.checks
        url = f"{self.api_url}/repos/{repo.full_name}/branches/{branch}/protection"
        data = {
            "url": url,
            "required_status_checks": {
                "url": f"{url}/required_status_checks",
                "strict": True,
                "contexts": list(checks),
                "contexts_url": f"{url}/required_status_checks/contexts",
                "checks": [{"context": name, "app_id": None} for name in checks],
            },
            "required_pull_request_reviews": {
                "url": f"{url}/required_pull_request_reviews",
                "dismiss_stale_reviews": protection.dismiss_stale,
                "require_code_owner_reviews": False,
                "require_last_push_approval": False,
                "required_approving_review_count": protection.approvals,
                "bypass_pull_request_allowances": {
                    "users": [],
                    "teams": [],
                    "apps": [{"id": app, "slug": f"app-{app}"} for app in protection.bypass_apps],
                },
            },
            "enforce_admins": {"url": f"{url}/enforce_admins", "enabled": protection.enforce_admins},
            "required_linear_history": {"enabled": False},
            "allow_force_pushes": {"enabled": False},
            "allow_deletions": {"enabled": False},
            "block_creations": {"enabled": False},
            "required_conversation_resolution": {"enabled": False},
            "lock_branch": {"enabled": False},
            "allow_fork_syncing": {"enabled": False},
        }
        return Response(200, data)

    # --- rulesets, checks and reviews ---

    def _active_rulesets(self, repo: RepoRecord, branch: str) -> list[Ruleset]:
        return [
            r for r in repo.rulesets if r.enforcement == "active" and r.targets(branch, repo.default_branch)
        ]

    def _get_branch_rules(self, request: Request) -> Response:
        """Every rule of an active ruleset on the branch; anyone who may read the repo may ask."""
        repo = self._readable(request)
        rules = [
            {
                **rule,
                "ruleset_source_type": "Repository",
                "ruleset_source": repo.full_name,
                "ruleset_id": ruleset.id,
            }
            for ruleset in self._active_rulesets(repo, request.match["branch"])
            for rule in ruleset.rules()
        ]
        return self.page(request, rules)

    def _ruleset_json(self, repo: RepoRecord, ruleset: Ruleset, request: Request) -> Json:
        app = request.token.app_id if request.token is not None else None
        data: Json = {
            "id": ruleset.id,
            "name": ruleset.name,
            "target": "branch",
            "source_type": "Repository",
            "source": repo.full_name,
            "enforcement": ruleset.enforcement,
            "node_id": f"RRS_{ruleset.id}",
            "_links": {"self": {"href": f"{self.api_url}/repos/{repo.full_name}/rulesets/{ruleset.id}"}},
        }
        return data | {"current_user_can_bypass": "always" if app in ruleset.bypass_apps else "never"}

    def _list_rulesets(self, request: Request) -> Response:
        repo = self._readable(request)
        page = self.page(request, list(repo.rulesets))
        page.body = [self._ruleset_json(repo, ruleset, request) for ruleset in page.body]
        return page

    def _get_ruleset(self, request: Request) -> Response:
        """The bypass list is shown only to admins (who may edit the ruleset)."""
        repo = self._readable(request)
        ruleset = next((r for r in repo.rulesets if r.id == int(request.match["id"])), None)
        if ruleset is None:
            raise ApiError(404, "Not Found")
        data = self._ruleset_json(repo, ruleset, request)
        data["conditions"] = {"ref_name": {"include": list(ruleset.include), "exclude": []}}
        data["rules"] = ruleset.rules()
        if repo.permissions.get(request.login) == "admin":
            data["bypass_actors"] = [
                {"actor_id": app, "actor_type": "Integration", "bypass_mode": "always"}
                for app in ruleset.bypass_apps
            ]
        return Response(200, data)

    def _list_check_runs(self, request: Request) -> Response:
        repo = self._readable(request)
        self.synchronize(repo)
        sha = self._resolve(repo, request.match["ref"])
        runs = [
            {
                "id": index,
                "name": name,
                "head_sha": sha,
                "status": "in_progress" if conclusion == "in_progress" else "completed",
                "conclusion": None if conclusion == "in_progress" else conclusion,
                "app": {"id": ACTIONS_APP_ID, "slug": "github-actions"},
            }
            for index, (name, conclusion) in enumerate(repo.checks.runs.get(sha, {}).items(), start=1)
        ]
        return Response(200, {"total_count": len(runs), "check_runs": runs})

    def _combined_status(self, request: Request) -> Response:
        repo = self._readable(request)
        sha = self._resolve(repo, request.match["ref"])
        statuses = [{"context": c, "state": s} for c, s in repo.checks.statuses.get(sha, {}).items()]
        states = {s["state"] for s in statuses}
        state = (
            "failure"
            if states & {"failure", "error"}
            else "pending"
            if "pending" in states or not states
            else "success"
        )
        return Response(200, {"state": state, "sha": sha, "total_count": len(statuses), "statuses": statuses})

    def _get_variable(self, request: Request) -> Response:
        repo = self._readable(request)
        if repo.permissions.get(request.login) != "admin":
            raise ApiError(403, "Resource not accessible by personal access token")
        name = request.match["variable"]
        if name not in repo.variables:
            raise ApiError(404, "Not Found")
        return Response(200, {"name": name, "value": repo.variables[name], "created_at": _iso(_now())})

    def _create_review(self, request: Request) -> Response:
        repo, pull = self._pull(request)
        self._readable(request)
        body = request.body or {}
        event = str(body.get("event") or "COMMENT")
        if event == "APPROVE" and request.login == pull.user:
            raise ApiError(422, "Unprocessable Entity", errors=["Can not approve your own pull request"])
        state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}.get(event, "COMMENTED")
        record = self.add_review(repo, pull, request.login, state)
        return Response(200, self.review_json(record))

    def add_review(self, repo: RepoRecord, pull: PullRecord, login: str, state: str) -> ReviewRecord:
        """A review given now, at the PR's head as it is now."""
        record = ReviewRecord(self.next_id(), login, state, self.head_sha(repo, pull), _now())
        pull.reviews.append(record)
        return record

    def review_json(self, review: ReviewRecord) -> Json:
        return {
            "id": review.id,
            "user": self.user_json(review.login),
            "state": review.state,
            "body": "",
            "commit_id": review.commit_id,
            "submitted_at": _iso(review.submitted_at),
        }

    def _list_reviews(self, request: Request) -> Response:
        _repo, pull = self._pull(request)
        self._readable(request)
        page = self.page(request, list(pull.reviews))
        page.body = [self.review_json(review) for review in page.body]
        return page


def _handler_for(emulator: GitHubEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes; without this, Nagle's algorithm and delayed ACKs
            # add about 40 ms to every keep-alive request.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            headers = {key.lower(): value for key, value in self.headers.items()}
            response = emulator.handle(self.command, self.path, headers, raw)
            if isinstance(response.body, bytes):
                payload = response.body
            elif response.body is None:
                payload = b""
            else:
                payload = json.dumps(response.body).encode()
            try:
                self._send(response, payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up waiting (a timeout test)

        def _send(self, response: Response, payload: bytes) -> None:
            self.send_response(response.status)
            if payload and "Content-Type" not in response.headers:
                self.send_header("Content-Type", "application/json; charset=utf-8")
            for key, value in response.headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            return

    return Handler


# --- the harness ---------------------------------------------------------------------------------


class GitHubHarness:
    """`tests.hostkit.HostHarness` for GitHub: a world on the emulator, and real adapters pointed at it."""

    name = "github"

    def __init__(self, emulator: GitHubEmulator) -> None:
        self.emulator = emulator
        self.requests = emulator.requests
        self.root = emulator.root
        self.token = "emu_" + secrets.token_hex(16)
        emulator.add_token(self.token, BOT)

    def adapter(self, token: str | None = None) -> GitHubHost:
        return GitHubHost(
            self.emulator.api_url,
            token or self.token,
            retry=FAST_RETRY,
            timeout=10,
            seconds_between_writes=None,
        )

    def create_repo(self, owner: str, name: str, default_branch: str = "main") -> RepoRef:
        self.emulator.add_repo(owner, name, default_branch)
        return RepoRef(HostKind.GITHUB, owner, name, self.emulator.origin)

    def bare_path(self, repo: RepoRef) -> Path:
        return self._repo(repo).git.bare

    def add_member(self, handle: str, teams: tuple[str, ...] = ()) -> None:
        with self.emulator.lock:
            self.emulator.add_user(handle)
            self.emulator.members.add(handle)
            for record in self.emulator.repos.values():
                record.permissions.setdefault(handle, "write")
            for team in teams:
                self.emulator.teams.setdefault(team, set()).add(handle)

    def merged_pull(self, repo: RepoRef, spec: PullSpec) -> int:
        """A branch and PR with the spec's files, its threads written on the first commit, a follow-up
        commit per thread that asks for one, and a squash merge at `spec.merged_at`."""
        emulator, record = self.emulator, self._repo(repo)
        git = record.git
        with emulator.lock:
            for login in {
                spec.author,
                *(t.author for t in spec.threads),
                *(r.author for t in spec.threads for r in t.replies),
            }:
                emulator.add_user(login)
                record.permissions.setdefault(login, "write")
            start = spec.merged_at - timedelta(hours=3)
            base = git.rev(f"refs/heads/{record.default_branch}")
            assert base is not None
            branch = f"feature/pr-{max(record.pulls, default=0) + 1}-{secrets.token_hex(3)}"
            first: Change = (dict(spec.files), spec.title, spec.author, start)
            later = _follow_ups(spec, start + timedelta(hours=2))
            shas = git.chain(branch, base, [first, *(change for change, _signed in later)])
            emulator.signed.update(
                sha for sha, (_change, signed) in zip(shas[1:], later, strict=True) if signed
            )
            pull = emulator.new_pull(
                record, branch, record.default_branch, spec.title, spec.body, spec.author, start, shas[-1]
            )
            self._write_threads(record, pull, spec, shas[0], start + timedelta(hours=1))
            self._edit_threads(pull, spec, start + timedelta(hours=2, minutes=2 * len(spec.threads) + 1))
            title = f"{spec.title} (#{pull.number})"
            emulator.merge(record, pull, spec.merged_by or repo.owner, title, "", "squash", spec.merged_at)
            return pull.number

    def _write_threads(
        self, record: RepoRecord, pull: PullRecord, spec: PullSpec, commit: str, at: datetime
    ) -> None:
        moment = at
        for thread in spec.threads:
            root = ReviewCommentRecord(
                self.emulator.next_id(),
                pull.number,
                thread.author,
                thread.body,
                thread.path,
                thread.line,
                commit,
                moment,
            )
            pull.review_comments.append(root)
            for reply in thread.replies:
                moment += timedelta(seconds=10)
                pull.review_comments.append(
                    ReviewCommentRecord(
                        self.emulator.next_id(),
                        pull.number,
                        reply.author,
                        reply.body,
                        thread.path,
                        thread.line,
                        commit,
                        moment,
                        in_reply_to=root.id,
                    )
                )
            moment += timedelta(seconds=10)

    def edit_comment(self, repo: RepoRef, number: int, comment_id: int, body: str, user: str) -> None:
        """PATCH the review comment as `user`, as GitHub's edit does (its URL names no PR)."""
        token = self.add_token(user)
        path = f"{self.emulator.api_url}/repos/{repo.owner}/{repo.name}/pulls/comments/{comment_id}"
        request = urllib.request.Request(
            path,
            data=json.dumps({"body": body}).encode(),
            method="PATCH",
            headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - the local emulator
            assert answer.status == 200

    @staticmethod
    def _edit_threads(pull: PullRecord, spec: PullSpec, at: datetime) -> None:
        """Each `edited` root gets its new text, after every follow-up commit and before the merge."""
        roots = [c for c in pull.review_comments if c.in_reply_to is None]
        for index, (root, thread) in enumerate(zip(roots, spec.threads, strict=True)):
            if thread.edited:
                root.body, root.updated_at = thread.edited, at + timedelta(seconds=index)

    def open_pull_state(self, repo: RepoRef, number: int) -> dict[str, object]:
        record = self._repo(repo)
        pull = record.pulls[number]
        state = "merged" if pull.merged_at else pull.state
        return {
            "state": state,
            "title": pull.title,
            "body": pull.body,
            "head": pull.head_ref,
            "base": pull.base_ref,
            "reviewers": list(pull.reviewers),
            "teams": list(pull.teams),
            "comments": [comment.body for comment in pull.comments],
            "merged_by": pull.merged_by,
            "merge_commit_sha": pull.merge_commit_sha,
        }

    def merge_as(self, repo: RepoRef, number: int, user: str) -> None:
        record = self._repo(repo)
        with self.emulator.lock:
            pull = record.pulls[number]
            self.emulator.merge(record, pull, user, f"{pull.title} (#{number})", "", "squash", _now())

    def close_as(self, repo: RepoRef, number: int, user: str) -> None:
        record = self._repo(repo)
        with self.emulator.lock:
            self.emulator.close(record, record.pulls[number], _now())

    def protect_branch(
        self,
        repo: RepoRef,
        branch: str,
        required_checks: tuple[str, ...] = ("ci",),
        *,
        approvals: int = 1,
        bypass_apps: tuple[int, ...] = (),
        enforce_admins: bool = True,
        dismiss_stale: bool = False,
    ) -> None:
        """Classic branch protection: `approvals` and `required_checks`; `bypass_apps` may merge
        without the approvals (bypass_pull_request_allowances); `dismiss_stale` takes approvals away
        on a push (off by default, as on GitHub)."""
        with self.emulator.lock:
            self._repo(repo).protections[branch] = Protection(
                tuple(required_checks), approvals, enforce_admins, tuple(bypass_apps), dismiss_stale
            )

    def unprotect_branch(self, repo: RepoRef, branch: str) -> None:
        with self.emulator.lock:
            self._repo(repo).protections.pop(branch, None)

    def add_ruleset(
        self,
        repo: RepoRef,
        name: str,
        *,
        approvals: int | None = None,
        checks: tuple[str, ...] = (),
        bypass_apps: tuple[int, ...] = (),
        include: tuple[str, ...] = ("~DEFAULT_BRANCH",),
        enforcement: str = "active",
        dismiss_stale: bool = False,
        block_force_push: bool = False,
    ) -> int:
        """A branch ruleset; an app in `bypass_apps` skips all of its rules. Its id. `dismiss_stale`
        and `block_force_push` are the pull_request rule's "dismiss stale approvals" and a
        non_fast_forward rule."""
        if ACTIONS_APP_ID in bypass_apps:  # what GitHub answers when one tries
            raise ValueError(
                "422 Actor GitHub Actions integration must be part of the ruleset source or owner organization"
            )
        with self.emulator.lock:
            record = self._repo(repo)
            ruleset = Ruleset(
                self.emulator.next_id(),
                name,
                include,
                approvals,
                tuple(checks),
                tuple(bypass_apps),
                enforcement,
                dismiss_stale,
                block_force_push,
            )
            record.rulesets.append(ruleset)
            return ruleset.id

    def actions_token(self) -> str:
        """A workflow's GITHUB_TOKEN: it acts as github-actions[bot], and its events start no workflow."""
        token = "ghs_" + secrets.token_hex(16)
        self.emulator.add_token(token, ACTIONS_LOGIN, None)
        self.emulator.tokens[token].kind = "actions"
        self._grant(ACTIONS_LOGIN, "write")
        return token

    def app_token(self, app_id: int = 424242, slug: str = "homeostat-kb") -> str:
        """A GitHub App installation token (as actions/create-github-app-token makes): it acts as
        `<slug>[bot]`, and its events start workflows."""
        token = "ghs_" + secrets.token_hex(16)
        login = f"{slug}[bot]"
        self.emulator.add_token(token, login, None)
        self.emulator.tokens[token].kind, self.emulator.tokens[token].app_id = "app", app_id
        self._grant(login, "write")
        return token

    def _grant(self, login: str, permission: str) -> None:
        with self.emulator.lock:
            for record in self.emulator.repos.values():
                record.permissions[login] = permission

    def set_variable(self, repo: RepoRef, name: str, value: str) -> None:
        self._repo(repo).variables[name] = value

    def approve(self, repo: RepoRef, number: int, login: str) -> None:
        with self.emulator.lock:
            self.emulator.add_user(login)
            self._repo(repo).permissions.setdefault(login, "write")
            record = self._repo(repo)
            self.emulator.add_review(record, record.pulls[number], login, "APPROVED")

    def fail_check(self, name: str, conclusion: str = "failure") -> None:
        """From now on the job `name` reports `conclusion` (failure, in_progress, …) when it runs."""
        self.emulator.check_conclusions[name] = conclusion

    def checks_log(self, repo: RepoRef) -> CheckLog:
        """Every workflow the emulator ran or suppressed on the repo's PRs, and the checks reported."""
        with self.emulator.lock:
            self.emulator.synchronize(self._repo(repo))
            return self._repo(repo).checks

    def fail_next(self, status: int, times: int = 1, retry_after: int | None = None) -> None:
        with self.emulator.lock:
            self.emulator.failures.extend([(status, retry_after)] * times)

    def fail_on(
        self, method: str, path_part: str, status: int, *, times: int = 1, retry_after: int | None = None
    ) -> None:
        """Refuse the next `times` requests of `method` whose path holds `path_part` (a secondary rate
        limit on creating pull requests: `fail_on("POST", "/pulls", 403, retry_after=60)`)."""
        with self.emulator.lock:
            self.emulator.failures_on.append([method, path_part, status, retry_after, times])

    def set_visibility(self, repo: RepoRef, visibility: str) -> None:
        """public, private or internal, as the repo's JSON reports it."""
        self._repo(repo).visibility = visibility

    def revoke_token(self) -> None:
        self.emulator.tokens[self.token].revoked = True

    def limit_page_size(self, size: int) -> None:
        """Serve at most `size` items a page whatever `per_page` asks, so a few records span pages."""
        self.emulator.max_per_page = size

    # --- GitHub-only helpers for tests ---

    def add_token(self, login: str, permission: str = "write", scopes: str | None = "repo") -> str:
        """Another token, for another user with `permission` on every repo (scopes None: fine-grained)."""
        token = "emu_" + secrets.token_hex(16)
        self.emulator.add_token(token, login, scopes)
        with self.emulator.lock:
            for record in self.emulator.repos.values():
                record.permissions[login] = permission
        return token

    def push_commit(
        self, repo: RepoRef, branch: str, files: dict[str, str | None], message: str = "Change"
    ) -> str:
        """A commit on `branch` (created from the default branch when missing), as a push would make."""
        record = self._repo(repo)
        with self.emulator.lock:
            parent = record.git.rev(f"refs/heads/{branch}") or record.git.rev(
                f"refs/heads/{record.default_branch}"
            )
            assert parent is not None
            sha = record.git.commit([parent], files, message, BOT, _now())
            record.git.update_ref(f"refs/heads/{branch}", sha)
            return sha

    def fork_pull(self, repo: RepoRef, fork_owner: str, branch: str, title: str) -> int:
        """An open PR from a fork whose branch has the given name (its commits are not in this repo)."""
        record = self._repo(repo)
        with self.emulator.lock:
            self.emulator.add_user(fork_owner)
            base = record.git.rev(f"refs/heads/{record.default_branch}") or ""
            pull = self.emulator.new_pull(
                record, branch, record.default_branch, title, "", fork_owner, _now()
            )
            pull.fork, pull.head_owner, pull.head_sha = True, fork_owner, base
            return pull.number

    def _repo(self, repo: RepoRef) -> RepoRecord:
        return self.emulator.repo(repo.owner, repo.name)


BLOB_TEXT_LIMIT = 512 * 1024  # bytes of a blob's `text` before the emulator truncates it (`isTruncated`)


def _gql_blob(git: Git, oid: str) -> dict[str, Any] | None:
    """A GraphQL Blob, or None when `oid` names no blob: `text` is null for a binary blob (a NUL byte
    in its first 8,000, git's own test) and cut short past `BLOB_TEXT_LIMIT`."""
    command = ["git", "--git-dir", str(git.bare), "cat-file", "blob", oid]
    if git.run("cat-file", "-t", oid, check=False).strip() != "blob":
        return None
    data = subprocess.run(command, capture_output=True, check=True).stdout
    binary = b"\0" in data[:8000]
    return {
        "__typename": "Blob",
        "oid": oid,
        "byteSize": len(data),
        "isBinary": binary,
        "isTruncated": len(data) > BLOB_TEXT_LIMIT,
        "text": None if binary else data[:BLOB_TEXT_LIMIT].decode("utf-8", "replace"),
    }


_SIGNATURE = "-----BEGIN PGP SIGNATURE-----\n\nemulated\n-----END PGP SIGNATURE-----\n"


def _compare_file(api: str, item: dict[str, Any], patch: str | None) -> Json:
    """One entry of a compare's `files`: its counts from the patch, which a binary file lacks."""
    lines = (patch or "").split("\n")
    additions = sum(1 for line in lines if line.startswith("+"))
    deletions = sum(1 for line in lines if line.startswith("-"))
    entry: Json = {
        "sha": "0" * 40,
        "additions": additions,
        "deletions": deletions,
        "changes": additions + deletions,
        "blob_url": "",
        "raw_url": "",
        "contents_url": f"{api}/contents/{item['filename']}",
        **item,
    }
    if patch is not None:
        entry["patch"] = patch
    return entry


def _follow_ups(spec: PullSpec, at: datetime) -> list[tuple[Change, bool]]:
    """After the review: a commit on the thread's file (signed when the thread says), or one on another
    file only."""
    files = dict(spec.files)
    commits: list[tuple[Change, bool]] = []
    for index, thread in enumerate(spec.threads):
        moment = at + timedelta(minutes=2 * index)
        if thread.followed_by_commit:
            files[thread.path] = thread.followed_text(files.get(thread.path, ""), index)
            by = thread.follow_up_by or spec.author
            commits.append(
                (({thread.path: files[thread.path]}, f"Address review {index}", by, moment), thread.signed)
            )
        if thread.touch_other_file:
            other = {f"docs/unrelated-{index}.md": f"note {index}\n"}
            commits.append(
                ((other, f"Unrelated change {index}", spec.author, moment + timedelta(minutes=1)), False)
            )
    return commits


@pytest.fixture
def github_harness(tmp_path: Path) -> Iterator[GitHubHarness]:
    emulator = GitHubEmulator(tmp_path / "github")
    emulator.start()
    try:
        yield GitHubHarness(emulator)
    finally:
        emulator.stop()
