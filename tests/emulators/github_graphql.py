"""The part of GitHub's GraphQL schema the adapter queries, served over the emulator's records.

The SDL below keeps GitHub's own type, field, argument and enum names (a subset of
https://docs.github.com/graphql): a query that names a field GitHub lacks, or passes an argument of
the wrong type, fails here with GitHub's kind of error, because graphql-core parses and validates it
against this schema before running it. Connections take `first`/`last`/`after` and answer `pageInfo`
and `totalCount`; GitHub caps `first`/`last` at 100, and so does this. `rateLimit { cost remaining
resetAt }` follows GitHub's rule for a query's cost: one point per 100 nodes its connections may
return (the product of each nested `first`), at least 1.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from graphql import GraphQLError, build_schema, graphql_sync
from graphql.language import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    OperationDefinitionNode,
    parse,
)

SDL = """
scalar DateTime
scalar URI
scalar GitObjectID
scalar GitTimestamp

enum PullRequestState { OPEN CLOSED MERGED }
enum IssueOrderField { CREATED_AT UPDATED_AT COMMENTS }
enum OrderDirection { ASC DESC }
input IssueOrder { field: IssueOrderField! direction: OrderDirection! }

interface Actor { login: String! }
type User implements Actor { login: String! }

type PageInfo { hasNextPage: Boolean! endCursor: String hasPreviousPage: Boolean! startCursor: String }

type RateLimit { cost: Int! limit: Int! remaining: Int! resetAt: DateTime! used: Int! }

interface GitObject { oid: GitObjectID! }
type TreeEntry { oid: GitObjectID! mode: Int! path: String name: String! }
type Blob implements GitObject {
  oid: GitObjectID!
  byteSize: Int!
  isBinary: Boolean!
  isTruncated: Boolean!
  text: String
}
type CommitConnection { nodes: [Commit] totalCount: Int! pageInfo: PageInfo! }
type GitActor { name: String email: String date: GitTimestamp user: User }
type Commit implements GitObject {
  oid: GitObjectID!
  committedDate: DateTime!
  author: GitActor
  committer: GitActor
  parents(first: Int, after: String): CommitConnection!
  file(path: String!): TreeEntry
  signature: GitSignature
}
interface GitSignature { isValid: Boolean! state: String! signature: String! }
type GpgSignature implements GitSignature { isValid: Boolean! state: String! signature: String! }

type PullRequestCommit { commit: Commit! }
type PullRequestCommitConnection { nodes: [PullRequestCommit] totalCount: Int! pageInfo: PageInfo! }

type PullRequestReviewComment {
  databaseId: Int
  body: String!
  path: String!
  line: Int
  originalLine: Int
  createdAt: DateTime!
  updatedAt: DateTime!
  url: URI!
  author: Actor
  replyTo: PullRequestReviewComment
  commit: Commit
  originalCommit: Commit
}
type PullRequestReviewCommentConnection {
  nodes: [PullRequestReviewComment] totalCount: Int! pageInfo: PageInfo!
}
type PullRequestReviewThread {
  isResolved: Boolean!
  isOutdated: Boolean!
  path: String!
  comments(first: Int, after: String, last: Int): PullRequestReviewCommentConnection!
}
type PullRequestReviewThreadConnection {
  nodes: [PullRequestReviewThread] totalCount: Int! pageInfo: PageInfo!
}

type PullRequest {
  number: Int!
  title: String!
  body: String!
  url: URI!
  state: PullRequestState!
  createdAt: DateTime!
  updatedAt: DateTime!
  mergedAt: DateTime
  headRefOid: GitObjectID!
  headRefName: String!
  baseRefName: String!
  author: Actor
  reviewThreads(first: Int, after: String, last: Int): PullRequestReviewThreadConnection!
  commits(first: Int, after: String, last: Int): PullRequestCommitConnection!
}
type PullRequestConnection { nodes: [PullRequest] totalCount: Int! pageInfo: PageInfo! }

type Repository {
  name: String!
  nameWithOwner: String!
  pullRequests(
    states: [PullRequestState!], orderBy: IssueOrder, first: Int, after: String, last: Int
  ): PullRequestConnection!
  object(oid: GitObjectID, expression: String): GitObject
}

type Query {
  repository(owner: String!, name: String!): Repository
  rateLimit(dryRun: Boolean = false): RateLimit
}
"""

SCHEMA = build_schema(SDL)
HOURLY_POINTS = 5000


def _iso(moment: datetime | None) -> str | None:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:{index}".encode()).decode()


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        return int(base64.b64decode(cursor).decode().split(":", 1)[1]) + 1
    except (ValueError, IndexError):
        raise GraphQLError(f"`{cursor}` does not appear to be a valid cursor.") from None


def connection(
    items: Sequence[Any], first: int | None = None, after: str | None = None, last: int | None = None
) -> dict[str, Any]:
    """A GitHub connection over `items`: `first` (after `after`) or `last`, at most 100."""
    if first is None and last is None:
        raise GraphQLError("You must provide a `first` or `last` value to properly paginate the connection.")
    for name, value in (("first", first), ("last", last)):
        if value is not None and not 0 <= value <= 100:
            raise GraphQLError(
                f"Requesting {value} records on the connection exceeds the `{name}` limit of 100 records."
            )
    start = _offset(after)
    chosen = list(enumerate(items))[start:]
    if first is not None:
        chosen = chosen[:first]
    if last is not None:
        chosen = chosen[-last:] if last else []
    end = chosen[-1][0] if chosen else start - 1
    return {
        "nodes": [item for _, item in chosen],
        "totalCount": len(items),
        "pageInfo": {
            "hasNextPage": end < len(items) - 1,
            "endCursor": _cursor(end) if chosen else None,
            "hasPreviousPage": bool(chosen) and chosen[0][0] > 0,
            "startCursor": _cursor(chosen[0][0]) if chosen else None,
        },
    }


def query_cost(query: str) -> int:
    """GitHub's rule: each connection asks for up to first/last nodes, times its parents' counts;
    the sum over connections divided by 100, at least 1."""
    document = parse(query)
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    total = 0

    def walk(node: Any, multiplier: int) -> None:
        nonlocal total
        for selection in getattr(getattr(node, "selection_set", None), "selections", []) or []:
            if isinstance(selection, FragmentSpreadNode):
                if selection.name.value in fragments:  # an unknown one fails validation next
                    walk(fragments[selection.name.value], multiplier)
                continue
            if not isinstance(selection, FieldNode):
                walk(selection, multiplier)
                continue
            size = None
            for argument in selection.arguments or []:
                if argument.name.value in ("first", "last") and hasattr(argument.value, "value"):
                    size = int(argument.value.value)
            if size is not None:
                total += multiplier
                walk(selection, multiplier * size)
            else:
                walk(selection, multiplier)

    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode):
            walk(definition, 1)
    return max(1, round(total / 100))


class GraphQLEndpoint:
    """Runs one POST /graphql body against SCHEMA; `resolve_root` builds the Query's values."""

    def __init__(self, root: Callable[[int], dict[str, Any]]) -> None:
        self.root = root
        self.points_used = 0
        self.queries = 0

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        query = str(body.get("query") or "")
        variables = body.get("variables") or {}
        try:
            cost = query_cost(query)
        except GraphQLError as error:
            return {"errors": [{"message": error.message}]}
        self.queries += 1
        self.points_used += cost
        result = graphql_sync(SCHEMA, query, root_value=self.root(cost), variable_values=variables)
        out: dict[str, Any] = {}
        if result.errors:
            out["errors"] = [
                {"message": e.message, "type": "NOT_FOUND" if "Could not resolve" in e.message else None}
                for e in result.errors
            ]
        if result.data is not None:
            out["data"] = result.data
        return out

    def rate_limit(self, cost: int) -> dict[str, Any]:
        return {
            "cost": cost,
            "limit": HOURLY_POINTS,
            "remaining": max(0, HOURLY_POINTS - self.points_used),
            "used": self.points_used,
            "resetAt": _iso(datetime.now(UTC).replace(microsecond=0)),
        }


__all__ = ["SCHEMA", "GraphQLEndpoint", "connection", "query_cost", "_iso"]
