"""The checkout's branch and recent commits as the MCP server reads them (`adapters.git.branch_task`), in
real git checkouts: what a session start reads, kept while HEAD is unchanged, re-read when it moves."""

from __future__ import annotations

from pathlib import Path

from gitfixtures import commit, git

from homeostat.adapters.cache.corpus_cache import change_from_git
from homeostat.adapters.git.branch_task import NOTHING, BranchReader, BranchTask


def checkout(tmp_path: Path, branch: str = "main") -> Path:
    work = tmp_path / "code"
    work.mkdir()
    git(work, "init", "--quiet", f"--initial-branch={branch}")
    return work


def test_the_branch_and_last_three_subjects_as_the_session_start_reads_them(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    commit(work, {"a.py": "1\n"}, "Merge pull request #1 from upstream/main")
    git(work, "switch", "--quiet", "-c", "feature/PAY-12-refund-retries")
    for n, subject in enumerate(("Add the refund client", "Retry refunds with backoff", "Log refund ids")):
        commit(work, {"src/refunds.py": f"{n}\n"}, f"{subject}\n\nDetails in the ticket.")
    found = BranchReader().read(work)
    change = change_from_git(work)
    assert found == BranchTask(change.branch, change.commits)
    assert found.branch == "feature/PAY-12-refund-retries"
    assert found.commits == (
        "Log refund ids\nDetails in the ticket.",
        "Retry refunds with backoff\nDetails in the ticket.",
        "Add the refund client\nDetails in the ticket.",
    )


def test_kept_while_head_stays_and_read_again_after_a_commit_an_amend_a_switch_or_a_pack(
    tmp_path: Path,
) -> None:
    work = checkout(tmp_path)
    commit(work, {"a.py": "1\n"}, "First")
    reader = BranchReader()
    first = reader.read(work)
    assert reader.read(work) is first  # nothing moved: the words held, git not asked again
    (work / "a.py").write_text("an uncommitted edit\n", encoding="utf-8")
    assert reader.read(work) is first
    commit(work, {"a.py": "2\n"}, "Second")
    assert reader.read(work).commits == ("Second", "First")
    git(work, "commit", "--quiet", "--amend", "-m", "Second, reworded")
    assert reader.read(work).commits == ("Second, reworded", "First")
    git(work, "switch", "--quiet", "-c", "topic")
    assert reader.read(work).branch == "topic"
    git(work, "pack-refs", "--all")  # the branch's ref now lives in packed-refs only
    packed = reader.read(work)
    commit(work, {"a.py": "3\n"}, "Third")
    assert reader.read(work) != packed and reader.read(work).commits[0] == "Third"


def test_a_detached_head_has_no_branch_but_its_commits_count(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    commit(work, {"a.py": "1\n"}, "Use os.path.commonpath")
    git(work, "switch", "--quiet", "--detach")
    assert BranchReader().read(work) == BranchTask("", ("Use os.path.commonpath",))


def test_a_branch_with_no_commit_yet_and_a_folder_with_no_git(tmp_path: Path) -> None:
    work = checkout(tmp_path, "first-steps")
    reader = BranchReader()
    assert reader.read(work) == BranchTask("first-steps", ())
    commit(work, {"a.py": "1\n"}, "Start")
    assert reader.read(work) == BranchTask("first-steps", ("Start",))
    plain = tmp_path / "plain"
    plain.mkdir()
    assert BranchReader().read(plain) == NOTHING


def test_a_linked_worktree_reads_its_own_branch_and_commits(tmp_path: Path) -> None:
    work = checkout(tmp_path)
    commit(work, {"a.py": "1\n"}, "On main")
    linked = tmp_path / "linked"
    git(work, "worktree", "add", "--quiet", "-b", "side-quest", str(linked))
    reader = BranchReader()
    assert reader.read(linked) == BranchTask("side-quest", ("On main",))
    commit(linked, {"b.py": "1\n"}, "On the side")
    assert reader.read(linked) == BranchTask("side-quest", ("On the side", "On main"))
    assert reader.read(work) == BranchTask("main", ("On main",))


def test_refs_kept_in_a_reftable_are_asked_of_git_on_every_read(tmp_path: Path) -> None:
    """A reftable repository's HEAD file names no real branch (`refs/heads/.invalid`) and its ref
    files never change, so nothing can be stamped: the reader asks git each time and holds nothing.
    (Git 2.39 cannot make one; a `reftable` folder beside ordinary refs stands in, which git ignores.)"""
    work = checkout(tmp_path)
    commit(work, {"a.py": "1\n"}, "First")
    git(work, "switch", "--quiet", "-c", "tables")
    (work / ".git" / "reftable").mkdir()
    reader = BranchReader()
    assert reader.read(work) == BranchTask("tables", ("First",))
    assert reader.read(work) is not reader.read(work)
    commit(work, {"a.py": "2\n"}, "Second")
    assert reader.read(work) == BranchTask("tables", ("Second", "First"))
