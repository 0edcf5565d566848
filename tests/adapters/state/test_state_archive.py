"""The state branch stays small: settled, old decision records move to a monthly archive with an index
of their hashes, on the first write of each run (its claim), and every reader still finds them."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from gitfixtures import MOVE_BRANCH_UNDER_PUSH, clone, git, install_hook, make_bare

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.run_claim import Held, Taken, take_claim
from homeostat.adapters.state.state_store import StateWriteError, read_state, write_state
from homeostat.core.state.archive import RECENT, IndexFile, compact, parse_index
from homeostat.core.state.branch import (
    Archive,
    Claim,
    ClaimOwner,
    DecisionRecord,
    DecisionsFile,
    LessonSource,
    StateFileError,
    StateSnapshot,
    claim_path,
    dump_state,
    merge_state_files,
    parse_state,
)

NOW = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)
WHERE: dict[str, Any] = {"remote": "origin", "branch": "homeostat/state", "path": claim_path("daily")}


def record(hash: str, member: str = "alice", *, days: float = 0, settled: bool = True) -> DecisionRecord:
    at = NOW - timedelta(days=days)
    return DecisionRecord(
        hash=hash,
        member=member,
        kind="review-thread",
        title=f"Rule {hash}",
        source=LessonSource(
            type="pr-feedback", url=f"https://github.test/acme/app/pull/7#discussion_r{hash}"
        ),
        outcome="merged" if settled else "review",
        state="settled" if settled else "in-review",
        confidence=72,
        reason="at or above accept (70)",
        at=at,
        settled_at=at if settled else None,
    )


def old_layout() -> dict[str, bytes]:
    """A branch as Homeostat wrote it before the archive: every record in decisions/<member>.json."""
    alice = (
        record("a-old", days=70),  # September
        record("a-oct", days=40),  # October
        record("a-open", days=50, settled=False),  # still in review: never archived
        record("a-new", days=1),  # recent
    )
    bob = (record("b-old", "bob", days=65), record("b-oct", "bob", days=35))
    return {
        "decisions/alice.json": dump_state(DecisionsFile(member="alice", records=alice)),
        "decisions/bob.json": dump_state(DecisionsFile(member="bob", records=bob)),
    }


def claim(run_id: str = "20261129T060000-aaaaaa", at: datetime = NOW) -> Claim:
    return Claim(
        run_id=run_id,
        kind="daily",
        owner=ClaimOwner(host="runner-1", pid=1, machine="another-machine"),
        claimed_at=at,
        expires_at=at + timedelta(hours=1),
    )


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


def tree(origin: Path) -> dict[str, bytes]:
    return Git(origin).read_files("refs/heads/homeostat/state")


def seed(origin: Path, files: dict[str, bytes]) -> str:
    repo = new_clone(origin, "seed-state")
    sha = repo.commit_files(None, dict(files), "seed")
    assert repo.push("origin", sha, "homeostat/state").ok
    return sha


# --- compaction (pure) -------------------------------------------------------------------------------


def test_compaction_moves_settled_old_records_by_month_and_indexes_their_hashes() -> None:
    before = parse_state(old_layout(), "old")

    moved = compact(old_layout(), NOW - RECENT, lambda paths: {})

    assert moved.moved == 4
    assert sorted(moved.changes) == [
        "archive/2026-09/alice.json",
        "archive/2026-09/bob.json",
        "archive/2026-10/alice.json",
        "archive/2026-10/bob.json",
        "decisions/alice.json",
        "decisions/bob.json",
        "index/2026-09.json",
        "index/2026-10.json",
    ]
    assert moved.changes["decisions/bob.json"] is None  # nothing open or recent is left for bob
    kept = DecisionsFile(
        member="alice", records=(record("a-open", days=50, settled=False), record("a-new", days=1))
    )
    assert moved.changes["decisions/alice.json"] == dump_state(kept)
    # the archive holds the very records, in the branch's one JSON form
    assert moved.changes["archive/2026-10/alice.json"] == dump_state(
        DecisionsFile(member="alice", records=(record("a-oct", days=40),))
    )
    index = IndexFile("2026-09", NOW - RECENT, frozenset({"a-old", "b-old"}))
    assert moved.changes["index/2026-09.json"] == index.to_bytes()
    after = {**old_layout(), **{p: d for p, d in moved.changes.items() if d is not None}}
    del after["decisions/bob.json"]
    state = parse_state(after, "new")
    assert state.records() == before.records()
    assert state.decided_hashes() == before.decided_hashes()
    assert [r.hash for r in state.live_records()] == ["a-open", "a-new"]
    assert [r.hash for r in state.open_records()] == ["a-open"]


def test_compaction_adds_to_an_archive_month_already_there_and_changes_nothing_when_nothing_aged() -> None:
    first = compact(old_layout(), NOW - RECENT, lambda paths: {})
    branch = {p: d for p, d in {**old_layout(), **first.changes}.items() if d is not None}
    later = {
        **branch,
        "decisions/alice.json": dump_state(
            DecisionsFile(member="alice", records=(record("a-sep", days=69),))
        ),
    }

    moved = compact(later, NOW - RECENT, lambda paths: {p: branch[p] for p in paths if p in branch})

    assert moved.changes["archive/2026-09/alice.json"] == dump_state(
        DecisionsFile(member="alice", records=(record("a-old", days=70), record("a-sep", days=69)))
    )
    index = moved.changes["index/2026-09.json"]
    assert index is not None and b'"a-sep"' in index and b'"b-old"' in index
    assert moved.changes["decisions/alice.json"] is None
    settled = {p: d for p, d in {**later, **moved.changes}.items() if d is not None}
    assert compact(settled, NOW - RECENT, lambda paths: {}).changes == {}


def test_an_unreadable_decisions_file_is_left_for_the_reader_to_report() -> None:
    files = {**old_layout(), "decisions/carol.json": b"not json"}
    moved = compact(files, NOW - RECENT, lambda paths: {})
    assert "decisions/carol.json" not in moved.changes
    with pytest.raises(StateFileError, match=r"decisions/carol.json is not valid JSON"):
        parse_state(files, "tip")


# --- readers -----------------------------------------------------------------------------------------


def archived_state() -> tuple[StateSnapshot, list[str]]:
    """A migrated state whose archive records which months were read."""
    moved = compact(old_layout(), NOW - RECENT, lambda paths: {})
    files = {p: d for p, d in {**old_layout(), **moved.changes}.items() if d is not None}
    held = {p: d for p, d in files.items() if p.startswith("archive/")}
    live = {p: d for p, d in files.items() if not p.startswith("archive/")}
    reads: list[str] = []

    def load(month: str, member: str | None) -> dict[str, bytes]:
        reads.append(f"{month}/{member or '*'}")
        prefix = f"archive/{month}/"
        return {
            p: d
            for p, d in held.items()
            if p.startswith(prefix) and (member is None or p.endswith(f"/{member}.json"))
        }

    return parse_state(live, "tip", archive=Archive(("2026-09", "2026-10"), load)), reads


def test_a_window_after_the_archive_reads_no_archive_and_an_older_one_only_its_months() -> None:
    state, reads = archived_state()

    assert [r.hash for r in state.records_since(NOW - timedelta(hours=26))] == ["a-open", "a-new"]
    assert reads == []
    assert [r.hash for r in state.records_since(NOW - timedelta(days=38))] == ["a-open", "b-oct", "a-new"]
    assert reads == ["2026-10/*"]
    assert "a-old" in state.decided_hashes() and "b-oct" in state.decided_hashes()
    assert reads == ["2026-10/*"]


def test_a_member_s_archived_decision_is_found_by_its_hash_reading_one_file() -> None:
    state, reads = archived_state()
    found = state.decisions_for({"a-oct", "a-new", "unknown"}, "alice")
    assert sorted(found) == ["a-new", "a-oct"]
    assert found["a-oct"].title == "Rule a-oct"
    assert reads == ["2026-10/alice"]


def test_concurrent_writes_merge_index_and_archive_files_by_hash() -> None:
    ours = IndexFile("2026-09", NOW - timedelta(days=3), frozenset({"x"}))
    tip = IndexFile("2026-09", NOW - RECENT, frozenset({"a-old"}))
    archive_ours = dump_state(DecisionsFile(member="alice", records=(record("x", days=80),)))
    archive_tip = dump_state(DecisionsFile(member="alice", records=(record("a-old", days=70),)))
    merged = merge_state_files(
        {"index/2026-09.json": tip.to_bytes(), "archive/2026-09/alice.json": archive_tip},
        {"index/2026-09.json": ours.to_bytes(), "archive/2026-09/alice.json": archive_ours},
    )
    assert (
        merged["index/2026-09.json"]
        == IndexFile("2026-09", NOW - RECENT, frozenset({"x", "a-old"})).to_bytes()
    )
    both = DecisionsFile(member="alice", records=(record("x", days=80), record("a-old", days=70)))
    assert merged["archive/2026-09/alice.json"] == dump_state(both)


# --- migration on a real origin ----------------------------------------------------------------------


def test_the_first_claim_migrates_an_old_branch_in_place_and_every_reader_sees_the_same_records(
    origin: Path,
) -> None:
    seed(origin, old_layout())
    before = parse_state(old_layout(), "old")

    taken = take_claim(new_clone(origin, "run"), claim(), live=lambda other: True, **WHERE)

    assert isinstance(taken, Taken)
    files = tree(origin)
    assert "decisions/bob.json" not in files and "archive/2026-09/bob.json" in files
    assert sorted(p for p in files if p.startswith("index/")) == ["index/2026-09.json", "index/2026-10.json"]
    assert [r.hash for r in taken.state.live_records()] == ["a-open", "a-new"]
    assert taken.state.decided_hashes() == before.decided_hashes()
    state = read_state(new_clone(origin, "reader"))
    assert state.records() == before.records()
    assert [r.hash for r in state.records_since(NOW - timedelta(days=45))] == [
        "a-open",
        "a-oct",
        "b-oct",
        "a-new",
    ]
    subject = git(origin, "log", "-1", "--format=%s", "homeostat/state")
    assert subject == "homeostat: claim 20261129T060000-aaaaaa, archive 4 settled decisions [skip ci]"


def test_a_migration_whose_push_never_lands_leaves_the_old_layout_for_the_next_run(origin: Path) -> None:
    seed(origin, old_layout())
    install_hook(origin, "pre-receive", MOVE_BRANCH_UNDER_PUSH)  # killed or beaten each time
    with pytest.raises(StateWriteError):
        take_claim(
            new_clone(origin, "killed"), claim(), live=lambda other: True, pause=lambda s: None, **WHERE
        )
    (origin / "hooks" / "pre-receive").unlink()
    assert not any(path.startswith(("archive/", "index/")) for path in tree(origin))

    taken = take_claim(
        new_clone(origin, "next"), claim("20261129T070000-bbbbbb"), live=lambda c: False, **WHERE
    )

    assert isinstance(taken, Taken)
    assert read_state(new_clone(origin, "reader")).records() == parse_state(old_layout(), "old").records()


def test_two_runs_migrating_at_once_leave_each_record_once(origin: Path) -> None:
    seed(origin, old_layout())
    install_hook(origin, "pre-receive", "sleep 0.3\n")  # widen the window so the pushes overlap
    clones = {name: new_clone(origin, name) for name in ("a", "b")}
    start = threading.Barrier(2)
    outcomes: dict[str, object] = {}

    def run(name: str) -> None:
        start.wait()
        mine = claim(f"run-{name}")
        outcomes[name] = take_claim(
            clones[name], mine, live=lambda other: True, pause=lambda s: None, **WHERE
        )

    threads = [threading.Thread(target=run, args=(name,)) for name in clones]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(type(outcome).__name__ for outcome in outcomes.values()) == ["Held", "Taken"]
    state = read_state(new_clone(origin, "reader"))
    assert state.records() == parse_state(old_layout(), "old").records()
    assert sum(len(file.records) for file in state.decisions.values()) == 2


def test_a_run_racing_an_old_homeostat_keeps_both_writes(origin: Path) -> None:
    """An old Homeostat (a pinned action somewhere) writes decisions/ on the migrated branch: its record
    merges into the live file, the archived ones stay archived, and the next claim archives it in turn."""
    seed(origin, old_layout())
    assert isinstance(take_claim(new_clone(origin, "run"), claim(), live=lambda c: True, **WHERE), Taken)
    late = DecisionsFile(member="bob", records=(record("b-late", "bob", days=3),))
    write_state(new_clone(origin, "old-homeostat"), {"decisions/bob.json": dump_state(late)})

    later = take_claim(
        new_clone(origin, "next"),
        claim("20261130T060000-cccccc", NOW + timedelta(days=1)),
        live=lambda c: False,
        **WHERE,
    )

    assert isinstance(later, Taken) and not isinstance(later, Held)
    files = tree(origin)
    assert "decisions/bob.json" not in files and b'"b-late"' in files["archive/2026-11/bob.json"]
    assert "b-late" in read_state(new_clone(origin, "reader")).decided_hashes()


# --- index files as earlier versions wrote them ------------------------------------------------------

# `index/2026-09.json` byte for byte as the version before the compact set of hashes wrote it
EARLIER_INDEX = b"""{
  "archivedBefore": "2026-11-27T06:00:00Z",
  "hashes": [
    "0f3a9c2b7d1e4f60",
    "a-old",
    "b-old",
    "ffee00112233aabb"
  ],
  "month": "2026-09",
  "version": 1
}
"""


def test_an_index_an_earlier_version_wrote_reads_the_same_and_writes_back_byte_for_byte() -> None:
    index = parse_index("index/2026-09.json", EARLIER_INDEX)

    assert isinstance(index, IndexFile)
    assert index.to_bytes() == EARLIER_INDEX
    assert sorted(index.hashes) == ["0f3a9c2b7d1e4f60", "a-old", "b-old", "ffee00112233aabb"]
    decided = parse_state({**old_layout(), "index/2026-09.json": EARLIER_INDEX}, "tip").decided_hashes()
    for known in ("0f3a9c2b7d1e4f60", "ffee00112233aabb", "a-old", "a-new", "b-oct"):
        assert known in decided
    for unknown in ("0f3a9c2b7d1e4f61", "FFEE00112233AABB", "ffee00112233aab", "a-older"):
        assert unknown not in decided
    merged = index.merged(IndexFile("2026-09", NOW, frozenset({"1111111111111111", "a-old"})))
    assert merged.to_bytes() == EARLIER_INDEX.replace(
        b'    "a-old",', b'    "1111111111111111",\n    "a-old",'
    ).replace(b"2026-11-27T06:00:00Z", b"2026-11-29T06:00:00Z")


@pytest.mark.parametrize("hashes", ['[""]', '["a b"]', '["ffee00112233aabb", " x"]', "[3]", '"ab"', "null"])
def test_an_index_whose_hashes_are_not_hashes_is_named(hashes: str) -> None:
    data = EARLIER_INDEX.replace(
        EARLIER_INDEX[EARLIER_INDEX.index(b"[") : EARLIER_INDEX.index(b"]") + 1], hashes.encode()
    )
    assert parse_index("index/2026-09.json", data) == "hashes: not a list of content hashes"
    with pytest.raises(StateFileError, match=r"index/2026-09.json: hashes: not a list of content hashes"):
        parse_state({"index/2026-09.json": data}, "tip")
