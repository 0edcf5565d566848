"""The day's merged PRs and review threads over GraphQL: the same answers as REST, in a few queries.

Both paths run against the same emulator world; the GraphQL queries are validated against the
emulator's copy of GitHub's schema (tests/emulators/github_graphql.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from emulators.github_server import GitHubHarness
from hostkit import PullSpec, ReplySpec, ThreadSpec

from homeostat.adapters.hosts.github_graphql import COMMENTS_PER_THREAD
from homeostat.core.hosts import RepoRef

NOW = datetime.now(UTC).replace(microsecond=0)
SINCE = NOW - timedelta(hours=26)


def world(harness: GitHubHarness) -> list[RepoRef]:
    """Three repos: threads with replies, code changed after some threads (or only other files), an
    edited root, a PR with no threads, one merged before the window, and one too long for a page."""
    for member in ("rita", "omar", "dev"):
        harness.add_member(member)
    repos = [harness.create_repo("acme", name) for name in ("ledger", "shop", "docs")]
    ledger, shop, docs = repos
    harness.merged_pull(
        ledger,
        PullSpec(
            "dev",
            "Settle invoices",
            {"src/money.py": "amount = 1.0\n", "src/fx.py": "rate = 1\n"},
            NOW - timedelta(hours=3),
            threads=(
                ThreadSpec(
                    "rita", "Use Decimal for money.", "src/money.py", 1, (ReplySpec("dev", "Done."),), True
                ),
                ThreadSpec(
                    "omar",
                    "Cache the rate?",
                    "src/fx.py",
                    1,
                    (ReplySpec("dev", "Later."),),
                    touch_other_file=True,
                ),
                ThreadSpec("rita", "Name it fx_rate.", "src/fx.py", 1, edited="Name it fx_rate, please."),
            ),
        ),
    )
    harness.merged_pull(ledger, PullSpec("dev", "No review", {"src/a.py": "a\n"}, NOW - timedelta(hours=5)))
    harness.merged_pull(
        ledger,
        PullSpec(
            "dev",
            "Last week",
            {"src/old.py": "o\n"},
            NOW - timedelta(days=8),
            threads=(ThreadSpec("rita", "Old point.", "src/old.py", 1, followed_by_commit=True),),
        ),
    )
    long_thread = tuple(
        ReplySpec("dev" if n % 2 else "rita", f"Reply {n}.") for n in range(COMMENTS_PER_THREAD + 3)
    )
    harness.merged_pull(
        shop,
        PullSpec(
            "dev",
            "A long talk",
            {"web/cart.ts": "x\n"},
            NOW - timedelta(hours=2),
            threads=(ThreadSpec("omar", "Split the cart.", "web/cart.ts", 1, long_thread, True),),
        ),
    )
    for n in range(3):
        harness.merged_pull(
            docs,
            PullSpec(
                "omar",
                f"Docs {n}",
                {f"docs/p{n}.md": "p\n"},
                NOW - timedelta(hours=1 + n),
                threads=(
                    ThreadSpec("rita", f"Link {n}.", f"docs/p{n}.md", 1, followed_by_commit=n % 2 == 0),
                ),
            ),
        )
    return repos


def read_all(host: object, repos: list[RepoRef]) -> dict[str, list[object]]:
    found: dict[str, list[object]] = {}
    for repo in repos:
        pulls = host.list_merged_pulls(repo, SINCE)  # type: ignore[attr-defined]
        found[repo.full_name] = [(pull, host.review_threads(pull)) for pull in pulls]  # type: ignore[attr-defined]
    return found


def test_graphql_reads_what_rest_reads_in_a_few_queries(github_harness: GitHubHarness) -> None:
    repos = world(github_harness)
    over_rest = read_all(github_harness.adapter(), repos)
    rest_requests = len(github_harness.requests.entries)
    github_harness.requests.clear()

    host = github_harness.adapter()
    host.prefetch_merged(repos, SINCE)
    over_graphql = read_all(host, repos)

    assert over_graphql == over_rest
    assert sum(len(pulls) for pulls in over_graphql.values()) == 6
    threads = [t for pulls in over_graphql.values() for _pull, found in pulls for t in found]
    assert sorted(t.followed_by_commit for t in threads) == [False, False, False, True, True, True, True]
    assert all(t.followed_at is not None for t in threads if t.followed_by_commit)
    # three GraphQL queries (the PRs with their threads and commits' authors, the commented files, and
    # the texts of the files changed after a thread, for the lines the change added); REST only for
    # the PR whose thread is longer than a page of comments (its comments and one compare)
    entries = github_harness.requests.entries
    assert [path for method, path in entries if method == "POST"] == ["/api/graphql"] * 3
    gets = [path.split("?")[0] for method, path in entries if method == "GET"]
    assert gets[0] == "/api/v3/repos/acme/shop/pulls/1/comments"
    assert [path.rsplit("/", 1)[0] for path in gets[1:]] == ["/api/v3/repos/acme/shop/compare"]
    assert (rest_requests, len(entries)) == (13, 5)


def test_a_failed_graphql_read_leaves_everything_to_rest(github_harness: GitHubHarness) -> None:
    repos = world(github_harness)
    expected = read_all(github_harness.adapter(), repos)
    host = github_harness.adapter()
    github_harness.fail_next(502, times=4)  # GraphQL down for longer than the retries

    host.prefetch_merged(repos, SINCE)

    assert read_all(host, repos) == expected
