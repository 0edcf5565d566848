"""The state branch: its file models, merging concurrent writes, and reading/writing it on a real origin."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from gitfixtures import MOVE_BRANCH_UNDER_PUSH, clone, git, install_hook, make_bare

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import StateWriteError, read_state, write_state
from homeostat.core.state.branch import (
    Capped,
    Cost,
    DecisionRecord,
    DecisionsFile,
    Failed,
    Heartbeat,
    LessonSource,
    Notice,
    PullRef,
    RunReport,
    StateFileError,
    StateSnapshot,
    dump_state,
    merge_state_files,
    parse_state,
    parse_state_file,
    state_branch,
    state_files,
)

T0 = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def record(
    hash: str, member: str = "alice", *, at: datetime = T0, settled: bool = False, **extra: Any
) -> DecisionRecord:
    fields: dict[str, Any] = {
        "hash": hash,
        "member": member,
        "kind": "new",
        "title": f"Rule {hash}",
        "source": LessonSource(type="review-change", url=f"https://github.test/acme/app/pull/7#r{hash}"),
        "outcome": "merged" if settled else "review",
        "state": "settled" if settled else "in-review",
        "confidence": 72,
        "breakdown": {"base": 50, "role": 14, "vague title": -2},
        "reason": "at or above accept (70)",
        "at": at,
        "settled_at": at if settled else None,
    }
    return DecisionRecord(**(fields | extra))


def decisions(member: str, *records: DecisionRecord) -> DecisionsFile:
    return DecisionsFile(member=member, records=records)


def heartbeat(member: str, at: datetime = T0, **extra: Any) -> Heartbeat:
    return Heartbeat(
        **({"member": member, "at": at, "homeostat_version": "0.2.0", "pending": 2, "behind": 0} | extra)
    )


def run(run_id: str = "run-1", started: datetime = T0, **extra: Any) -> RunReport:
    fields: dict[str, Any] = {
        "run_id": run_id,
        "kind": "daily",
        "started_at": started,
        "finished_at": started + timedelta(minutes=3, seconds=12.5),
        "duration_seconds": 192.5,
        "decided": {"merged": 4, "review": 2},
        "health": {"rules": 120, "disputed": 1},
        "cost": Cost(usd=0.42, estimated=True),
    }
    return RunReport(**(fields | extra))


def files_of(*models: DecisionsFile | Heartbeat | RunReport) -> dict[str, bytes]:
    return state_files(
        decisions=tuple(m for m in models if isinstance(m, DecisionsFile)),
        heartbeats=tuple(m for m in models if isinstance(m, Heartbeat)),
        runs=tuple(m for m in models if isinstance(m, RunReport)),
    )


# Models and their wire form

FULL_RECORD = record(
    "c0ffee",
    kind="update",
    rule_id="api-errors-use-problem-json",
    area="app/api",
    outcome="updated",
    state="settled",
    pr=PullRef(
        number=41, url="https://github.test/acme/kb/pull/41", branch="homeostat/review-alice-2026-11-28"
    ),
    review_opened_at=T0 - timedelta(days=1),
    settled_at=T0,
)
EXAMPLES = [
    decisions("alice", FULL_RECORD, record("beef01", title="Zürich — naïve “quotes”")),
    decisions("bob"),
    heartbeat("alice", usage={date(2026, 11, 28): {"injections": 14, "mcpCalls": 3}, date(2026, 11, 29): {}}),
    heartbeat("bob", behind=None, usage=None),
    run(),
    run(
        "run-2",
        kind="deep-dive",
        notices=(
            Notice(kind="spending-cap", message="stopped at $5.00 (agents.maxCostUsd)"),
            Notice(kind="slack-unset", message="HOMEOSTAT_SLACK_WEBHOOK is not set"),
        ),
        capped=Capped(since=T0),
        failed=Failed(since=T0, reason="host refused the merge"),
        cost=Cost(usd=5.0, estimated=False),
    ),
]


@pytest.mark.parametrize("model", EXAMPLES, ids=lambda m: type(m).__name__)
def test_every_state_model_round_trips_byte_for_byte(model: DecisionsFile | Heartbeat | RunReport) -> None:
    data = dump_state(model)
    loaded = parse_state_file(f"{_folder(model)}/{_name(model)}.json", data)
    assert loaded == model
    assert loaded is not None and dump_state(loaded) == data
    assert data.endswith(b"}\n") and data.startswith(b'{\n  "')


def _folder(model: object) -> str:
    return {DecisionsFile: "decisions", Heartbeat: "heartbeats", RunReport: "runs"}[type(model)]


def _name(model: DecisionsFile | Heartbeat | RunReport) -> str:
    return model.started_at.date().isoformat() if isinstance(model, RunReport) else model.member


def test_wire_form_is_camel_case_sorted_and_utc() -> None:
    text = dump_state(decisions("alice", FULL_RECORD)).decode()
    assert '"ruleId": "api-errors-use-problem-json"' in text
    assert '"reviewOpenedAt": "2026-11-28T06:00:00Z"' in text
    assert '"pr": {\n        "branch": "homeostat/review-alice-2026-11-28",' in text
    assert text.index('"member"') < text.index('"records"') < text.index('"version": 1')


def test_times_in_other_zones_are_stored_as_utc() -> None:
    paris = timezone(timedelta(hours=1))
    beat = heartbeat("alice", at=datetime(2026, 11, 29, 7, 30, tzinfo=paris))
    assert '"at": "2026-11-29T06:30:00Z"' in dump_state(beat).decode()


def test_models_are_frozen_and_strict() -> None:
    with pytest.raises(ValueError, match="frozen"):
        heartbeat("alice").pending = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        Heartbeat.model_validate({**heartbeat("a").model_dump(by_alias=True), "mood": "fine"})
    with pytest.raises(ValueError, match="timezone"):
        heartbeat("alice", at=datetime(2026, 11, 29, 6, 0))
    with pytest.raises(ValueError, match="settledAt is set exactly when state is 'settled'"):
        record("x", state="settled")
    with pytest.raises(ValueError, match="two records have the same hash"):
        decisions("alice", record("x"), record("x", at=T0 + timedelta(hours=1)))
    with pytest.raises(ValueError, match="every record's member must be 'alice'"):
        decisions("alice", record("x", member="bob"))
    with pytest.raises(ValueError, match="finishedAt is before startedAt"):
        run(finished_at=T0 - timedelta(seconds=1))


@pytest.mark.parametrize(
    ("path", "data", "message"),
    [
        (
            "decisions/alice.json",
            b'{"member": "alice",',
            "homeostat/state:decisions/alice.json is not valid JSON (Expecting property name enclosed in "
            "double quotes: line 1 column 20 (char 19)); fix or delete it on that branch",
        ),
        (
            "heartbeats/alice.json",
            b'{"version": 1, "member": "alice", "at": "2026-11-29T06:00:00Z", "homeostatVersion": "0.2.0", '
            b'"pending": "2"}',
            "homeostat/state:heartbeats/alice.json: pending: Input should be a valid integer; "
            "fix or delete it on that branch",
        ),
        (
            "heartbeats/alice.json",
            b'{"version": 2, "member": "alice"}',
            "homeostat/state:heartbeats/alice.json has version 2, newer than this Homeostat reads (1); "
            "upgrade Homeostat",
        ),
        (
            "decisions/alice.json",
            b'{"version": 1, "member": "bob", "records": []}',
            "homeostat/state:decisions/alice.json holds member 'bob'; it belongs in decisions/bob.json",
        ),
        (
            "runs/2026-11-29.json",
            b'{"version": 1, "runId": "r", "kind": "nightly"}',
            "homeostat/state:runs/2026-11-29.json: kind: Input should be 'daily', 'deep-dive' or "
            "'bootstrap'; fix or delete it on that branch",
        ),
    ],
)
def test_a_broken_file_is_an_error_naming_it(path: str, data: bytes, message: str) -> None:
    with pytest.raises(StateFileError) as error:
        parse_state({path: data, "README.md": b"hi"}, "abc123")
    assert str(error.value) == message


def test_parse_state_sorts_files_by_kind_and_keeps_unknown_ones() -> None:
    files = files_of(decisions("alice", record("a1")), heartbeat("bob"), run()) | {"README.md": b"notes\n"}
    snapshot = parse_state(files, "abc123")
    assert snapshot.commit == "abc123"
    assert list(snapshot.decisions) == ["alice"] and list(snapshot.heartbeats) == ["bob"]
    assert list(snapshot.runs) == ["runs/2026-11-29.json"]
    assert snapshot.other == {"README.md": b"notes\n"}
    assert snapshot.decided_hashes() == {"a1"}
    assert snapshot.last_run() == run() and snapshot.last_run("deep-dive") is None


@pytest.mark.parametrize(
    ("base", "branch"), [("main", "homeostat/state"), ("trial", "homeostat/state-trial")]
)
def test_state_branch_per_base_branch(base: str, branch: str) -> None:
    assert state_branch(base) == branch


# merge_state_files


def test_identical_content_is_a_no_op() -> None:
    tip = files_of(decisions("alice", record("a1")), heartbeat("alice"), run())
    assert merge_state_files(tip, tip) == tip


def test_tip_only_files_are_kept() -> None:
    tip = files_of(heartbeat("bob")) | {"README.md": b"hand-written\n", "runs/2026-11-01.json": b"{broken"}
    merged = merge_state_files(tip, files_of(heartbeat("alice")))
    assert merged == tip | files_of(heartbeat("alice"))


def test_two_runs_on_one_day_are_both_kept() -> None:
    first, second, third = (
        run("run-1"),
        run("run-2", T0 + timedelta(hours=3)),
        run("run-3", T0 + timedelta(hours=5)),
    )
    merged = merge_state_files(files_of(first), files_of(second))
    assert merged == {"runs/2026-11-29.json": dump_state(first), "runs/2026-11-29-2.json": dump_state(second)}
    merged = merge_state_files(merged, files_of(third))
    assert merged["runs/2026-11-29-3.json"] == dump_state(third)
    assert merge_state_files(merged, files_of(second)) == merged


def test_a_rewritten_report_of_the_same_run_replaces_its_file() -> None:
    tip = merge_state_files(files_of(run("run-1")), files_of(run("run-2")))
    finished = run("run-2", decided={"merged": 9})
    merged = merge_state_files(tip, files_of(finished))
    assert sorted(merged) == ["runs/2026-11-29-2.json", "runs/2026-11-29.json"]
    assert merged["runs/2026-11-29-2.json"] == dump_state(finished)


@pytest.mark.parametrize("newer_side", ["tip", "ours"])
def test_the_newer_heartbeat_wins(newer_side: str) -> None:
    old, new = heartbeat("alice", pending=5), heartbeat("alice", at=T0 + timedelta(hours=12), pending=0)
    tip, ours = (new, old) if newer_side == "tip" else (old, new)
    assert merge_state_files(files_of(tip), files_of(ours)) == files_of(new)


@pytest.mark.parametrize("settled_side", ["tip", "ours"])
def test_a_settled_decision_beats_one_in_review_whatever_the_times(settled_side: str) -> None:
    settled = record("h1", settled=True, at=T0)
    in_review = record("h1", at=T0 + timedelta(days=2), reason="reopened by a stale run")
    tip, ours = (settled, in_review) if settled_side == "tip" else (in_review, settled)
    merged = merge_state_files(files_of(decisions("alice", tip)), files_of(decisions("alice", ours)))
    assert merged == files_of(decisions("alice", settled))


@pytest.mark.parametrize("later_side", ["tip", "ours"])
def test_otherwise_the_later_decision_wins(later_side: str) -> None:
    early = record("h1", at=T0, confidence=60)
    late = record("h1", at=T0 + timedelta(hours=1), confidence=65)
    tip, ours = (late, early) if later_side == "tip" else (early, late)
    merged = merge_state_files(files_of(decisions("alice", tip)), files_of(decisions("alice", ours)))
    assert merged == files_of(decisions("alice", late))


def test_decisions_from_both_sides_are_all_kept() -> None:
    tip = files_of(
        decisions("alice", record("t1"), record("both", at=T0)), decisions("bob", record("b1", "bob"))
    )
    ours = files_of(
        decisions("alice", record("o1", at=T0 + timedelta(hours=1)), record("both", settled=True))
    )
    merged = parse_state(merge_state_files(tip, ours), None)
    assert [r.hash for r in merged.decisions["alice"].records] == ["both", "t1", "o1"]
    assert merged.decisions["alice"].records[0].state == "settled"
    assert merged.decisions["bob"] == decisions("bob", record("b1", "bob"))


def test_a_merge_that_adds_nothing_keeps_the_tips_bytes() -> None:
    tip_file = decisions("alice", record("t2", at=T0 + timedelta(hours=1)), record("t1"))  # hand-ordered
    tip = {"decisions/alice.json": dump_state(tip_file)}
    ours = files_of(decisions("alice", record("t1")))
    assert merge_state_files(tip, ours) == tip


def test_merging_refuses_an_unknown_file_of_ours() -> None:
    with pytest.raises(StateFileError) as error:
        merge_state_files({}, {"notes.txt": b"x"})
    assert (
        str(error.value)
        == "notes.txt is not a state file: write decisions/, heartbeats/, repeats/ or runs/ files"
    )


# Reading and writing the branch on a real origin


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    bare = make_bare(tmp_path / "origin.git")
    seed = clone(bare, tmp_path / "seed")
    (seed / "README.md").write_text("KB\n")
    git(seed, "add", "README.md")
    git(seed, "commit", "--quiet", "-m", "initial")
    git(seed, "push", "--quiet", "origin", "main")
    return bare


def new_clone(origin: Path, name: str) -> Git:
    return Git(clone(origin, origin.parent / name))


def test_reading_a_missing_branch_is_an_empty_state(origin: Path) -> None:
    assert read_state(new_clone(origin, "a")) == StateSnapshot()


def test_first_write_creates_an_orphan_branch_and_read_state_sees_it(origin: Path) -> None:
    repo = new_clone(origin, "a")
    head_before = git(origin.parent / "a", "rev-parse", "HEAD")
    files = files_of(decisions("alice", record("a1")), heartbeat("alice"), run())

    sha = write_state(repo, files)

    assert sha is not None
    assert git(origin, "rev-parse", "homeostat/state") == sha
    assert git(origin, "rev-list", "--count", sha) == "1"
    assert git(origin.parent / "a", "rev-parse", "HEAD") == head_before
    assert repo.rev_parse("refs/remotes/origin/homeostat/state") == sha
    assert read_state(new_clone(origin, "b")) == parse_state(files, sha)


def test_a_write_that_changes_nothing_makes_no_commit(origin: Path) -> None:
    repo = new_clone(origin, "a")
    files = files_of(decisions("alice", record("a1")), heartbeat("alice"))
    first = write_state(repo, files)
    assert write_state(repo, files) == first
    assert write_state(repo, files_of(heartbeat("alice", at=T0 - timedelta(hours=1)))) == first
    assert git(origin, "rev-list", "--count", "homeostat/state") == "1"


def test_state_for_another_base_branch_is_a_separate_history(origin: Path) -> None:
    repo = new_clone(origin, "a")
    write_state(repo, files_of(heartbeat("alice")))
    write_state(repo, files_of(heartbeat("bob")), branch=state_branch("trial"))
    assert list(read_state(repo).heartbeats) == ["alice"]
    assert list(read_state(repo, branch="homeostat/state-trial").heartbeats) == ["bob"]


def test_a_broken_file_on_the_branch_is_an_error_naming_it(origin: Path) -> None:
    repo = new_clone(origin, "a")
    sha = repo.commit_files(None, {"heartbeats/alice.json": b"not json"}, "hand edit")
    assert repo.push("origin", sha, "homeostat/state").ok
    with pytest.raises(StateFileError, match=r"^homeostat/state:heartbeats/alice.json is not valid JSON \("):
        read_state(new_clone(origin, "b"))


def test_two_runs_racing_both_land_and_no_decision_is_lost(origin: Path) -> None:
    install_hook(origin, "pre-receive", "sleep 0.3\n")  # widen the window so the pushes overlap
    write_state(
        new_clone(origin, "seed-state"),
        files_of(decisions("alice", record("old", at=T0 - timedelta(days=1)))),
    )
    runs = {
        "a": files_of(
            decisions("alice", record("a1"), record("shared", settled=True)),
            decisions("carol", record("c1", "carol")),
            heartbeat("alice"),
            run("run-a"),
        ),
        "b": files_of(
            decisions("alice", record("b1"), record("shared", at=T0 + timedelta(hours=2))),
            heartbeat("alice", at=T0 + timedelta(hours=1), pending=0),
            run("run-b", T0 + timedelta(minutes=1)),
        ),
    }
    clones = {name: new_clone(origin, name) for name in runs}
    start = threading.Barrier(len(runs))
    errors: list[BaseException] = []

    def write(name: str) -> None:
        start.wait()
        try:
            write_state(clones[name], runs[name])
        except BaseException as error:  # noqa: BLE001 - reported to the test thread below
            errors.append(error)

    threads = [threading.Thread(target=write, args=(name,)) for name in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    state = read_state(new_clone(origin, "reader"))
    assert sorted(r.hash for r in state.decisions["alice"].records) == ["a1", "b1", "old", "shared"]
    assert {r.hash: r.state for r in state.decisions["alice"].records}["shared"] == "settled"
    assert [r.hash for r in state.decisions["carol"].records] == ["c1"]
    assert state.heartbeats["alice"].pending == 0
    assert sorted(report.run_id for report in state.runs.values()) == ["run-a", "run-b"]
    assert sorted(state.runs) == ["runs/2026-11-29-2.json", "runs/2026-11-29.json"]


def test_a_write_whose_tip_moved_before_its_push_merges_again_and_lands(origin: Path) -> None:
    write_state(new_clone(origin, "first"), files_of(decisions("alice", record("a1"))))
    # Another run's commit, built on the current tip, waits on a side branch; the hook lands it on the
    # state branch while our push is in flight, exactly once.
    other = new_clone(origin, "other")
    tip = git(origin, "rev-parse", "homeostat/state")
    other.fetch("origin", ["+refs/heads/homeostat/state:refs/remotes/origin/homeostat/state"])
    theirs = other.commit_files(tip, files_of(decisions("bob", record("b1", "bob"))), "another run")
    assert other.push("origin", theirs, "side").ok
    install_hook(
        origin,
        "pre-receive",
        "unset GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES\n"
        "if git rev-parse -q --verify refs/heads/side >/dev/null; then\n"
        "  git update-ref refs/heads/homeostat/state refs/heads/side && git update-ref -d refs/heads/side\n"
        "fi\n",
    )
    pauses: list[float] = []

    sha = write_state(
        new_clone(origin, "third"), files_of(decisions("carol", record("c1", "carol"))), pause=pauses.append
    )

    assert len(pauses) == 1
    assert git(origin, "rev-parse", "homeostat/state") == sha
    assert git(origin, "rev-parse", f"{sha}^") == theirs
    state = read_state(new_clone(origin, "reader"))
    assert sorted(state.decisions) == ["alice", "bob", "carol"]


def test_exhausted_retries_fail_with_what_to_do(origin: Path) -> None:
    write_state(new_clone(origin, "first"), files_of(heartbeat("alice")))
    install_hook(origin, "pre-receive", MOVE_BRANCH_UNDER_PUSH)
    pauses: list[float] = []

    with pytest.raises(StateWriteError) as error:
        write_state(new_clone(origin, "second"), files_of(heartbeat("bob")), pause=pauses.append)

    assert str(error.value) == (
        "could not record this run on origin/homeostat/state: the branch moved under each of 5 tries; "
        "the run's PRs are done, and rerunning it records the decisions"
    )
    assert len(pauses) == 4
    assert "bob" not in read_state(new_clone(origin, "reader")).heartbeats
