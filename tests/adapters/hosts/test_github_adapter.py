"""The GitHub adapter against the local emulator: what only GitHub does, and what it costs.

The host-neutral behaviour is in tests/adapters/hosts/test_host_contract.py; here: the environment factory, requests
per merged PR, paging that stops at the window, rebased PRs, writes whose answer was lost, rate limits,
refusals and their messages, fork PRs, what a weaker token sees, and the shared retry policy.
"""

from __future__ import annotations

import logging
import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from emulators.github_server import BOT, GitHubHarness, ReviewCommentRecord
from hostkit import PullSpec, ReplySpec, ThreadSpec

from homeostat.adapters.hosts.github import GitHubHost, github_host_from_env
from homeostat.adapters.hosts.http_retry import (
    RetriesExhausted,
    RetryPolicy,
    Transient,
    retry_after,
    transient_status,
)
from homeostat.core.hosts import Capability, CommentRef, MergedPull, PullState, RepoRef
from homeostat.errors import AuthError, ConfigError, HostError

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def harness(github_harness: GitHubHarness) -> GitHubHarness:
    return github_harness


@pytest.fixture
def repo(harness: GitHubHarness) -> RepoRef:
    harness.add_member("rita", teams=("kb-reviewers",))
    harness.add_member("dev")
    return harness.create_repo("acme", "ledger")


def reviewed(comments: int, *, followed: bool = True) -> PullSpec:
    """One thread with `comments` comments in all (a root and its replies), fixed after review."""
    replies = tuple(ReplySpec("dev" if i % 2 else "rita", f"reply {i}") for i in range(comments - 1))
    thread = ThreadSpec(
        "rita", "Use Decimal for money.", "src/money.py", 1, replies, followed_by_commit=followed
    )
    files = {"src/money.py": "amount = 1.0\n"}
    return PullSpec("dev", "Settle invoices", files, NOW - timedelta(hours=3), threads=(thread,))


def only_pull(host: GitHubHost, repo: RepoRef) -> MergedPull:
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(hours=26))
    return pull


def open_daily(harness: GitHubHarness, repo: RepoRef, branch: str = "homeostat/daily-dev") -> tuple[int, str]:
    sha = harness.push_commit(repo, branch, {"knowledge/core/money.md": "Use Decimal.\n"})
    return harness.adapter().open_pull(repo, branch, "main", "Daily lessons", "").number, sha


# --- construction and environment ----------------------------------------------------------------


def test_from_env_without_a_token_names_the_variables() -> None:
    with pytest.raises(ConfigError) as raised:
        github_host_from_env({"GITHUB_API_URL": "https://ghe.example.com/api/v3"})
    assert str(raised.value) == (
        "no GitHub token: set HOMEOSTAT_GITHUB_TOKEN (or GITHUB_TOKEN in GitHub Actions) to a token with "
        "contents:write and pull-requests:write; for GitHub Enterprise also set GITHUB_API_URL"
    )


def test_from_env_prefers_the_homeostat_token_and_names_it_when_refused(
    harness: GitHubHarness, repo: RepoRef
) -> None:
    alice = harness.add_token("alice", permission="write")
    env = {
        "HOMEOSTAT_GITHUB_TOKEN": alice,
        "GITHUB_TOKEN": harness.token,
        "GITHUB_API_URL": harness.emulator.api_url,
    }
    assert github_host_from_env(env, retry=RetryPolicy(attempts=1)).token_reach(repo).user == "alice"

    env["HOMEOSTAT_GITHUB_TOKEN"] = "ghp_" + "Z9y8" * 9
    with pytest.raises(AuthError) as raised:
        github_host_from_env(env).get_pull(repo, 1)
    assert str(raised.value) == (
        "GitHub refused the token in HOMEOSTAT_GITHUB_TOKEN (401 Bad credentials): set a valid token with "
        "contents:write and pull-requests:write"
    )


def test_from_env_defaults_to_github_com_without_a_request() -> None:
    host = github_host_from_env({"GITHUB_TOKEN": "ghs_" + "Q7" * 18})
    assert repr(host) == "GitHubHost('https://api.github.com', token from GITHUB_TOKEN)"


def test_a_malformed_api_url_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as raised:
        GitHubHost("ghe.example.com/api/v3", "t0ken")
    assert str(raised.value) == (
        "GITHUB_API_URL is not an API URL: 'ghe.example.com/api/v3' (expected https://api.github.com or "
        "https://<host>/api/v3)"
    )


def test_constructing_the_adapter_makes_no_request(harness: GitHubHarness) -> None:
    GitHubHost(harness.emulator.api_url, harness.token)
    harness.adapter()
    assert harness.requests.entries == []


def test_capabilities_declare_everything_but_async_merge(harness: GitHubHarness) -> None:
    assert set(Capability) - harness.adapter().capabilities == {Capability.ASYNC_MERGE}


# --- what reading costs --------------------------------------------------------------------------


def test_threads_cost_the_same_few_requests_for_1_10_or_30_comments(harness: GitHubHarness) -> None:
    counts = {}
    for comments in (1, 10, 30):
        repo = harness.create_repo("acme", f"ledger-{comments}")
        harness.merged_pull(repo, reviewed(comments))
        host = harness.adapter()
        pull = only_pull(host, repo)
        harness.requests.clear()
        (thread,) = host.review_threads(pull)
        assert len(thread.comments) == comments and thread.followed_by_commit
        counts[comments] = len(harness.requests.entries)
    assert counts == {1: 2, 10: 2, 30: 2}  # the comments page and one compare


def test_each_review_round_costs_one_compare(harness: GitHubHarness, repo: RepoRef) -> None:
    number = harness.merged_pull(repo, reviewed(2))
    record = harness.emulator.repo("acme", "ledger")
    pull_record = record.pulls[number]
    first = pull_record.review_comments[0]
    later = record.git.log(pull_record.head_sha, walk=False)[0]["parents"][0]  # the fix's parent commit
    second_round = ReviewCommentRecord(
        harness.emulator.next_id(),
        number,
        "rita",
        "And here?",
        "src/other.py",
        1,
        pull_record.head_sha,
        first.created_at,
    )
    pull_record.review_comments.append(second_round)
    host = harness.adapter()
    pull = only_pull(host, repo)
    harness.requests.clear()

    threads = {thread.root.body: thread for thread in host.review_threads(pull)}

    assert later != pull_record.head_sha
    assert threads["Use Decimal for money."].followed_by_commit is True
    assert threads["And here?"].followed_by_commit is False  # written on the head: nothing came after
    assert harness.requests.count("GET", "/compare/") == 1 and len(harness.requests.entries) == 2


def test_listing_stops_paging_once_past_the_window(harness: GitHubHarness, repo: RepoRef) -> None:
    for index in range(15):
        harness.merged_pull(
            repo, PullSpec("dev", f"Old {index}", {f"o{index}.py": "x\n"}, NOW - timedelta(days=5))
        )
    recent = [
        harness.merged_pull(
            repo, PullSpec("dev", f"New {index}", {f"n{index}.py": "x\n"}, NOW - timedelta(hours=index + 1))
        )
        for index in range(3)
    ]
    harness.limit_page_size(5)
    harness.requests.clear()

    pulls = harness.adapter().list_merged_pulls(repo, NOW - timedelta(hours=26))

    assert [pull.number for pull in pulls] == recent
    assert harness.requests.count("GET", "/pulls?") == 1  # 18 closed PRs, 4 pages; only the first is read


# --- threads: the awkward cases ------------------------------------------------------------------


def test_a_rebased_pr_compares_trees_to_tell_what_changed(harness: GitHubHarness, repo: RepoRef) -> None:
    record = harness.emulator.repo("acme", "ledger")
    reviewed_sha = harness.push_commit(repo, "feature/rebased", {"a.py": "a = 1\n", "b.py": "b = 1\n"})
    host = harness.adapter()
    number = host.open_pull(repo, "feature/rebased", "main", "Rebased work", "").number
    pull_record = record.pulls[number]
    for path in ("a.py", "b.py"):
        pull_record.review_comments.append(
            ReviewCommentRecord(
                harness.emulator.next_id(), number, "rita", f"Look at {path}", path, 1, reviewed_sha, NOW
            )
        )
    main = record.git.rev("refs/heads/main")
    assert main is not None
    rewritten = record.git.commit([main], {"a.py": "a = 2\n", "b.py": "b = 1\n"}, "Rebased", "dev", NOW)
    record.git.update_ref("refs/heads/feature/rebased", rewritten)  # a force push
    harness.merge_as(repo, number, "rita")
    harness.requests.clear()

    threads = {t.root.body: t for t in host.review_threads(only_pull(host, repo))}

    assert (threads["Look at a.py"].followed_by_commit, threads["Look at b.py"].followed_by_commit) == (
        True,
        False,
    )
    assert harness.requests.count("GET", "/git/trees/") == 2


def test_a_comment_on_a_commit_the_host_lost_is_not_followed(harness: GitHubHarness, repo: RepoRef) -> None:
    number = harness.merged_pull(repo, reviewed(1))
    harness.emulator.repo("acme", "ledger").pulls[number].review_comments[0].commit_id = "f" * 40
    host = harness.adapter()

    (thread,) = host.review_threads(only_pull(host, repo))

    assert thread.followed_by_commit is False


def test_a_reply_to_a_reply_joins_the_root_thread(harness: GitHubHarness, repo: RepoRef) -> None:
    number = harness.merged_pull(repo, reviewed(2))
    comments = harness.emulator.repo("acme", "ledger").pulls[number].review_comments
    root, reply = comments
    comments.append(
        ReviewCommentRecord(
            harness.emulator.next_id(),
            number,
            "rita",
            "Nested",
            root.path,
            1,
            root.commit_id,
            reply.created_at + timedelta(seconds=5),
            in_reply_to=reply.id,
        )
    )
    host = harness.adapter()

    (thread,) = host.review_threads(only_pull(host, repo))

    assert [c.body for c in thread.comments] == ["Use Decimal for money.", "reply 0", "Nested"]


def test_a_comment_id_not_on_the_pr_is_named(harness: GitHubHarness, repo: RepoRef) -> None:
    number = harness.merged_pull(repo, reviewed(1))
    with pytest.raises(HostError) as raised:
        harness.adapter().get_comment_thread(CommentRef(repo, number, 42))
    assert str(raised.value) == (
        f"review comment 42 is not on PR #{number} of acme/ledger: check the URL (it should end in "
        "#discussion_r<id>)"
    )


# --- writes whose answer was lost, and refusals --------------------------------------------------


def test_an_open_pull_whose_answer_was_lost_is_found_not_duplicated(
    harness: GitHubHarness, repo: RepoRef
) -> None:
    harness.push_commit(repo, "homeostat/daily-dev", {"knowledge/core/a.md": "rule\n"})
    harness.emulator.lost_answers.append(("POST", "/pulls", 502))

    pull = harness.adapter().open_pull(repo, "homeostat/daily-dev", "main", "Daily lessons", "")

    assert list(harness.emulator.repo("acme", "ledger").pulls) == [pull.number]
    assert harness.requests.count("POST", "/pulls") == 1


def test_a_comment_whose_answer_was_lost_is_not_posted_twice(harness: GitHubHarness, repo: RepoRef) -> None:
    number, _sha = open_daily(harness, repo)
    harness.emulator.lost_answers.append(("POST", "/comments", 504))

    harness.adapter().add_comment(repo, number, "Merged 1 lesson.")

    assert harness.open_pull_state(repo, number)["comments"] == ["Merged 1 lesson."]


def test_a_merge_whose_answer_was_lost_reports_merged(harness: GitHubHarness, repo: RepoRef) -> None:
    number, sha = open_daily(harness, repo)
    harness.emulator.lost_answers.append(("PUT", "/merge", 502))
    record = harness.emulator.repo("acme", "ledger")
    before = record.git.rev("refs/heads/main")

    result = harness.adapter().merge_pull(repo, number, "Homeostat: daily lessons", "", sha)

    assert result.merged and result.sha == record.git.rev("refs/heads/main")
    assert record.git.rev("refs/heads/main~1") == before  # one squash commit, not two


def test_a_stale_head_is_refused_with_the_expected_sha(harness: GitHubHarness, repo: RepoRef) -> None:
    number, sha = open_daily(harness, repo)
    harness.push_commit(repo, "homeostat/daily-dev", {"knowledge/core/money.md": "Someone else.\n"})

    result = harness.adapter().merge_pull(repo, number, "Homeostat: daily lessons", "", sha)

    assert result.reason == (
        f"PR #{number} of acme/ledger was not merged: its head changed since it was pushed "
        f"(expected {sha[:12]})"
    )


def test_a_protected_base_refusal_says_why(harness: GitHubHarness, repo: RepoRef) -> None:
    number, sha = open_daily(harness, repo)
    harness.protect_branch(repo, "main", ("ci",))

    result = harness.adapter().merge_pull(repo, number, "Homeostat: daily lessons", "", sha)

    assert result.reason == (
        f'GitHub refused to merge PR #{number} of acme/ledger (405 Required status check "ci" is expected.): '
        "branch protection, a required check or a conflict; it stays open for a person"
    )


def test_opening_a_pr_with_nothing_to_merge_says_so(harness: GitHubHarness, repo: RepoRef) -> None:
    record = harness.emulator.repo("acme", "ledger")
    main = record.git.rev("refs/heads/main")
    assert main is not None
    record.git.update_ref("refs/heads/homeostat/empty", main)

    with pytest.raises(HostError) as raised:
        harness.adapter().open_pull(repo, "homeostat/empty", "main", "Nothing", "")
    assert str(raised.value) == (
        "GitHub refused to open a PR from homeostat/empty into main in acme/ledger (422 Validation Failed: "
        "No commits between main and homeostat/empty)"
    )


def test_an_unknown_reviewer_is_named_with_the_fix(harness: GitHubHarness, repo: RepoRef) -> None:
    number, _sha = open_daily(harness, repo)
    with pytest.raises(HostError) as raised:
        harness.adapter().request_reviewers(repo, number, ["stranger"], teams=["kb-reviewers"])
    assert str(raised.value).startswith(
        f"GitHub refused to request reviews from stranger, team kb-reviewers on PR #{number} of acme/ledger "
        "(422 Reviews may only be requested from collaborators."
    )
    assert str(raised.value).endswith(
        "each reviewer must be a collaborator on acme/ledger (teams by slug, with access to the repo)"
    )


def test_open_prs_from_forks_are_not_ours(harness: GitHubHarness, repo: RepoRef) -> None:
    ours, _sha = open_daily(harness, repo)
    harness.fork_pull(repo, "mallory", "homeostat/daily-dev", "Looks like a daily PR")

    assert [pull.number for pull in harness.adapter().list_open_pulls(repo, "homeostat/")] == [ours]


def test_a_read_only_token_is_told_what_permission_it_lacks(harness: GitHubHarness, repo: RepoRef) -> None:
    harness.push_commit(repo, "homeostat/daily-dev", {"knowledge/core/a.md": "rule\n"})
    reader = harness.add_token("auditor", permission="read")
    with pytest.raises(AuthError) as raised:
        harness.adapter(token=reader).open_pull(repo, "homeostat/daily-dev", "main", "Daily lessons", "")
    assert str(raised.value) == (
        "GitHub refused the token in HOMEOSTAT_GITHUB_TOKEN/GITHUB_TOKEN (403 Resource not accessible by "
        "personal access token) to open a PR from homeostat/daily-dev into main in acme/ledger: give the "
        "token contents:write and pull-requests:write"
    )


# --- rate limits and an unreachable host ---------------------------------------------------------


@pytest.mark.parametrize(("status", "wait"), [(403, 1), (403, None), (429, 1), (502, None)])
def test_rate_limits_and_blips_are_retried(
    harness: GitHubHarness, repo: RepoRef, status: int, wait: int | None, caplog: pytest.LogCaptureFixture
) -> None:
    number = harness.merged_pull(repo, reviewed(1))
    harness.fail_next(status, retry_after=wait)

    assert harness.adapter().get_pull(repo, number).state is PullState.MERGED
    assert any(
        f"({status})" in record.getMessage() and "retrying" in record.getMessage()
        for record in caplog.records
    )


def test_a_wait_longer_than_the_cap_fails_at_once(harness: GitHubHarness, repo: RepoRef) -> None:
    harness.fail_next(429, retry_after=600)
    with pytest.raises(HostError) as raised:
        harness.adapter().get_pull(repo, 1)
    assert str(raised.value) == (
        "GitHub asked to wait 600s (rate limited (429)) to read PR #1 of acme/ledger, longer than this run "
        "waits (2s at once, 5s in all): rerun later"
    )
    assert len(harness.requests.entries) == 1


def test_an_unreachable_host_is_a_host_error(harness: GitHubHarness, repo: RepoRef) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    host = GitHubHost(f"http://127.0.0.1:{port}/api/v3", harness.token, retry=RetryPolicy(2, 0.01, 0.1, 0.5))
    with pytest.raises(HostError) as raised:
        host.get_pull(repo, 1)
    assert str(raised.value) == (
        "GitHub kept failing to read PR #1 of acme/ledger: no answer (ConnectionError) on all 2 tries; "
        "rerun later"
    )


def test_a_timeout_is_retried_then_a_host_error(harness: GitHubHarness, repo: RepoRef) -> None:
    number = harness.merged_pull(repo, reviewed(1))
    host = GitHubHost(
        harness.emulator.api_url, harness.token, retry=RetryPolicy(2, 0.01, 0.1, 0.5), timeout=1
    )
    harness.emulator.stalls.append(1.5)
    assert host.get_pull(repo, number).state is PullState.MERGED  # the second try is answered

    harness.emulator.stalls.extend([1.5, 1.5])
    with pytest.raises(HostError) as raised:
        host.get_pull(repo, number)
    assert str(raised.value) == (
        f"GitHub kept failing to read PR #{number} of acme/ledger: no answer (ReadTimeout) on all 2 tries; "
        "rerun later"
    )


# --- what a token may do -------------------------------------------------------------------------


def test_branch_protection_details_for_an_admin_token(harness: GitHubHarness, repo: RepoRef) -> None:
    harness.protect_branch(repo, "main", ("ci", "lint"))
    protection = harness.adapter().branch_protection(repo, "main")
    assert (protection.required_checks, protection.required_reviews, protection.allows_force_push) == (
        ("ci", "lint"),
        1,
        False,
    )
    assert protection.keeps_stale_approvals is True  # GitHub's default: approvals survive a push
    harness.protect_branch(repo, "main", ("ci", "lint"), dismiss_stale=True)
    assert harness.adapter().branch_protection(repo, "main").keeps_stale_approvals is False


def test_branch_protection_without_admin_falls_back_to_the_branch_flag(
    harness: GitHubHarness, repo: RepoRef
) -> None:
    writer = harness.add_token("writer", permission="write")
    host = harness.adapter(token=writer)
    assert (host.branch_protection(repo, "main").protected, host.branch_protection(repo, "main").known) == (
        False,
        False,
    )
    harness.protect_branch(repo, "main")
    protection = host.branch_protection(repo, "main")
    assert (protection.protected, protection.known, protection.required_checks) == (True, False, ())


def test_token_reach_of_a_classic_token(harness: GitHubHarness, repo: RepoRef) -> None:
    reach = harness.adapter().token_reach(repo)
    assert (reach.user, reach.can_write, reach.can_admin, reach.scopes, reach.notes) == (
        BOT,
        True,
        True,
        ("repo", "workflow"),
        (),
    )


def test_token_reach_of_a_fine_grained_read_only_token(harness: GitHubHarness, repo: RepoRef) -> None:
    reader = harness.add_token("auditor", permission="read", scopes=None)
    reach = harness.adapter(token=reader).token_reach(repo)
    assert (reach.user, reach.can_read, reach.can_write, reach.scopes) == ("auditor", True, False, ())
    assert reach.notes == ("no X-OAuth-Scopes header: a fine-grained or app token; repo permissions shown",)


def test_no_token_in_any_log_line_through_retries_and_refusals(
    harness: GitHubHarness, repo: RepoRef, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    number, sha = open_daily(harness, repo)
    host = harness.adapter()
    harness.fail_next(502, times=2)
    host.get_pull(repo, number)
    harness.protect_branch(repo, "main")
    host.merge_pull(repo, number, "t", "m", sha)
    harness.revoke_token()
    with pytest.raises(AuthError):
        host.add_comment(repo, number, "x")

    assert caplog.records  # the client logged its requests at DEBUG
    assert all(harness.token not in record.getMessage() for record in caplog.records)


# --- the retry policy (pure) ---------------------------------------------------------------------


class Flaky:
    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.attempts: list[int] = []

    def __call__(self, attempt: int) -> str:
        self.attempts.append(attempt)
        if len(self.attempts) <= self.failures:
            raise OSError("blip")
        return "ok"


def blips(exc: BaseException) -> Transient | None:
    return Transient("blip") if isinstance(exc, OSError) else None


def test_backoff_doubles_to_the_cap_and_retries_until_success() -> None:
    slept: list[float] = []
    policy = RetryPolicy(attempts=4, base_delay=0.5, max_delay=1.0, max_total_wait=10.0, sleep=slept.append)
    flaky = Flaky(3)
    assert policy.run(flaky, blips, what="test") == "ok"
    assert (flaky.attempts, slept) == ([1, 2, 3, 4], [0.5, 1.0, 1.0])


def test_attempts_run_out() -> None:
    policy = RetryPolicy(attempts=3, base_delay=0.1, sleep=lambda _s: None)
    with pytest.raises(RetriesExhausted) as raised:
        policy.run(Flaky(5), blips, what="test")
    assert (raised.value.attempts, raised.value.asked, str(raised.value)) == (3, 0.0, "blip")


def test_the_total_wait_is_capped() -> None:
    slept: list[float] = []
    policy = RetryPolicy(attempts=10, base_delay=1.0, max_delay=4.0, max_total_wait=5.0, sleep=slept.append)
    with pytest.raises(RetriesExhausted) as raised:
        policy.run(Flaky(10), blips, what="test")
    assert slept == [1.0, 2.0] and raised.value.asked == 4.0 and raised.value.waited == 3.0


def test_a_final_failure_is_raised_at_once() -> None:
    slept: list[float] = []
    with pytest.raises(ValueError):
        RetryPolicy(sleep=slept.append).run(lambda _a: int("x"), blips, what="test")
    assert slept == []


def test_retry_after_reads_seconds_dates_and_rate_limit_resets() -> None:
    now = 1_800_000_000.0
    in_ten = format_datetime(datetime.fromtimestamp(now + 10, UTC), usegmt=True)
    assert retry_after({"Retry-After": "7"}, now) == 7.0
    assert retry_after({"retry-after": in_ten}, now) == 10.0
    assert retry_after({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(now) + 30)}, now) == 31.0
    assert retry_after({"X-RateLimit-Remaining": "12", "X-RateLimit-Reset": str(int(now) + 30)}, now) is None
    assert retry_after({"Retry-After": "soon"}, now) is None


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (500, {}, Transient("server error (500)")),
        (503, {"Retry-After": "2"}, Transient("server error (503)", 2.0)),
        (429, {"Retry-After": "3"}, Transient("rate limited (429)", 3.0, rate_limited=True)),
        (403, {"Retry-After": "60"}, Transient("rate limited (403)", 60.0, rate_limited=True)),
        (403, {"x-ratelimit-remaining": "0"}, Transient("rate limited (403)", None, rate_limited=True)),
        (403, {"x-ratelimit-remaining": "10"}, None),
        (401, {}, None),
        (404, {}, None),
        (501, {}, None),
    ],
)
def test_which_answers_may_pass(status: int, headers: dict[str, str], expected: Transient | None) -> None:
    assert transient_status(status, headers) == expected


def test_a_listed_pr_reads_the_same_as_the_pr_itself(harness: GitHubHarness, repo: RepoRef) -> None:
    """A PR found by listing and the same PR read alone are one record: both reads build it one way."""
    number, _sha = open_daily(harness, repo)
    adapter = harness.adapter()

    [listed] = adapter.list_open_pulls(repo, "homeostat/")
    assert listed == adapter.get_pull(repo, number)
    assert listed.state is PullState.OPEN
    assert (listed.head_branch, listed.base_branch) == ("homeostat/daily-dev", "main")
