"""`homeostat daily` end to end: the GitHub emulator, real git, the model stub."""

from __future__ import annotations

from pathlib import Path

import pytest
from dailyworld import DailyWorld
from hostkit import PullSpec, ReplySpec, ThreadSpec


def test_a_confident_review_lesson_merges_in_the_authors_daily_pr(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world.merged_pull(
        "billing",
        PullSpec(
            author="bo",
            title="Refund endpoint",
            files={"src/billing/api/refunds.py": "def refund(): pass\n"},
            merged_at=world.hours_ago(3),
            threads=(
                ThreadSpec(
                    author="ana",
                    body="Raise RefundDeclined from billing.errors instead of returning None.",
                    path="src/billing/api/refunds.py",
                    replies=(ReplySpec("bo", "Done."),),
                    followed_by_commit=True,
                ),
            ),
        ),
    )
    code = world.daily()
    out = capsys.readouterr()
    assert code == 0, out.out + out.err
    records = world.records()
    [record] = [r for r in records.values() if r.kind == "review-thread"]
    assert record.outcome == "merged" and record.member == "bo" and record.state == "settled"
    assert record.breakdown["role:lead"] == 20
    main = world.main_files()
    assert "Raise RefundDeclined from billing.errors" in main["knowledge/billing/api/errors.md"]
    pulls = world.pulls()
    [daily] = [p for p in pulls.values() if p.head_ref.startswith("homeostat/daily-bo")]
    assert daily.merged_at is not None
    assert "## Every decision" in daily.body and "role:lead +20" in daily.body


def thread(author: str, body: str, path: str, *, followed: bool = True) -> ThreadSpec:
    return ThreadSpec(author=author, body=body, path=path, followed_by_commit=followed)


def pr(
    world: DailyWorld,
    repo: str,
    author: str,
    title: str,
    *threads: ThreadSpec,
    body: str = "",
    hours: float = 3,
) -> int:
    files = {t.path: "x = 1\n" for t in threads} or {"README.md": "x\n"}
    return world.merged_pull(
        repo,
        PullSpec(
            author=author,
            title=title,
            files=files,
            merged_at=world.hours_ago(hours),
            threads=threads,
            body=body,
        ),
    )


def build_a_busy_day(world: DailyWorld) -> None:
    """A dozen merged PRs with threads that should and should not count, and two members' pending lessons."""
    api = "src/billing/api/refunds.py"
    pr(
        world,
        "billing",
        "bo",
        "Refunds",
        thread("ana", "Raise RefundDeclined from billing.errors instead of returning None.", api),
    )
    pr(
        world,
        "billing",
        "bo",
        "Refund limits",
        thread(
            "dee", "Check refund limits with RefundPolicy.allows before posting.", "src/billing/api/limits.py"
        ),
    )
    pr(
        world,
        "storefront",
        "cy",
        "Buttons",
        thread(
            "ana",
            "Use the Button primitive from web/components/ui for every clickable control with an onClick.",
            "web/components/Cart.tsx",
        ),
    )
    pr(
        world,
        "billing",
        "bo",
        "Migration",
        thread(
            "ana",
            "Backfill new columns in a separate migration after the deploy.",
            "src/billing/db/schema.py",
        ),
    )
    pr(
        world,
        "billing",
        "bo",
        "Outsider review",
        thread("zed", "Use tabs not spaces everywhere in the service.", api),
    )
    pr(
        world,
        "billing",
        "bo",
        "No change after review",
        thread("ana", "Consider caching the exchange rates lookup.", api, followed=False),
    )
    pr(
        world,
        "billing",
        "bo",
        "Generated code",
        thread("ana", "Regenerate the client with the new flag.", "src/billing/generated/client.py"),
    )
    pr(
        world,
        "billing",
        "bo",
        "Skipped",
        thread("ana", "Log the refund id as a field.", api),
        body="homeostat:skip",
    )
    pr(
        world,
        "billing",
        "zed",
        "Contractor PR",
        thread("ana", "Wrap ledger writes in a transaction block.", api),
    )
    pr(
        world,
        "storefront",
        "cy",
        "Spacing",
        thread(
            "bo",
            "Use theme.space for margins in components, never pixel values.",
            "web/components/Header.tsx",
        ),
    )
    pr(
        world,
        "billing",
        "bo",
        "Webhook",
        thread(
            "ana",
            "Verify the webhook signature with the key ghp_"
            + "A1b2" * 9
            + " before load_event() parses the body.",
            "src/billing/api/webhooks.py",
        ),
    )
    pr(
        world,
        "storefront",
        "cy",
        "Prices",
        thread(
            "ana", "Format prices with formatMoney from web/components/money.", "web/components/Price.tsx"
        ),
    )
    world.script.judge_failures["Button primitive"] = {
        "ok": False,
        "problems": [{"trap": "wider-scope", "evidence": "the thread named one component"}],
    }
    world.script.judge_failures["formatMoney"] = {
        "ok": False,
        "problems": [{"trap": "contradicts-thread", "evidence": "the thread says formatPrice"}],
    }
    world.script.duplicates["theme.space for margins"] = "use-theme-spacing"
    world.pending(
        "cy",
        title="Name custom hooks with a use prefix",
        rule="Name custom hooks in `web/components/` `useThing` so lint finds them.",
        why="The hooks lint rule only checks names starting with use.",
        area="storefront/ui",
    )
    world.pending(
        "dee",
        kind="flag",
        target="log-with-fields",
        reason="the log pipeline now parses message templates too",
    )
    world.pending(
        "dee", title="misc notes", rule="stuff", why="x", area="storefront/ui", source="agent-handoff"
    )


def test_a_busy_day_merges_reviews_and_declines_the_right_lessons(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    build_a_busy_day(world)
    code = world.daily()
    out = capsys.readouterr().out
    assert code == 0, out
    records = world.records()
    outcomes = {title[:40]: (r.outcome, r.member) for title, r in records.items() if r.kind != "dispute"}
    assert outcomes["Raise RefundDeclined from billingerrors "] == ("merged", "bo")
    assert outcomes["Check refund limits with RefundPolicyall"] == ("review", "bo")  # a junior's review
    assert outcomes["Use the Button primitive from webcompone"] == ("review", "cy")  # judge kept a failure
    assert outcomes["Backfill new columns in a separate migra"] == (
        "review",
        "bo",
    )  # billing/db is not autoMerge
    assert outcomes["Use themespace for margins in components"] == ("duplicate", "cy")
    assert outcomes["Format prices with formatMoney from webc"] == (
        "declined",
        "cy",
    )  # judge: contradicts its thread
    assert outcomes["Name custom hooks with a use prefix"] == ("review", "cy")
    assert outcomes["Flag on log-with-fields"] == ("disputed", "dee")
    assert outcomes["misc notes"] == ("declined", "dee")
    assert [v for t, v in outcomes.items() if t.startswith("Verify the webhook")] == [("merged", "bo")]
    assert not [
        t
        for t in outcomes
        if "tabs" in t or "caching" in t or "Regenerate" in t or "Log the refund" in t or "transaction" in t
    ]
    assert len(outcomes) == 10
    # the planted token never reached the model
    assert all("A1b2A1b2" not in body for body in world.stub.bodies())
    # daily PRs were squash-merged with every decision and its breakdown
    pulls = {p.head_ref: p for p in world.pulls().values()}
    daily_bo = next(p for ref, p in pulls.items() if ref.startswith("homeostat/daily-bo-"))
    assert daily_bo.merged_at is not None and "base:pr-feedback +50, role:lead +20" in daily_bo.body
    assert "| Check refund limits" in daily_bo.body  # the review-band decision is listed too
    main = world.main_files()
    assert "RefundDeclined" in main["knowledge/billing/api/errors.md"]
    assert (
        "lastConfirmed: " + world.now.date().isoformat()
        in main["knowledge/storefront/ui/use-theme-spacing.md"]
    )
    assert "status: disputed" in main["knowledge/core/log-with-fields.md"]
    # review PRs are level with main and ask the team's reviewers
    review_bo = next(p for ref, p in pulls.items() if ref.startswith("homeostat/review-bo-"))
    assert review_bo.state == "open" and review_bo.reviewers == ["ana"]
    assert "Why a person" in review_bo.body
    review_cy = next(p for ref, p in pulls.items() if ref.startswith("homeostat/review-cy-"))
    assert "wider-scope" in review_cy.body
    dispute = next(
        p for ref, p in pulls.items() if ref.startswith("homeostat/review-dispute-log-with-fields-")
    )
    assert dispute.state == "open"
    # the state branch holds a run report
    state = world.state()
    [report] = state.runs.values()
    assert report.decided["merged"] == 2 and report.notices[0].kind == "slack-unset"


def test_the_next_run_settles_review_prs_and_drafts_nothing_twice(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    build_a_busy_day(world)
    assert world.daily() == 0
    drafted_first = sum(1 for system, _ in world.script.calls if system.startswith("You turn one"))
    pulls = {p.head_ref: (n, p) for n, p in world.pulls().items()}
    review_bo = next(n for ref, (n, _) in pulls.items() if ref.startswith("homeostat/review-bo-"))
    dispute = next(n for ref, (n, _) in pulls.items() if ref.startswith("homeostat/review-dispute-"))
    world.harness.merge_as(world.kb_repo, review_bo, "ana")
    world.harness.close_as(world.kb_repo, dispute, "ana")
    capsys.readouterr()
    assert world.daily() == 0, capsys.readouterr().out
    drafted_second = (
        sum(1 for system, _ in world.script.calls if system.startswith("You turn one")) - drafted_first
    )
    assert drafted_second == 0
    records = {title[:40]: r for title, r in world.records().items()}
    assert records["Check refund limits with RefundPolicyall"].outcome == "merged"
    assert records["Check refund limits with RefundPolicyall"].state == "settled"
    # merging was approval: the reviewer is recorded on the rules the review PR held
    limits = records["Check refund limits with RefundPolicyall"].rule_id
    errors_file = world.main_files()["knowledge/billing/api/errors.md"]
    section = errors_file[errors_file.index(f"{{#{limits}}}") :].split("-->")[0]
    assert "approvedBy: [ana]" in section
    assert records["Use the Button primitive from webcompone"].state == "in-review"
    disputes = [r for r in records.values() if r.kind == "dispute"]
    assert [(r.outcome, r.state) for r in disputes] == [("retired", "settled")]
    assert "status: retired" in world.main_files()["knowledge/core/log-with-fields.md"]


def test_settling_asks_the_host_once_per_review_pr_not_once_per_lesson(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lessons waiting in one review PR share its answer: at a team's scale, requests grow with the
    review PRs, not with the lessons in them."""
    build_a_busy_day(world)
    assert world.daily() == 0
    pulls = {p.head_ref: n for n, p in world.pulls().items()}
    review_bo = next(n for ref, n in pulls.items() if ref.startswith("homeostat/review-bo-"))
    waiting = [r for r in world.records().values() if r.pr is not None and r.pr.number == review_bo]
    assert len(waiting) == 2
    world.harness.merge_as(world.kb_repo, review_bo, "ana")
    world.harness.requests.clear()
    capsys.readouterr()

    assert world.daily() == 0, capsys.readouterr().out

    def reads_of(number: int) -> int:
        ends = f"/pulls/{number}"
        return sum(
            1 for m, p in world.harness.requests.entries if m == "GET" and p.split("?")[0].endswith(ends)
        )

    review_cy = next(n for ref, n in pulls.items() if ref.startswith("homeostat/review-cy-"))
    assert reads_of(review_bo) == 1  # merged since: asked once, for its two lessons
    assert reads_of(review_cy) == 0  # still open, as the list of open PRs shows


def one_confident_pr(
    world: DailyWorld,
    hours: float = 3,
    body: str = "Raise RefundDeclined from billing.errors instead of returning None.",
) -> int:
    return pr(
        world, "billing", "bo", "Refunds", thread("ana", body, "src/billing/api/refunds.py"), hours=hours
    )


def test_a_protected_base_branch_leaves_the_daily_pr_open_and_its_lessons_in_review(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    one_confident_pr(world)
    world.harness.protect_branch(world.kb_repo, "main")
    before = world.main_files()
    assert world.daily() == 0
    out = capsys.readouterr().out
    assert "was not merged" in out and "it stays open" in out
    [record] = [r for r in world.records().values() if r.kind == "review-thread"]
    assert (record.outcome, record.state) == ("review", "in-review")
    assert record.pr is not None and record.pr.branch.startswith("homeostat/daily-bo-")
    daily = world.pulls()[record.pr.number]
    assert daily.state == "open"
    commits = (
        world.bare().run("log", "--format=%s", f"refs/heads/{record.pr.branch}").stdout.decode().splitlines()
    )
    assert (
        commits[0].endswith("run the checks") and "[skip ci]" not in commits[0] and "[skip ci]" in commits[1]
    )
    assert world.main_files() == before
    assert [
        n.kind
        for n in world.state().runs[next(iter(world.state().runs))].notices
        if n.kind == "merge-refused"
    ]


def test_a_capped_run_leaves_lessons_undecided_and_the_next_run_reads_its_window(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    one_confident_pr(world, hours=20)
    assert world.daily("--max-cost", "0") == 0
    out = capsys.readouterr().out
    assert "spending cap" in out
    assert world.records() == {}
    [report] = world.state().runs.values()
    assert report.capped is not None
    assert world.pulls() == {}
    # the next run (the day after, uncapped) reads from the capped run's window start
    assert world.daily() == 0
    assert [r.outcome for r in world.records().values()] == ["merged"]


def test_a_model_returning_garbage_decides_nothing_it_drafted_and_half_applies_nothing(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    one_confident_pr(world)
    world.pending(
        "cy",
        title="Name custom hooks with a use prefix",
        rule="Name custom hooks in `web/components/` `useThing`.",
        why="Lint finds them.",
        area="storefront/ui",
    )
    world.script.broken = True
    before = world.main_files()
    assert world.daily() == 0
    records = world.records()
    assert [r.title for r in records.values()] == ["Name custom hooks with a use prefix"]
    assert records["Name custom hooks with a use prefix"].outcome == "review"
    assert world.main_files() == before


def test_a_run_whose_model_calls_all_fail_exits_non_zero_and_the_next_run_covers_its_window(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    one_confident_pr(world, hours=20)
    for _ in range(12):
        world.stub.error(401, message="invalid x-api-key")
    code = world.daily()
    out = capsys.readouterr().out
    assert code == 1 and "every model call failed" in out
    assert world.records() == {} and world.pulls() == {}
    [report] = world.state().runs.values()
    assert report.failed is not None
    world.stub.queue.clear()
    assert world.daily() == 0
    assert [r.outcome for r in world.records().values()] == ["merged"]


def test_an_overlapping_run_lands_each_lesson_once_and_loses_no_record(
    world: DailyWorld, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one_confident_pr(world)
    world.pending(
        "cy",
        title="Name custom hooks with a use prefix",
        rule="Name custom hooks in `web/components/` `useThing`.",
        why="Lint finds them.",
        area="storefront/ui",
    )
    import homeostat.runs.daily as daily_module

    original = daily_module.DailyRun._decide_all
    ran_inside = []

    def decide_then_let_another_run_finish(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        decided = original(self, *args, **kwargs)
        if not ran_inside:
            ran_inside.append(True)
            assert world.daily() == 0  # the manual run overlaps: it finishes while this one is mid-way
        return decided

    monkeypatch.setattr(daily_module.DailyRun, "_decide_all", decide_then_let_another_run_finish)
    assert world.daily() == 0
    out = capsys.readouterr().out
    assert "decided by an overlapping run" in out
    main = world.main_files()
    assert main["knowledge/billing/api/errors.md"].count("RefundDeclined from billing.errors") == 1
    records = world.records()
    assert {r.outcome for r in records.values()} == {"merged", "review"}
    assert len(world.state().runs) == 2
    review_prs = [p for p in world.pulls().values() if p.head_ref.startswith("homeostat/review-cy-")]
    assert len(review_prs) == 1


def test_offline_run_decides_the_example_kbs_pending_lessons_and_writes_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from kbfactory import EXAMPLE, example_files

    from homeostat.cli import main

    before = example_files()
    assert main(["daily", "--offline", "--kb", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert (
        "review     77  @bo           Send an Idempotency-Key with every refund POST — taught by bo on their"
        " own machine (manual): no second person has read it (scoring.autoMerge.pending: review)" in out
    )
    assert "declined   23  @dee          misc notes" in out
    assert "--- review PR for bo, changing:\n  knowledge/billing/api/errors.md" in out
    assert "--- review PR for cy" in out
    assert example_files() == before


@pytest.fixture
def bitbucket_world(
    bitbucket_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> DailyWorld:  # type: ignore[no-untyped-def]
    return DailyWorld(bitbucket_harness, anthropic_stub, tmp_path, monkeypatch)


def test_the_daily_run_on_bitbucket_merges_reviews_and_records(
    bitbucket_world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world = bitbucket_world
    one_confident_pr(world)
    pr(
        world,
        "billing",
        "bo",
        "Refund limits",
        thread(
            "dee", "Check refund limits with RefundPolicy.allows before posting.", "src/billing/api/limits.py"
        ),
    )
    code = world.daily()
    out = capsys.readouterr().out
    assert code == 0, out
    outcomes = sorted((r.outcome, r.member) for r in world.records().values())
    assert outcomes == [("merged", "bo"), ("review", "bo")]
    assert "RefundDeclined" in world.main_files()["knowledge/billing/api/errors.md"]
    review = next(r for r in world.records().values() if r.outcome == "review")
    assert review.pr is not None
    state = world.harness.open_pull_state(world.kb_repo, review.pr.number)
    assert state["state"] == "open" and state["reviewers"]
    world.harness.merge_as(world.kb_repo, review.pr.number, "ana")
    assert world.daily() == 0
    assert sorted(r.outcome for r in world.records().values()) == ["merged", "merged"]


def test_the_review_queue_is_posted_to_slack(
    world: DailyWorld, slack_sink, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    pr(
        world,
        "billing",
        "bo",
        "Refund limits",
        thread(
            "dee", "Check refund limits with RefundPolicy.allows before posting.", "src/billing/api/limits.py"
        ),
    )
    monkeypatch.setenv("HOMEOSTAT_SLACK_WEBHOOK", slack_sink.url)
    assert world.daily() == 0
    [post] = slack_sink.posts
    text = str(post["text"])
    assert "Check refund limits" in text and "ana" in text
    assert slack_sink.url not in capsys.readouterr().out
    [report] = world.state().runs.values()
    assert not [n for n in report.notices if n.kind == "slack-unset"]


def test_a_closed_dispute_retires_the_rule_and_retracts_the_sections_citing_it(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    world.pending(
        "cy",
        kind="flag",
        target="billing-api-error-status-table",
        reason="the status table moved to the gateway",
    )
    assert world.daily() == 0
    dispute = next(r for r in world.records().values() if r.kind == "dispute")
    assert dispute.pr is not None
    world.harness.close_as(world.kb_repo, dispute.pr.number, "ana")
    world.script.retraction = {"change": True, "body": "Handlers raise domain errors."}
    assert world.daily() == 0, capsys.readouterr().out
    main = world.main_files()
    assert "status: retired" in main["knowledge/billing/api/errors.md"]
    review = next(p for p in world.pulls().values() if p.head_ref.startswith("homeostat/review-cy-"))
    assert "Retract billing-api-error-status-table from billing/api/overview#errors" in review.body
    patched = world.bare().read_file(
        f"refs/heads/{review.head_ref}", "knowledge/billing/api/docs/overview.md"
    )
    assert patched is not None
    text = patched.decode()
    assert 'note="retracted billing-api-error-status-table"' in text
    assert "Handlers raise domain errors.\n" in text and "(billing-api-error-status-table)" not in text
    assert "knowledge/billing/api/docs/overview.md" not in [p for p in main if "retracted" in main[p]]


def test_a_run_with_nothing_to_decide_opens_no_pr_and_leaves_the_kb_untouched(world: DailyWorld) -> None:
    before = world.main_files()
    assert world.daily() == 0
    assert world.pulls() == {}
    assert world.main_files() == before
    [report] = world.state().runs.values()
    assert report.decided == {}


def test_dry_run_and_show_prompts_write_nothing(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    one_confident_pr(world)
    world.pending(
        "cy",
        title="Name custom hooks with a use prefix",
        rule="Name custom hooks in `web/components/` `useThing`.",
        why="Lint finds them.",
        area="storefront/ui",
    )
    before = world.main_files()
    assert world.daily("--dry-run") == 0
    out = capsys.readouterr().out
    assert "Decisions (dry run: nothing is written):" in out and "--- daily PR for bo" in out
    sent = len(world.stub.requests)
    assert world.daily("--show-prompts") == 0
    out = capsys.readouterr().out
    assert "into at most one short rule" in out  # the drafter's prompt, printed
    assert len(world.stub.requests) == sent  # and not sent
    assert world.pulls() == {} and world.main_files() == before
    assert world.bare().rev_parse("refs/heads/homeostat/state") is None


def test_a_missing_host_token_is_named(
    world: DailyWorld, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from homeostat.cli import main

    world.env()
    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(["daily", "--kb", str(world.checkout())]) == 2
    err = capsys.readouterr().err
    assert "GITHUB_TOKEN" in err and err.count("\n") == 1


def test_a_missing_model_key_is_named_before_anything_is_read(
    world: DailyWorld, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from homeostat.cli import main

    one_confident_pr(world)
    world.env()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    world.harness.requests.clear()
    assert main(["daily", "--kb", str(world.checkout())]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err
    assert world.harness.requests.entries == []


def test_a_run_that_crosses_midnight_is_dated_by_the_day_it_started() -> None:
    """The run asks the clock at every step; everything it stamps or prints is the start's UTC date."""
    import datetime as dt
    import io

    from kbfactory import EXAMPLE

    from homeostat.adapters.kb_files import load_kb_dir
    from homeostat.core.asker import Asker, RunStats
    from homeostat.runs.daily import DailyDeps, DailyOptions, run_daily

    readings = iter([dt.datetime(2026, 12, 1, 23, 59, 59, tzinfo=dt.UTC)])

    def clock() -> dt.datetime:  # one second before midnight, then the next day for good
        return next(readings, dt.datetime(2026, 12, 2, 0, 0, 1, tzinfo=dt.UTC))

    def no_asker(agent: str) -> Asker:
        raise AssertionError(f"an offline run asks no model ({agent})")

    out = io.StringIO()
    deps = DailyDeps(
        git=None,
        host=None,
        kb_repo=None,
        asker_for=no_asker,
        stats=RunStats(),
        out=out,
        now=clock,
        checkout=EXAMPLE,
        kb=load_kb_dir(EXAMPLE),
    )
    assert run_daily(deps, DailyOptions(dry_run=True, offline=True)).exit_code == 0
    text = out.getvalue()
    assert "Homeostat's daily run for @ana on 2026-12-01" in text
    assert "2026-12-02" not in text
