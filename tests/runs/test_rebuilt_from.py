"""Which merged commit the daily run takes for review merge's rebuild of an approved head
(homeostat.runs.review.rebuilt_from), over real git: only the very rebuild onto a commit of the base."""

from __future__ import annotations

from pathlib import Path

from gitfixtures import make_bare

from homeostat.adapters.git.plumbing import Git
from homeostat.runs.review import rebuild_on, rebuilt_from

NOTES = "knowledge/notes.md"


def repo(tmp_path: Path) -> tuple[Git, str, str, str]:
    """A base that moved after the PR's branch left it: (git, the fork, the base's tip, the PR's head)."""
    git = Git(make_bare(tmp_path / "kb.git"))
    fork = git.commit_files(None, {NOTES: b"# Notes\n\nOne.\n"}, "start")
    base_tip = git.commit_files(fork, {"knowledge/other.md": b"# Other\n"}, "base moved")
    head = git.commit_files(fork, {NOTES: b"# Notes\n\nOne.\n\nTwo.\n"}, "the PR")
    return git, fork, base_tip, head


def rebuilt(git: Git, onto: str, head: str, extra: dict[str, bytes | None] | None = None) -> str:
    built = rebuild_on(git, git.run("merge-base", head, onto).stdout.decode().strip(), onto, head)
    changes = {p: None if t is None else t.encode() for p, t in built.files.items()} | (extra or {})
    return git.commit_files(onto, changes, "rebuilt", parents=[onto, head])


def test_the_rebuild_of_the_approved_head_on_the_base_is_recognised(tmp_path: Path) -> None:
    git, _, base_tip, head = repo(tmp_path)
    assert rebuilt_from(git, rebuilt(git, base_tip, head), base_tip) == head


def test_a_rebuild_carrying_anything_more_is_not(tmp_path: Path) -> None:
    git, _, base_tip, head = repo(tmp_path)
    forged = rebuilt(git, base_tip, head, {"knowledge/more.md": b"# More\n"})
    assert rebuilt_from(git, forged, base_tip) is None


def test_a_rebuild_onto_a_commit_off_the_base_is_not(tmp_path: Path) -> None:
    """Its changes from the base would merge with it, unread."""
    git, _, base_tip, head = repo(tmp_path)
    off = git.commit_files(base_tip, {"knowledge/more.md": b"# More\n"}, "not on the base")
    assert rebuilt_from(git, rebuilt(git, off, head), base_tip) is None


def test_a_commit_with_one_parent_is_no_rebuild(tmp_path: Path) -> None:
    git, _, base_tip, head = repo(tmp_path)
    assert rebuilt_from(git, head, base_tip) is None
