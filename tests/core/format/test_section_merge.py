"""The three-way section merge `review merge` rebuilds PRs with (homeostat.core.format.section_merge)."""

from __future__ import annotations

import pytest

from homeostat.core.format.section_merge import merge_file, rebuild
from homeostat.core.kb import load_kb

TOPIC = "knowledge/billing/api/errors.md"
DOC = "knowledge/billing/api/docs/overview.md"
HEAD = "---\narea: billing/api\ntopic: errors\n---\n"


def rule(rule_id: str, text: str = "Do the thing.", confirmed: str = "2026-11-12") -> str:
    return (
        f'## Rule {rule_id} {{#{rule_id}}}\n<!-- homeostat\nscope: ["src/billing/api/**"]\nstatus: accepted\n'
        f"source:\n  type: manual\n  author: ana\ncreated: 2026-11-01\nlastConfirmed: {confirmed}\n-->\n"
        f"### Rule\n{text}\n\n### Why\nBecause.\n"
    )


def topic(*sections: str) -> str:
    return HEAD + "\n".join(sections)


def doc(*sections: str, updated: str = "2026-11-12") -> str:
    return (
        f'---\ntitle: Billing API overview\narea: billing/api\nowner: payments\nscope: ["src/billing/api/**"]\n'
        f"updated: {updated}\n---\n" + "\n".join(sections)
    )


def section(sid: str, body: str, updated: str = "2026-10-20") -> str:
    return f"## {sid.title()} {{#{sid}}}\n<!-- homeostat: source=curator updated={updated} -->\n{body}\n"


def test_two_prs_adding_sections_to_one_topic_file_both_land_in_id_order() -> None:
    base = topic(rule("b-rule"))
    ours = topic(rule("a-rule"), rule("b-rule"))  # the first PR merged: a-rule
    theirs = topic(rule("b-rule"), rule("c-rule"))  # the second PR, still on the old base
    merged = merge_file(TOPIC, base, ours, theirs)
    assert merged.conflicts == ()
    assert merged.text == topic(rule("a-rule"), rule("b-rule"), rule("c-rule"))
    kb = load_kb({"homeostat.yaml": "version: 0.2.0\n", TOPIC: merged.text or ""})
    assert [r.id for r in kb.rules] == ["a-rule", "b-rule", "c-rule"]


def test_a_new_section_goes_between_existing_ones_by_id() -> None:
    base = topic(rule("a"), rule("m"))
    ours = topic(rule("a"), rule("m"), rule("z"))
    theirs = topic(rule("a"), rule("c"), rule("m"))
    assert merge_file(TOPIC, base, ours, theirs).text == topic(rule("a"), rule("c"), rule("m"), rule("z"))


def test_two_prs_creating_the_same_topic_file_are_combined() -> None:
    merged = merge_file(TOPIC, None, topic(rule("a")), topic(rule("b")))
    assert merged.conflicts == ()
    assert merged.text == topic(rule("a"), rule("b"))


def test_the_same_rule_changed_on_both_sides_is_a_conflict_naming_it() -> None:
    base = topic(rule("a"), rule("b"))
    ours = topic(rule("a", "Do it this way."), rule("b"))
    theirs = topic(rule("a", "Do it that way."), rule("b"), rule("c"))
    merged = merge_file(TOPIC, base, ours, theirs)
    [conflict] = merged.conflicts
    assert conflict.rule == "a"
    assert conflict.why == f"rule a in {TOPIC}: both sides changed it"
    assert merged.text == ours  # nothing half-merged


def test_a_rule_one_side_changed_takes_that_side() -> None:
    base = topic(rule("a"), rule("b"))
    ours = topic(rule("a", confirmed="2026-12-01"), rule("b"))  # reconfirmed on the base
    theirs = topic(rule("a"), rule("b", "Do it better."))  # the PR updates b
    assert merge_file(TOPIC, base, ours, theirs).text == topic(
        rule("a", confirmed="2026-12-01"), rule("b", "Do it better.")
    )


def test_a_rule_removed_on_one_side_and_changed_on_the_other_is_a_conflict() -> None:
    base = topic(rule("a"), rule("b"))
    merged = merge_file(TOPIC, base, topic(rule("b")), topic(rule("a", "New text."), rule("b")))
    assert [c.rule for c in merged.conflicts] == ["a"]
    assert "one side removed it" in merged.conflicts[0].why


def test_the_same_new_rule_added_differently_on_both_sides_is_a_conflict() -> None:
    merged = merge_file(
        TOPIC, topic(rule("a")), topic(rule("a"), rule("n", "One.")), topic(rule("a"), rule("n", "Two."))
    )
    assert [c.rule for c in merged.conflicts] == ["n"]


def test_two_additions_to_one_document_section_are_combined() -> None:
    base = doc(section("errors", "Handlers raise domain errors."))
    ours = doc(
        section("errors", "Handlers raise domain errors.\n\nRetries use backoff.", "2026-12-01"),
        updated="2026-12-01",
    )
    theirs = doc(
        section("errors", "Handlers raise domain errors.\n\nLog the error code.", "2026-12-02"),
        updated="2026-12-02",
    )
    merged = merge_file(DOC, base, ours, theirs)
    assert merged.conflicts == ()
    expected = doc(
        section(
            "errors",
            "Handlers raise domain errors.\n\nRetries use backoff.\n\nLog the error code.",
            "2026-12-02",
        ),
        updated="2026-12-02",
    )
    assert merged.text == expected


def test_two_rewrites_of_one_document_section_are_not_combined() -> None:
    base = doc(section("errors", "Handlers raise domain errors."))
    ours = doc(section("errors", "Handlers return error values."), updated="2026-12-01")
    theirs = doc(
        section("errors", "Handlers raise domain errors.\n\nLog the error code."), updated="2026-12-02"
    )
    merged = merge_file(DOC, base, ours, theirs)
    [conflict] = merged.conflicts
    assert conflict.section == "errors" and "both sides rewrote it" in conflict.why


def test_new_document_sections_from_both_sides_keep_the_prs_placement() -> None:
    base = doc(section("intro", "Intro."), section("errors", "Errors."))
    ours = doc(
        section("intro", "Intro."),
        section("errors", "Errors."),
        section("zeta", "Last."),
        updated="2026-12-01",
    )
    theirs = doc(
        section("intro", "Intro."),
        section("auth", "Auth."),
        section("errors", "Errors."),
        updated="2026-11-30",
    )
    merged = merge_file(DOC, base, ours, theirs)
    assert merged.conflicts == ()
    assert merged.text == doc(
        section("intro", "Intro."),
        section("auth", "Auth."),
        section("errors", "Errors."),
        section("zeta", "Last."),
        updated="2026-12-01",
    )


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("knowledge/core/log-with-fields.md", "rule log-with-fields was changed on both sides"),
        ("homeostat.yaml", "homeostat.yaml: both sides changed it"),
    ],
)
def test_a_whole_file_both_sides_changed_is_a_conflict(path: str, why: str) -> None:
    merged = merge_file(path, "one\n", "two\n", "three\n")
    assert merged.conflicts and merged.conflicts[0].why.startswith(why)


def test_rebuild_keeps_only_what_changes_the_base_and_deletes_what_the_pr_deleted() -> None:
    fork = {TOPIC: topic(rule("a")), "knowledge/x/old.md": "old\n", "knowledge/x/same.md": "same\n"}
    ours = {
        TOPIC: topic(rule("a"), rule("b")),
        "knowledge/x/old.md": "old\n",
        "knowledge/x/same.md": "same\n",
    }
    theirs = {TOPIC: topic(rule("a"), rule("c")), "knowledge/x/old.md": None, "knowledge/x/same.md": "same\n"}
    built = rebuild({TOPIC, "knowledge/x/old.md"}, fork, ours, theirs)
    assert built.conflicts == ()
    assert built.files == {TOPIC: topic(rule("a"), rule("b"), rule("c")), "knowledge/x/old.md": None}


def test_untouched_bytes_of_the_base_side_stay_as_they_were() -> None:
    """Odd spacing in the base's file survives a rebuild that only adds a section."""
    base = HEAD + rule("b") + "\n\n\n" + rule("d")
    ours = HEAD + rule("a") + "\n" + rule("b") + "\n\n\n" + rule("d")
    theirs = HEAD + rule("b") + "\n\n\n" + rule("d") + "\n" + rule("e")
    merged = merge_file(TOPIC, base, ours, theirs)
    assert merged.text == HEAD + rule("a") + "\n" + rule("b") + "\n\n\n" + rule("d") + "\n" + rule("e")
