"""`homeostat learn`: lessons by flags, updates, flags, document patches and review-comment URLs (over the
GitHub and Bitbucket emulators and the Anthropic stub), and bad input refused with one line, unwritten."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gitfixtures import git
from hostkit import HostHarness, PullSpec, ReplySpec, ThreadSpec
from ptykit import at_a_terminal

from homeostat.adapters.state.pending_store import list_pending
from homeostat.cli import main
from homeostat.core.daily.curate import DraftAnswer
from homeostat.core.hosts import RepoRef
from homeostat.core.pending import PendingLesson

NOW = datetime.now(UTC).replace(microsecond=0)
RULE_ID = "billing-api-error-status-table"


@pytest.fixture(params=["github", "bitbucket"])
def harness(request: pytest.FixtureRequest) -> HostHarness:
    return request.getfixturevalue(f"{request.param}_harness")  # type: ignore[no-any-return]


def learn(kb: Path, *argv: str) -> int:
    return main(["learn", "--kb", str(kb), *argv])


def pending(kb: Path) -> list[PendingLesson]:
    return [lesson for _, lesson in list_pending(kb)]


NEW = (
    "--title",
    "Keep money in Decimal",
    "--rule",
    "Represent amounts as `Decimal` in `src/billing/api`, never float.",
    "--why",
    "Floats rounded a refund by a cent.",
    "--area",
    "billing/api",
    "--topic",
    "money",
)


# --- by flags -------------------------------------------------------------------------------------


def test_a_new_lesson_by_flags_is_written_once(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert learn(kb, "--author", "bo", *NEW) == 0
    assert learn(kb, "--author", "bo", *NEW) == 0

    out = capsys.readouterr().out.splitlines()
    (lesson,) = pending(kb)
    assert (lesson.kind, lesson.author, lesson.source, lesson.area, lesson.topic) == (
        "new",
        "bo",
        "manual",
        "billing/api",
        "money",
    )
    assert (lesson.title, lesson.why, lesson.scope) == (
        "Keep money in Decimal",
        "Floats rounded a refund by a cent.",
        ("src/billing/api/**",),
    )
    name = f".homeostat/pending/{lesson.content_key()}.json"
    assert out == [
        f"new rule 'Keep money in Decimal' in billing/api: written as {name}; the daily run decides it",
        f"new rule 'Keep money in Decimal' in billing/api: already pending as {name}; the daily run decides it",
    ]
    assert (kb / ".homeostat" / ".gitignore").read_text() == "*\n"


def test_author_from_the_environment_or_the_git_email(
    kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOMEOSTAT_MEMBER", "cy")
    assert learn(kb, *NEW, "--source", "agent-handoff", "--scope", "src/billing/api/money/**") == 0
    monkeypatch.delenv("HOMEOSTAT_MEMBER")
    config = (kb / "homeostat.yaml").read_text()
    (kb / "homeostat.yaml").write_text(
        config.replace("name: Dee Novak", "name: Dee Novak\n      email: Dee@Example.com")
    )
    git(kb, "init", "--quiet")
    git(kb, "config", "user.email", "dee@example.com")
    assert learn(kb, *NEW[:-4], "--area", "storefront/ui") == 0

    by_author = {lesson.author: lesson for lesson in pending(kb)}
    assert set(by_author) == {"cy", "dee"}
    assert (by_author["cy"].source, by_author["cy"].scope) == ("agent-handoff", ("src/billing/api/money/**",))
    assert (by_author["dee"].area, by_author["dee"].topic) == ("storefront/ui", "")


def test_author_from_the_git_name_when_no_member_has_the_email(kb: Path) -> None:
    """sync sends a clone's lessons as the member its git email, then its git name, names; learn
    picks the same member, so a lesson is never written under one member and sent as another."""
    git(kb, "init", "--quiet")
    git(kb, "config", "user.email", "bo@laptop.invalid")
    git(kb, "config", "user.name", "Bo Chen")
    assert learn(kb, *NEW) == 0
    assert [lesson.author for lesson in pending(kb)] == ["bo"]


def test_update_keeps_what_the_flags_leave_out(kb: Path) -> None:
    rule = "Raise domain errors from `billing.errors`; `STATUS_BY_ERROR` maps each one to its status."
    assert learn(kb, "--author", "ana", "--update", RULE_ID, "--rule", rule) == 0

    (lesson,) = pending(kb)
    assert (lesson.kind, lesson.target, lesson.rule, lesson.area, lesson.topic) == (
        "update",
        RULE_ID,
        rule,
        "billing/api",
        "errors",
    )
    assert lesson.title == "Map domain errors to one HTTP status table"
    assert lesson.why.startswith("Two handlers once answered 400 and 422")
    assert lesson.scope == ("src/billing/api/**/*.py",)


def test_flag_with_a_reason(kb: Path) -> None:
    assert learn(kb, "--author", "cy", "--flag", RULE_ID, "--reason", "We answer problem+json now.") == 0

    (lesson,) = pending(kb)
    assert (lesson.kind, lesson.target, lesson.reason, lesson.author) == (
        "flag",
        RULE_ID,
        "We answer problem+json now.",
        "cy",
    )


def test_doc_patches_one_section(kb: Path) -> None:
    assert (
        learn(
            kb,
            "--author",
            "ana",
            "--doc",
            "billing/api/overview",
            "--section",
            "errors",
            "--body",
            "409 means a conflict.",
        )
        == 0
    )
    assert (
        learn(
            kb,
            "--author",
            "ana",
            "--doc",
            "billing/api/overview",
            "--section",
            "rate-limits",
            "--op",
            "add",
            "--heading",
            "Rate limits",
            "--body",
            "Each API key gets 100 requests a minute; 請求が多すぎる場合は 429 を返す。",
        )
        == 0
    )

    patches = {lesson.doc_patch.section: lesson.doc_patch for lesson in pending(kb) if lesson.doc_patch}
    assert (patches["errors"].doc, patches["errors"].op, patches["errors"].body) == (
        "billing/api/overview",
        "append",
        "409 means a conflict.",
    )
    assert (patches["rate-limits"].op, patches["rate-limits"].heading) == ("add", "Rate limits")
    assert "請求" in patches["rate-limits"].body


# --- bad input ------------------------------------------------------------------------------------

LONG_RULE = " ".join(["word"] * 61)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ("--title", "T", "--rule", "R", "--why", "W", "--area", "billing/apis"),
            "unknown area 'billing/apis': use one of billing/api, billing/db, storefront/ui, core (--area)",
        ),
        (
            ("--title", "T", "--rule", "R", "--why", "W", "--area", "billing/api"),
            "area billing/api groups rules by topic: pass --topic with one of errors, money",
        ),
        (
            ("--title", "T", "--rule", "R", "--why", "W", "--area", "billing/api", "--topic", "cash"),
            "unknown topic 'cash' for billing/api: use one of errors, money (--topic)",
        ),
        (
            ("--title", "T", "--rule", LONG_RULE, "--why", "W", "--area", "storefront/ui"),
            "--rule has 61 words (limit 60): shorten it or move detail to --why",
        ),
        (
            ("--title", "T" * 81, "--rule", "R", "--why", "W", "--area", "storefront/ui"),
            "--title has 81 characters (limit 80): shorten it",
        ),
        (
            ("--title", "T", "--rule", "R", "--area", "storefront/ui"),
            "a new lesson needs --title, --rule and --why (missing: --why)",
        ),
        (
            ("--update", "no-such-rule", "--rule", "R"),
            "--update 'no-such-rule': no such rule in the KB (find its id with homeostat search)",
        ),
        (
            ("--flag", "no-such-rule", "--reason", "Wrong."),
            "--flag 'no-such-rule': no such rule in the KB (find its id with homeostat search)",
        ),
        (("--flag", RULE_ID), f"--flag {RULE_ID} needs --reason: say what is wrong with the rule"),
        (
            ("--update", RULE_ID, "--area", "storefront/ui", "--rule", "R"),
            f"--update keeps rule {RULE_ID}'s area: drop --area (flag the rule instead if it is wrong)",
        ),
        (
            (
                "--update",
                RULE_ID,
                "--why",
                "Two handlers once answered 400 and 422 for the same declined card, and the checkout client retried one of them.",
            ),
            f"--update {RULE_ID} changes nothing: pass the new --rule, --title, --why or --example",
        ),
        (
            ("--doc", "billing/api/overview", "--section", "nope", "--op", "replace", "--body", "B"),
            "the patch would be refused: knowledge/billing/api/docs/overview.md: no section {#nope} to replace",
        ),
        (
            ("--doc", "billing/api/overview", "--section", "x", "--op", "add", "--body", "B"),
            "--op add needs --heading: the new section's one-line heading",
        ),
        (
            ("--doc", "billing/api/nope", "--section", "x", "--body", "B"),
            "no document 'billing/api/nope' in the KB (--doc takes <area>/<name>; documents: billing/api/overview)",
        ),
        (("--flag", RULE_ID, "--reason", "R", "--rule", "X"), "--rule does not apply to --flag: drop it"),
        (
            ("--author", "zed", "--flag", RULE_ID, "--reason", "R"),
            "--author 'zed' is not in team.members of homeostat.yaml: use a member's handle",
        ),
        (
            ("--url", "https://github.com/example/billing/pull/3", "--title", "T"),
            "--url: not a review-comment URL: 'https://github.com/example/billing/pull/3' (expected "
            "#discussion_r<id> after the PR URL)",
        ),
        (
            ("--url", "https://github.com/other/repo/pull/3#discussion_r12"),
            "--url names a comment in other/repo, which is not one of the KB's code repos (repos[].url in "
            "homeostat.yaml): review lessons come from those only",
        ),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    kb: Path, argv: tuple[str, ...], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    author = () if "--author" in argv else ("--author", "ana")

    code = learn(kb, *author, *argv)

    assert (code, capsys.readouterr().err) == (2, f"homeostat: {message}\n")
    assert not (kb / ".homeostat").exists()


def test_a_secret_is_refused_not_written(
    kb: Path, planted_secrets: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = learn(
        kb, "--author", "ana", *NEW[:3], f"Use the token {planted_secrets[0]} for the sandbox.", *NEW[4:]
    )

    assert code == 2
    assert capsys.readouterr().err == (
        "homeostat: --rule holds what looks like a secret (github-pat): remove it, lessons are shared\n"
    )
    assert not (kb / ".homeostat").exists()


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--scope", "src/{secret}/**"),
        ("--title", "Use {secret}"),
        ("--example", "export T={secret}"),
        ("--why", "It needs {secret} to run."),
    ],
)
def test_a_secret_in_any_field_is_refused(
    kb: Path, planted_secrets: list[str], capsys: pytest.CaptureFixture[str], flag: str, value: str
) -> None:
    args = dict(zip(NEW[::2], NEW[1::2], strict=True))
    args[flag] = value.format(secret=planted_secrets[0])
    code = learn(kb, "--author", "ana", *[part for pair in args.items() for part in pair])

    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"homeostat: {flag} holds what looks like a secret (github-pat)")
    assert planted_secrets[0] not in err
    assert not (kb / ".homeostat").exists()


def test_an_error_that_quotes_a_bad_value_never_prints_the_secret_in_it(
    kb: Path, planted_secrets: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = dict(zip(NEW[::2], NEW[1::2], strict=True))
    args["--topic"] = planted_secrets[0]  # refused as an unknown topic before its secret is looked at
    code = learn(kb, "--author", "ana", *[part for pair in args.items() for part in pair])

    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("homeostat: unknown topic '[REDACTED:github-pat]'")
    assert planted_secrets[0] not in err
    assert not (kb / ".homeostat").exists()


# --- from a review comment ------------------------------------------------------------------------


def url_kb(kb: Path, billing: RepoRef, host: str) -> None:
    config = (
        (kb / "homeostat.yaml").read_text().replace("https://github.com/example/billing", billing.web_url)
    )
    (kb / "homeostat.yaml").write_text(config.replace("host: github", f"host: {host}"))


def host_env(harness: HostHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    if harness.name == "github":
        monkeypatch.setenv("HOMEOSTAT_GITHUB_TOKEN", harness.token)  # type: ignore[attr-defined]
        monkeypatch.setenv("GITHUB_API_URL", harness.emulator.api_url)  # type: ignore[attr-defined]
    else:
        monkeypatch.setenv("HOMEOSTAT_BITBUCKET_TOKEN", harness.token)  # type: ignore[attr-defined]
        monkeypatch.setenv("BITBUCKET_API_URL", harness.api_url)  # type: ignore[attr-defined]


def reviewed(harness: HostHarness) -> tuple[RepoRef, dict[str, str]]:
    billing = harness.create_repo("example", "billing")
    spec = PullSpec(
        author="cy",
        title="Refund in one call",
        files={"src/billing/api/refunds.py": "def refund(): ...\n", "src/billing/api/names.py": "x = 1\n"},
        merged_at=NOW - timedelta(hours=2),
        threads=(
            ThreadSpec(
                "ana",
                "Refunds need an idempotency key.",
                "src/billing/api/refunds.py",
                replies=(ReplySpec("cy", "Added one."),),
                followed_by_commit=True,
            ),
            ThreadSpec("bo", "Consider a better name.", "src/billing/api/names.py"),
        ),
    )
    harness.merged_pull(billing, spec)
    host = harness.adapter()
    urls = {}
    for merged in host.list_merged_pulls(billing, NOW - timedelta(days=1)):
        for found in host.review_threads(merged):
            urls[found.root.body] = found.url
            for reply in found.replies:
                urls[reply.body] = reply.url
    return billing, urls


def test_url_records_the_thread_and_whether_code_changed(
    harness: HostHarness, kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    billing, urls = reviewed(harness)
    url_kb(kb, billing, harness.name)
    host_env(harness, monkeypatch)
    given = (
        "--title",
        "Refunds carry an idempotency key",
        "--rule",
        "Send an idempotency key with every refund.",
    )
    given += ("--why", "A retried refund paid twice.", "--topic", "money")

    assert learn(kb, "--author", "cy", "--url", urls["Added one."], *given) == 0
    assert (
        learn(
            kb,
            "--author",
            "cy",
            "--url",
            urls["Consider a better name."],
            "--title",
            "Name things well",
            *given[2:],
        )
        == 0
    )

    by_url = {lesson.url: lesson for lesson in pending(kb)}
    changed = by_url[urls["Refunds need an idempotency key."]]  # a reply's URL files under its thread
    assert (changed.source, changed.area, changed.topic, changed.author) == (
        "pr-feedback",
        "billing/api",
        "money",
        "cy",
    )
    unchanged = by_url[urls["Consider a better name."]]
    assert unchanged.source == "pr-feedback-no-change"


def test_url_drafts_what_is_left_out_from_the_redacted_thread(
    github_harness: HostHarness,
    anthropic_stub,  # type: ignore[no-untyped-def]
    planted_secrets: list[str],
    kb: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    billing = github_harness.create_repo("example", "billing")
    github_harness.merged_pull(
        billing,
        PullSpec(
            author="cy",
            title="Refund in one call",
            files={"src/billing/api/refunds.py": "def refund(): ...\n"},
            merged_at=NOW - timedelta(hours=2),
            threads=(
                ThreadSpec(
                    "ana",
                    f"Refunds need an idempotency key (and never paste {planted_secrets[0]}).",
                    "src/billing/api/refunds.py",
                    followed_by_commit=True,
                ),
            ),
        ),
    )
    host = github_harness.adapter()
    (merged,) = host.list_merged_pulls(billing, NOW - timedelta(days=1))
    (found,) = host.review_threads(merged)
    url_kb(kb, billing, "github")
    host_env(github_harness, monkeypatch)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_stub.url)
    anthropic_stub.answer(
        DraftAnswer(
            keep=True,
            title="Refunds carry an idempotency key",
            rule="Send an idempotency key with every refund request.",
            why="A retried refund paid the customer twice.",
            area="billing/api",
            topic="money",
        ).model_dump()
    )

    assert learn(kb, "--author", "cy", "--url", found.url, "--json") == 0

    out = json.loads(capsys.readouterr().out)
    assert out["written"] is True
    (lesson,) = pending(kb)
    assert (lesson.title, lesson.rule, lesson.topic, lesson.source, lesson.url) == (
        "Refunds carry an idempotency key",
        "Send an idempotency key with every refund request.",
        "money",
        "pr-feedback",
        found.url,
    )
    (prompt,) = anthropic_stub.user_prompts()
    assert "Refunds need an idempotency key" in prompt and "[REDACTED" in prompt


def test_url_missing_host_token_is_named(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = learn(kb, "--author", "ana", "--url", "https://github.com/example/billing/pull/3#discussion_r12")

    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("homeostat: no GitHub token: set HOMEOSTAT_GITHUB_TOKEN")
    assert "with contents:read and pull-requests:read;" in err  # it only reads the thread
    assert not (kb / ".homeostat").exists()


def test_url_of_a_thread_already_behind_a_rule_points_at_update(
    github_harness: HostHarness, kb: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    billing, urls = reviewed(github_harness)
    url_kb(kb, billing, "github")
    errors = kb / "knowledge/billing/api/errors.md"
    old = "https://github.com/example/billing/pull/41#discussion_r9100000001"
    errors.write_text(errors.read_text().replace(old, urls["Refunds need an idempotency key."]))
    host_env(github_harness, monkeypatch)

    code = learn(kb, "--author", "cy", "--url", urls["Added one."], *NEW)

    assert (code, capsys.readouterr().err) == (
        2,
        f"homeostat: the thread is already behind rule {RULE_ID}: use --update {RULE_ID} to change it\n",
    )
    assert not (kb / ".homeostat").exists()


def test_url_with_update_records_the_thread_without_drafting(
    harness: HostHarness, kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    billing, urls = reviewed(harness)
    url_kb(kb, billing, harness.name)
    host_env(harness, monkeypatch)  # no model credential: an update is never drafted
    rule = "Raise domain errors from `billing.errors`; refunds also send an idempotency key."

    assert learn(kb, "--author", "ana", "--update", RULE_ID, "--rule", rule, "--url", urls["Added one."]) == 0

    (lesson,) = pending(kb)
    assert (lesson.kind, lesson.target, lesson.rule, lesson.source, lesson.url) == (
        "update",
        RULE_ID,
        rule,
        "pr-feedback",
        urls["Refunds need an idempotency key."],
    )
    assert lesson.title == "Map domain errors to one HTTP status table"


def test_at_a_terminal_learn_asks_for_what_the_flags_left_out(kb: Path) -> None:
    """Run in a real pseudo-terminal and answer each prompt, as a person would."""
    answers = [
        "Send an Idempotency-Key with every refund POST",
        "Send an `Idempotency-Key` header with each POST in `src/billing/api/refunds.py`.",
        "A retried refund without one was posted twice.",
        "billing/api",
        "errors",
    ]
    prompts = [b"Title", b"Rule", b"Why", b"Area", b"Topic"]
    code, shown = at_a_terminal(
        ["learn", "--kb", str(kb), "--author", "bo"], list(zip(prompts, answers, strict=True))
    )
    assert code == 0, shown
    [(_, lesson)] = list_pending(kb)
    assert (lesson.title, lesson.area, lesson.topic) == (answers[0], "billing/api", "errors")
