"""The rendered view: header, kind groups, documents, the lookup guide, budgets and honest token counts."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from kit import FIXTURES, REPO

from homeostat.adapters.cache.corpus_cache import build
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.core.render.view import (
    GUIDE_TITLE,
    LineCounter,
    View,
    build_view,
    explain_view,
    normalise,
)
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import Budget

EXAMPLE = REPO / "examples" / "kb"
EVAL150 = FIXTURES / "eval150"
CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("example") / "kb"
    shutil.copytree(EXAMPLE, root, ignore=CLONE_STATE)
    return build(root)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("eval150") / "kb"
    shutil.copytree(EVAL150, root, ignore=CLONE_STATE)
    return build(root)


def view(
    corpus: Corpus, touched: list[str], repo: str | None, budget: Budget | None = None
) -> tuple[View, LineCounter]:
    counter = LineCounter(corpus.line_tokens)
    teams = frozenset(a.owner for a in corpus.areas.values())
    return build_view(corpus, touched, Audience(repo, "t", teams), counter, budget=budget), counter


def test_the_view_is_lean_markdown_with_the_safety_header(example: Corpus) -> None:
    v, _ = view(example, ["src/billing/api/errors.py"], "billing")
    assert v.text.startswith("# Team rules for these files (Homeostat)\n")
    assert "never overrides the user's instructions or safety" in v.text
    assert "status:" not in v.text and "approvedBy" not in v.text and "\n---\n" not in v.text
    assert "## Conventions: follow these" in v.text
    assert "> From Homeostat (<id>)" in v.text


def test_token_counts_are_an_upper_bound_within_a_few_percent(big: Corpus) -> None:
    for touched, repo in (
        [["src/payments/api/refunds.py"], "payments"],
        [["web/checkout/PromoCode.tsx"], "storefront"],
        [[], "payments"],
    ):
        v, counter = view(big, touched, repo)
        actual = count_tokens(v.text)
        assert actual <= v.tokens <= actual * 1.05 + 5, (touched, actual, v.tokens)
        assert counter.misses == []  # every line came from the corpus's memo, no tokenizer at run time


@pytest.mark.parametrize("budget", [150, 300, 600, 1000, 2000, 4000])
def test_the_view_stays_within_the_token_budget_and_character_cap(big: Corpus, budget: int) -> None:
    limits = Budget(token_budget=budget, doc_token_budget=400, max_chars=6000, rule_share=0.8)
    v, _ = view(big, ["src/payments/api/refunds.py", "src/payments/api/webhooks.py"], "payments", limits)
    assert count_tokens(v.text) <= budget
    assert len(v.text) <= 6000
    served = set(v.served_ids)
    assert served.isdisjoint(c.id for c in v.cut)


def test_a_small_budget_gets_the_compact_guide(big: Corpus) -> None:
    small, _ = view(big, ["src/payments/api/refunds.py"], "payments", Budget(token_budget=300))
    assert small.compact and GUIDE_TITLE not in small.text
    assert "more rules" in small.text and "`search`, then `read`" in small.text
    roomy, _ = view(big, ["src/payments/api/refunds.py"], "payments")
    assert not roomy.compact and GUIDE_TITLE in roomy.text


def test_the_rest_is_counted_by_topic_never_listed_by_title(big: Corpus) -> None:
    v, _ = view(big, ["src/payments/api/refunds.py"], "payments")
    assert "- payments/api › reliability:" in v.text
    left_out = [e for e in big.entries if e.area.startswith("payments/") and e.id not in v.served_ids]
    assert left_out
    assert not any(e.title in v.text for e in left_out)
    assert sum(v.rest_by_topic.values()) == len([e for e in v.selection.rest]) + len(v.cut) + sum(
        1
        for r in v.selection.ranked
        if r.entry.id not in v.served_ids and not any(c.id == r.entry.id for c in v.cut)
    )


def test_rules_are_grouped_by_kind_under_one_guidance_line(big: Corpus) -> None:
    v, _ = view(big, ["src/payments/workers/payout_scheduler.py"], "payments")
    assert v.text.count("## Migrations in progress: write new code the new way") == 1
    assert v.text.count("## Legacy code: keep it working, do not extend it") == 1
    assert v.text.count("## Conventions: follow these") == 1


def test_document_sections_naming_a_touched_path_are_added(big: Corpus) -> None:
    v, _ = view(big, ["src/payments/api/refunds.py"], "payments")
    keys = [s.key for s in v.sections]
    assert "payments/api/architecture#refund-states" in keys
    assert "payments/workers/jobs#payout-windows" not in keys
    assert "## Documents that name these files" in v.text
    assert "- payments/api: 1 document" in v.text


def test_document_sections_respect_the_document_budget(big: Corpus) -> None:
    v, _ = view(
        big,
        ["src/payments/api/refunds.py", "src/payments/api/webhooks.py"],
        "payments",
        Budget(doc_token_budget=60),
    )
    assert sum(s.tokens for s in v.sections) <= 60
    assert any(c.what == "section" and c.reason == "over the document budget" for c in v.cut)


def test_explain_reports_what_was_cut_and_why(big: Corpus) -> None:
    v, _ = view(
        big,
        ["src/payments/api/refunds.py", "src/payments/api/charges.py", "src/payments/api/invoices.py"],
        "payments",
        Budget(token_budget=500),
    )
    assert v.cut
    report = explain_view(v)
    for cut in v.cut:
        assert f"cut     {cut.id}  {cut.what}: {cut.reason}" in report
    assert f"Served {len(v.placed)} rules" in report


def test_other_repos_rules_never_reach_the_view(example: Corpus) -> None:
    v, _ = view(example, ["web/components/Button.tsx"], "storefront")
    assert "use-theme-spacing" in v.text
    assert "billing-api" not in v.text and "billing/api" not in v.text


def test_every_number_up_to_three_digits_is_one_token() -> None:
    """The line memo normalises digits on this property of cl100k."""
    assert all(count_tokens(str(n)) == 1 for n in range(1000))
    assert normalise("- a › b: 1234 rules") == ("- a › b: 0 rules", 1)


def test_hidden_unicode_never_reaches_the_view(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=CLONE_STATE)
    rule = root / "knowledge/core/log-with-fields.md"
    text = rule.read_text(encoding="utf-8").replace("Pass values", "Pass\u200b values\u202e")
    rule.write_text(text, encoding="utf-8")
    v, _ = view(build(root), ["src/billing/api/app.py"], "billing")
    assert "Pass values" in v.text and "\u200b" not in v.text and "\u202e" not in v.text
