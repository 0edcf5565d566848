"""`homeostat deep-dive` end to end: the host emulators, real git, the model stub.

The world is the daily run's (tests/dailyworld.py): the example KB on the emulated host, with every
date moved to this week so only what a test plants is stale or new.
"""

from __future__ import annotations

import re

import pytest
from deepdiveworld import (
    LAYOUT_DOC,
    LONG_AGO,
    LOOK_ALIKES,
    RECENT,
    STALE,
    STALE_ID,
    TODAY,
    DeepDiveWorld,
    duplicate_files,
    look_alike_files,
    rule_file,
)
from emulators.anthropic_stub import planted_secret_values

from homeostat.core.cost.pricing import call_cost
from homeostat.core.kb import load_kb
from homeostat.core.state.checkpoints import read_checkpoints
from homeostat.core.validate import validate_files

# --- merging near-duplicates -------------------------------------------------------------------------


def test_near_duplicates_merge_into_the_higher_scoring_rule_while_look_alikes_stay_apart(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add({**look_alike_files(), **duplicate_files()})
    before = dd.world.main_files()
    assert dd.run() == 0, capsys.readouterr().out
    # Only the real pair reached the model: the fact guards kept every look-alike pair from it.
    [asked] = dd.script.asked("same")
    assert "cart-totals-hook" in asked and "useFoo" not in asked and "v1" not in asked
    [pull] = dd.deep_dive_pulls()
    assert pull.merged_at is None and pull.state == "open"  # a person merges it, never the run
    assert dd.world.main_files() == before
    kb = load_kb(dd.branch_files(pull))
    keep, drop = kb.rule("cart-totals-hook"), kb.rule("cart-totals-hook-again")
    assert keep is not None and drop is not None
    assert keep.meta.status == "accepted" and drop.meta.status == "retired"
    assert keep.meta.also_from == ("https://github.com/example/storefront/pull/31#discussion_r2000000002",)
    for rule_id in LOOK_ALIKES:
        assert kb.rule(rule_id).meta.status == "accepted"  # type: ignore[union-attr]
    assert "`cart-totals-hook-again` merged into `cart-totals-hook`" in pull.body
    [report] = dd.deep_dive_runs()
    assert report.decided == {"duplicate": 1}
    assert [p.number for p in report.pulls] == [pull.number]
    assert f"/pull/{pull.number} (a person merges it)" in capsys.readouterr().out


def test_a_rerun_in_the_same_week_updates_its_pr_and_once_merged_opens_nothing(
    any_host_dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd = any_host_dd
    dd.add(duplicate_files())
    assert dd.run() == 0, capsys.readouterr().out
    [first] = dd.open_deep_dive_pulls()
    dd.add({"README.md": "The team's KB.\n"}, "someone else's change on main")  # the base moves
    assert dd.run() == 0, capsys.readouterr().out
    [again] = dd.open_deep_dive_pulls()
    assert again.number == first.number
    bare = dd.world.bare()
    base, head = bare.rev_parse("refs/heads/main"), bare.rev_parse(f"refs/heads/{again.head_branch}")
    assert bare.run("merge-base", "--is-ancestor", base, head, check=False).returncode == 0  # rebuilt on it
    dd.world.harness.merge_as(dd.world.kb_repo, first.number, "ana")
    capsys.readouterr()
    assert dd.run() == 0
    assert f"this week's PR #{first.number} is merged" in capsys.readouterr().out
    assert dd.open_deep_dive_pulls() == []
    runs = dd.deep_dive_runs()
    assert len(runs) == 2  # the settled week's rerun records nothing
    assert dd.world.state().claims["deep-dive"].released_at is not None  # but releases its claim
    assert {p.number for r in runs for p in r.pulls} == {first.number}


# --- contradictions ---------------------------------------------------------------------------------


def test_the_weeks_new_rule_contradicting_one_it_overlaps_is_declared_for_a_reviewer(
    dd: DeepDiveWorld,
) -> None:
    new = rule_file(
        "checkout-pixel-spacing",
        "Write checkout spacing in pixels",
        "Write spacing as pixel values in `web/components/checkout/`; skip `theme.space` there.",
        created=RECENT,
    )
    dd.add({"knowledge/storefront/ui/checkout-pixel-spacing.md": new})
    dd.script.contradicts = {"checkout-pixel-spacing": ["use-theme-spacing"]}
    assert dd.run() == 0
    [asked] = dd.script.asked("contradiction")  # only the week's new rule is asked about
    assert asked.startswith("New rule checkout-pixel-spacing") and "- id: use-theme-spacing" in asked
    [pull] = dd.deep_dive_pulls()
    files = dd.branch_files(pull)
    result = validate_files(files, TODAY)
    assert result.errors == ()
    assert not [f for f in result.warnings if f.check == "cache"]  # both sides' scores follow
    assert result.kb.rule("checkout-pixel-spacing").meta.contradicts == ("use-theme-spacing",)  # type: ignore[union-attr]
    assert "`checkout-pixel-spacing` (new this week) contradicts `use-theme-spacing`" in pull.body


# --- stale rules and retractions -------------------------------------------------------------------


def stale_world(dd: DeepDiveWorld) -> None:
    dd.add(
        {
            f"knowledge/storefront/ui/{STALE_ID}.md": STALE,
            "knowledge/storefront/ui/docs/layout.md": LAYOUT_DOC,
        }
    )


def section(text: str, section_id: str) -> str:
    found = re.search(rf"^## [^\n]*\{{#{section_id}\}}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, section_id
    return found.group(1)


def test_a_stale_rule_is_retired_and_only_the_section_citing_it_is_rewritten(dd: DeepDiveWorld) -> None:
    stale_world(dd)
    dd.script.retraction = {
        "change": True,
        "body": "Product pages use twelve columns. Gutters come from the theme.",
    }
    assert dd.run() == 0
    [pull] = dd.deep_dive_pulls()
    files = dd.branch_files(pull)
    assert load_kb(files).rule(STALE_ID).meta.status == "retired"  # type: ignore[union-attr]
    layout = files["knowledge/storefront/ui/docs/layout.md"]
    columns = section(layout, "columns")
    # Stamped with the run's own date (a run that crosses midnight UTC is dated by its start).
    [run] = dd.deep_dive_runs()
    ran_on = run.started_at.date().isoformat()
    assert columns.startswith(
        f'<!-- homeostat: source=deep-dive updated={ran_on} note="retracted {STALE_ID}" -->'
    )
    assert columns.split("\n", 1)[1] == "Product pages use twelve columns. Gutters come from the theme.\n\n"
    # The section on the same subject that does not cite the rule is byte for byte as it was.
    assert section(layout, "grid") == section(LAYOUT_DOC, "grid")
    [asked] = dd.script.asked("retract")
    assert "#columns" in asked and "twelve column grid" not in asked
    assert (
        f"`{STALE_ID}` (**Lay out product pages on the legacy grid**), last confirmed {LONG_AGO}" in pull.body
    )
    assert "`storefront/ui/layout#columns`: the claims resting on" in pull.body


def test_a_retraction_that_adds_words_is_refused_and_listed_for_a_person(dd: DeepDiveWorld) -> None:
    stale_world(dd)
    dd.script.retraction = {
        "change": True,
        "body": "Product pages use twelve columns from the new responsive layout primitives. Gutters come from the theme.",
    }
    assert dd.run() == 0
    [pull] = dd.deep_dive_pulls()
    files = dd.branch_files(pull)
    assert load_kb(files).rule(STALE_ID).meta.status == "retired"  # type: ignore[union-attr]
    assert files["knowledge/storefront/ui/docs/layout.md"] == LAYOUT_DOC
    assert (
        f"`storefront/ui/layout#columns` cites `{STALE_ID}` — the model's rewrite was not safe to keep"
        in pull.body
    )
    [report] = dd.deep_dive_runs()
    assert any(n.kind == "retract-cap" for n in report.notices)


# --- the spending cap, a model answering garbage, a host that refuses --------------------------------


def test_the_spending_cap_stops_new_calls_mid_run_and_names_what_it_skipped(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    more = {
        f"knowledge/storefront/ui/{name}.md": rule_file(
            name,
            f"Format {thing} prices with the formatPrice helper",
            f"Format {thing} prices in components with `formatPrice()`; never build price strings by hand.",
            author=author,
        )
        for name, thing, author in (
            ("price-format-cart", "cart", "ana"),
            ("price-format-cart-copy", "cart", "dee"),
        )
    }
    dd.add({**duplicate_files(), **more})
    usage = (200_000, 1_000, 0, 0)
    per_call = call_cost("claude-opus-5-5", input_tokens=usage[0], output_tokens=usage[1])
    dd.world.stub.responder = None  # answers from the queue now: one call is affordable
    dd.world.stub.answer({"reason": "same instruction", "same": True}, usage=usage)
    assert dd.run("--max-cost", f"{per_call / 2:.6f}") == 0, capsys.readouterr().out
    assert len(dd.world.stub.requests) == 1
    [pull] = dd.deep_dive_pulls()
    assert "## Not done this run" in pull.body and "The spending cap stopped new model calls" in pull.body
    [report] = dd.deep_dive_runs()
    assert report.capped is not None
    [cap] = [n for n in report.notices if n.kind == "spending-cap"]
    assert "skipped 1 check(s): merge of" in cap.message
    assert report.decided == {"duplicate": 1}


def test_a_model_answering_garbage_merges_nothing_and_still_retires_stale_rules(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add(duplicate_files())
    stale_world(dd)
    dd.script.garbage = True
    assert dd.run() == 0, capsys.readouterr().out
    [pull] = dd.deep_dive_pulls()
    kb = load_kb(dd.branch_files(pull))
    assert kb.rule("cart-totals-hook-again").meta.status == "accepted"  # type: ignore[union-attr]
    assert kb.rule(STALE_ID).meta.status == "retired"  # type: ignore[union-attr]
    assert "The model gave no usable answer" in pull.body
    assert "merge of cart-totals-hook-again into cart-totals-hook: no usable answer" in pull.body
    assert f"cites `{STALE_ID}` — the model's rewrite was not safe to keep" in pull.body


def test_a_host_that_refuses_to_open_the_pr_is_one_line_and_a_rerun_opens_the_one_pr(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add(duplicate_files())
    read_only = dd.world.harness.add_token("ci-reader", "read")
    capsys.readouterr()
    code = dd.run(token=read_only)
    err = capsys.readouterr().err
    assert code != 0
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("homeostat: could not open the deep-dive PR from homeostat/deep-dive-")
    assert "rerunning the deep dive opens it" in err
    assert dd.deep_dive_pulls() == [] and dd.deep_dive_runs() == []
    assert dd.run() == 0  # the pushed branch is taken over, not refused
    [pull] = dd.deep_dive_pulls()
    assert "`cart-totals-hook-again` merged into `cart-totals-hook`" in pull.body


# --- nothing to do, dry runs ----------------------------------------------------------------------


def test_a_kb_with_nothing_to_do_opens_no_pr_and_says_so(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    before = dd.world.main_files()
    assert dd.run() == 0
    out = capsys.readouterr().out
    assert "deep dive: nothing to change in the KB" in out and "no PR opened" in out
    assert dd.deep_dive_pulls() == [] and dd.world.main_files() == before
    [report] = dd.deep_dive_runs()
    assert report.decided == {} and report.pulls == ()


def test_a_dry_run_prints_the_pr_and_writes_nothing(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add(duplicate_files())
    state_before = dd.world.bare().rev_parse("refs/heads/homeostat/state")
    assert dd.run("--dry-run") == 0
    out = capsys.readouterr().out
    assert "`cart-totals-hook-again` merged into `cart-totals-hook`" in out
    assert "dry run: nothing was written" in out
    assert dd.deep_dive_pulls() == []
    assert dd.world.bare().rev_parse("refs/heads/homeostat/state") == state_before
    assert dd.world.bare().run("for-each-ref", "refs/heads/homeostat/deep-dive-").stdout == b""


def test_format_json_is_one_object_with_the_documented_keys(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    dd.add(duplicate_files())
    capsys.readouterr()
    assert dd.run("--dry-run", "--format", "json") == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == [
        "dryRun", "exitCode", "failed", "weekDone", "pr", "counts", "capped", "merges", "contradictions",
        "stale", "retracted", "listed", "notes", "skipped", "unanswered", "notices", "codeCheck", "text",
    ]  # fmt: skip
    assert data["dryRun"] is True and data["pr"] is None and data["counts"]["merged"] == 1
    [merge] = data["merges"]
    assert set(merge) == {"keep", "drop", "reason"} and set(merge["keep"]) == {"id", "title", "area"}
    assert merge["keep"]["id"] == "cart-totals-hook" and merge["drop"]["id"] == "cart-totals-hook-again"
    assert "dry run: nothing was written" in data["text"]


# --- every call failing, prompts shown, an earlier week's PR ---------------------------------------


def test_a_deep_dive_whose_model_calls_all_fail_exits_non_zero_and_the_next_covers_its_window(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add(duplicate_files())
    for _ in range(12):
        dd.world.stub.error(401, message="invalid x-api-key")
    capsys.readouterr()
    assert dd.run() == 1
    out = capsys.readouterr().out
    assert "homeostat: deep dive failed: every model call failed" in out and "no PR was opened" in out
    assert dd.deep_dive_pulls() == []
    [failed] = dd.deep_dive_runs()
    assert failed.failed is not None and failed.decided == {}
    assert dd.world.state().claims["deep-dive"].released_at is not None
    dd.world.stub.queue.clear()
    assert dd.run() == 0
    [pull] = dd.deep_dive_pulls()
    assert "`cart-totals-hook-again` merged into `cart-totals-hook`" in pull.body


def test_show_prompts_prints_each_prompt_and_sends_and_writes_nothing(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add(duplicate_files())
    stale_world(dd)
    state_before = dd.world.bare().rev_parse("refs/heads/homeostat/state")
    capsys.readouterr()
    assert dd.run("--show-prompts") == 0
    out = capsys.readouterr().out
    assert "cart-totals-hook-again" in out and "useCartTotals" in out  # the merge check's prompt
    assert dd.world.stub.requests == [] and dd.deep_dive_pulls() == []
    assert dd.world.bare().rev_parse("refs/heads/homeostat/state") == state_before


def test_an_earlier_weeks_open_deep_dive_pr_is_closed_as_superseded(dd: DeepDiveWorld) -> None:
    bare = dd.world.bare()
    old_branch = "homeostat/deep-dive-2020-W01"
    main = bare.rev_parse("refs/heads/main")
    assert main is not None
    old_sha = bare.commit_files(main, {"README.md": b"an old week's deep dive\n"}, "old deep dive")
    bare.run("update-ref", f"refs/heads/{old_branch}", old_sha)
    host = dd.world.harness.adapter()
    old = host.open_pull(dd.world.kb_repo, old_branch, "main", "Homeostat deep dive: 2020-W01", "old")
    dd.add(duplicate_files())
    assert dd.run() == 0
    pulls = {p.number: p for p in dd.deep_dive_pulls()}
    [current] = [p for p in pulls.values() if p.number != old.number]
    assert pulls[old.number].state == "closed" and current.state == "open"
    [comment] = dd.world.pulls()[old.number].comments
    assert f"Superseded by #{current.number}" in comment.body
    assert bare.rev_parse(f"refs/heads/{old_branch}") is None


# --- what the retractor is sent, and what it is never asked about ----------------------------------


def test_the_retractor_sees_the_section_redacted_with_the_rules_it_still_rests_on(
    dd: DeepDiveWorld,
) -> None:
    secret = planted_secret_values()[0]
    layout = LAYOUT_DOC.replace(
        "Gutters come from the theme.",
        f"Gutters come from the theme (`use-theme-spacing`). The grid service token is {secret}.",
        1,
    )
    dd.add(
        {f"knowledge/storefront/ui/{STALE_ID}.md": STALE, "knowledge/storefront/ui/docs/layout.md": layout}
    )
    dd.script.retraction = {
        "change": True,
        "body": "Product pages use twelve columns. Gutters come from the theme (`use-theme-spacing`).",
    }
    assert dd.run() == 0
    [asked] = dd.script.asked("retract")
    assert secret not in asked  # and the stub fixture checks no request carried it
    assert "Rules still in force that the section also cites:\n- use-theme-spacing:" in asked
    [pull] = dd.deep_dive_pulls()
    columns = section(dd.branch_files(pull)["knowledge/storefront/ui/docs/layout.md"], "columns")
    assert f'note="retracted {STALE_ID}"' in columns and "`use-theme-spacing`" in columns


def test_a_merged_duplicates_citations_are_listed_for_a_person_not_retracted(dd: DeepDiveWorld) -> None:
    doc = LAYOUT_DOC.replace(f"(see ({STALE_ID}))", "(see (cart-totals-hook-again))")
    dd.add({**duplicate_files(), "knowledge/storefront/ui/docs/layout.md": doc})
    assert dd.run() == 0
    assert dd.script.asked("retract") == []
    [pull] = dd.deep_dive_pulls()
    assert dd.branch_files(pull)["knowledge/storefront/ui/docs/layout.md"] == doc
    assert (
        "`storefront/ui/layout#columns` cites `cart-totals-hook-again` — merged into cart-totals-hook "
        "as a duplicate: cite cart-totals-hook instead" in pull.body
    )


def test_citations_past_retract_calls_are_listed_for_a_person(dd: DeepDiveWorld) -> None:
    other = LAYOUT_DOC.replace("title: Storefront layout", "title: Storefront pages")
    dd.add(
        {
            "homeostat.yaml": dd.world.main_files()["homeostat.yaml"].replace(
                "agents:\n", "agents:\n  deepDive:\n    retractCalls: 1\n", 1
            ),
            f"knowledge/storefront/ui/{STALE_ID}.md": STALE,
            "knowledge/storefront/ui/docs/layout.md": LAYOUT_DOC,
            "knowledge/storefront/ui/docs/pages.md": other,
        }
    )
    assert dd.run() == 0
    assert len(dd.script.asked("retract")) == 1
    [pull] = dd.deep_dive_pulls()
    assert "no model call left this run (agents.deepDive.retractCalls)" in pull.body


# --- remembered verdicts ------------------------------------------------------------------------------


def test_a_rerun_asks_only_the_questions_whose_rules_changed(
    dd: DeepDiveWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dd.add({**duplicate_files(), **look_alike_files()})
    dd.script.same = False  # a person keeps both: the pairs stay in the KB, asked again each week
    assert dd.run() == 0, capsys.readouterr().out
    first = dd.script.asked("same")
    assert len(first) == 1  # the look-alikes differ by a fact: never asked
    dd.script.calls.clear()
    assert dd.run() == 0, capsys.readouterr().out
    assert dd.script.asked("same") == []  # every pair's verdict recalled: nothing paid twice
    [memory] = read_checkpoints(dd.world.bare().read_files("refs/heads/homeostat/state"), "deep-dive")
    assert len(memory.answers) == 1
    dd.script.calls.clear()
    changed = duplicate_files()
    changed["knowledge/storefront/ui/cart-totals-hook-again.md"] = changed[
        "knowledge/storefront/ui/cart-totals-hook-again.md"
    ].replace("do not sum line items", "never sum line items")
    dd.add(changed, "one rule of a pair reworded")
    assert dd.run() == 0, capsys.readouterr().out
    [asked] = dd.script.asked("same")  # only the pair whose rule changed
    assert "cart-totals-hook-again" in asked
