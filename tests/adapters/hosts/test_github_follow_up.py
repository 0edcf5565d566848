"""Who wrote the change after a review comment, and what it added and removed, as the GitHub adapter
reads it.

The provenance rule (`homeostat.core.daily.enactment`) lets a review lesson merge unread only when
someone other than the commenter wrote the commits after the comment and they added the rule's code.
Here the adapter fills `ReviewThread.follow_up` from real git commits on the emulator: each commit's
author is the account GitHub links its email to (a verified email or the no-reply address; none for
any other), and the added and removed lines are the commented file's patch in the compare the round
costs anyway (over GraphQL, its two texts compared).
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import pytest
from emulators.github_server import BLOB_TEXT_LIMIT, GitHubHarness, ReviewCommentRecord

from homeostat.adapters.hosts.github import GitHubHost
from homeostat.adapters.hosts.github_graphql import added_lines
from homeostat.core.hosts import FollowUp, RepoRef, ReviewThread

NOW = datetime.now(UTC).replace(microsecond=0)
SINCE = NOW - timedelta(hours=26)
FIRST = {"src/money.py": "amount = 1.0\n", "src/fx.py": "rate = 1\n"}
FIX = {"src/money.py": "amount = Decimal('1.0')\n", "docs/notes.md": "uses Decimal now\n"}
# dev's fix as the thread on src/money.py sees it: the line it added and the one it removed
FIXED = FollowUp(("dev",), ("amount = Decimal('1.0')",), verified=False, removed=("amount = 1.0",))


@pytest.fixture
def repo(github_harness: GitHubHarness) -> RepoRef:
    github_harness.add_member("rita")
    github_harness.add_member("dev")
    return github_harness.create_repo("acme", "ledger")


def fixed_pull(
    harness: GitHubHarness,
    repo: RepoRef,
    fixes: list[tuple[str, dict[str, str]]],
    paths: tuple[str, ...] = ("src/money.py",),
    signed: tuple[int, ...] = (),
    first: dict[str, str] = FIRST,
) -> int:
    """A PR by dev (its `first` commit's files); rita comments on each of `paths` at that commit; then one
    commit per fix, each by its author (a login, which commits under its no-reply address, or
    `Name <email>`), GitHub verifying the signature of the fixes numbered in `signed`; squash-merged."""
    emulator = harness.emulator
    record = emulator.repo(repo.owner, repo.name)
    start = NOW - timedelta(hours=3)
    with emulator.lock:
        base = record.git.rev("refs/heads/main")
        assert base is not None
        changes = [(first, "Settle invoices", "dev", start)]
        changes += [
            (files, f"Fix {index}", who, start + timedelta(hours=2, minutes=index))
            for index, (who, files) in enumerate(fixes)
        ]
        branch = f"feature/{secrets.token_hex(3)}"
        shas = record.git.chain(branch, base, changes)
        emulator.signed.update(shas[1 + index] for index in signed)
        pull = emulator.new_pull(record, branch, "main", "Settle invoices", "", "dev", start, shas[-1])
        at = start + timedelta(hours=1)
        body = "Use `Decimal` for money."
        for index, path in enumerate(paths):
            when = at + timedelta(seconds=index)
            pull.review_comments.append(
                ReviewCommentRecord(emulator.next_id(), pull.number, "rita", body, path, 1, shas[0], when)
            )
        emulator.merge(record, pull, "rita", f"Settle invoices (#{pull.number})", "", "squash", NOW)
        return pull.number


def threads_over_rest(harness: GitHubHarness, repo: RepoRef) -> list[ReviewThread]:
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, SINCE)
    return host.review_threads(pull)


def threads_over_graphql(harness: GitHubHarness, repo: RepoRef) -> list[ReviewThread]:
    host: GitHubHost = harness.adapter()
    host.prefetch_merged([repo], SINCE)
    (pull,) = host.list_merged_pulls(repo, SINCE)
    return host.review_threads(pull)


def test_the_authors_fix_after_a_comment_is_theirs_and_adds_its_lines(
    github_harness: GitHubHarness, repo: RepoRef
) -> None:
    fixed_pull(github_harness, repo, [("dev", FIX)])
    host = github_harness.adapter()
    (pull,) = host.list_merged_pulls(repo, SINCE)
    github_harness.requests.clear()

    (thread,) = host.review_threads(pull)

    assert thread.follow_up == FIXED
    assert len(github_harness.requests.entries) == 2  # the comments and the round's compare, as before


def test_a_reviewer_who_pushes_the_fix_is_its_author(github_harness: GitHubHarness, repo: RepoRef) -> None:
    fixed_pull(github_harness, repo, [("dev", {"src/fx.py": "rate = 2\n"}), ("rita", FIX)])

    (thread,) = threads_over_rest(github_harness, repo)

    assert thread.follow_up is not None
    assert thread.follow_up.authors == ("dev", "rita")


@pytest.mark.parametrize(
    ("email", "linked"),
    [
        ("dev@laptop.local", ""),  # an address no account has: GitHub shows the commit unlinked
        ("dev@acme.dev", "dev"),  # a verified email of dev's
        ("{id}+dev@users.noreply.github.com", "dev"),  # dev's no-reply address with its id
        ("1+dev@users.noreply.github.com", ""),  # a no-reply address whose id is not dev's
    ],
)
def test_a_commit_is_linked_to_the_account_its_email_belongs_to(
    github_harness: GitHubHarness, repo: RepoRef, email: str, linked: str
) -> None:
    github_harness.emulator.add_user("dev", emails=("dev@acme.dev",))
    address = email.format(id=github_harness.emulator.users["dev"])
    fixed_pull(github_harness, repo, [(f"Dev <{address}>", FIX)])

    (thread,) = threads_over_rest(github_harness, repo)

    assert thread.follow_up == FollowUp((linked,), FIXED.added, verified=False, removed=FIXED.removed)


def test_graphql_reads_the_same_follow_up_as_rest(github_harness: GitHubHarness, repo: RepoRef) -> None:
    fixed_pull(
        github_harness, repo, [("dev", FIX), ("Someone <someone@home.local>", {"src/money.py": "x = 2\n"})]
    )
    over_rest = threads_over_rest(github_harness, repo)
    github_harness.requests.clear()

    over_graphql = threads_over_graphql(github_harness, repo)

    assert over_graphql == over_rest
    assert over_graphql[0].follow_up == FollowUp(
        ("dev", ""), ("x = 2",), verified=False, removed=("amount = 1.0",)
    )
    # the PR and its commits' authors, the commented file at both ends, and its two texts
    assert github_harness.requests.entries == [("POST", "/api/graphql")] * 3


def test_a_fix_that_only_deletes_lines_is_read_the_same_over_rest_and_graphql(
    github_harness: GitHubHarness, repo: RepoRef
) -> None:
    """ "Stop calling X" is enacted by deleting X: both readers give the lines taken out."""
    first = {"src/money.py": "amount = 1.0\nflag = legacy_round(amount)\n"}
    fixed_pull(github_harness, repo, [("dev", {"src/money.py": ""})], first=first)

    over_rest = threads_over_rest(github_harness, repo)
    over_graphql = threads_over_graphql(github_harness, repo)

    removed = ("amount = 1.0", "flag = legacy_round(amount)")
    assert over_rest[0].follow_up == FollowUp(("dev",), (), verified=False, removed=removed)
    assert over_graphql == over_rest


def test_a_line_whose_text_starts_with_plus_plus_or_minus_minus_is_content(
    github_harness: GitHubHarness, repo: RepoRef
) -> None:
    """The patch shows them as `+++…` and `---…`, which a file header also starts with; its hunk
    counts say they are lines, as Bitbucket's reader and GraphQL's texts have it."""
    first = {"src/money.py": "amount = 1.0\n--legacy_round = 1\n"}
    fixed_pull(github_harness, repo, [("dev", {"src/money.py": "amount = 1.0\n++counter\n"})], first=first)

    over_rest = threads_over_rest(github_harness, repo)

    expected = FollowUp(("dev",), ("++counter",), verified=False, removed=("--legacy_round = 1",))
    assert over_rest[0].follow_up == expected
    assert threads_over_graphql(github_harness, repo) == over_rest


def test_a_thread_whose_file_no_commit_changed_has_no_follow_up(
    github_harness: GitHubHarness, repo: RepoRef
) -> None:
    fixed_pull(github_harness, repo, [("dev", FIX)], paths=("src/money.py", "src/fx.py"))

    over_rest = threads_over_rest(github_harness, repo)
    over_graphql = threads_over_graphql(github_harness, repo)

    assert [(t.path, t.followed_by_commit) for t in over_rest] == [
        ("src/money.py", True),
        ("src/fx.py", False),
    ]
    assert [t.follow_up for t in over_rest] == [FIXED, None]
    assert over_graphql == over_rest


def test_a_file_graphql_cuts_short_is_read_over_rest(github_harness: GitHubHarness, repo: RepoRef) -> None:
    padding = [f"# {n} {'x' * 1000}\n" for n in range(BLOB_TEXT_LIMIT // 1000 + 100)]  # few, long lines
    long_file = "amount = Decimal('1.0')\n" + "".join(padding)
    fixed_pull(github_harness, repo, [("dev", {"src/money.py": long_file})])
    over_rest = threads_over_rest(github_harness, repo)
    github_harness.requests.clear()

    over_graphql = threads_over_graphql(github_harness, repo)

    assert over_graphql == over_rest
    assert over_rest[0].follow_up is not None
    assert over_rest[0].follow_up.added[0] == "amount = Decimal('1.0')"
    assert github_harness.requests.count("GET", "/comments") == 1  # the PR was left to REST


@pytest.mark.parametrize(
    ("signed", "verified"),
    [((0, 1), True), ((1,), False), ((), False)],
    ids=["every-commit-signed", "one-unsigned", "none-signed"],
)
def test_a_follow_up_is_verified_only_when_github_verified_every_commits_signature(
    github_harness: GitHubHarness, repo: RepoRef, signed: tuple[int, ...], verified: bool
) -> None:
    """`enactment: signed` trusts a change only when every commit after the comment carries a signature
    GitHub verified (a commit's author is just the email it names); REST's compare and GraphQL say the
    same, at no request more than before."""
    fixed_pull(github_harness, repo, [("dev", {"src/fx.py": "rate = 2\n"}), ("dev", FIX)], signed=signed)
    github_harness.requests.clear()
    over_rest = threads_over_rest(github_harness, repo)
    rest_requests = len(github_harness.requests.entries)
    github_harness.requests.clear()

    over_graphql = threads_over_graphql(github_harness, repo)

    assert over_rest[0].follow_up is not None
    assert over_rest[0].follow_up.verified is verified
    assert over_graphql == over_rest
    assert rest_requests == 3  # the PR list, the comments and the round's compare
    assert github_harness.requests.entries == [("POST", "/api/graphql")] * 3


def test_graphql_added_lines_count_lines_and_ignore_a_moved_one() -> None:
    """GraphQL gives two blobs, not a diff: the added lines are those the old text does not hold as
    many times. A line moved within the file is no new code; a line added again beside its twin is."""
    before = ("import os", "x = 1", "x = 1", "def f():", "    return x")
    after = ("def f():", "    return x", "import os", "x = 1", "x = 1", "x = 1", "log_refund(x)")
    assert added_lines(before, after) == ["x = 1", "log_refund(x)"]
