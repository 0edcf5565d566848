"""Code Insights reports and annotations for `homeostat validate`, by token and by the Pipelines proxy."""

from __future__ import annotations

import pytest
import requests
from emulators.bitbucket_server import PIPELINES, BitbucketHarness

from homeostat.adapters.hosts.code_insights import (
    InsightsResult,
    Target,
    insights_api_from_env,
    pipelines_api,
    pipelines_commit,
    post_code_insights,
)
from homeostat.core.hosts import RepoRef
from homeostat.errors import AuthError, ConfigError

REPORT = {
    "title": "Homeostat validate",
    "details": "3 errors, 1 warning in the KB",
    "report_type": "BUG",
    "reporter": "Homeostat",
    "result": "FAILED",
    "data": [{"title": "Errors", "type": "NUMBER", "value": 3}],
}


def finding(index: int) -> dict[str, object]:
    return {
        "external_id": f"homeostat-{index:04d}",
        "annotation_type": "BUG",
        "summary": f"finding {index}",
        "severity": "HIGH",
        "path": "kb/rules/ledger.md",
        "line": index + 1,
    }


@pytest.fixture
def repo(bitbucket_harness: BitbucketHarness) -> RepoRef:
    return bitbucket_harness.create_repo("acme", "kb")


def test_token_path_stores_the_report_and_batches_annotations(
    bitbucket_harness: BitbucketHarness, repo: RepoRef
) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    harness.requests.clear()
    result = post_code_insights(
        harness.adapter(), "acme", "kb", sha, REPORT, [finding(i) for i in range(250)]
    )
    assert result == InsightsResult("homeostat-validate", 250, 0)
    stored = harness.reports(repo, sha)["homeostat-validate"]
    assert (stored["title"], stored["result"], stored["data"]) == (
        "Homeostat validate",
        "FAILED",
        REPORT["data"],
    )
    annotations = harness.annotations(repo, sha, "homeostat-validate")
    assert [a["summary"] for a in annotations] == [f"finding {i}" for i in range(250)]
    assert harness.requests.count("POST", "/annotations") == 3  # 100 + 100 + 50
    assert harness.requests.count("PUT", "/reports/homeostat-validate") == 1


@pytest.mark.parametrize("via", ["api", "session"])
def test_pipelines_proxy_path_needs_no_token(
    bitbucket_harness: BitbucketHarness, repo: RepoRef, via: str
) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    if via == "api":
        target: Target = pipelines_api(harness.proxy_url)
    else:
        session = requests.Session()
        session.proxies = {"http": harness.proxy_url}
        target = session
    result = post_code_insights(target, "acme", "kb", sha, REPORT, [finding(i) for i in range(3)])
    assert result.annotations == 3
    assert harness.reports(repo, sha)["homeostat-validate"]["reporter"] == "Homeostat"
    assert len(harness.annotations(repo, sha, "homeostat-validate")) == 3
    assert (
        "PUT",
        f"/2.0/repositories/acme/kb/commit/{sha}/reports/homeostat-validate",
    ) in harness.requests.entries
    assert harness.emulator.proxy_user == PIPELINES


def test_a_rerun_replaces_old_annotations(bitbucket_harness: BitbucketHarness, repo: RepoRef) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    host = harness.adapter()
    post_code_insights(host, "acme", "kb", sha, REPORT, [finding(i) for i in range(5)])
    post_code_insights(host, "acme", "kb", sha, {**REPORT, "result": "PASSED"}, [finding(9)])
    assert [a["summary"] for a in harness.annotations(repo, sha, "homeostat-validate")] == ["finding 9"]
    assert harness.reports(repo, sha)["homeostat-validate"]["result"] == "PASSED"


def test_past_the_per_report_limit_the_rest_is_counted_not_posted(
    bitbucket_harness: BitbucketHarness, repo: RepoRef
) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    result = post_code_insights(
        harness.adapter(), "acme", "kb", sha, REPORT, [finding(i) for i in range(1003)]
    )
    assert (result.annotations, result.dropped) == (1000, 3)
    assert len(harness.annotations(repo, sha, "homeostat-validate")) == 1000


def test_annotations_without_an_id_get_a_stable_one(
    bitbucket_harness: BitbucketHarness, repo: RepoRef
) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    bare = [{"summary": "a", "path": "kb/a.md", "line": 1}, {"summary": "b", "path": "kb/b.md", "line": 2}]
    post_code_insights(harness.adapter(), "acme", "kb", sha, REPORT, bare, report_id="homeostat-custom")
    first = [a["external_id"] for a in harness.annotations(repo, sha, "homeostat-custom")]
    post_code_insights(harness.adapter(), "acme", "kb", sha, REPORT, bare, report_id="homeostat-custom")
    again = [a["external_id"] for a in harness.annotations(repo, sha, "homeostat-custom")]
    assert first == again and len(set(first)) == 2
    assert all(external.startswith("homeostat-custom-") for external in first)


def test_blips_are_retried(bitbucket_harness: BitbucketHarness, repo: RepoRef) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    harness.fail_next(503, times=2)
    post_code_insights(harness.adapter(), "acme", "kb", sha, REPORT, [finding(1)])
    assert len(harness.annotations(repo, sha, "homeostat-validate")) == 1


def test_refusals_say_what_to_set(bitbucket_harness: BitbucketHarness, repo: RepoRef) -> None:
    harness = bitbucket_harness
    sha = harness.head(repo)
    harness.revoke_token()
    with pytest.raises(AuthError) as caught:
        post_code_insights(harness.adapter(), "acme", "kb", sha, REPORT, [])
    assert str(caught.value) == (
        "Bitbucket refused the token in HOMEOSTAT_BITBUCKET_TOKEN (401): set a token with pullrequest:write"
        " and repository:write"
    )
    harness.fail_next(401)
    with pytest.raises(AuthError) as caught:
        post_code_insights(pipelines_api(harness.proxy_url), "acme", "kb", sha, REPORT, [])
    assert str(caught.value) == (
        f"the Bitbucket Pipelines auth proxy at {harness.proxy_url} refused DELETE"
        f" repositories/acme/kb/commit/{sha}/reports/homeostat-validate (401): run inside a Pipelines step,"
        " or set HOMEOSTAT_BITBUCKET_TOKEN to a token with repository (Code Insights)"
    )


def test_the_client_from_the_environment() -> None:
    proxied = insights_api_from_env(
        {"BITBUCKET_BUILD_NUMBER": "12", "HOMEOSTAT_BITBUCKET_PROXY": "http://127.0.0.1:1"}
    )
    assert proxied.proxy == "http://127.0.0.1:1"
    assert proxied.client.url == "http://api.bitbucket.org/2.0"
    assert (
        insights_api_from_env({"HOMEOSTAT_BITBUCKET_TOKEN": "value"}).variable == "HOMEOSTAT_BITBUCKET_TOKEN"
    )
    with pytest.raises(ConfigError) as caught:
        insights_api_from_env({})
    assert str(caught.value) == (
        "cannot post Code Insights: not in a Bitbucket Pipelines step (BITBUCKET_BUILD_NUMBER is not set)"
        " and no token: set HOMEOSTAT_BITBUCKET_TOKEN to a token with repository access"
    )


def test_the_commit_of_the_pipelines_step() -> None:
    env = {"BITBUCKET_WORKSPACE": "acme", "BITBUCKET_REPO_SLUG": "kb", "BITBUCKET_COMMIT": "abc123"}
    assert pipelines_commit(env) == ("acme", "kb", "abc123")
    with pytest.raises(ConfigError) as caught:
        pipelines_commit({"BITBUCKET_WORKSPACE": "acme"})
    assert str(caught.value) == (
        "cannot post Code Insights: BITBUCKET_REPO_SLUG, BITBUCKET_COMMIT not set"
        " (Bitbucket Pipelines sets them in every step)"
    )
