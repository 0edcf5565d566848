"""The deep dive's pure parts and the shared retraction code, without hosts: pairs from the overlap
index and its fact guards, stale rules, coverage notes, contradictions, and retractions."""

from __future__ import annotations

import datetime as dt

from fakes import FakeAsker
from kbfactory import example_files

from homeostat.core.asker import SpendingCapError
from homeostat.core.daily.apply import KbEdit
from homeostat.core.daily.consolidate import OverlapIndex, candidate_from_rule
from homeostat.core.daily.retract import RetractCalls, checked_rewrite, find_citations, retract
from homeostat.core.deep_dive.contradictions import (
    ContradictionAnswer,
    new_rules,
    overlapping,
    usable_contradictions,
)
from homeostat.core.deep_dive.duplicates import in_force, near_duplicate_pairs
from homeostat.core.deep_dive.upkeep import coverage_notes, stale_rules
from homeostat.core.kb import KB, load_kb
from homeostat.core.state.branch import DecisionRecord, LessonSource
from homeostat.core.validate import validate_files

TODAY = dt.date(2026, 11, 30)
STATUS_RULE = "billing-api-error-status-table"


def rule_file(
    rule_id: str, title: str, text: str, *, author: str = "cy", confirmed: str = "2026-11-20"
) -> str:
    return (
        f'---\nid: {rule_id}\ntitle: {title}\narea: storefront/ui\nscope: ["web/components/**/*.tsx"]\n'
        f"status: accepted\nsource:\n  type: manual\n  author: {author}\ncreated: 2025-06-01\n"
        f"lastConfirmed: {confirmed}\n---\n## Rule\n{text}\n\n## Why\nThe reviewers asked.\n"
    )


def kb_with(**rules: tuple[str, str]) -> KB:
    files = example_files()
    for rule_id, (title, text) in rules.items():
        files[f"knowledge/storefront/ui/{rule_id}.md"] = rule_file(rule_id, title, text)
    return load_kb(files)


def pairs_of(kb: KB) -> list[tuple[str, str]]:
    rules = in_force(kb.rules)
    index = OverlapIndex(candidate_from_rule(r) for r in rules)
    return [(p.keep.id, p.drop.id) for p in near_duplicate_pairs(rules, kb.config, index)]


def test_pairs_come_from_the_overlap_index_and_its_fact_guards() -> None:
    kb = kb_with(
        a=("Wrap data fetching in the useFoo hook", "Wrap data fetching in components with `useFoo()`."),
        b=(
            "Wrap data fetching in the useFooBar hook",
            "Wrap data fetching in components with `useFooBar()`.",
        ),
        c=("Call the search API v1 from forms", "Call the search API v1 from form components only."),
        d=("Call the search API v2 from forms", "Call the search API v2 from form components only."),
        e=("Cap the carousel at 101 slides", "Cap every carousel component at 101 slides."),
        f=("Cap the carousel at 102 slides", "Cap every carousel component at 102 slides."),
        g=(
            "Debounce search input by the debounce helper",
            "Debounce search input in components with `debounce()`.",
        ),
        h=(
            "Debounce the search input with the debounce helper",
            "Debounce the search input in components with `debounce()`.",
        ),
    )
    assert pairs_of(kb) == [("g", "h")]  # the only pair that is not a look-alike


def test_a_near_duplicate_pair_keeps_the_higher_scoring_rule() -> None:
    files = example_files()
    files["knowledge/storefront/ui/x.md"] = rule_file(
        "x",
        "Debounce search input with debounce",
        "Debounce search input in components with `debounce()`.",
        author="dee",
    )
    files["knowledge/storefront/ui/y.md"] = rule_file(
        "y",
        "Debounce the search input with debounce",
        "Debounce the search input in components with `debounce()`.",
        author="ana",
    )
    assert pairs_of(load_kb(files)) == [("y", "x")]  # ana is a lead: +1 senior author


def test_the_index_leaves_out_the_rule_itself_and_guards_only_when_asked() -> None:
    kb = kb_with(
        c=("Call the search API v1 from forms", "Call the search API v1 from form components only."),
        d=("Call the search API v2 from forms", "Call the search API v2 from form components only."),
    )
    index = OverlapIndex(candidate_from_rule(r) for r in in_force(kb.rules))
    probe = candidate_from_rule(kb.rule("c"))  # type: ignore[arg-type]
    assert [c.id for c in index.candidates(probe, exclude="c")] == []
    assert [c.id for c in index.candidates(probe, exclude="c", guard=False)] == ["d"]
    assert "c" in [c.id for c in index.candidates(probe, guard=False)]


def test_stale_rules_count_a_merged_duplicates_confirmation() -> None:
    files = example_files()
    files["knowledge/storefront/ui/old.md"] = rule_file(
        "old", "Old rule", "Do the old thing in components.", confirmed="2026-01-02"
    )
    rules = in_force(load_kb(files).rules)
    assert [r.id for r in stale_rules(rules, TODAY, 180)] == ["old"]
    assert stale_rules(rules, TODAY, 180, {"old": dt.date(2026, 11, 1)}) == []
    assert stale_rules(rules, TODAY, 400) == []


def test_coverage_notes_name_areas_without_a_document_and_old_sections() -> None:
    kb = load_kb(example_files())
    config = kb.require_config()
    notes = coverage_notes(kb, config, in_force(kb.rules), TODAY, 30)
    no_doc = {n.area for n in notes if n.kind == "no-document"}
    assert "billing/api" not in no_doc  # its overview document covers it
    assert {"billing/db", "core", "storefront/ui"} <= no_doc
    old = {(n.doc, n.section) for n in notes if n.kind == "stale-section"}
    assert ("billing/api/overview", "request-path") in old  # updated 2026-10-20
    assert ("billing/api/overview", "errors") not in old  # updated 2026-11-12


def record(rule_id: str, outcome: str, at: dt.datetime) -> DecisionRecord:
    return DecisionRecord(
        hash=f"h-{rule_id}",
        member="cy",
        kind="update",
        title="t",
        rule_id=rule_id,
        source=LessonSource(type="manual"),
        outcome=outcome,  # type: ignore[arg-type]
        state="settled",
        confidence=80,
        settled_at=at,
        at=at,
    )


def test_the_weeks_new_rules_are_created_or_merged_or_updated_since_the_last_deep_dive() -> None:
    kb = load_kb(example_files())
    since = dt.datetime(2026, 11, 15, tzinfo=dt.UTC)
    after, before = since + dt.timedelta(days=1), since - dt.timedelta(days=1)
    records = [
        record("log-with-fields", "updated", after),
        record("use-theme-spacing", "duplicate", after),  # a reconfirmation is not new
        record("migrations-expand-then-contract", "merged", before),
    ]
    assert [r.id for r in new_rules(kb.rules, since, records)] == ["log-with-fields"]
    recent = dt.datetime(2026, 9, 1, tzinfo=dt.UTC)
    assert {r.id for r in new_rules(kb.rules, recent, [])} >= {STATUS_RULE, "use-theme-spacing"}


def test_a_contradiction_answer_naming_a_rule_it_was_not_shown_is_unusable() -> None:
    kb = kb_with(
        p=(
            "Write spacing in pixels in checkout",
            "Write spacing as pixels in `web/components/checkout/`; skip `theme.space`.",
        )
    )
    rule = kb.rule("p")
    assert rule is not None
    index = OverlapIndex(candidate_from_rule(r) for r in in_force(kb.rules))
    others = overlapping(rule, index, set())
    assert [o.id for o in others] == ["use-theme-spacing"]
    good = ContradictionAnswer(reason="r", contradicts=["use-theme-spacing", "use-theme-spacing"])
    assert [c.other for c in usable_contradictions(good, rule, others) or []] == ["use-theme-spacing"]
    assert (
        usable_contradictions(ContradictionAnswer(reason="r", contradicts=["invented"]), rule, others) is None
    )
    assert usable_contradictions(None, rule, others) is None
    assert overlapping(rule, index, {"use-theme-spacing"}) == []


def test_declaring_a_contradiction_keeps_both_sides_cached_scores_true() -> None:
    kb = kb_with(
        p=("Write spacing in pixels in checkout", "Write spacing as pixels in `web/components/checkout/`.")
    )
    edit = KbEdit.of(kb, TODAY)
    edit.declare_contradiction("p", "use-theme-spacing")
    edit.recache(["use-theme-spacing"])
    result = validate_files(edit.files, TODAY)
    assert not [f for f in result.findings if f.check == "cache" and "use-theme-spacing" in f.message]
    assert result.kb.rule("p").meta.contradicts == ("use-theme-spacing",)  # type: ignore[union-attr]


def test_a_duplicate_absorbed_joins_also_from_without_repeating_a_thread() -> None:
    kb = load_kb(example_files())
    edit = KbEdit.of(kb, TODAY)
    money = kb.rule("billing-api-integer-minor-units")
    status = kb.rule(STATUS_RULE)
    assert money is not None and status is not None
    edit.absorb(money.id, status)
    edit.absorb(money.id, status)  # twice: nothing repeats
    merged = edit.rule(money.id)
    assert merged.meta.also_from == (*money.meta.also_from, status.meta.source.url)
    assert merged.meta.last_confirmed == max(money.meta.last_confirmed, status.meta.last_confirmed)


# --- retractions, shared with the daily run ----------------------------------------------------------


def test_retractions_without_a_model_or_past_the_cap_are_listed_for_a_person() -> None:
    kb = load_kb(example_files())
    rule = kb.rule(STATUS_RULE)
    assert rule is not None
    none = retract(
        None, kb, rule, RetractCalls(10, "agents.deepDive.retractCalls"), source="deep-dive", today=TODAY
    )
    assert [(r.section, r.note) for r in none.listed] == [("errors", "no model to ask")]
    spent = RetractCalls(0, "agents.deepDive.retractCalls")
    listed = retract(FakeAsker(), kb, rule, spent, source="deep-dive", today=TODAY).listed
    assert [r.note for r in listed] == ["no model call left this run (agents.deepDive.retractCalls)"]
    capped = RetractCalls(5, "agents.deepDive.retractCalls")
    asker = FakeAsker(SpendingCapError(2.0, 2.0, "agents.maxCostUsd"))
    assert [r.note for r in retract(asker, kb, rule, capped, source="deep-dive", today=TODAY).listed] == [
        "the spending cap was reached"
    ]
    assert capped.capped


def test_a_kept_rewrite_is_a_validated_patch_with_the_retraction_provenance() -> None:
    kb = load_kb(example_files())
    rule = kb.rule(STATUS_RULE)
    assert rule is not None
    asker = FakeAsker({"change": True, "body": "Handlers raise domain errors."})
    calls = RetractCalls(10, "agents.deepDive.retractCalls")
    found = retract(asker, kb, rule, calls, source="deep-dive", today=TODAY)
    [rewrite] = found.rewrites
    assert calls.asked == 1 and found.listed == []
    assert rewrite.patch.source == "deep-dive" and rewrite.patch.note == f"retracted {STATUS_RULE}"
    assert rewrite.patch.url == ""  # the url was the retired rule's own thread: dropped
    assert "(billing-api-error-status-table)" in asker.history[0].user


def test_a_rewrite_that_would_break_the_document_is_not_kept() -> None:
    kb = load_kb(example_files())
    rule = kb.rule(STATUS_RULE)
    assert rule is not None
    [citation] = find_citations(kb, rule)
    rewrite, note = checked_rewrite(
        kb, rule, citation, "Handlers raise.\n## Injected {#x}\n", source="deep-dive", today=TODAY
    )
    assert rewrite is None and note.startswith("the rewrite was refused: ")


def test_an_answer_paid_for_is_used_after_an_earlier_check_was_refused_by_the_cap() -> None:
    """The checks are asked at once: a later one can reserve its cost before an earlier one is
    refused. Its answer was paid for, so it is acted on; the refused one is named as skipped."""
    from homeostat.core.asker import Answered
    from homeostat.runs.deep_dive.find import _asked
    from homeostat.runs.deep_dive.run_state import Found

    found = Found()
    refused: Answered[str] = Answered(error=SpendingCapError(0.5, 0.5, "--max-cost"))
    assert _asked(found, "merge of a into b", refused) is None
    assert _asked(found, "merge of c into d", Answered(value="same")) == "same"
    assert found.capped and found.skipped == ["merge of a into b"]
