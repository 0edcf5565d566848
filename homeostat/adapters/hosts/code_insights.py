"""Post `homeostat validate` findings to a commit as a Bitbucket Code Insights report with annotations.

Pipelines shows a report and its annotations on the PR's diff, which is the only result a step can
leave besides its exit code and log. Inside a Pipelines step Bitbucket runs an authenticating forward
proxy at http://localhost:29418: requests for http://api.bitbucket.org go through it with no token at
all. Outside Pipelines (or when asked to), a token client is used instead. The validate command builds
the report and annotation content; this module only delivers it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import requests
from atlassian.bitbucket.cloud import Cloud

from homeostat.adapters.hosts.bitbucket import (
    ACCESS_TOKEN_VARIABLE,
    API_TOKEN_VARIABLE,
    BitbucketApi,
    BitbucketHost,
    bitbucket_host_from_env,
)
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.errors import ConfigError

PIPELINES_PROXY = "http://localhost:29418"
PROXIED_API_URL = "http://api.bitbucket.org"
PROXY_VARIABLE = "HOMEOSTAT_BITBUCKET_PROXY"
DEFAULT_REPORT_ID = "homeostat-validate"
BATCH_SIZE = 100  # Bitbucket takes at most 100 annotations per request
MAX_ANNOTATIONS = 1000  # and at most 1000 per report
INSIGHTS_SCOPE = "repository (Code Insights)"

Target = BitbucketApi | BitbucketHost | Cloud | requests.Session


@dataclass(frozen=True)
class InsightsResult:
    report_id: str
    annotations: int
    dropped: int  # annotations past Bitbucket's per-report limit, not posted


def pipelines_api(
    proxy_url: str = PIPELINES_PROXY, api_url: str = PROXIED_API_URL, retry: RetryPolicy | None = None
) -> BitbucketApi:
    """A client that goes through the Pipelines auth proxy: plain http to api.bitbucket.org, no token."""
    proxies = {"http": proxy_url, "https": proxy_url}
    client = Cloud(  # type: ignore[no-untyped-call]
        url=api_url, proxies=proxies, timeout=30, backoff_and_retry=False, retry_with_header=False
    )
    return BitbucketApi(client, ACCESS_TOKEN_VARIABLE, "", retry or RetryPolicy(), proxy=proxy_url)


def as_api(target: Target) -> BitbucketApi:
    """Whatever the caller holds (the adapter, its client, a session through the proxy) as one API."""
    if isinstance(target, BitbucketApi):
        return target
    if isinstance(target, BitbucketHost):
        return target.api
    if isinstance(target, requests.Session):
        client = Cloud(url=PROXIED_API_URL, session=target, backoff_and_retry=False)  # type: ignore[no-untyped-call]
        proxy = str(target.proxies.get("http") or "")
        return BitbucketApi(client, ACCESS_TOKEN_VARIABLE, "", RetryPolicy(), proxy=proxy or PIPELINES_PROXY)
    return BitbucketApi(target, ACCESS_TOKEN_VARIABLE)


def post_code_insights(
    client_or_session: Target,
    workspace: str,
    repo: str,
    commit: str,
    report: Mapping[str, Any],
    annotations: Sequence[Mapping[str, Any]],
    *,
    report_id: str = DEFAULT_REPORT_ID,
) -> InsightsResult:
    """Replace the commit's report `report_id` with `report` and its annotations (in batches of 100).

    The old report is deleted first, so a rerun on the same commit never leaves stale annotations.
    """
    api = as_api(client_or_session)
    path = (
        f"repositories/{quote(workspace, safe='')}/{quote(repo, safe='')}"
        f"/commit/{quote(commit, safe='')}/reports/{quote(report_id, safe='')}"
    )
    api.call("DELETE", path, accept=(404,), need=INSIGHTS_SCOPE)
    api.call("PUT", path, body=dict(report), need=INSIGHTS_SCOPE)
    kept = [_with_external_id(report_id, item) for item in annotations[:MAX_ANNOTATIONS]]
    for start in range(0, len(kept), BATCH_SIZE):
        api.call("POST", f"{path}/annotations", body=kept[start : start + BATCH_SIZE], need=INSIGHTS_SCOPE)
    return InsightsResult(report_id, len(kept), max(0, len(annotations) - MAX_ANNOTATIONS))


def _with_external_id(report_id: str, annotation: Mapping[str, Any]) -> dict[str, Any]:
    """Bitbucket needs a unique external_id on each annotation; derive a stable one from its content."""
    item = dict(annotation)
    if not item.get("external_id"):
        digest = hashlib.sha256(json.dumps(item, sort_keys=True, default=str).encode()).hexdigest()[:16]
        item["external_id"] = f"{report_id}-{digest}"
    return item


def insights_api_from_env(env: Mapping[str, str]) -> BitbucketApi:
    """Inside Pipelines (BITBUCKET_BUILD_NUMBER set) the auth proxy; elsewhere the adapter's token."""
    if env.get("BITBUCKET_BUILD_NUMBER", "").strip():
        return pipelines_api(env.get(PROXY_VARIABLE, "").strip() or PIPELINES_PROXY)
    if env.get(ACCESS_TOKEN_VARIABLE, "").strip() or env.get(API_TOKEN_VARIABLE, "").strip():
        return bitbucket_host_from_env(env).api
    raise ConfigError(
        "cannot post Code Insights: not in a Bitbucket Pipelines step (BITBUCKET_BUILD_NUMBER is not set)"
        f" and no token: set {ACCESS_TOKEN_VARIABLE} to a token with repository access"
    )


def pipelines_commit(env: Mapping[str, str]) -> tuple[str, str, str]:
    """(workspace, repo, commit) of the running Pipelines step."""
    names = ("BITBUCKET_WORKSPACE", "BITBUCKET_REPO_SLUG", "BITBUCKET_COMMIT")
    values = tuple(env.get(name, "").strip() for name in names)
    missing = [name for name, value in zip(names, values, strict=True) if not value]
    if missing:
        raise ConfigError(
            f"cannot post Code Insights: {', '.join(missing)} not set"
            " (Bitbucket Pipelines sets them in every step)"
        )
    return values[0], values[1], values[2]
