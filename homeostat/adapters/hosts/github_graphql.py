"""Reading a day's merged PRs and their review threads from GitHub's GraphQL API, many repos a query.

Over REST, a window of 500 merged PRs costs about 1,000 requests: a list per repo, the review comments
of each PR, and a compare per review round to tell whether code changed after a thread. GraphQL asks
for the merged PRs of ten repos at once, each with its review threads, comments and commits (query 1),
then for the commented file's blob at the thread's commit and at the PR's head, for every such thread
of those repos (query 2): a few dozen requests for the same window, within GitHub's GraphQL points.
Who wrote each commit comes with query 1. GraphQL has no diffs: the lines added after a followed
thread are the lines of the commented file's text at the head that its text at the thread's commit
does not hold (query 3, the two blobs of each followed thread, fifty a query), what the compare's
patch adds but for lines moved within the file. A file GraphQL cuts short, or longer than
`MAX_DIFF_LINES`, leaves its PR to REST.

What is read must be what REST reads, so a PR is answered here only when GraphQL gives the whole of it:
every thread and comment on one page, the PR's commits on one page and without merge commits between
the thread's commit and the head. Anything else (a long PR, a rebased one, a thread on a commit that is
gone) is left to the REST path, unchanged. "Code changed after the thread" is the commented file's
content (blob and mode) differing between the two commits, which is what REST's compare file list (or
its tree fallback) says for that path; "when" is the earliest commit date after the thread's commit up
to the head, as the compare's commit list gives it.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from homeostat.core.hosts import MergedPull, RepoRef

_log = logging.getLogger(__name__)

# GitHub prices a query at one point per 100 connection requests it may need, counting every nested
# connection at its `first`/`last` (5,000 points an hour): these keep a listing query near 50 points
# for ten repos; a PR larger than them is read over REST.
REPOS_PER_QUERY = 10
PULLS_PER_PAGE = 10
THREADS_PER_PULL = 20
COMMENTS_PER_THREAD = 20
COMMITS_PER_PULL = 30
LOOKUPS_PER_QUERY = 100
BLOBS_PER_QUERY = 50  # whole files come back: a query stays a few MB for files of tens of kB
MAX_DIFF_LINES = 20_000  # a longer file is diffed by GitHub (REST's compare), not here

Query = Callable[[str, dict[str, Any]], Mapping[str, Any]]  # (query, variables) -> the response's `data`
K = TypeVar("K")
V = TypeVar("V")

PULL_FIELDS = f"""
fragment pull on PullRequest {{
  number title body url createdAt updatedAt mergedAt headRefOid baseRefName
  author {{ login }}
  commits(last: {COMMITS_PER_PULL}) {{
    totalCount
    nodes {{
      commit {{
        oid committedDate author {{ user {{ login }} }} signature {{ isValid }}
        parents(first: 2) {{ totalCount nodes {{ oid }} }}
      }}
    }}
  }}
  reviewThreads(first: {THREADS_PER_PULL}) {{
    pageInfo {{ hasNextPage }}
    nodes {{
      comments(first: {COMMENTS_PER_THREAD}) {{
        pageInfo {{ hasNextPage }}
        nodes {{
          databaseId body path line originalLine createdAt updatedAt url
          author {{ login }}
          replyTo {{ databaseId }}
          commit {{ oid }}
          originalCommit {{ oid }}
        }}
      }}
    }}
  }}
}}
"""


def listing_query(count: int) -> str:
    """Merged PRs of `count` repos, newest update first, one page each ($o0/$n0/$c0 ... variables)."""
    heads = ", ".join(f"$o{i}: String!, $n{i}: String!, $c{i}: String" for i in range(count))
    parts = "\n".join(
        f"  r{i}: repository(owner: $o{i}, name: $n{i}) {{\n"
        f"    pullRequests(states: [MERGED], orderBy: {{field: UPDATED_AT, direction: DESC}}, "
        f"first: {PULLS_PER_PAGE}, after: $c{i}) {{\n"
        "      pageInfo { hasNextPage endCursor }\n      nodes { ...pull }\n    }\n  }"
        for i in range(count)
    )
    return f"query({heads}) {{\n  rateLimit {{ cost remaining }}\n{parts}\n}}\n{PULL_FIELDS}"


@dataclass(frozen=True)
class Lookup:
    """The commented file at one commit: its blob and mode, or None where it does not exist."""

    repo: RepoRef
    commit: str
    path: str


def lookup_query(lookups: Sequence[Lookup]) -> tuple[str, dict[str, Any]]:
    """One query for many (repo, commit, path) files; answers are read back by alias."""
    commits = [(item.repo.owner, item.repo.name, item.commit) for item in lookups]
    return _objects_query(
        "f",
        commits,
        lambda index: f"... on Commit {{ file(path: $p{index}) {{ oid mode }} }}",
        paths=[item.path for item in lookups],
    )


def _objects_query(
    alias: str,
    objects: Sequence[tuple[str, str, str]],
    selection: Callable[[int], str],
    *,
    paths: Sequence[str] = (),
) -> tuple[str, dict[str, Any]]:
    """One query for an object (owner, repository name, oid) in each of many repositories, aliased
    `{alias}0`, `{alias}1`… so each answer is read back by its index: `selection(index)` says what to
    read of the object, and may name `$p{index}`, the object's path in `paths` when they are given.
    Every value travels as a variable, never in the query's text."""
    variables: dict[str, Any] = {}
    declared: list[str] = []
    parts: list[str] = []
    for index, (owner, name, oid) in enumerate(objects):
        variables.update({f"o{index}": owner, f"n{index}": name, f"x{index}": oid})
        declared.append(f"$o{index}: String!, $n{index}: String!, $x{index}: GitObjectID!")
        if paths:
            variables[f"p{index}"] = paths[index]
            declared[-1] += f", $p{index}: String!"
        parts.append(
            f"  {alias}{index}: repository(owner: $o{index}, name: $n{index}) {{ object(oid: $x{index}) "
            f"{{ {selection(index)} }} }}"
        )
    return f"query({', '.join(declared)}) {{\n" + "\n".join(parts) + "\n}", variables


@dataclass
class PullRead:
    """One merged PR as GraphQL gave it; `complete` when every thread, comment and commit is here."""

    pull: MergedPull
    comments: list[Mapping[str, Any]]
    # oid -> (committed, parents, the author's account: "" when the commit's email is no account's,
    # whether GitHub verified its signature: False for an unsigned commit)
    commits: dict[str, tuple[datetime, tuple[str, ...], str, bool]]
    complete: bool


@dataclass
class Listing:
    """What the listing queries found: each repo's merged PRs in the window, in REST's order."""

    pulls: dict[str, list[PullRead]] = field(default_factory=dict)  # repo full name (lower) -> PRs
    queries: int = 0


def read_listing(
    query: Query,
    repos: Sequence[RepoRef],
    since: datetime,
    until: datetime | None,
    parse_time: Callable[[object], datetime],
) -> Listing:
    """Page every repo's merged PRs, newest update first, until one was last updated before `since`."""
    listing = Listing()
    cursors: dict[str, str | None] = {repo.full_name.lower(): None for repo in repos}
    by_key = {repo.full_name.lower(): repo for repo in repos}
    pending = list(by_key)
    while pending:
        batch, pending = pending[:REPOS_PER_QUERY], pending[REPOS_PER_QUERY:]
        variables: dict[str, Any] = {}
        for index, key in enumerate(batch):
            repo = by_key[key]
            variables.update({f"o{index}": repo.owner, f"n{index}": repo.name, f"c{index}": cursors[key]})
        data = query(listing_query(len(batch)), variables)
        listing.queries += 1
        for index, key in enumerate(batch):
            page = (data.get(f"r{index}") or {}).get("pullRequests") or {}
            more = _take_page(listing.pulls.setdefault(key, []), by_key[key], page, since, until, parse_time)
            if more:
                cursors[key] = page["pageInfo"]["endCursor"]
                pending.append(key)
    return listing


def _take_page(
    found: list[PullRead],
    repo: RepoRef,
    page: Mapping[str, Any],
    since: datetime,
    until: datetime | None,
    parse_time: Callable[[object], datetime],
) -> bool:
    """Add the page's PRs merged in [since, until); True when a later page may hold more."""
    for node in page.get("nodes") or []:
        if parse_time(node["updatedAt"]) < since:
            return False
        merged = parse_time(node["mergedAt"]) if node.get("mergedAt") else None
        if merged is None or merged < since or (until is not None and merged >= until):
            continue
        found.append(_pull_read(repo, node, merged, parse_time))
    return bool((page.get("pageInfo") or {}).get("hasNextPage"))


def _pull_read(
    repo: RepoRef, node: Mapping[str, Any], merged: datetime, parse_time: Callable[[object], datetime]
) -> PullRead:
    threads = node.get("reviewThreads") or {}
    complete = not (threads.get("pageInfo") or {}).get("hasNextPage")
    comments: list[Mapping[str, Any]] = []
    for thread in threads.get("nodes") or []:
        page = thread.get("comments") or {}
        complete = complete and not (page.get("pageInfo") or {}).get("hasNextPage")
        comments.extend(page.get("nodes") or [])
    commits_page = node.get("commits") or {}
    commits = {
        item["commit"]["oid"]: (
            parse_time(item["commit"]["committedDate"]),
            tuple(p["oid"] for p in (item["commit"].get("parents") or {}).get("nodes") or []),
            str(((item["commit"].get("author") or {}).get("user") or {}).get("login") or ""),
            bool((item["commit"].get("signature") or {}).get("isValid")),
        )
        for item in commits_page.get("nodes") or []
    }
    complete = complete and int(commits_page.get("totalCount") or 0) <= COMMITS_PER_PULL
    author = node.get("author") or {}
    pull = MergedPull(
        repo=repo,
        number=int(node["number"]),
        title=str(node.get("title") or ""),
        body=str(node.get("body") or ""),
        author=str(author.get("login") or ""),
        merged_at=merged,
        url=str(node.get("url") or ""),
        head_sha=str(node.get("headRefOid") or ""),
        base_branch=str(node.get("baseRefName") or ""),
        created_at=parse_time(node["createdAt"]) if node.get("createdAt") else None,
    )
    return PullRead(pull, comments, commits, complete)


def after_commit(read: PullRead, start: str) -> list[str] | None:
    """The PR's commits after `start` up to its head (`start..head`), or None when GraphQL cannot tell
    exactly as a compare would: `start` is not among them, or a merge commit is on the way."""
    head = read.pull.head_sha
    seen: list[str] = []
    current = head
    while current != start:
        entry = read.commits.get(current)
        if entry is None or len(entry[1]) != 1:
            return None
        seen.append(current)
        current = entry[1][0]
    return seen


def _batched(
    query: Query,
    items: Sequence[K],
    size: int,
    build: Callable[[Sequence[K]], tuple[str, dict[str, Any]]],
    answer: Callable[[Mapping[str, Any], int], V],
) -> tuple[dict[K, V], int]:
    """Each distinct item's answer, asked `size` to a query (`build` writes one, `answer` reads the
    item at an index back from its data); and how many queries that took."""
    answers: dict[K, V] = {}
    queries = 0
    unique = list(dict.fromkeys(items))
    for start in range(0, len(unique), size):
        batch = unique[start : start + size]
        data = query(*build(batch))
        queries += 1
        for index, item in enumerate(batch):
            answers[item] = answer(data, index)
    return answers, queries


def read_files(query: Query, lookups: Sequence[Lookup]) -> tuple[dict[Lookup, tuple[str, int] | None], int]:
    """Each lookup's (blob, mode), or None where the file (or the commit) is missing; and the queries."""
    return _batched(query, lookups, LOOKUPS_PER_QUERY, lookup_query, _file_answer)


def _file_answer(data: Mapping[str, Any], index: int) -> tuple[str, int] | None:
    found = ((data.get(f"f{index}") or {}).get("object") or {}).get("file")
    return (str(found["oid"]), int(found["mode"])) if found else None


Blob = tuple[str, str]  # (repo full name in lower case, blob oid)


def blob_query(blobs: Sequence[Blob]) -> tuple[str, dict[str, Any]]:
    """One query for many blobs' text; answers are read back by alias."""
    objects: list[tuple[str, str, str]] = []
    for full_name, oid in blobs:
        owner, _, name = full_name.partition("/")
        objects.append((owner, name, oid))
    return _objects_query("b", objects, lambda _index: "... on Blob { isBinary isTruncated text }")


def read_texts(query: Query, blobs: Sequence[Blob]) -> tuple[dict[Blob, tuple[str, ...] | None], int]:
    """Each blob's lines (none for a binary blob, as a compare gives no patch for it), or None when
    GraphQL did not give it whole (cut short, missing, or longer than `MAX_DIFF_LINES`); the queries."""
    return _batched(
        query,
        blobs,
        BLOBS_PER_QUERY,
        blob_query,
        lambda data, index: _lines((data.get(f"b{index}") or {}).get("object") or {}),
    )


def _lines(blob: Mapping[str, Any]) -> tuple[str, ...] | None:
    if blob.get("isBinary") is True:
        return ()
    if blob.get("isTruncated") is not False or not isinstance(blob.get("text"), str):
        return None
    lines = str(blob["text"]).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return tuple(lines) if len(lines) <= MAX_DIFF_LINES else None


def added_lines(before: Sequence[str], after: Sequence[str]) -> list[str]:
    """The lines of `after` that `before` does not hold (as many times): what a unified diff of the
    two shows with a "+", except a line moved within the file, which is no new code. Counting, not a
    line diff: a line diff is quadratic on files of repeated lines (20,000 of them took 50 s to over
    100 s), and anyone who can push to a pull request could stall the daily run with one."""
    left = Counter(before)
    added: list[str] = []
    for line in after:
        if left[line] > 0:
            left[line] -= 1
        else:
            added.append(line)
    return added
