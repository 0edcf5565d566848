"""Keyword search, topic listings, reading by name, and matching a chat message."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kit import FIXTURES, REPO

from homeostat.adapters.cache.corpus_cache import build
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.search import lookup, match_prompt, message_terms, search_entries, topic_listing
from homeostat.core.selection.terms import STEMMER_ID, terms

EXAMPLE = REPO / "examples" / "kb"
EVAL150 = FIXTURES / "eval150"
ALL_TEAMS = frozenset({"payments", "web"})
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


def test_search_finds_rules_and_sections_with_snippets(big: Corpus) -> None:
    hits = search_entries(big, "jittered backoff payout scheduler", Audience("payments"))
    assert hits[0].id == "payout-scheduler-retries"
    assert "with_backoff" in hits[0].snippet
    assert len(hits) == 10  # ten by default
    sections = search_entries(big, "refund states pending settled", Audience("payments"))
    assert sections[0].kind == "section" and sections[0].id == "payments/api/architecture#refund-states"


def test_every_hit_kept_has_its_snippet_and_the_limit_keeps_the_best(big: Corpus) -> None:
    """Snippets are cut only for the hits kept: the first ten are the first ten of the whole ranking,
    each with a one-line window of its own text, exact-id and topic hits included."""
    payments = Audience("payments")
    every = search_entries(big, "retry payout ledger", payments, limit=None)
    ten = search_entries(big, "retry payout ledger", payments)
    assert len(every) > 10 and ten == every[:10]
    exact = search_entries(big, "payout-scheduler-retries", payments, limit=3)
    listed = topic_listing(big, "reliability", payments)
    views = {e.id: e.view for e in big.entries} | {s.key: s.view for s in big.sections}
    for hit in [*every, *exact, *listed]:
        assert hit.snippet and "\n" not in hit.snippet and len(hit.snippet) <= 182  # 180 and two "…"
        assert hit.snippet.strip("…")[:40] in " ".join(views[hit.id].split())
    assert exact[0].id == "payout-scheduler-retries"


def test_rejected_decisions_are_shown_as_context(example: Corpus) -> None:
    hits = search_entries(example, "legacy routes router", Audience("storefront"))
    assert hits[0].id == "no-router-rewrite" and hits[0].rejected


def test_group_gives_one_hit_per_document(big: Corpus) -> None:
    grouped = search_entries(big, "payout scheduler reconciliation ledger", Audience("payments"), group=True)
    docs = [h.doc_id for h in grouped if h.kind == "section"]
    assert len(docs) == len(set(docs))
    topics = [f"{h.area}/{h.topic}" for h in grouped if h.kind == "rule" and h.topic]
    assert len(topics) == len(set(topics))


def test_topic_listing_has_no_cutoff(big: Corpus) -> None:
    listed = topic_listing(big, "reliability", Audience("payments"))
    expected = [e for e in big.entries if e.topic == "reliability" and e.area != "payments/db"]
    assert len(listed) == len(expected) > 10
    one_area = topic_listing(big, "payments/api/reliability", Audience("payments"))
    assert {h.area for h in one_area} == {"payments/api"}


def test_an_exact_id_comes_first(big: Corpus) -> None:
    assert search_entries(big, "refunds-errors", Audience("payments"))[0].id == "refunds-errors"


def test_search_respects_repo_and_team_only(big: Corpus) -> None:
    words = "ledger entries pagination cursors"
    assert not any(h.area == "payments/db" for h in search_entries(big, words, Audience("payments")))
    team = Audience("payments", "ana", frozenset({"payments"}))
    assert search_entries(big, words, team)[0].id == "ledger-entries-pagination"
    assert not any(h.area.startswith("payments/") for h in search_entries(big, words, Audience("storefront")))


def test_search_reads_non_english_text(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=CLONE_STATE)
    (root / "knowledge/core/cjk.md").write_text(
        '---\nid: cjk-logging\ntitle: 日志使用结构化字段\narea: core\nscope: ["**"]\nstatus: accepted\n'
        "source:\n  type: manual\n  author: ana\ncreated: 2026-01-01\nlastConfirmed: 2026-01-01\n---\n"
        "## Rule\n日志必须使用结构化字段，不要拼接字符串。\n\n## Why\n拼接的日志无法检索。\n",
        encoding="utf-8",
    )
    hits = search_entries(build(root), "结构化日志", Audience("billing"))
    assert hits and hits[0].id == "cjk-logging"


def test_lookup_by_every_kind_of_name(example: Corpus, big: Corpus) -> None:
    audience = Audience("billing")
    assert [s.key for s in lookup(example, "billing/api/overview#errors", audience).sections] == [
        "billing/api/overview#errors"
    ]
    assert len(lookup(example, "billing/api/overview", audience).sections) == 2
    assert [
        e.id for e in lookup(example, "billing/api/errors#billing-api-error-status-table", audience).rules
    ] == ["billing-api-error-status-table"]
    assert [e.id for e in lookup(example, "log-with-fields", audience).rules] == ["log-with-fields"]
    assert len(lookup(big, "payments/api/errors", Audience("payments")).rules) >= 3
    miss = lookup(example, "billing/api/nowhere", audience)
    assert miss.empty and "`search` for it" in miss.hint
    assert lookup(example, "migrations-expand-then-contract", audience).empty  # team-only, unknown member


def test_conversation_is_never_searched(big: Corpus) -> None:
    for message in ("yes, go ahead", "run the tests again", "commit it", "looks good, push it please"):
        match = match_prompt(big, message, Audience("payments"))
        assert not match.searched and not match.rules and not match.sections
    assert message_terms("yes go ahead and run the tests again") == []


def test_a_message_gets_matching_rules_once_per_session(big: Corpus) -> None:
    message = "the payout scheduler keeps retrying in a tight loop when the bank API is down"
    first = match_prompt(big, message, Audience("payments"))
    ids = [e.id for e in first.rules]
    assert "payout-scheduler-retries" in ids and len(ids) <= 3 and len(first.sections) <= 2
    again = match_prompt(big, message, Audience("payments"), given=ids + [s.key for s in first.sections])
    assert not set(ids) & {e.id for e in again.rules}


def test_a_match_needs_two_words_rare_in_the_kb(big: Corpus) -> None:
    # every word here is in many rules: payment, client, provider, result, call, return
    common = match_prompt(
        big, "the payment client provider returns a result from the call", Audience("payments")
    )
    assert common.searched and not common.rules
    assert "rare" in common.reason


def test_a_match_scores_at_least_six_tenths_of_the_best(big: Corpus) -> None:
    from homeostat.core.selection.rank import bm25
    from homeostat.core.selection.search import PROMPT_RELATIVE

    message = "how should the receipt mailer make writes idempotent after a replay"
    match = match_prompt(big, message, Audience("payments"))
    scores = bm25(big, message_terms(message))
    n = len(big.entries)
    rule_scores = {
        big.entries[d].id: s
        for d, s in scores.items()
        if d < n
        and not big.entries[d].area.endswith("/db")
        and big.entries[d].area.split("/")[0] in ("payments", "core")
    }
    best = max(rule_scores.values())
    assert match.rules
    assert all(rule_scores[e.id] >= PROMPT_RELATIVE * best for e in match.rules)


def test_word_forms_meet_through_the_stemmer(tmp_path: Path) -> None:
    """`statuses` finds a rule that says `status` (the old suffix stripping did not), and back."""
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=CLONE_STATE)
    corpus = build(root)
    status = [h.id for h in search_entries(corpus, "status", Audience("billing"), kinds=("rule",))]
    assert (
        status
        and [h.id for h in search_entries(corpus, "statuses", Audience("billing"), kinds=("rule",))] == status
    )
    assert terms("retry retries retried") == ["retri"] * 3 and terms("caching cached cache") == ["cach"] * 3


def test_the_stemmer_named_in_the_index_identity_is_the_installed_one() -> None:
    from importlib.metadata import version

    assert STEMMER_ID == f"snowball-english-{version('snowballstemmer')}"


def test_stemming_loads_only_the_english_stemmer_and_leaves_the_package_importable() -> None:
    code = (
        "import sys; from homeostat.core.selection.terms import term; assert term('statuses') == 'status';"
        "assert 'snowballstemmer.turkish_stemmer' not in sys.modules and 'snowballstemmer' not in sys.modules;"
        "import snowballstemmer; assert snowballstemmer.stemmer('english').stemWord('running') == 'run'"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
