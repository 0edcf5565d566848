"""More of the code-host contract, run against every adapter: reruns and settled PRs.

The daily run and `review merge` are rerun after failures, so every write must be safe to repeat and a
PR someone already settled must come back as an answer, not an exception.
"""

from __future__ import annotations

import subprocess
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hostkit import HostHarness, PullSpec, ReplySpec, ThreadSpec

from homeostat.core.hosts import Approval, CommentRef, PullState, RepoRef
from homeostat.errors import AuthError, HostError

NOW = datetime.now(UTC).replace(microsecond=0)


@pytest.fixture(params=["github", "bitbucket"])
def harness(request: pytest.FixtureRequest) -> HostHarness:
    return request.getfixturevalue(f"{request.param}_harness")  # type: ignore[no-any-return]


@pytest.fixture
def repo(harness: HostHarness) -> RepoRef:
    harness.add_member("rita")
    harness.add_member("dev")
    return harness.create_repo("acme", "ledger")


def push(harness: HostHarness, repo: RepoRef, branch: str, files: dict[str, str], tmp_path: Path) -> str:
    work = tmp_path / f"clone-{uuid.uuid4().hex[:8]}"
    subprocess.run(["git", "clone", "-q", str(harness.bare_path(repo)), str(work)], check=True)
    subprocess.run(["git", "checkout", "-q", "-B", branch, "origin/main"], cwd=work, check=True)
    for path, text in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    subprocess.run(["git", "commit", "-q", "-m", f"Update {branch}"], cwd=work, check=True)
    subprocess.run(["git", "push", "-q", "-f", "origin", f"HEAD:refs/heads/{branch}"], cwd=work, check=True)
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=work, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_merging_again_after_a_merge_reports_merged(
    harness: HostHarness, repo: RepoRef, tmp_path: Path
) -> None:
    """A rerun after a crash between merging and recording it must not read as a refusal."""
    head = push(harness, repo, "homeostat/daily-dev", {"knowledge/a.md": "rule\n"}, tmp_path)
    host = harness.adapter()
    pull = host.open_pull(repo, "homeostat/daily-dev", "main", "Daily lessons", "")
    first = host.merge_pull(repo, pull.number, "Homeostat: daily lessons", "", head)

    again = host.merge_pull(repo, pull.number, "Homeostat: daily lessons", "", head)

    assert first.merged and again.merged


def test_merging_a_closed_pr_is_a_refusal_not_an_exception(
    harness: HostHarness, repo: RepoRef, tmp_path: Path
) -> None:
    push(harness, repo, "homeostat/review-dev", {"knowledge/a.md": "rule\n"}, tmp_path)
    host = harness.adapter()
    pull = host.open_pull(repo, "homeostat/review-dev", "main", "Lessons to review", "")
    harness.close_as(repo, pull.number, "rita")

    result = host.merge_pull(repo, pull.number, "Homeostat: review", "")

    assert result.refused and result.reason
    assert host.get_pull(repo, pull.number).state is PullState.CLOSED


def test_closing_twice_is_safe(harness: HostHarness, repo: RepoRef, tmp_path: Path) -> None:
    push(harness, repo, "homeostat/review-dev", {"knowledge/a.md": "rule\n"}, tmp_path)
    host = harness.adapter()
    pull = host.open_pull(repo, "homeostat/review-dev", "main", "Lessons to review", "")

    host.close_pull(repo, pull.number)
    host.close_pull(repo, pull.number)

    assert host.get_pull(repo, pull.number).state is PullState.CLOSED


def test_a_branch_reused_after_its_pr_merged_gets_a_new_pr(
    harness: HostHarness, repo: RepoRef, tmp_path: Path
) -> None:
    """Tomorrow's daily PR reuses the branch name; yesterday's merged PR must not be updated instead."""
    head = push(harness, repo, "homeostat/daily-dev", {"knowledge/a.md": "one\n"}, tmp_path)
    host = harness.adapter()
    first = host.open_pull(repo, "homeostat/daily-dev", "main", "Day one", "")
    assert host.merge_pull(repo, first.number, "Day one", "", head).merged
    push(harness, repo, "homeostat/daily-dev", {"knowledge/b.md": "two\n"}, tmp_path)

    second = host.open_pull(repo, "homeostat/daily-dev", "main", "Day two", "")

    assert second.number != first.number and second.state is PullState.OPEN
    assert host.get_pull(repo, first.number).title == "Day one"


def test_replies_point_at_the_root_of_their_thread(harness: HostHarness, repo: RepoRef) -> None:
    spec = PullSpec(
        author="dev",
        title="Round money",
        files={"src/money.py": "x = 1\n"},
        merged_at=NOW - timedelta(hours=2),
        threads=(
            ThreadSpec(
                "rita",
                "Round half-even.",
                "src/money.py",
                1,
                replies=(ReplySpec("dev", "ok"), ReplySpec("rita", "ty")),
            ),
        ),
    )
    harness.merged_pull(repo, spec)
    host = harness.adapter()
    (pull,) = host.list_merged_pulls(repo, NOW - timedelta(hours=26))

    (thread,) = host.review_threads(pull)

    assert thread.root.in_reply_to is None
    assert [reply.in_reply_to for reply in thread.replies] == [thread.root.id, thread.root.id]
    assert [reply.path for reply in thread.replies] == ["src/money.py", "src/money.py"]


def test_an_unknown_comment_is_a_host_error(harness: HostHarness, repo: RepoRef) -> None:
    number = harness.merged_pull(
        repo, PullSpec("dev", "Quiet", {"src/q.py": "x\n"}, NOW - timedelta(hours=2))
    )
    with pytest.raises(HostError) as raised:
        harness.adapter().get_comment_thread(CommentRef(repo, number, 987654321))
    assert not isinstance(raised.value, AuthError)


def test_pull_comments_read_back_the_prs_general_comments_in_order(
    harness: HostHarness, repo: RepoRef, tmp_path: Path
) -> None:
    """`review merge` reads them so a rerun never posts the same comment twice."""
    push(harness, repo, "homeostat/review-dev", {"knowledge/core/a.md": "rule\n"}, tmp_path)
    host = harness.adapter()
    pull = host.open_pull(repo, "homeostat/review-dev", "main", "Review lessons", "")
    assert host.pull_comments(repo, pull.number) == []
    host.add_comment(repo, pull.number, "first <!-- marker -->")
    host.add_comment(repo, pull.number, "second")
    assert host.pull_comments(repo, pull.number) == ["first <!-- marker -->", "second"]


def test_pull_approvals_name_who_approved_and_at_which_commit(
    harness: HostHarness, repo: RepoRef, tmp_path: Path
) -> None:
    """`review merge` merges only with a second person's approval at the head it merges: GitHub says
    which commit a review approved, Bitbucket Cloud says none."""
    first = push(harness, repo, "homeostat/review-dev", {"knowledge/core/a.md": "rule\n"}, tmp_path)
    host = harness.adapter()
    pull = host.open_pull(repo, "homeostat/review-dev", "main", "Review lessons", "")
    assert host.pull_approvals(repo, pull.number) == []
    harness.approve(repo, pull.number, "rita")
    second = push(harness, repo, "homeostat/review-dev", {"knowledge/core/a.md": "rule 2\n"}, tmp_path)
    harness.approve(repo, pull.number, "dev")
    before = sorted(host.pull_approvals(repo, pull.number), key=lambda a: a.login)
    harness.approve(repo, pull.number, "rita")  # again, at the new head: one approval, the latest
    after = sorted(host.pull_approvals(repo, pull.number), key=lambda a: a.login)
    if harness.name == "github":
        assert before == [Approval("dev", second), Approval("rita", first)] and first != second
        assert after == [Approval("dev", second), Approval("rita", second)]
    else:
        assert before == after == [Approval("dev"), Approval("rita")]
