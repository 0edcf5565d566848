"""The review-drafting pipeline (`run_curate`) over the GitHub and Bitbucket emulators, with a queued
fake model for the drafting logic, and `homeostat curate` end to end over the local Anthropic stub."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fakes import FakeAsker
from gitfixtures import commit, git, make_origin_and_clone, snapshot
from hostkit import HostHarness, PullSpec, ReplySpec, ThreadSpec
from kbfactory import write_files
from lessonkit import review_lesson

from homeostat.cli import main
from homeostat.core.asker import ModelCallError, SpendingCapError
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.core.daily.curate import DOC_CONTEXT_TOKENS, DocPatchAnswer, DraftAnswer
from homeostat.core.hosts import RepoRef
from homeostat.core.kb import KB, load_kb
from homeostat.runs.curate import CurateResult, run_curate

NOW = datetime.now(UTC).replace(microsecond=0)
API = "src/billing/api"


@pytest.fixture(params=["github", "bitbucket"])
def harness(request: pytest.FixtureRequest) -> HostHarness:
    return request.getfixturevalue(f"{request.param}_harness")  # type: ignore[no-any-return]


def config_yaml(
    billing: RepoRef,
    *,
    kb_repo: RepoRef | None = None,
    legacy: RepoRef | None = None,
    shop: RepoRef | None = None,
    host: str = "github",
    doc_patch_calls: int = 20,
    max_cost: float = 5.0,
) -> str:
    repos = [
        f"""  - name: billing
    url: {billing.web_url}
    topics: [errors, money]
    areas:
      - name: api
        paths: ["{API}/**"]
        owner: payments
"""
    ]
    if kb_repo is not None:  # the KB repo listed as a code repo, as a careless config would
        repos.append(
            f"""  - name: kb
    url: {kb_repo.web_url}
    areas:
      - name: notes
        paths: ["**"]
"""
        )
    if legacy is not None:
        repos.append(
            f"""  - name: legacy
    url: {legacy.web_url}
    exclude: true
    areas:
      - name: old
        paths: ["**"]
"""
        )
    if shop is not None:
        repos.append(
            f"""  - name: shop
    url: {shop.web_url}
    areas:
      - name: web
        paths: ["web/**"]
"""
        )
    kb_line = f"  kbRepo: {kb_repo.web_url}\n" if kb_repo is not None else ""
    return f"""version: 0.2.0
team:
  members:
    - {{handle: ana, role: lead, teams: [payments]}}
    - {{handle: bo, role: senior, teams: [payments]}}
    - {{handle: cy, role: member}}
    - {{handle: dee, role: junior}}
  teams:
    - name: payments
sources:
  host: {host}
{kb_line}  excludePaths: ["**/generated/**"]
  optOut: [dee]
repos:
{"".join(repos)}agents:
  maxCostUsd: {max_cost}
  curator:
    docPatchCalls: {doc_patch_calls}
"""


def cited_rule(url: str) -> str:
    return f"""---
area: billing/api
topic: errors
---
## Map domain errors to one status table {{#billing-error-table}}
<!-- homeostat
scope: ["{API}/**"]
status: accepted
source:
  type: pr-feedback
  url: {url}
  author: ana
  changedCode: true
created: 2026-09-10
lastConfirmed: 2026-11-12
-->
### Rule
Raise domain errors from `billing.errors`; `STATUS_BY_ERROR` maps each to its status.

### Why
Two handlers answered 400 and 422 for the same declined card.
"""


def document(title: str, scope: str, sections: list[tuple[str, str, str]]) -> str:
    parts = [f'---\ntitle: {title}\narea: billing/api\nscope: ["{scope}"]\nupdated: 2026-11-01\n---\n']
    for section_id, heading, body in sections:
        parts.append(
            f"## {heading} {{#{section_id}}}\n<!-- homeostat: source=bootstrap updated=2026-10-20 -->\n{body}\n\n"
        )
    return "".join(parts).rstrip("\n") + "\n"


def make_kb(config: str, extra: dict[str, str] | None = None) -> KB:
    files = {"homeostat.yaml": config, "knowledge/core/.keep": "", **(extra or {})}
    kb = load_kb(files)
    kb.require_config()
    return kb


def draft(title: str, *, area: str = "billing/api", topic: str = "errors", keep: bool = True) -> DraftAnswer:
    return DraftAnswer(
        keep=keep,
        title=title,
        rule=f"{title}, as the reviewer asked.",
        why="The reviewer explained why in the thread.",
        area=area,
        topic=topic,
    )


def thread(author: str, body: str, path: str = f"{API}/handlers.py", **options: object) -> ThreadSpec:
    return ThreadSpec(author, body, path, 1, **options)  # type: ignore[arg-type]


def pull(author: str, title: str, hours_ago: float, *threads: ThreadSpec, body: str = "") -> PullSpec:
    files = {
        f"{API}/handlers.py": "def handle(): ...\n",
        f"{API}/errors.py": "class DomainError(Exception): ...\n",
        f"{API}/generated/client.py": "x = 1\n",
    }
    return PullSpec(
        author=author,
        title=title,
        body=body,
        files=files,
        merged_at=NOW - timedelta(hours=hours_ago),
        threads=threads,
    )


def thread_urls(harness: HostHarness, repo: RepoRef) -> dict[str, str]:
    """Root comment body → thread URL, as the host shows them."""
    host = harness.adapter()
    urls: dict[str, str] = {}
    for merged in host.list_merged_pulls(repo, NOW - timedelta(days=5)):
        for found in host.review_threads(merged):
            urls[found.root.body] = found.url
    return urls


def comments_read(harness: HostHarness, number: int) -> int:
    return harness.requests.count("GET", f"/{number}/comments")


# --- which threads are drafted -------------------------------------------------------------------


def test_only_member_threads_followed_by_a_commit_on_member_prs_are_drafted(harness: HostHarness) -> None:
    billing = harness.create_repo("acme", "billing")
    kb_repo = harness.create_repo("acme", "kb")
    legacy = harness.create_repo("acme", "legacy")
    followed = {"followed_by_commit": True}
    numbers = {
        "drafted-ana": harness.merged_pull(
            billing,
            pull(
                "ana",
                "Map errors once",
                20,
                thread("bo", "Use the status table, not a literal 400.", **followed),
                thread("ana", "Typo in the docstring.", f"{API}/errors.py", touch_other_file=True),
            ),
        ),
        "outsider": harness.merged_pull(
            billing, pull("cy", "Retry the webhook", 19, thread("zed", "Add jitter to retries.", **followed))
        ),
        "no-commit": harness.merged_pull(
            billing, pull("cy", "Rename the handler", 18, thread("ana", "Name it for the resource."))
        ),
        "excluded-path": harness.merged_pull(
            billing,
            pull(
                "cy",
                "Regenerate the client",
                17,
                thread("bo", "Never edit generated code.", f"{API}/generated/client.py", **followed),
            ),
        ),
        "skip-marked": harness.merged_pull(
            billing,
            pull(
                "bo",
                "Vendor a fix",
                16,
                thread("ana", "Log the vendor id.", **followed),
                body="Urgent hotfix. homeostat:skip",
            ),
        ),
        "opted-out": harness.merged_pull(
            billing, pull("dee", "Tidy imports", 15, thread("ana", "Sort imports with isort.", **followed))
        ),
        "non-member-pr": harness.merged_pull(
            billing, pull("zed", "Drive-by fix", 14, thread("bo", "Return early here.", **followed))
        ),
        "cited": harness.merged_pull(
            billing, pull("cy", "Status codes", 13, thread("ana", "Map errors in one table.", **followed))
        ),
        "cited-in-review": harness.merged_pull(
            billing,
            pull("cy", "Refund path", 12, thread("bo", "Refunds need an idempotency key.", **followed)),
        ),
        "drafted-bo": harness.merged_pull(
            billing,
            pull(
                "bo",
                "Paginate invoices",
                11,
                thread(
                    "ana",
                    "Use cursor pagination for invoices.",
                    replies=(ReplySpec("bo", "Done."), ReplySpec("zed", "Nice.")),
                    **followed,
                ),
            ),
        ),
        "drafted-cy": harness.merged_pull(
            billing, pull("cy", "Cache rates", 10, thread("bo", "Cache FX rates for one minute.", **followed))
        ),
        "not-reusable": harness.merged_pull(
            billing, pull("cy", "Fix a comment", 9, thread("ana", "Wrong word in this comment.", **followed))
        ),
    }
    old = harness.merged_pull(
        billing, pull("ana", "Too old", 40, thread("bo", "Old thread outside the window.", **followed))
    )
    harness.merged_pull(
        kb_repo, pull("ana", "Daily PR", 8, thread("bo", "KB PRs are our own output.", **followed))
    )
    harness.merged_pull(
        legacy, pull("ana", "Legacy", 8, thread("bo", "Legacy repo is excluded.", **followed))
    )
    urls = thread_urls(harness, billing)
    kb = make_kb(
        config_yaml(billing, kb_repo=kb_repo, legacy=legacy),
        {"knowledge/billing/api/errors.md": cited_rule(urls["Map errors in one table."])},
    )
    harness.requests.clear()
    asker = FakeAsker(
        draft("Use the status table for error codes"),
        draft("Paginate invoices with a cursor"),
        draft("Cache FX rates for one minute", topic="money"),
        draft("", keep=False),
    )

    result = run_curate(
        harness.adapter(),
        kb,
        asker,
        extra_cited=[urls["Refunds need an idempotency key."]],
        kb_repo=kb_repo,
        now=lambda: NOW,
    )

    asker.assert_all_used()
    drafted = {(lesson.member, lesson.originator, lesson.title) for lesson in result.lessons}
    assert drafted == {
        ("ana", "bo", "Use the status table for error codes"),
        ("bo", "ana", "Paginate invoices with a cursor"),
        ("cy", "bo", "Cache FX rates for one minute"),
    }
    fx = next(lesson for lesson in result.lessons if lesson.member == "cy")
    assert (fx.url, fx.area, fx.topic, fx.source, fx.repo) == (
        urls["Cache FX rates for one minute."],
        "billing/api",
        "money",
        "pr-feedback",
        "billing",
    )
    assert fx.scope == (f"{API}/**",)
    reasons = {skip.url: skip.reason for skip in result.skipped}
    assert reasons[urls["Add jitter to retries."]] == "zed is not a team member"
    assert reasons[urls["Name it for the resource."]] == "no commit followed it"
    assert reasons[urls["Typo in the docstring."]] == "no commit followed it"
    assert reasons[urls["Never edit generated code."]] == f"{API}/generated/client.py is excluded"
    assert reasons[urls["Map errors in one table."]] == "already cited by the KB"
    assert reasons[urls["Refunds need an idempotency key."]] == "already cited by the KB"
    assert reasons[urls["Wrong word in this comment."]] == "the model found nothing reusable in it"
    pull_reasons = sorted(skip.reason for skip in result.skipped if skip.what == "pull")
    assert pull_reasons == [
        "dee opted out (sources.optOut)",
        "marked homeostat:skip",
        "zed is not a team member",
    ]
    for name in ("skip-marked", "opted-out", "non-member-pr"):
        assert comments_read(harness, numbers[name]) == 0, name
    assert comments_read(harness, old) == 0
    assert harness.requests.count(contains="acme/kb") == 0
    assert harness.requests.count(contains="acme/legacy") == 0
    assert [repo.full_name for repo in result.repos] == ["acme/billing"]
    assert (result.pulls_listed, result.pulls_read, result.threads_seen) == (12, 9, 10)
    assert (result.threads_kept, result.threads_drafted, result.model_calls) == (4, 3, 4)
    assert (result.ok_calls, result.failed_calls, result.capped) == (4, 0, False)
    assert result.lessons_for("bo")[0].title == "Paginate invoices with a cursor"
    paginate = next(asked.user for asked in asker.history if "Paginate invoices" in asked.user)
    assert "\nbo: Done." in paginate  # a member's reply is part of the thread
    assert "\n> zed (not on the team): Nice." in paginate  # a non-member's is quoted as untrusted


def test_the_model_sees_the_redacted_thread_and_the_repos_areas(
    harness: HostHarness, planted_secrets: list[str]
) -> None:
    billing = harness.create_repo("acme", "billing")
    token, aws = planted_secrets[0], planted_secrets[1]
    harness.merged_pull(
        billing,
        pull(
            "cy",
            f"Rotate {aws} out of the config",
            3,
            thread(
                "ana",
                f"Never commit tokens like {token}; read GITHUB_TOKEN from the environment.",
                replies=(ReplySpec("cy", f"Removed {token}, it now comes from the env."),),
                followed_by_commit=True,
            ),
        ),
    )
    kb = make_kb(config_yaml(billing))
    asker = FakeAsker(draft("Read tokens from the environment"))

    result = run_curate(harness.adapter(), kb, asker, now=lambda: NOW)

    (asked,) = asker.history
    sent = asked.system + asked.user
    assert not [secret for secret in planted_secrets if secret in sent]
    assert "[REDACTED" in asked.user and "read GITHUB_TOKEN from the environment" in asked.user
    assert f"File: {API}/handlers.py line 1" in asked.user
    assert "Areas: billing/api, core (the commented file is in billing/api)" in asked.user
    assert "Topics: errors, money" in asked.user
    (lesson,) = result.lessons
    assert not [secret for secret in planted_secrets if secret in lesson.thread]
    assert result.redactions >= 3


# --- document patches -----------------------------------------------------------------------------


def big(words: str, n: int) -> str:
    return " ".join([words] * n)


def doc_kb(billing: RepoRef, doc_patch_calls: int = 20) -> KB:
    filler = "The ledger keeps every posting in its own row with the account and the currency."
    sections = [
        ("pagination", "Pagination", big("Invoices are listed with cursor pagination and a page size.", 80)),
        ("retries", "Retries", big("Webhook retries back off exponentially with jitter.", 80)),
        ("ledger", "Ledger", big(filler, 60)),
        ("accounts", "Accounts", big(filler, 60)),
        ("postings", "Postings", big(filler, 60)),
        ("huge", "Huge", big(filler, 250)),
    ]
    other = [("web", "Web", "Storefront components use theme spacing tokens.")]
    return make_kb(
        config_yaml(billing, doc_patch_calls=doc_patch_calls),
        {
            "knowledge/billing/api/docs/overview.md": document("Billing API", f"{API}/**", sections),
            "knowledge/billing/api/docs/web.md": document("Web", "web/**", other),
        },
    )


def test_doc_patch_sees_at_most_three_covering_sections_within_the_token_limit(harness: HostHarness) -> None:
    billing = harness.create_repo("acme", "billing")
    harness.merged_pull(
        billing,
        pull(
            "cy",
            "Cursor pagination for invoices",
            3,
            thread(
                "ana",
                "Invoices use cursor pagination; document the page size limit of 100.",
                followed_by_commit=True,
            ),
        ),
    )
    kb = doc_kb(billing)
    asker = FakeAsker(
        draft("Paginate invoices with a cursor"),
        DocPatchAnswer(patch=True, section="pagination", op="append", body="The page size is at most 100."),
    )

    result = run_curate(harness.adapter(), kb, asker, now=lambda: NOW)

    assert [asked.schema for asked in asker.history] == [DraftAnswer, DocPatchAnswer]
    doc_prompt = asker.history[1].user
    shown = [line for line in doc_prompt.splitlines() if line.startswith("--- ")]
    assert 1 <= len(shown) <= 3
    assert shown[0] == "--- billing/api/overview#pagination: Pagination"
    assert "billing/api/web#web" not in doc_prompt and "#huge" not in doc_prompt
    sections_text = doc_prompt.split("Sections:", 1)[1]
    assert count_tokens(sections_text) <= DOC_CONTEXT_TOKENS + 50  # headers around the ≤3,000-token bodies
    (patch,) = result.doc_lessons
    assert patch.doc_patch is not None
    assert (patch.kind, patch.doc_patch.doc, patch.doc_patch.section, patch.doc_patch.op) == (
        "doc",
        "billing/api/overview",
        "pagination",
        "append",
    )
    assert (patch.member, patch.originator, patch.area, patch.scope) == (
        "cy",
        "ana",
        "billing/api",
        (f"{API}/**",),
    )
    input_tokens = sum(count_tokens(asked.system + asked.user) for asked in asker.history)
    assert len(asker.history) <= 3 and input_tokens < 4000


def test_doc_patch_calls_cap_how_many_threads_are_checked(harness: HostHarness) -> None:
    billing = harness.create_repo("acme", "billing")
    for hours, body in ((5, "Cursor pagination needs a stable sort."), (4, "Retries need jitter.")):
        harness.merged_pull(billing, pull("cy", body, hours, thread("ana", body, followed_by_commit=True)))
    kb = doc_kb(billing, doc_patch_calls=1)
    asker = FakeAsker(
        draft("Sort before paginating"),
        DocPatchAnswer(patch=False),
        draft("Add jitter to retries"),
    )

    result = run_curate(harness.adapter(), kb, asker, now=lambda: NOW)

    asker.assert_all_used()
    assert [asked.schema for asked in asker.history] == [DraftAnswer, DocPatchAnswer, DraftAnswer]
    assert (result.doc_checks, result.doc_checks_skipped, len(result.lessons), result.doc_lessons) == (
        1,
        1,
        2,
        [],
    )


def test_a_thread_with_no_rule_can_still_patch_a_document(github_harness: HostHarness) -> None:
    billing = github_harness.create_repo("acme", "billing")
    github_harness.merged_pull(
        billing,
        pull(
            "bo",
            "Retry webhooks",
            3,
            thread("ana", "Retries back off with jitter now.", followed_by_commit=True),
        ),
    )
    asker = FakeAsker(
        None,
        DocPatchAnswer(patch=True, section="retries", op="replace", body="Retries back off with jitter."),
    )

    result = run_curate(github_harness.adapter(), doc_kb(billing), asker, now=lambda: NOW)

    assert result.lessons == []
    (patch,) = result.doc_lessons
    assert (patch.member, patch.originator, patch.source, patch.area) == (
        "bo",
        "ana",
        "pr-feedback",
        "billing/api",
    )
    assert [skip.reason for skip in result.skipped] == ["the model gave no usable answer"]


# --- the cap and failed calls --------------------------------------------------------------------


def test_the_spending_cap_stops_drafting_and_later_prs_are_not_read(harness: HostHarness) -> None:
    billing = harness.create_repo("acme", "billing")
    shop = harness.create_repo("acme", "shop")
    first, second, third = (
        harness.merged_pull(
            billing,
            pull("cy", f"Change {n}", 10 - n, thread("ana", f"Review point {n}.", followed_by_commit=True)),
        )
        for n in range(3)
    )
    harness.merged_pull(
        shop, pull("cy", "Shop change", 2, thread("ana", "Shop point.", "web/a.ts", followed_by_commit=True))
    )
    kb = make_kb(config_yaml(billing, shop=shop))
    harness.requests.clear()
    asker = FakeAsker(draft("First lesson"), SpendingCapError(2.01, 2.0, "agents.maxCostUsd"))

    result = run_curate(harness.adapter(), kb, asker, now=lambda: NOW)

    assert result.capped is True
    assert result.cap_message.startswith("spending cap reached: this run has spent $2.01 of the $2.00")
    assert [lesson.title for lesson in result.lessons] == ["First lesson"]
    if harness.name == "github":  # the window came in GraphQL queries before any drafting; no REST after
        assert harness.requests.count("POST", "/api/graphql") >= 1 and comments_read(harness, first) == 0
    else:
        assert comments_read(harness, first) >= 1 and comments_read(harness, second) >= 1
    assert comments_read(harness, third) == 0
    assert harness.requests.count(contains="acme/shop") == 0
    assert (result.model_calls, result.ok_calls, result.pulls_read) == (1, 1, 2)


def test_a_failed_call_loses_one_thread_and_the_run_goes_on(github_harness: HostHarness) -> None:
    billing = github_harness.create_repo("acme", "billing")
    for n in range(2):
        github_harness.merged_pull(
            billing, pull("cy", f"Change {n}", 5 - n, thread("ana", f"Point {n}.", followed_by_commit=True))
        )
    kb = make_kb(config_yaml(billing))
    failure = ModelCallError("the api runtime is overloaded (529) after 4 tries; rerun later", runtime="api")
    asker = FakeAsker(failure, draft("Second lesson"))

    result = run_curate(github_harness.adapter(), kb, asker, now=lambda: NOW)

    assert [lesson.title for lesson in result.lessons] == ["Second lesson"]
    assert (result.model_calls, result.ok_calls, result.failed_calls) == (2, 1, 1)
    assert result.failures == ["the api runtime is overloaded (529) after 4 tries; rerun later"]
    assert result.all_calls_failed is False
    assert "the model call failed" in [skip.reason for skip in result.skipped]

    everything_fails = run_curate(github_harness.adapter(), kb, FakeAsker(failure, failure), now=lambda: NOW)
    assert everything_fails.all_calls_failed is True and everything_fails.lessons == []


def test_since_widens_the_window(github_harness: HostHarness) -> None:
    billing = github_harness.create_repo("acme", "billing")
    github_harness.merged_pull(
        billing, pull("cy", "Old", 50, thread("ana", "Old point.", followed_by_commit=True))
    )
    kb = make_kb(config_yaml(billing))

    default = run_curate(github_harness.adapter(), kb, FakeAsker(), now=lambda: NOW)
    backfill = run_curate(
        github_harness.adapter(),
        kb,
        FakeAsker(draft("Old lesson")),
        since=NOW - timedelta(days=3),
        now=lambda: NOW,
    )

    assert (default.pulls_listed, default.since) == (0, NOW - timedelta(hours=26))
    assert [lesson.title for lesson in backfill.lessons] == ["Old lesson"]
    assert (backfill.since, backfill.until) == (NOW - timedelta(days=3), NOW)


# --- the command ---------------------------------------------------------------------------------


def curate_kb(tmp_path: Path, billing: RepoRef, host: str = "github") -> Path:
    root = tmp_path / "kb"
    write_files(root, {"homeostat.yaml": config_yaml(billing, host=host), "knowledge/core/.keep": ""})
    return root


def test_curate_end_to_end_over_the_anthropic_stub(
    github_harness: HostHarness,
    anthropic_stub,  # type: ignore[no-untyped-def]
    planted_secrets: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    billing = github_harness.create_repo("acme", "billing")
    github_harness.merged_pull(
        billing,
        pull(
            "cy",
            "Paginate invoices",
            3,
            thread(
                "ana",
                f"Use cursor pagination (token {planted_secrets[0]} leaked here).",
                followed_by_commit=True,
            ),
        ),
    )
    root = curate_kb(tmp_path, billing)
    monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", github_harness.token)  # type: ignore[attr-defined]
    monkeypatch.setenv("GITHUB_API_URL", github_harness.emulator.api_url)  # type: ignore[attr-defined]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_stub.url)
    monkeypatch.setenv("CI", "true")
    anthropic_stub.answer(draft("Paginate invoices with a cursor").model_dump(), usage=(900, 120, 0, 0))

    code = main(["curate", "--kb", str(root), "--json"])

    out = json.loads(capsys.readouterr().out)
    assert code == 0
    (lesson,) = out["lessons"]
    assert (lesson["member"], lesson["originator"], lesson["area"], lesson["title"]) == (
        "cy",
        "ana",
        "billing/api",
        "Paginate invoices with a cursor",
    )
    assert out["counts"]["modelCalls"] == 1 and out["cost"]["estimated"] is True
    (prompt,) = anthropic_stub.user_prompts()
    assert "Use cursor pagination" in prompt and "[REDACTED" in prompt
    assert not (root / ".homeostat").exists()  # CI: events are log lines, nothing written to the KB


def test_curate_table_and_show_prompts(
    github_harness: HostHarness,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    billing = github_harness.create_repo("acme", "billing")
    github_harness.merged_pull(
        billing,
        pull("cy", "Paginate invoices", 3, thread("ana", "Use cursor pagination.", followed_by_commit=True)),
    )
    root = curate_kb(tmp_path, billing)
    monkeypatch.setenv("GITHUB_TOKEN", github_harness.token)  # type: ignore[attr-defined]
    monkeypatch.setenv("GITHUB_API_URL", github_harness.emulator.api_url)  # type: ignore[attr-defined]

    code = main(
        [
            "curate",
            "--kb",
            str(root),
            "--show-prompts",
            "--since",
            (NOW - timedelta(days=1)).date().isoformat(),
        ]
    )

    captured = capsys.readouterr()
    assert code == 0
    assert (
        "=== curator: api runtime, claude-opus-5-5, medium effort, answer schema DraftAnswer ==="
        in captured.out
    )
    assert "ana: Use cursor pagination." in captured.out
    assert "printed 1 prompt(s); nothing was sent" in captured.err
    assert not (root / ".homeostat").exists()


@pytest.mark.parametrize(
    ("host", "env", "message"),
    [
        (
            "github",
            {},
            "homeostat: no GitHub token: set HOMEOSTAT_GITHUB_TOKEN (or GITHUB_TOKEN in GitHub Actions) to a token "
            "with contents:read and pull-requests:read; for GitHub Enterprise also set GITHUB_API_URL\n",
        ),
        (
            "github",
            {"GITHUB_TOKEN": "emu-token"},
            "homeostat: the api runtime needs ANTHROPIC_API_KEY (or set agents.runtime to bedrock, vertex or "
            "claude-code)\n",
        ),
        (
            "bitbucket",
            {},
            "homeostat: no Bitbucket token: set HOMEOSTAT_BITBUCKET_TOKEN (a repository or workspace access token) "
            "or BITBUCKET_API_TOKEN with BITBUCKET_EMAIL (an Atlassian API token and its account's email)\n",
        ),
    ],
)
def test_curate_names_a_missing_credential(
    host: str,
    env: dict[str, str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "kb"
    url = "https://github.com/acme/billing" if host == "github" else "https://bitbucket.org/acme/billing"
    config = config_yaml(_repo_at(url), host=host)
    write_files(root, {"homeostat.yaml": config, "knowledge/core/.keep": ""})
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    code = main(["curate", "--kb", str(root)])

    assert (code, capsys.readouterr().err) == (2, message)


def _repo_at(url: str) -> RepoRef:
    from homeostat.core.hosts import parse_repo_url

    return parse_repo_url(url)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--since", "yesterday"],
            "homeostat: --since 'yesterday' is not a date (YYYY-MM-DD) or an ISO time (2026-11-20T06:00Z)\n",
        ),
        (
            ["--json", "--show-prompts"],
            "homeostat: --show-prompts prints prompts, not lessons: drop --json to see them\n",
        ),
        (
            ["--max-cost", "-1"],
            "homeostat: --max-cost -1 is negative: give a cap in US dollars, e.g. --max-cost 2\n",
        ),
    ],
)
def test_curate_refuses_bad_flags(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "kb"
    write_files(
        root,
        {
            "homeostat.yaml": config_yaml(_repo_at("https://github.com/acme/billing")),
            "knowledge/core/.keep": "",
        },
    )

    code = main(["curate", "--kb", str(root), *argv])

    assert (code, capsys.readouterr().err) == (2, message)


def test_result_json_leaves_the_thread_text_out() -> None:
    result = CurateResult(since=NOW - timedelta(hours=26), until=NOW)
    data = result.to_data()
    assert data["counts"]["modelCalls"] == 0 and data["lessons"] == [] and data["capped"] is False


def test_curate_skips_threads_cited_on_open_review_branches_and_leaves_the_clone_alone(
    github_harness: HostHarness,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    billing = github_harness.create_repo("acme", "billing")
    github_harness.merged_pull(
        billing,
        pull("cy", "Status codes", 3, thread("ana", "Map errors in one table.", followed_by_commit=True)),
    )
    url = thread_urls(github_harness, billing)["Map errors in one table."]
    kb_files = {"homeostat.yaml": config_yaml(billing), "knowledge/core/.keep": ""}
    _, clone_dir = make_origin_and_clone(tmp_path, kb_files)
    git(clone_dir, "checkout", "--quiet", "-b", "homeostat/review-cy-2026-11-20")
    commit(clone_dir, {"knowledge/billing/api/errors.md": cited_rule(url)}, "review PR", push=True)
    git(clone_dir, "checkout", "--quiet", "main")
    git(clone_dir, "branch", "--quiet", "-D", "homeostat/review-cy-2026-11-20")
    before = snapshot(clone_dir)
    monkeypatch.setenv("GITHUB_TOKEN", github_harness.token)  # type: ignore[attr-defined]
    monkeypatch.setenv("GITHUB_API_URL", github_harness.emulator.api_url)  # type: ignore[attr-defined]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")  # never called: nothing is left to draft
    monkeypatch.setenv("CI", "true")

    code = main(["curate", "--kb", str(clone_dir), "--json"])

    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["skipped"] == [
        {"what": "thread", "url": url, "reason": "already cited by the KB", "member": "cy"}
    ]
    assert out["counts"]["modelCalls"] == 0
    assert snapshot(clone_dir) == before


def test_the_table_lists_rules_patches_skips_and_a_summary() -> None:
    from homeostat.commands.ci.curate import render_result
    from homeostat.core.asker import RunStats
    from homeostat.core.pending import DocPatchRequest
    from homeostat.runs.curate import Skip

    url = "https://github.com/acme/billing/pull/7#discussion_r70"
    rule = review_lesson(originator="ana", title="Paginate invoices with a cursor", url=url)
    patch = rule.with_changes(
        key="k1-doc",
        kind="doc",
        doc_patch=DocPatchRequest(doc="billing/api/overview", section="pagination", body="B"),
    )
    result = CurateResult(
        since=datetime(2026, 11, 19, 4, 0, tzinfo=UTC),
        until=datetime(2026, 11, 20, 6, 0, tzinfo=UTC),
        lessons=[rule],
        doc_lessons=[patch],
        skipped=[Skip("thread", url.replace("70", "71"), "no commit followed it", "cy")],
        pulls_listed=3,
        pulls_read=2,
        threads_seen=2,
        threads_kept=1,
        model_calls=2,
        ok_calls=2,
    )

    text = render_result(result, RunStats(), show_skipped=True)

    assert text.splitlines() == [
        "member  reviewer  area               source       title                            thread",
        "------  --------  -----------------  -----------  -------------------------------  "
        + "-" * len(url),
        f"cy      ana       billing/api/money  pr-feedback  Paginate invoices with a cursor  {url}",
        "",
        "member  reviewer  section                          op      thread",
        "------  --------  -------------------------------  ------  " + "-" * len(url),
        f"cy      ana       billing/api/overview#pagination  append  {url}",
        "",
        "skipped  why                    url",
        "-------  ---------------------  " + "-" * len(url),
        f"thread   no commit followed it  {url.replace('70', '71')}",
        "",
        "Read 2026-11-19 04:00 UTC to 2026-11-20 06:00 UTC: 0 repo(s), 3 PR(s) merged (2 read), 2 thread(s) "
        "(1 kept); drafted 1 rule(s) and 1 document patch(es); 2 model call(s) (0 failed, $0.0000); "
        "0 secret(s) redacted.",
    ]
