"""The Bitbucket Cloud adapter against the local emulator: what only Bitbucket does, and what it costs.

The host-neutral behaviour is in tests/adapters/hosts/test_host_contract.py; here: the asynchronous merge and its
task poll, state mapping (DECLINED, SUPERSEDED), paging, requests per PR, retries, and that a token
never shows up in an error or a log line.
"""

from __future__ import annotations

import base64
import logging
from datetime import UTC, datetime, timedelta

import pytest
from emulators.bitbucket_server import BOT, BitbucketHarness, git
from hostkit import PullSpec, ReplySpec, ThreadSpec

from homeostat.adapters.hosts.bitbucket import (
    BitbucketHost,
    MergeWait,
    PullCommit,
    RawComment,
    TransientHostError,
    bitbucket_host_from_env,
    boundary_before,
    group_threads,
    restriction_applies,
)
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.core.hosts import (
    Capability,
    CommentRef,
    FollowUp,
    PullState,
    RepoRef,
    ReviewThread,
    parse_comment_url,
)
from homeostat.errors import AuthError, ConfigError, HostError

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture
def harness(bitbucket_harness: BitbucketHarness) -> BitbucketHarness:
    return bitbucket_harness


@pytest.fixture
def repo(harness: BitbucketHarness) -> RepoRef:
    return harness.create_repo("acme", "ledger")


def reviewed_pull(harness: BitbucketHarness, repo: RepoRef, threads: int = 3, hours_ago: int = 5) -> int:
    """A merged PR, threads on their own files: the first followed by a fix, the second by another commit."""
    specs = tuple(
        ThreadSpec(
            author="bob",
            body=f"comment {index}",
            path=f"src/mod_{index}.py",
            line=index + 1,
            replies=(ReplySpec("alice", f"reply {index}"), ReplySpec("bob", f"thanks {index}")),
            followed_by_commit=index == 0,
            touch_other_file=index == 1,
        )
        for index in range(threads)
    )
    files = {f"src/mod_{index}.py": f"value = {index}\n" for index in range(max(threads, 1))}
    spec = PullSpec(
        author="alice",
        title="Sync ledgers nightly",
        files=files,
        merged_at=NOW - timedelta(hours=hours_ago),
        body="Adds the nightly sync.",
        threads=specs,
        merged_by="carol",
    )
    return harness.merged_pull(repo, spec)


def open_pull(harness: BitbucketHarness, repo: RepoRef, branch: str = "homeostat/daily-alice") -> int:
    return harness.open_as(repo, BOT, branch, "Daily lessons", {"kb/rules.md": "rule\n"})


# --- construction and environment ------------------------------------------------------------------


def test_constructing_the_adapter_makes_no_request(harness: BitbucketHarness) -> None:
    BitbucketHost(harness.api_url, token="unused-token-value")
    assert harness.requests.entries == []


def test_capabilities_declare_what_bitbucket_cannot_do(harness: BitbucketHarness) -> None:
    host = harness.adapter()
    assert Capability.ASYNC_MERGE in host.capabilities
    assert Capability.SQUASH_MESSAGE in host.capabilities
    assert Capability.TEAM_REVIEWERS not in host.capabilities
    assert Capability.EXPECTED_HEAD not in host.capabilities


def test_env_prefers_the_access_token_and_reads_the_api_url() -> None:
    host = bitbucket_host_from_env(
        {"HOMEOSTAT_BITBUCKET_TOKEN": "access-value", "BITBUCKET_API_URL": "http://127.0.0.1:9/"}
    )
    assert host.api.variable == "HOMEOSTAT_BITBUCKET_TOKEN"
    assert host.client.url == "http://127.0.0.1:9/2.0"
    assert host.client.session.headers["Authorization"] == "Bearer access-value"


def test_env_api_token_goes_with_the_email() -> None:
    host = bitbucket_host_from_env(
        {"BITBUCKET_API_TOKEN": "api-value", "BITBUCKET_EMAIL": "a@example.invalid"}
    )
    assert host.api.variable == "BITBUCKET_API_TOKEN"
    assert host.client.session.auth == ("a@example.invalid", "api-value")
    assert host.client.url == "https://api.bitbucket.org/2.0"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {},
            "no Bitbucket token: set HOMEOSTAT_BITBUCKET_TOKEN (a repository or workspace access token) or"
            " BITBUCKET_API_TOKEN with BITBUCKET_EMAIL (an Atlassian API token and its account's email)",
        ),
        (
            {"BITBUCKET_API_TOKEN": "api-value"},
            "BITBUCKET_API_TOKEN is set but BITBUCKET_EMAIL is not: set BITBUCKET_EMAIL to the email"
            " of the Atlassian account the API token belongs to, or use HOMEOSTAT_BITBUCKET_TOKEN with an"
            " access token",
        ),
        (
            {"HOMEOSTAT_BITBUCKET_TOKEN": "x", "BITBUCKET_API_URL": "api.bitbucket.org"},
            "BITBUCKET_API_URL is not a URL: 'api.bitbucket.org' (expected e.g. https://api.bitbucket.org/)",
        ),
    ],
)
def test_env_errors_name_the_variables(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        bitbucket_host_from_env(env)
    assert str(caught.value) == message


# --- pure pieces --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("restriction", "branch", "applies"),
    [
        ({"pattern": "main"}, "main", True),
        ({"pattern": "release/*"}, "release/1.0", True),
        ({"pattern": "*"}, "homeostat/daily-alice", True),
        ({"pattern": "ma*"}, "develop", False),
        ({"pattern": "feature/*"}, "feature", False),
        ({"pattern": "main.x"}, "mainxx", False),  # a dot is a dot, not a regex wildcard
        ({"branch_match_kind": "branching_model", "branch_type": "production"}, "main", False),
    ],
)
def test_restriction_globs(restriction: dict[str, str], branch: str, applies: bool) -> None:
    assert restriction_applies(restriction, branch) is applies


def raw(
    id_: int, parent: int | None = None, path: str = "a.py", minute: int = 0, deleted: bool = False
) -> RawComment:
    return RawComment(id_, parent, path, 1, "bob", f"c{id_}", NOW + timedelta(minutes=minute), deleted)


def test_threads_follow_parent_chains_and_drop_deleted_roots() -> None:
    comments = [
        raw(1, minute=0),
        raw(2, parent=1, minute=1),
        raw(3, parent=2, minute=2),  # a reply to a reply belongs to the root
        raw(4, minute=3, deleted=True),
        raw(5, parent=4, minute=4),
        raw(6, path="", minute=5),  # a general comment
        raw(7, parent=1, minute=6, deleted=True),
    ]
    assert [[c.id for c in thread] for thread in group_threads(comments)] == [[1, 2, 3]]
    assert [[c.id for c in t] for t in group_threads(comments, inline_only=False)] == [[1, 2, 3], [6]]


def test_the_boundary_is_the_last_commit_the_comment_saw() -> None:
    def commit(sha: str, minute: int, parent: str) -> PullCommit:
        return PullCommit(sha, NOW + timedelta(minutes=minute), (parent,))

    commits = [commit("c3", 30, "c2"), commit("c2", 20, "c1"), commit("c1", 10, "base")]
    assert boundary_before(commits, NOW + timedelta(minutes=25)) == "c2"
    assert boundary_before(commits, NOW + timedelta(minutes=5)) == "base"  # every PR commit came after
    assert boundary_before(commits, NOW + timedelta(minutes=35)) is None  # nothing came after


# --- reading merged PRs ---------------------------------------------------------------------------


def test_merged_pulls_in_the_window_newest_first(harness: BitbucketHarness, repo: RepoRef) -> None:
    old = reviewed_pull(harness, repo, threads=0, hours_ago=60)
    recent = reviewed_pull(harness, repo, threads=0, hours_ago=2)
    middle = reviewed_pull(harness, repo, threads=0, hours_ago=10)
    open_pull(harness, repo)
    host = harness.adapter()
    pulls = host.list_merged_pulls(repo, NOW - timedelta(hours=26))
    assert [pull.number for pull in pulls] == [recent, middle]
    assert old not in [pull.number for pull in host.list_merged_pulls(repo, NOW - timedelta(hours=26))]
    first = pulls[0]
    assert (first.author, first.title, first.body, first.base_branch) == (
        "alice",
        "Sync ledgers nightly",
        "Adds the nightly sync.",
        "main",
    )
    assert first.url == f"https://bitbucket.org/acme/ledger/pull-requests/{recent}"
    until = host.list_merged_pulls(repo, NOW - timedelta(hours=26), until=NOW - timedelta(hours=5))
    assert [pull.number for pull in until] == [middle]


def test_merged_pulls_are_one_paged_query_not_one_request_per_pull(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    for index in range(12):
        harness.merged_pull(
            repo,
            PullSpec(
                "alice", f"Change {index}", {f"f{index}.txt": "x\n"}, NOW - timedelta(minutes=30 + index)
            ),
        )
    harness.emulator.page_cap = 5  # the server pages below the 50 asked for: `next` must be followed
    harness.requests.clear()
    pulls = harness.adapter().list_merged_pulls(repo, NOW - timedelta(hours=26))
    assert [pull.title for pull in pulls] == [f"Change {index}" for index in range(12)]
    assert harness.requests.count("GET", "/pullrequests") == 3
    assert harness.requests.count() == 3


def test_review_threads_group_replies_and_detect_follow_up_commits(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    number = reviewed_pull(harness, repo, threads=3)
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    threads = host.review_threads(pull)
    assert [thread.root.body for thread in threads] == ["comment 0", "comment 1", "comment 2"]
    assert [thread.followed_by_commit for thread in threads] == [True, False, False]
    first = threads[0]
    assert [reply.body for reply in first.replies] == ["reply 0", "thanks 0"]
    assert first.authors == ("bob", "alice")
    assert (first.path, first.root.line, first.pull_title, first.pull_author) == (
        "src/mod_0.py",
        1,
        "Sync ledgers nightly",
        "alice",
    )
    assert all(reply.in_reply_to == first.root.id for reply in first.replies)
    ref = parse_comment_url(first.url)
    assert (ref.repo.full_name, ref.pull, ref.comment_id) == ("acme/ledger", number, first.root.id)


def test_general_comments_are_not_review_threads(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = reviewed_pull(harness, repo, threads=1)
    harness.comment_as(repo, number, "dave", "LGTM overall", when=NOW - timedelta(hours=6))
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    assert [thread.root.body for thread in host.review_threads(pull)] == ["comment 0"]


@pytest.mark.parametrize("threads", [1, 30])
def test_requests_per_merged_pull_do_not_grow_with_comments(
    harness: BitbucketHarness, repo: RepoRef, threads: int
) -> None:
    reviewed_pull(harness, repo, threads=threads)
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    harness.requests.clear()
    found = host.review_threads(pull)
    assert len(found) == threads
    # comments, PR commits, one diff for the review round (which files changed, the lines added)
    assert len(harness.requests.entries) == 3


def test_a_pull_without_review_threads_costs_one_request(harness: BitbucketHarness, repo: RepoRef) -> None:
    reviewed_pull(harness, repo, threads=0)
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    harness.requests.clear()
    assert host.review_threads(pull) == []
    assert len(harness.requests.entries) == 1


def test_two_review_rounds_stay_within_four_requests(harness: BitbucketHarness, repo: RepoRef) -> None:
    """A comment after the first fix is judged only by commits after it."""
    start = NOW - timedelta(hours=8)
    number = harness.open_as(
        repo, "alice", "feature/rounds", "Two rounds", {"a.py": "1\n", "b.py": "1\n"}, when=start
    )
    harness.comment_as(repo, number, "bob", "fix a", path="a.py", line=1, when=start + timedelta(hours=1))
    harness.push_commit(
        repo, "feature/rounds", {"a.py": "2\n"}, "fix a", author="alice", when=start + timedelta(hours=2)
    )
    harness.comment_as(
        repo, number, "bob", "now a again", path="a.py", line=1, when=start + timedelta(hours=3)
    )
    harness.comment_as(repo, number, "bob", "and b", path="b.py", line=1, when=start + timedelta(hours=3))
    harness.push_commit(
        repo, "feature/rounds", {"b.py": "2\n"}, "fix b", author="alice", when=start + timedelta(hours=4)
    )
    harness.merge_as(repo, number, "carol", when=start + timedelta(hours=5))
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    harness.requests.clear()
    threads = host.review_threads(pull)
    assert [(t.root.body, t.followed_by_commit) for t in threads] == [
        ("fix a", True),
        ("now a again", False),
        ("and b", True),
    ]
    assert len(harness.requests.entries) == 4


def test_comments_past_one_page_are_all_read(harness: BitbucketHarness, repo: RepoRef) -> None:
    start = NOW - timedelta(hours=8)
    number = harness.open_as(repo, "alice", "feature/busy", "Busy review", {"a.py": "1\n"}, when=start)
    root = harness.comment_as(
        repo, number, "bob", "root", path="a.py", line=1, when=start + timedelta(minutes=1)
    )
    for index in range(120):
        harness.comment_as(
            repo, number, "alice", f"r{index}", parent=root, when=start + timedelta(minutes=2 + index)
        )
    harness.merge_as(repo, number, "carol", when=start + timedelta(hours=4))
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    (thread,) = host.review_threads(pull)
    assert len(thread.replies) == 120
    assert thread.replies[-1].body == "r119"


def test_comment_thread_from_a_reply_url(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = reviewed_pull(harness, repo, threads=2)
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    reply_id = host.review_threads(pull)[0].replies[1].id
    url = f"https://bitbucket.org/acme/ledger/pull-requests/{number}#comment-{reply_id}"
    thread = host.get_comment_thread(parse_comment_url(url))
    assert thread.root.body == "comment 0"
    assert thread.followed_by_commit is True
    assert thread.pull_title == "Sync ledgers nightly"
    with pytest.raises(HostError) as caught:
        host.get_comment_thread(CommentRef(repo, number, 999999))
    assert str(caught.value) == (
        f"Bitbucket has no comment 999999 on PR #{number} in acme/ledger"
        " (deleted, or the URL names another PR)"
    )


# --- who wrote the change after a comment, and what it added (issue 29) ------------------------------

CHARGE = "def charge(amount):\n    return gateway.pay(amount)\n"
START = NOW - timedelta(hours=8)


def commented_pull(harness: BitbucketHarness, repo: RepoRef, *, inline: bool = True) -> tuple[int, int]:
    """alice opens a billing PR and bob comments on it (on `billing/charge.py`, or on no file)."""
    number = harness.open_as(
        repo, "alice", "feature/charge", "Charge cards", {"billing/charge.py": CHARGE}, when=START
    )
    where = {"path": "billing/charge.py", "line": 2} if inline else {}
    said = START + timedelta(hours=1)
    comment = harness.comment_as(repo, number, "bob", "Wrap the call in `with_retry`", when=said, **where)
    return number, comment


def push_after(
    harness: BitbucketHarness, repo: RepoRef, author: str, files: dict[str, str], hour: int
) -> None:
    harness.push_commit(
        repo, "feature/charge", files, "Review fix", author=author, when=START + timedelta(hours=hour)
    )


def the_thread(harness: BitbucketHarness, repo: RepoRef, number: int) -> ReviewThread:
    harness.merge_as(repo, number, "carol", when=START + timedelta(hours=5))
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    (thread,) = host.review_threads(pull)
    return thread


def test_the_authors_fix_after_a_comment_is_its_follow_up(harness: BitbucketHarness, repo: RepoRef) -> None:
    number, _ = commented_pull(harness, repo)
    fixed = CHARGE.replace("return gateway", "return with_retry(gateway")
    push_after(harness, repo, "alice", {"billing/charge.py": fixed, "docs/notes.md": "notes\n"}, 2)
    follow_up = the_thread(harness, repo, number).follow_up
    assert follow_up is not None
    assert follow_up.authors == ("alice",)
    assert follow_up.added == ("    return with_retry(gateway.pay(amount)",)  # the commented file only
    assert follow_up.removed == ("    return gateway.pay(amount)",)


def test_a_fix_that_only_deletes_lines_follows_the_comment_with_them(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    """ "Stop calling X" is enacted by deleting X: the follow-up holds the lines taken out."""
    number, _ = commented_pull(harness, repo)
    push_after(harness, repo, "alice", {"billing/charge.py": "def charge(amount):\n"}, 2)
    thread = the_thread(harness, repo, number)
    assert thread.followed_by_commit
    assert thread.follow_up == FollowUp(("alice",), (), removed=("    return gateway.pay(amount)",))


def test_a_reviewer_who_pushes_after_their_comment_is_among_the_authors(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    number, _ = commented_pull(harness, repo)
    push_after(harness, repo, "alice", {"billing/charge.py": CHARGE + "# first\n"}, 2)
    push_after(harness, repo, "bob", {"billing/charge.py": CHARGE + "# first\nwith_retry = 1\n"}, 3)
    follow_up = the_thread(harness, repo, number).follow_up
    assert follow_up is not None
    assert follow_up.authors == ("alice", "bob")  # oldest first
    assert follow_up.added == ("# first", "with_retry = 1")


def test_a_commit_whose_email_has_no_account_has_no_author(harness: BitbucketHarness, repo: RepoRef) -> None:
    number, _ = commented_pull(harness, repo)
    push_after(harness, repo, "nobody-linked", {"billing/charge.py": CHARGE + "with_retry()\n"}, 2)
    follow_up = the_thread(harness, repo, number).follow_up
    assert follow_up is not None and follow_up.authors == ("",)  # never the raw name anyone can set


def test_a_general_comments_follow_up_holds_every_files_added_lines(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    number, comment = commented_pull(harness, repo, inline=False)
    files = {"billing/charge.py": CHARGE + "# retried\n", "billing/retry.py": "def with_retry():\n    pass\n"}
    push_after(harness, repo, "alice", files, 2)
    harness.merge_as(repo, number, "carol", when=START + timedelta(hours=5))
    thread = harness.adapter().get_comment_thread(CommentRef(repo, number, comment))
    assert thread.follow_up is not None
    assert sorted(thread.follow_up.added) == ["    pass", "# retried", "def with_retry():"]


def test_only_a_followed_thread_has_a_follow_up(harness: BitbucketHarness, repo: RepoRef) -> None:
    reviewed_pull(harness, repo, threads=3)  # the second thread is followed by a commit to another file
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    followed, elsewhere, untouched = (thread.follow_up for thread in host.review_threads(pull))
    assert followed is not None and followed.authors == ("alice", "alice")
    assert followed.added == ("# review 0: comment 0",)
    assert (elsewhere, untouched) == (None, None)


def test_a_binary_change_to_the_commented_file_is_found_through_the_diffstat(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    """The diff names no file for a binary change (no `---`/`+++` header): the diffstat settles it."""
    number = harness.open_as(repo, "alice", "feature/logo", "Logo", {"logo.bin": "\x00v1"}, when=START)
    harness.comment_as(
        repo, number, "bob", "Use the new `logo_v2`", path="logo.bin", when=START + timedelta(hours=1)
    )
    harness.push_commit(
        repo, "feature/logo", {"logo.bin": "\x00v2"}, author="alice", when=START + timedelta(hours=2)
    )
    harness.merge_as(repo, number, "carol", when=START + timedelta(hours=5))
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(days=1))
    harness.requests.clear()
    (thread,) = host.review_threads(pull)
    assert thread.followed_by_commit and thread.follow_up == FollowUp(("alice",), ())
    assert harness.requests.count("GET", "/diffstat/") == 1


def test_the_diff_endpoint_answers_text_filtered_by_path(harness: BitbucketHarness, repo: RepoRef) -> None:
    number, _ = commented_pull(harness, repo)
    before = harness.head(repo, "feature/charge")
    push_after(harness, repo, "alice", {"billing/charge.py": CHARGE + "# a\n", "other.py": "b\n"}, 2)
    api = harness.adapter().api
    where = f"repositories/acme/ledger/diff/{harness.head(repo, 'feature/charge')}..{before}"
    answer = api.call("GET", where, params={"path": ["other.py"]})
    assert answer.headers["Content-Type"] == "text/plain"
    assert "+++ b/other.py" in answer.text and "charge.py" not in answer.text
    assert api.call("GET", "repositories/acme/ledger/diff/0badc0de", accept=(404,)).status_code == 404


# --- PR state ---------------------------------------------------------------------------------------


def test_state_mapping_including_declined_and_superseded(harness: BitbucketHarness, repo: RepoRef) -> None:
    merged = reviewed_pull(harness, repo, threads=0)
    declined = open_pull(harness, repo, "homeostat/review-a")
    superseded = open_pull(harness, repo, "homeostat/review-b")
    still_open = open_pull(harness, repo, "homeostat/review-c")
    harness.close_as(repo, declined, "dave")
    harness.supersede(repo, superseded)
    host = harness.adapter()
    merged_info = host.get_pull(repo, merged)
    assert (merged_info.state, merged_info.merged_by) == (PullState.MERGED, "carol")
    assert merged_info.merged_at == NOW - timedelta(hours=5)
    declined_info = host.get_pull(repo, declined)
    assert (declined_info.state, declined_info.merged_by, declined_info.merged_at) == (
        PullState.CLOSED,
        None,
        None,
    )
    assert declined_info.closed_at is not None
    assert host.get_pull(repo, superseded).state is PullState.CLOSED
    assert host.get_pull(repo, still_open).state is PullState.OPEN


def test_a_missing_pull_is_an_error_never_declined(harness: BitbucketHarness, repo: RepoRef) -> None:
    with pytest.raises(HostError) as caught:
        harness.adapter().get_pull(repo, 404)
    assert str(caught.value) == (
        "Bitbucket answered 404 to GET repositories/acme/ledger/pullrequests/404:"
        " Pull request #404 not found in acme/ledger"
    )


def test_open_pull_is_idempotent_and_updates_the_open_one(harness: BitbucketHarness, repo: RepoRef) -> None:
    harness.push_commit(repo, "homeostat/daily-alice", {"kb/a.md": "a\n"})
    host = harness.adapter()
    first = host.open_pull(repo, "homeostat/daily-alice", "main", "Daily: 1 lesson", "body one")
    second = host.open_pull(repo, "homeostat/daily-alice", "main", "Daily: 2 lessons", "body two")
    assert first.number == second.number
    state = harness.open_pull_state(repo, first.number)
    assert (state["title"], state["body"], state["state"]) == ("Daily: 2 lessons", "body two", "open")
    assert len(host.list_open_pulls(repo, "homeostat/")) == 1


def test_open_pull_does_not_duplicate_when_the_create_answer_is_lost(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    harness.push_commit(repo, "homeostat/daily-bob", {"kb/b.md": "b\n"})
    harness.lose_next_answer("POST", "/pullrequests", 502)
    host = harness.adapter()
    info = host.open_pull(repo, "homeostat/daily-bob", "main", "Daily", "body")
    assert [pull.number for pull in host.list_open_pulls(repo, "homeostat/daily-bob")] == [info.number]


def test_list_open_pulls_by_branch_prefix(harness: BitbucketHarness, repo: RepoRef) -> None:
    daily = open_pull(harness, repo, "homeostat/daily-alice")
    review = open_pull(harness, repo, "homeostat/review-alice")
    open_pull(harness, repo, "feature/homeostat/other")
    host = harness.adapter()
    assert [pull.number for pull in host.list_open_pulls(repo, "homeostat/")] == [review, daily]
    assert [pull.head_branch for pull in host.list_open_pulls(repo, "homeostat/review-")] == [
        "homeostat/review-alice"
    ]


def test_reviewers_by_nickname_and_account_id_kept_and_not_duplicated(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    number = open_pull(harness, repo)
    dave = harness.emulator.user("dave")
    harness.add_member("erin")
    host = harness.adapter()
    host.request_reviewers(repo, number, ["erin"])
    host.request_reviewers(repo, number, [dave.account_id, "erin", BOT])  # BOT wrote it: skipped
    assert harness.open_pull_state(repo, number)["reviewers"] == ["erin", "dave"]
    harness.requests.clear()
    host.request_reviewers(repo, number, ["erin"])
    assert harness.requests.count("PUT") == 0


def test_team_reviewers_are_refused_loudly(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    with pytest.raises(HostError) as caught:
        harness.adapter().request_reviewers(repo, number, ["erin"], teams=["platform"])
    assert str(caught.value) == (
        f"Bitbucket has no team reviewers: cannot request platform on PR #{number} in acme/ledger;"
        " list the team's members in team.reviewers instead"
    )
    assert harness.open_pull_state(repo, number)["reviewers"] == []


def test_unknown_reviewer_names_the_handle(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    with pytest.raises(HostError) as caught:
        harness.adapter().request_reviewers(repo, number, ["nobody"])
    assert "no member 'nobody'" in str(caught.value)


def test_comment_and_decline(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    host = harness.adapter()
    host.add_comment(repo, number, "Superseded by today's run.")
    host.close_pull(repo, number)
    host.close_pull(repo, number)  # a rerun leaves it as it is
    state = harness.open_pull_state(repo, number)
    assert (state["bitbucket_state"], state["comments"]) == ("DECLINED", ["Superseded by today's run."])


# --- merging ----------------------------------------------------------------------------------------


def test_async_merge_is_polled_to_success_with_our_message(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    head = harness.open_pull_state(repo, number)["head_sha"]
    harness.emulator.merge_task_polls = 3
    harness.requests.clear()
    result = harness.adapter().merge_pull(
        repo, number, "Daily lessons [skip ci]", "3 lessons", expected_head=head
    )
    assert result.merged and result.sha
    assert harness.requests.count("POST", "/merge") == 1
    assert harness.requests.count("GET", "/merge/task-status/") == 4  # PENDING x3, then SUCCESS
    state = harness.open_pull_state(repo, number)
    assert state["state"] == "merged"
    main = harness.head(repo)
    assert main.startswith(result.sha)
    bare = harness.bare_path(repo)
    assert git(bare, "log", "-1", "--format=%B", main).strip() == "Daily lessons [skip ci]\n\n3 lessons"
    assert git(bare, "show", f"{main}:kb/rules.md") == "rule\n"
    assert git(bare, "rev-list", "--count", main).strip() == "2"  # squashed onto main
    assert harness.head(repo, "homeostat/daily-alice") == ""  # source branch closed


@pytest.mark.parametrize("shape", ["error", "status"])
def test_a_failed_merge_task_is_a_refusal_and_the_pull_stays_open(
    harness: BitbucketHarness, repo: RepoRef, shape: str
) -> None:
    number = open_pull(harness, repo)
    harness.fail_next_merge_task("Merge conflicts in kb/rules.md", shape=shape)
    result = harness.adapter().merge_pull(repo, number, "Daily", "")
    assert (result.merged, result.reason) == (
        False,
        f"Bitbucket refused to merge PR #{number} ({400 if shape == 'error' else 200}):"
        " Merge conflicts in kb/rules.md",
    )
    assert harness.open_pull_state(repo, number)["state"] == "open"


def test_a_merge_that_never_finishes_is_an_error_not_merged(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    harness.emulator.merge_task_polls = None
    host = harness.adapter(merge_wait=MergeWait(timeout=0.2, interval=0.02))
    with pytest.raises(HostError) as caught:
        host.merge_pull(repo, number, "Daily", "")
    assert str(caught.value) == (
        f"Bitbucket had not finished merging PR #{number} in acme/ledger after 0.2s (task still pending);"
        " it may still merge: check the PR before rerunning"
    )
    assert harness.open_pull_state(repo, number)["state"] == "open"


def test_a_synchronous_merge_answer_also_works(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    harness.emulator.sync_merges = True
    result = harness.adapter().merge_pull(repo, number, "Daily", "body")
    assert result.merged and harness.head(repo).startswith(result.sha or "-")
    assert harness.requests.count("GET", "task-status") == 0


def test_branch_restrictions_refuse_the_merge_as_a_value(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    harness.protect_branch(repo, "main")
    result = harness.adapter().merge_pull(repo, number, "Daily", "")
    assert result.refused
    assert result.reason == (
        f"Bitbucket refused to merge PR #{number} (400): Merge checks failed: the last commit needs at least"
        ' 1 successful build and has 0. ({"merge_checks": ["require_passing_builds_to_merge"]})'
    )
    assert harness.open_pull_state(repo, number)["state"] == "open"
    harness.set_build(repo, str(harness.open_pull_state(repo, number)["head_sha"]))
    assert harness.adapter().merge_pull(repo, number, "Daily", "").merged


def test_a_moved_head_is_refused_before_merging(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    old = str(harness.open_pull_state(repo, number)["head_sha"])
    new = harness.push_commit(repo, "homeostat/daily-alice", {"kb/late.md": "late\n"})
    result = harness.adapter().merge_pull(repo, number, "Daily", "", expected_head=old)
    assert (result.merged, result.reason) == (
        False,
        f"PR #{number} head moved to {new[:12]} (expected {old[:12]})",
    )
    assert harness.requests.count("POST", "/merge") == 0


def test_merging_again_after_a_merge_reports_merged(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    host = harness.adapter()
    first = host.merge_pull(repo, number, "Daily", "")
    again = host.merge_pull(repo, number, "Daily", "")
    assert (again.merged, again.sha) == (True, first.sha)
    declined = open_pull(harness, repo, "homeostat/other")
    harness.close_as(repo, declined, "dave")
    assert host.merge_pull(repo, declined, "Daily", "").reason == f"PR #{declined} is declined"


# --- settings -----------------------------------------------------------------------------------


def test_branch_protection_from_restrictions(harness: BitbucketHarness, repo: RepoRef) -> None:
    host = harness.adapter()
    assert host.branch_protection(repo, "main").protected is False
    harness.protect_branch(repo, "main")
    harness.emulator.add_restriction(
        harness.emulator.repo("acme", "ledger"),
        {"kind": "require_approvals_to_merge", "pattern": "ma*", "value": 2},
    )
    protection = host.branch_protection(repo, "main")
    assert (protection.protected, protection.known, protection.required_reviews) == (True, True, 2)
    assert (protection.required_checks, protection.allows_force_push) == (("1 passing build",), False)
    assert protection.keeps_stale_approvals is True  # no reset of approvals on a change
    assert host.branch_protection(repo, "develop").protected is False
    harness.emulator.add_restriction(
        harness.emulator.repo("acme", "ledger"),
        {"kind": "smart_reset_pullrequest_approvals", "pattern": "main"},
    )
    assert host.branch_protection(repo, "main").keeps_stale_approvals is False


def test_branch_protection_unknown_without_admin(harness: BitbucketHarness, repo: RepoRef) -> None:
    token = harness.new_token(BOT, ("account", "repository:write", "pullrequest:write"))
    protection = harness.adapter(token).branch_protection(repo, "main")
    assert (protection.protected, protection.known) == (False, False)


def test_token_reach_for_an_access_token_reads_its_scopes(harness: BitbucketHarness, repo: RepoRef) -> None:
    reach = harness.adapter().token_reach(repo)
    assert (reach.user, reach.can_read, reach.can_write, reach.can_admin) == (BOT, True, True, True)
    assert reach.scopes == ("account", "repository:admin", "pullrequest:write")
    assert reach.notes == ("acme/ledger lists no permission for this token; judged from its scopes",)


def test_token_reach_for_an_api_token_reads_the_permission(harness: BitbucketHarness, repo: RepoRef) -> None:
    harness.set_permission(repo, "erin", "read")
    reach = harness.api_token_adapter("erin").token_reach(repo)
    assert (reach.user, reach.can_read, reach.can_write, reach.notes) == ("erin", True, False, ())


# --- resilience and secrets -----------------------------------------------------------------------


def test_5xx_blips_are_retried(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    harness.fail_next(503, times=2)
    assert harness.adapter().get_pull(repo, number).number == number
    assert harness.requests.count("GET", f"/pullrequests/{number}") == 3


def test_429_honours_retry_after(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    harness.fail_next(429, retry_after=0)
    assert harness.adapter().get_pull(repo, number).state is PullState.OPEN


def test_a_retry_after_past_the_wait_cap_gives_up_at_once(harness: BitbucketHarness, repo: RepoRef) -> None:
    harness.fail_next(429, retry_after=3600)
    host = harness.adapter(retry=RetryPolicy(attempts=5, base_delay=0.01, max_total_wait=5))
    with pytest.raises(TransientHostError) as caught:
        host.get_pull(repo, 1)
    assert str(caught.value) == (
        "Bitbucket asked to wait 3600s (rate limited (429)) on GET repositories/acme/ledger/pullrequests/1,"
        " longer than this run waits: rerun later"
    )
    assert len(harness.requests.entries) == 1


def test_persistent_5xx_is_an_unclear_answer_not_a_refusal(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    host = harness.adapter()
    harness.requests.clear()
    harness.fail_next(502, times=10)
    with pytest.raises(TransientHostError) as caught:
        host.merge_pull(repo, number, "Daily", "")
    assert str(caught.value).startswith(
        f"Bitbucket kept failing (server error (502)) on GET repositories/acme/ledger/pullrequests/{number}"
        " after 4 tries ("
    )
    assert harness.requests.count() == 4
    assert harness.open_pull_state(repo, number)["state"] == "open"


def test_a_lost_merge_answer_is_retried_and_reports_the_merge(
    harness: BitbucketHarness, repo: RepoRef
) -> None:
    number = open_pull(harness, repo)
    harness.lose_next_answer("POST", "/merge", 500)
    result = harness.adapter().merge_pull(repo, number, "Daily", "")
    assert result.merged
    assert harness.requests.count("POST", "/merge") == 2
    assert harness.open_pull_state(repo, number)["state"] == "merged"


def test_401_names_the_variable_and_the_permission(harness: BitbucketHarness, repo: RepoRef) -> None:
    harness.revoke_token()
    with pytest.raises(AuthError) as caught:
        harness.adapter().list_merged_pulls(repo, NOW - timedelta(days=1))
    assert str(caught.value) == (
        "Bitbucket refused the token in HOMEOSTAT_BITBUCKET_TOKEN (401): set a token with pullrequest:write"
        " and repository:write"
    )


def test_403_names_the_missing_scope(harness: BitbucketHarness, repo: RepoRef) -> None:
    number = open_pull(harness, repo)
    reader = harness.new_token(BOT, ("account", "repository", "pullrequest"))
    with pytest.raises(AuthError) as caught:
        harness.adapter(reader).merge_pull(repo, number, "Daily", "")
    assert str(caught.value) == (
        f"Bitbucket refused the token in HOMEOSTAT_BITBUCKET_TOKEN (403) for POST"
        f" repositories/acme/ledger/pullrequests/{number}/merge: set a token with pullrequest:write and"
        " repository:write"
    )


def test_a_token_never_reaches_errors_or_logs(
    harness: BitbucketHarness, repo: RepoRef, caplog: pytest.LogCaptureFixture
) -> None:
    planted = "ATCTT3x" + "A1b2" * 9
    planted_email = "planted@example.invalid"
    encoded = base64.b64encode(f"{planted_email}:{planted}".encode()).decode()
    caplog.set_level(logging.DEBUG)
    errors: list[str] = []
    for host in (
        BitbucketHost(harness.api_url, token=planted, retry=RetryPolicy(attempts=2, base_delay=0.01)),
        BitbucketHost(
            harness.api_url,
            token=planted,
            email=planted_email,
            retry=RetryPolicy(attempts=2, base_delay=0.01),
        ),
        BitbucketHost(
            "http://127.0.0.1:9/", token=planted, retry=RetryPolicy(attempts=2, base_delay=0.01), timeout=2
        ),
    ):
        for action in (
            lambda h=host: h.list_merged_pulls(repo, NOW - timedelta(days=1)),
            lambda h=host: h.merge_pull(repo, 1, "t", "m"),
            lambda h=host: h.open_pull(repo, "x", "main", "t", "b"),
        ):
            with pytest.raises(HostError) as caught:
                action()
            errors.append(str(caught.value))
    harness.fail_next(500, times=10)
    with pytest.raises(HostError) as caught:
        BitbucketHost(
            harness.api_url, token=planted, retry=RetryPolicy(attempts=2, base_delay=0.01)
        ).get_pull(repo, 1)
    errors.append(str(caught.value))
    assert any("HOMEOSTAT_BITBUCKET_TOKEN" in error for error in errors)
    assert any("BITBUCKET_API_TOKEN with BITBUCKET_EMAIL" in error for error in errors)
    for text in errors + [record.getMessage() for record in caplog.records] + [repr(host)]:
        assert planted not in text and encoded not in text
    assert caplog.records  # the client did log, at debug level, without the token
