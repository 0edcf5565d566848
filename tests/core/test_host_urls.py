"""The pure parts of the host layer: URL parsers, URL builders, and which PRs and repos count."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from homeostat.core.hosts import (
    CommentRef,
    HostKind,
    MergedPull,
    RepoRef,
    UrlError,
    code_repos,
    comment_url,
    parse_comment_url,
    parse_pull_url,
    parse_repo_url,
    pull_url,
    readable_pulls,
)

GH, BB = HostKind.GITHUB, HostKind.BITBUCKET


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/acme/ledger", RepoRef(GH, "acme", "ledger")),
        ("https://github.com/acme/ledger.git", RepoRef(GH, "acme", "ledger")),
        ("https://github.com/acme/ledger/", RepoRef(GH, "acme", "ledger")),
        ("  https://github.com/acme/ledger  ", RepoRef(GH, "acme", "ledger")),
        ("https://www.github.com/acme/ledger", RepoRef(GH, "acme", "ledger")),
        ("git@github.com:acme/ledger.git", RepoRef(GH, "acme", "ledger")),
        ("ssh://git@github.com/acme/ledger.git", RepoRef(GH, "acme", "ledger")),
        ("https://x-access-token:abc123@github.com/acme/ledger", RepoRef(GH, "acme", "ledger")),
        ("https://ghe.example.com/acme/ledger", RepoRef(GH, "acme", "ledger", "https://ghe.example.com")),
        (
            "https://ghe.example.com:8443/acme/ledger",
            RepoRef(GH, "acme", "ledger", "https://ghe.example.com:8443"),
        ),
        (
            "ssh://git@ghe.example.com/acme/ledger.git",
            RepoRef(GH, "acme", "ledger", "https://ghe.example.com"),
        ),
        ("http://127.0.0.1:5000/acme/ledger", RepoRef(GH, "acme", "ledger", "http://127.0.0.1:5000")),
        ("https://bitbucket.org/acme/ledger", RepoRef(BB, "acme", "ledger")),
        ("git@bitbucket.org:acme/ledger.git", RepoRef(BB, "acme", "ledger")),
        ("https://alice@bitbucket.org/acme/ledger.git", RepoRef(BB, "acme", "ledger")),
    ],
)
def test_parses_repo_urls(url: str, expected: RepoRef) -> None:
    assert parse_repo_url(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "acme/ledger",
        "",
        "https://github.com/acme",
        "ftp://github.com/acme/ledger",
        "https://github.com/acme/ledger/tree/main",
    ],
)
def test_rejects_what_is_not_a_repo_url(url: str) -> None:
    with pytest.raises(UrlError) as raised:
        parse_repo_url(url)
    assert (
        str(raised.value) == f"not a repository URL: {url.strip()!r} (expected https://<host>/<owner>/<repo>)"
    )


def test_a_credential_in_a_bad_url_never_reaches_the_message() -> None:
    secret = "ghp_" + "K3y" * 12
    with pytest.raises(UrlError) as raised:
        parse_repo_url(f"https://x-access-token:{secret}@github.com/acme")
    assert str(raised.value) == (
        "not a repository URL: 'https://***@github.com/acme' (expected https://<host>/<owner>/<repo>)"
    )
    with pytest.raises(UrlError) as raised:
        parse_comment_url(f"https://bot:{secret}@github.com/acme/ledger/pull/3#issuecomment-1")
    assert secret not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "repo", "number"),
    [
        ("https://github.com/acme/ledger/pull/412", RepoRef(GH, "acme", "ledger"), 412),
        ("https://github.com/acme/ledger/pull/412/", RepoRef(GH, "acme", "ledger"), 412),
        ("https://github.com/acme/ledger/pull/412/files", RepoRef(GH, "acme", "ledger"), 412),
        ("https://github.com/acme/ledger/pull/412/commits", RepoRef(GH, "acme", "ledger"), 412),
        ("https://github.com/acme/ledger/pull/412?w=1", RepoRef(GH, "acme", "ledger"), 412),
        (
            "https://ghe.example.com/acme/ledger/pull/4",
            RepoRef(GH, "acme", "ledger", "https://ghe.example.com"),
            4,
        ),
        ("https://bitbucket.org/acme/ledger/pull-requests/7", RepoRef(BB, "acme", "ledger"), 7),
        ("https://bitbucket.org/acme/ledger/pull-requests/7/overview", RepoRef(BB, "acme", "ledger"), 7),
        ("https://bitbucket.org/acme/ledger/pull-requests/7/diff", RepoRef(BB, "acme", "ledger"), 7),
    ],
)
def test_parses_pull_request_urls(url: str, repo: RepoRef, number: int) -> None:
    assert parse_pull_url(url) == (repo, number)


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/acme/ledger/issues/5",
        "https://github.com/acme/ledger/pull/abc",
        "https://bitbucket.org/acme/ledger/pull/5",
        "git@github.com:acme/ledger/pull/5",
    ],
)
def test_rejects_what_is_not_a_pull_request_url(url: str) -> None:
    with pytest.raises(UrlError) as raised:
        parse_pull_url(url)
    assert str(raised.value) == f"not a pull request URL: {url!r}"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://github.com/acme/ledger/pull/412#discussion_r1650000001",
            CommentRef(RepoRef(GH, "acme", "ledger"), 412, 1650000001),
        ),
        (
            "https://github.com/acme/ledger/pull/412/files#r77",
            CommentRef(RepoRef(GH, "acme", "ledger"), 412, 77),
        ),
        (
            "https://ghe.example.com/acme/ledger/pull/4#discussion_r9",
            CommentRef(RepoRef(GH, "acme", "ledger", "https://ghe.example.com"), 4, 9),
        ),
        (
            "https://bitbucket.org/acme/ledger/pull-requests/12#comment-345",
            CommentRef(RepoRef(BB, "acme", "ledger"), 12, 345),
        ),
    ],
)
def test_parses_review_comment_urls(url: str, expected: CommentRef) -> None:
    assert parse_comment_url(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/acme/ledger/pull/412#issuecomment-5", "#discussion_r<id>"),
        ("https://github.com/acme/ledger/pull/412", "#discussion_r<id>"),
        ("https://bitbucket.org/acme/ledger/pull-requests/12#discussion_r5", "#comment-<id>"),
    ],
)
def test_rejects_what_is_not_a_review_comment_url(url: str, expected: str) -> None:
    with pytest.raises(UrlError) as raised:
        parse_comment_url(url)
    assert str(raised.value) == f"not a review-comment URL: {url!r} (expected {expected} after the PR URL)"


@pytest.mark.parametrize(
    "repo",
    [
        RepoRef(GH, "acme", "ledger"),
        RepoRef(GH, "acme", "ledger", "https://ghe.example.com"),
        RepoRef(BB, "acme", "ledger"),
    ],
)
def test_built_urls_parse_back(repo: RepoRef) -> None:
    assert parse_pull_url(pull_url(repo, 31)) == (repo, 31)
    assert parse_comment_url(comment_url(repo, 31, 9001)) == CommentRef(repo, 31, 9001)
    assert parse_repo_url(repo.web_url) == repo


def test_built_urls_have_each_hosts_shape() -> None:
    assert (
        comment_url(RepoRef(GH, "acme", "ledger"), 3, 7)
        == "https://github.com/acme/ledger/pull/3#discussion_r7"
    )
    assert (
        comment_url(RepoRef(BB, "acme", "ledger"), 3, 7)
        == "https://bitbucket.org/acme/ledger/pull-requests/3#comment-7"
    )


def test_same_repo_ignores_case_and_origin_but_not_host() -> None:
    repo = RepoRef(GH, "acme", "ledger")
    assert repo.same_repo(RepoRef(GH, "ACME", "Ledger", "https://github.com"))
    assert not repo.same_repo(RepoRef(BB, "acme", "ledger"))
    assert repo.full_name == "acme/ledger"


# --- which merged PRs count ----------------------------------------------------------------------


def merged(number: int, author: str = "dev", title: str = "Change", body: str = "") -> MergedPull:
    repo = RepoRef(GH, "acme", "ledger")
    when = datetime(2026, 10, 21, 6, tzinfo=UTC)
    return MergedPull(repo, number, title, body, author, when, pull_url(repo, number))


@pytest.mark.parametrize(
    ("pull", "kept"),
    [
        (merged(1), True),
        (merged(2, body="Refactor.\n\nhomeostat:skip"), False),
        (merged(3, title="Bump deps homeostat:skip"), False),
        (merged(4, author="Opted-Out"), False),
        (merged(5, author="opted-out-not"), True),
        (merged(6, body="homeostat: skip"), True),  # not the marker
    ],
)
def test_readable_pulls_drop_the_skip_marker_and_opted_out_authors(pull: MergedPull, kept: bool) -> None:
    result = readable_pulls([pull], skip_marker="homeostat:skip", opted_out=["opted-out"])
    assert (result == [pull]) is kept


def test_an_empty_skip_marker_skips_nothing_and_order_is_kept() -> None:
    pulls = [merged(3), merged(1), merged(2, body="anything")]
    assert readable_pulls(pulls, skip_marker="  ", opted_out=[]) == pulls


# --- which code repos are read -------------------------------------------------------------------


KB = parse_repo_url("https://github.com/acme/homeostat-kb")


@pytest.mark.parametrize(
    ("urls", "excluded", "expected"),
    [
        (["https://github.com/acme/ledger"], [], ["acme/ledger"]),
        (["https://github.com/acme/ledger", "https://github.com/acme/homeostat-kb"], [], ["acme/ledger"]),
        (["git@github.com:Acme/Homeostat-KB.git", "https://github.com/acme/api"], [], ["acme/api"]),
        (["https://github.com/acme/ledger", "git@github.com:acme/ledger.git"], [], ["acme/ledger"]),
        (["https://github.com/acme/ledger", "https://github.com/acme/api"], ["api"], ["acme/ledger"]),
        (
            ["https://github.com/acme/ledger", "https://github.com/acme/api"],
            ["https://github.com/ACME/api"],
            ["acme/ledger"],
        ),
        (
            ["https://github.com/acme/ledger", "https://github.com/other/ledger"],
            ["https://github.com/other/ledger"],
            ["acme/ledger"],
        ),
    ],
)
def test_code_repos_leave_out_the_kb_and_exclusions(
    urls: list[str], excluded: list[str], expected: list[str]
) -> None:
    assert [repo.full_name for repo in code_repos(urls, excluded=excluded, kb_repo=KB)] == expected


def test_the_same_name_on_another_host_is_another_repo() -> None:
    repos = code_repos(
        ["https://github.com/acme/homeostat-kb", "https://bitbucket.org/acme/homeostat-kb"],
        excluded=[],
        kb_repo=KB,
    )
    assert repos == [RepoRef(BB, "acme", "homeostat-kb")]


def test_a_bad_repo_url_is_an_error_not_a_skip() -> None:
    with pytest.raises(UrlError):
        code_repos(["https://github.com/acme"], excluded=[], kb_repo=None)


@pytest.mark.parametrize(
    ("parse", "url"),
    [
        (parse_repo_url, "https://[github.com/acme/ledger"),
        (parse_repo_url, "https://github.com:port/acme/ledger"),
        (parse_pull_url, "https://[github.com/acme/ledger/pull/3"),
        (parse_comment_url, "https://github.com]/acme/ledger/pull/3#discussion_r1"),
    ],
)
def test_a_stray_bracket_or_a_bad_port_is_a_url_error_not_a_crash(
    parse: Callable[[str], object], url: str
) -> None:
    with pytest.raises(UrlError, match="not a "):
        parse(url)
