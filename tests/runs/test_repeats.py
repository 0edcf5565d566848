"""The repeat-lesson rate end to end: review threads that re-teach a rule in force, recorded by the
daily run with whether the rule was served to the PR's author (their real sync's heartbeat), then read
back by `homeostat metrics`, the digest, the deep dive's PR body and `homeostat eval --from-repeats`.

The GitHub emulator, real git, the model stub and `python -m homeostat` as a developer runs it.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
import yaml
from dailyworld import DailyWorld
from gitfixtures import git
from hostkit import PullSpec, ThreadSpec
from kbfactory import example_files
from lessonkit import review_lesson, taught_lesson

from homeostat.core.daily.consolidate import Consolidation
from homeostat.core.kb import load_kb
from homeostat.core.measure.digest import build_digest, digest_message, summary_line
from homeostat.core.measure.repeats import draft_cases, repeat_of, repeat_summary, served_ids
from homeostat.core.state.branch import (
    Heartbeat,
    RepeatRecord,
    RepeatsFile,
    dump_state,
    merge_state_files,
    parse_state,
)
from runs.test_sync import candidates, developer_clone, homeostat, sync

SPACING = "use-theme-spacing"
STATUS_TABLE = "billing-api-error-status-table"


def reviewed_pr(world: DailyWorld, repo: str, author: str, body: str, path: str) -> int:
    thread = ThreadSpec(author="ana", body=body, path=path, followed_by_commit=True)
    spec = PullSpec(author, f"{author}'s change", {path: "x = 1\n"}, world.hours_ago(3), threads=(thread,))
    return world.merged_pull(repo, spec)


def opt_in_and_serve(world: DailyWorld, served: str) -> Path:
    """cy opts in to usage (the documented `usage: true`), is served `served` at a session start,
    and syncs: the heartbeat on candidates/cy lists the rule."""
    dev = developer_clone(world)
    config = dev / "homeostat.yaml"
    config.write_text(
        config.read_text().replace("      role: member\n", "      role: member\n      usage: true\n", 1)
    )
    git(dev, "commit", "--quiet", "-am", "cy shares usage")
    git(dev, "push", "--quiet", "origin", "HEAD:main")
    from homeostat.adapters.state.event_recorder import log_event

    log_event(dev, "injection", {"source": "session-start", "rules": 2, "ids": f"{served},log-with-fields"})
    sync(dev)
    return dev


def heartbeat_without(world: DailyWorld, member: str) -> None:
    """`member` shares usage, and their sessions were served nothing of the rules re-taught."""
    bare = world.bare()
    beat = Heartbeat(
        member=member,
        at=world.now,
        homeostat_version="0.2.0",
        pending=0,
        usage={world.now.date(): {"sessions": 3}},
        served=("log-with-fields",),
    )
    base = bare.rev_parse(f"refs/heads/candidates/{member}") or bare.rev_parse("refs/heads/main")
    sha = bare.commit_files(base, {".homeostat/heartbeat.json": dump_state(beat)}, "heartbeat")
    bare.run("update-ref", f"refs/heads/candidates/{member}", sha)


def build_repeats(world: DailyWorld) -> Path:
    dev = opt_in_and_serve(world, SPACING)
    heartbeat_without(world, "bo")
    world.script.duplicates["theme.space for margins"] = SPACING
    world.script.duplicates["pick a status in a handler"] = STATUS_TABLE  # the thread's words, not the rule's
    reviewed_pr(
        world, "storefront", "cy", "Use theme.space for margins in components.", "web/components/Cart.tsx"
    )
    reviewed_pr(
        world, "storefront", "dee", "Use theme.space for margins in components.", "web/components/Nav.tsx"
    )
    reviewed_pr(
        world,
        "billing",
        "bo",
        "Map domain errors with STATUS_BY_ERROR from billing.errors; never pick a status in a handler.",
        "src/billing/api/charges.py",
    )
    reviewed_pr(  # a new lesson: no rule had it, so no repeat
        world,
        "billing",
        "bo",
        "Raise RefundDeclined from billing.errors instead of returning None.",
        "src/billing/api/refunds.py",
    )
    return dev


def test_a_re_taught_rule_is_recorded_with_whether_its_author_was_served_it(
    world: DailyWorld, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = build_repeats(world)
    assert b'"served"' in candidates(world, "cy")[".homeostat/heartbeat.json"]
    code = world.daily()
    out = capsys.readouterr().out
    assert code == 0, out
    assert "daily: 3 review lesson(s) re-taught a rule already in force (1 after it was served" in out
    state = world.state()
    found = {(r.member, r.rule_id): r for r in state.repeat_records()}
    assert set(found) == {("cy", SPACING), ("dee", SPACING), ("bo", STATUS_TABLE)}
    assert found["cy", SPACING].served is True  # cy's session was given it, and the reviewer taught it again
    assert found["bo", STATUS_TABLE].served is False  # bo shares usage; the rule never reached bo
    assert found["dee", SPACING].served is None  # dee shares no usage
    assert found["bo", STATUS_TABLE].paths == ("src/billing/api/charges.py",)
    assert found["bo", STATUS_TABLE].action == "duplicate" and found["bo", STATUS_TABLE].repo == "billing"
    # the served ids stay on the candidates branch: the state branch's heartbeat has none
    assert b'"served"' not in world.bare().read_files("refs/heads/homeostat/state")["heartbeats/cy.json"]
    # a rerun decides nothing twice, so nothing is counted twice
    assert world.daily() == 0
    assert len(world.state().repeat_records()) == 3

    # the weekly digest lists them (printed, as `homeostat digest --print` shows it)
    from homeostat.cli import main

    capsys.readouterr()
    assert main(["digest", "--kb", str(world.checkout()), "--print", "--format", "json"]) == 0
    digest = json.loads(capsys.readouterr().out)
    assert digest["counts"]["re-taught"] == 3 and "3 lessons re-taught" in digest["summary"]
    assert "never served to the author" in digest["text"] and "served to the author first" in digest["text"]

    # `homeostat metrics`, in cy's clone after a sync fetched the state branch
    sync(dev)
    done = homeostat("metrics", "--kb", str(dev), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["repeatLessonRate"] == pytest.approx(3 / 4)
    repeats = data["repeats"]
    assert set(repeats) == {"count", "reviewLessons", "rules", "areas", "weeks"}
    assert (repeats["count"], repeats["reviewLessons"]) == (3, 4)
    by_rule = {r["ruleId"]: r for r in repeats["rules"]}
    assert by_rule[SPACING] == {
        "ruleId": SPACING,
        "area": "storefront/ui",
        "times": 2,
        "served": 1,
        "notServed": 0,
        "unknown": 1,
        "verdict": "rewrite",
        "paths": ["web/components/Cart.tsx", "web/components/Nav.tsx"],
    }
    assert by_rule[STATUS_TABLE]["verdict"] == "selection"
    assert repeats["areas"] == [{"area": "storefront/ui", "times": 2}, {"area": "billing/api", "times": 1}]
    text = homeostat("metrics", "--kb", str(dev)).stdout
    assert "Repeat-lesson rate: 75% (3 of 4 review lessons" in text
    assert f"{SPACING} (storefront/ui): re-taught 2x; served, so rewrite it" in text

    # `homeostat eval --from-repeats` drafts a case from the selection miss, for a person to review
    drafted = homeostat("eval", "--from-repeats", "--kb", str(dev))
    assert drafted.returncode == 0, drafted.stderr
    draft = dev / "eval" / "from-repeats.yaml"
    cases = yaml.safe_load(draft.read_text())["cases"]
    assert cases == [
        {
            "name": cases[0]["name"],
            "repo": "billing",
            "source": found["bo", STATUS_TABLE].url,
            "files": ["src/billing/api/charges.py"],
            "expect": [STATUS_TABLE],
        }
    ]
    ran = homeostat("eval", "--cases", str(draft), "--kb", str(dev), "--format", "json")
    assert ran.returncode == 0, ran.stderr
    # never overwritten: a second draft is one line naming the file, and the reviewed text stays
    draft.write_text(draft.read_text() + "# reviewed\n")
    again = homeostat("eval", "--from-repeats", "--kb", str(dev))
    assert again.returncode == 2
    assert again.stderr.strip().splitlines() == [
        f"homeostat: {draft} exists: review it and move its cases into eval/selection.yaml, delete it, "
        "or pass --out FILE"
    ]
    assert draft.read_text().endswith("# reviewed\n")


# --- the parts ----------------------------------------------------------------------------------

NOW = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)


def record(
    rule: str, member: str = "bo", served: bool | None = None, *, days: float = 1, n: int = 0
) -> RepeatRecord:
    return RepeatRecord(
        hash=f"h-{rule}-{member}-{n}",
        member=member,
        rule_id=rule,
        action="duplicate",
        area="billing/api",
        repo="billing",
        url=f"https://github.com/example/billing/pull/{n + 1}#discussion_r{n + 1}",
        paths=(f"src/billing/api/f{n}.py",),
        opened_at=NOW - dt.timedelta(days=days + 1),
        rule_since=dt.date(2026, 9, 10),
        served=served,
        at=NOW - dt.timedelta(days=days),
    )


def test_only_a_rule_in_force_when_the_pr_opened_counts() -> None:
    kb = load_kb(example_files())
    rule = kb.rule(STATUS_TABLE)
    assert rule is not None
    dup = Consolidation("duplicate", STATUS_TABLE)
    made = repeat_of(review_lesson(), dup, rule, frozenset({STATUS_TABLE}), NOW)
    assert made is not None and made.served is True and made.rule_since == dt.date(2026, 9, 10)
    assert (
        repeat_of(review_lesson(), Consolidation("update", STATUS_TABLE), rule, frozenset(), NOW).served
        is False
    )  # type: ignore[union-attr]
    assert repeat_of(review_lesson(), dup, rule, None, NOW).served is None  # type: ignore[union-attr]
    # the PR was opened before the rule existed: teaching it then was no repeat
    assert (
        repeat_of(review_lesson(opened=dt.datetime(2026, 9, 1, tzinfo=dt.UTC)), dup, rule, None, NOW) is None
    )
    # a hand-taught lesson, a create, or a rule that is not in force is no repeat either
    assert repeat_of(taught_lesson(), dup, rule, None, NOW) is None
    assert repeat_of(review_lesson(), Consolidation("create"), rule, None, NOW) is None
    rejected = kb.rule("no-router-rewrite")
    assert (
        repeat_of(review_lesson(), Consolidation("duplicate", "no-router-rewrite"), rejected, None, NOW)
        is None
    )
    # served ids count only from a member who shares usage
    beat = Heartbeat(member="bo", at=NOW, homeostat_version="0.2.0", pending=0, served=("x",))
    assert served_ids(beat) is None
    assert served_ids(beat.model_copy(update={"usage": {}})) == frozenset({"x"})


def test_the_summary_counts_per_rule_area_and_week_and_the_digest_says_it() -> None:
    records = [
        record("a", served=True, n=1),
        record("a", "cy", served=None, days=9, n=2),
        record("b", served=False, n=3),
        record("c", served=None, days=40, n=4),  # outside the window
    ]
    summary = repeat_summary(records, [], NOW - dt.timedelta(days=30))
    assert (summary.repeats, summary.review_lessons, summary.rate) == (3, 3, 1.0)
    assert [(r.rule_id, r.times, r.verdict) for r in summary.rules] == [
        ("a", 2, "rewrite"),
        ("b", 1, "selection"),
    ]
    assert summary.weeks == (("2026-W48", 1), ("2026-W49", 2))
    assert repeat_summary([], [], NOW).rate is None

    kb = load_kb(example_files())
    digest = build_digest(
        kb_name="example/kb",
        then=kb,
        now=kb,
        records=[],
        desire_paths=[],
        since=NOW - dt.timedelta(days=7),
        until=NOW,
        overdue_days=2,
        repeats=[record(STATUS_TABLE, served=True, n=1), record(STATUS_TABLE, "cy", served=False, n=2)],
    )
    assert digest.counts["re-taught"] == 2
    assert summary_line(digest).endswith(": 2 lessons re-taught.")
    blocks = json.dumps(digest_message(digest).blocks)
    assert "Lessons re-taught" in blocks and "served to the author first: rewrite it" in blocks


def test_eval_drafts_skip_served_pathless_and_known_cases() -> None:
    records = [
        record("a", served=False, n=1),
        record("a", served=False, n=1).model_copy(update={"hash": "other"}),  # the same paths again
        record("b", served=True, n=2),
        record("c", served=False, n=3).model_copy(update={"paths": ()}),
        record("d", served=False, n=4),
    ]
    cases, pathless = draft_cases(records, [(("src/billing/api/f4.py",), ("d",))])
    assert [c["expect"] for c in cases] == [["a"]] and pathless == 1


def test_repeat_files_merge_by_hash_and_an_older_reader_keeps_them_aside() -> None:
    ours = RepeatsFile(member="bo", records=(record("a", served=True, n=1),))
    tip = RepeatsFile(member="bo", records=(record("b", served=False, n=2),))
    merged = merge_state_files({"repeats/bo.json": dump_state(tip)}, {"repeats/bo.json": dump_state(ours)})
    state = parse_state(merged, "c1")
    assert [r.rule_id for r in state.repeat_records()] == ["a", "b"]
    # the pinned on-disk shape
    assert json.loads(dump_state(ours))["records"][0] == {
        "action": "duplicate",
        "area": "billing/api",
        "at": "2026-12-02T12:00:00Z",
        "hash": "h-a-bo-1",
        "member": "bo",
        "openedAt": "2026-12-01T12:00:00Z",
        "paths": ["src/billing/api/f1.py"],
        "repo": "billing",
        "ruleId": "a",
        "ruleSince": "2026-09-10",
        "served": True,
        "url": "https://github.com/example/billing/pull/2#discussion_r2",
    }
    # a heartbeat that lists nothing served writes the bytes it wrote before the field
    beat = Heartbeat(member="bo", at=NOW, homeostat_version="0.2.0", pending=0)
    assert b"served" not in dump_state(beat)


def test_the_deep_dive_lists_rules_to_rewrite_and_selection_misses(
    github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    from deepdiveworld import STALE, STALE_ID, DeepDiveWorld

    dd = DeepDiveWorld(DailyWorld(github_harness, anthropic_stub, tmp_path, monkeypatch))
    dd.add({f"knowledge/storefront/ui/{STALE_ID}.md": STALE})  # something to change, so the PR opens
    now = dt.datetime.now(dt.UTC)
    served = record(SPACING, "cy", served=True, n=1).model_copy(update={"at": now, "area": "storefront/ui"})
    missed = record(STATUS_TABLE, "bo", served=False, n=2).model_copy(update={"at": now})
    bare = dd.world.bare()
    files = {
        "repeats/cy.json": dump_state(RepeatsFile(member="cy", records=(served,))),
        "repeats/bo.json": dump_state(RepeatsFile(member="bo", records=(missed,))),
    }
    sha = bare.commit_files(bare.rev_parse("refs/heads/homeostat/state"), files, "repeats")
    bare.run("update-ref", "refs/heads/homeostat/state", sha)
    assert dd.run() == 0
    [pull] = dd.deep_dive_pulls()
    assert "1 rule to rewrite, 1 selection miss" in pull.body
    rewrite = pull.body.split("## Rules to rewrite", 1)[1].split("##", 1)[0]
    assert (
        f"`{SPACING}` (storefront/ui): re-taught 1 time, 1 after it was served; evidence: {served.url}"
        in rewrite
    )
    misses = pull.body.split("## Selection misses", 1)[1].split("##", 1)[0]
    assert f"`{STATUS_TABLE}` (billing/api): re-taught 1 time; touched `src/billing/api/f2.py`" in misses
    assert SPACING not in misses and STATUS_TABLE not in rewrite


def test_bad_eval_options_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from homeostat.cli import main

    kb = tmp_path / "kb"
    kb.mkdir()
    for path, text in example_files().items():
        (kb / path).parent.mkdir(parents=True, exist_ok=True)
        (kb / path).write_text(text)
    assert main(["eval", "--kb", str(kb), "--out", "x.yaml"]) == 2
    assert capsys.readouterr().err.strip() == (
        "homeostat: --out names the file --from-repeats writes; pass --from-repeats too"
    )
    assert main(["eval", "--kb", str(kb), "--from-repeats", "--min", "hit@5=0.8"]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    # no state branch in the clone: nothing to draft, nothing written
    assert main(["eval", "--kb", str(kb), "--from-repeats", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "out": str(kb / "eval" / "from-repeats.yaml"),
        "drafted": 0,
        "withoutPaths": 0,
        "written": False,
    }
    assert not (kb / "eval" / "from-repeats.yaml").exists()


def test_the_performance_page_lists_the_rules_re_taught() -> None:
    import dataclasses

    from dashboard.test_dashboard_glance import known_week

    from homeostat.core.dashboard import html

    week = known_week()
    at = week.now - dt.timedelta(days=1)
    mine = (
        record(SPACING, served=True, n=1).model_copy(update={"at": at, "area": "storefront/ui"}),
        record(STATUS_TABLE, served=False, n=2).model_copy(update={"at": at}),
    )
    snapshot = dataclasses.replace(week.snapshot, repeats={"bo": RepeatsFile(member="bo", records=mine)})
    page = html.performance(dataclasses.replace(week, snapshot=snapshot))
    table = page.split("<h2>Repeat-lesson rate</h2>", 1)[1].split("</section>", 1)[0]
    assert (
        f'<a href="/entries/{SPACING}">{SPACING}</a></td><td>storefront/ui</td><td>1</td><td>1 of 1</td>'
        in table
    )
    assert "a rewrite: agents had it and did not follow it" in table
    assert "a selection fix: never served for src/billing/api/f2.py" in table


def test_a_broken_repeats_file_is_one_line_naming_it() -> None:
    from homeostat.core.state.branch import StateFileError

    with pytest.raises(StateFileError) as misfiled:
        parse_state({"repeats/bo.json": b'{"version": 1, "member": "cy", "records": []}'}, "c1")
    assert (
        str(misfiled.value)
        == "homeostat/state:repeats/bo.json holds member 'cy'; it belongs in repeats/cy.json"
    )
    with pytest.raises(StateFileError) as unknown:
        parse_state({"repeats/bo.json": b'{"version": 1, "member": "bo", "records": [], "x": 1}'}, "c1")
    assert str(unknown.value).startswith("homeostat/state:repeats/bo.json: x: ")
    assert "\n" not in str(unknown.value)
