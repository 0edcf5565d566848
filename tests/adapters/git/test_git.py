"""Git plumbing against real repositories: a bare origin and clones of it under tmp_path."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from gitfixtures import (
    MOVE_BRANCH_UNDER_PUSH,
    clone,
    commit,
    git,
    install_hook,
    make_bare,
    make_origin_and_clone,
    snapshot,
)

from homeostat.adapters.git.plumbing import DEFAULT_IDENTITY, Git, PushResult, redact
from homeostat.core.format.readable import Refused
from homeostat.errors import GitError

TOKEN = "ghp_" + "A1b2" * 9


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    return make_origin_and_clone(
        tmp_path, {"README.md": "KB\n", "kb/a.md": "rule a\n", "kb/deep/b.md": "rule b\n", "old.txt": "x\n"}
    )


def tree_of(repo: Path, commit_sha: str) -> dict[str, str]:
    listing = git(repo, "ls-tree", "-r", "--name-only", "-z", commit_sha).split("\0")
    return {path: git(repo, "show", f"{commit_sha}:{path}") for path in listing if path}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# commit_files


def test_commit_files_in_a_clone_leaves_head_index_and_work_tree_alone(repos: tuple[Path, Path]) -> None:
    _, work = repos
    (work / "kb" / "a.md").write_text("uncommitted edit\n")
    (work / "scratch.txt").write_text("untracked\n")
    git(work, "add", "scratch.txt")
    before = snapshot(work)

    sha = Git(work).commit_files(
        git(work, "rev-parse", "HEAD"),
        {"kb/new/deeper/c.md": b"rule c\n", "old.txt": None, "kb/a.md": b"rule a, rewritten\n"},
        "plumbing commit",
    )

    assert snapshot(work) == before
    assert tree_of(work, sha) == {
        "README.md": "KB",
        "kb/a.md": "rule a, rewritten",
        "kb/deep/b.md": "rule b",
        "kb/new/deeper/c.md": "rule c",
    }
    assert git(work, "rev-parse", f"{sha}^") == before["head"]
    assert git(work, "log", "-1", "--format=%s", sha) == "plumbing commit"


def test_commit_files_in_a_bare_origin_moves_no_ref(repos: tuple[Path, Path]) -> None:
    origin, _ = repos
    refs_before = git(origin, "show-ref")
    sha = Git(origin).commit_files("main", {"kb/deep/b.md": None}, "drop b")
    assert git(origin, "show-ref") == refs_before
    assert sorted(tree_of(origin, sha)) == ["README.md", "kb/a.md", "old.txt"]


def test_orphan_commit_has_no_parent_and_only_the_given_files(repos: tuple[Path, Path]) -> None:
    _, work = repos
    sha = Git(work).commit_files(
        None, {"decisions/alice.json": b"{}\n", "runs/2026-11-29.json": b"[]\n"}, "first"
    )
    assert git(work, "rev-list", "--parents", "-n", "1", sha) == sha
    assert tree_of(work, sha) == {"decisions/alice.json": "{}", "runs/2026-11-29.json": "[]"}


def test_author_and_explicit_parents(repos: tuple[Path, Path]) -> None:
    _, work = repos
    repo = Git(work)
    head = git(work, "rev-parse", "HEAD")
    side = repo.commit_files(head, {"side.txt": b"s\n"}, "side")
    merge = repo.commit_files(
        head,
        {"both.txt": b"b\n"},
        "merge",
        author=("Alice Example", "alice@example.invalid"),
        parents=[head, side],
    )
    assert git(work, "rev-list", "--parents", "-n", "1", merge).split() == [merge, head, side]
    assert git(work, "log", "-1", "--format=%an <%ae> / %cn <%ce>", merge) == (
        f"Alice Example <alice@example.invalid> / {DEFAULT_IDENTITY[0]} <{DEFAULT_IDENTITY[1]}>"
    )


def test_deleting_a_file_and_adding_a_folder_of_the_same_name_in_one_commit(repos: tuple[Path, Path]) -> None:
    _, work = repos
    sha = Git(work).commit_files("HEAD", {"old.txt": None, "old.txt/inside.md": b"now a folder\n"}, "swap")
    assert tree_of(work, sha)["old.txt/inside.md"] == "now a folder"


def test_a_file_clashing_with_a_folder_is_refused_not_dropped(repos: tuple[Path, Path]) -> None:
    _, work = repos
    with pytest.raises(GitError, match=r"'old.txt/inside.md' appears as both a file and as a directory$"):
        Git(work).commit_files("HEAD", {"old.txt/inside.md": b"x\n"}, "clash")


@pytest.mark.parametrize("path", ["", "/abs.md", "a//b.md", "a/../b.md", "./a.md", ".git/config", "dir/"])
def test_unsafe_paths_are_refused(repos: tuple[Path, Path], path: str) -> None:
    _, work = repos
    with pytest.raises(GitError) as error:
        Git(work).commit_files("HEAD", {path: b"x"}, "bad")
    assert str(error.value) == (
        f"cannot commit the path {path!r}: use a relative file path without '.', '..' or '.git'"
    )


def test_content_is_stored_byte_for_byte(repos: tuple[Path, Path]) -> None:
    _, work = repos
    (work / ".gitattributes").write_text("* text=auto eol=crlf\n")
    repo = Git(work)
    one = repo.commit_files("HEAD", {"crlf.txt": b"a\r\nb\n"}, "single blob")
    many = repo.commit_files("HEAD", {"crlf.txt": b"a\r\nb\n", "lf.txt": b"c\n"}, "several blobs")
    assert repo.read_file(one, "crlf.txt") == b"a\r\nb\n"
    assert repo.read_files(many, "") | {} == {**repo.read_files(many), "crlf.txt": b"a\r\nb\n"}
    assert repo.read_file(many, "lf.txt") == b"c\n"


# Reading


def test_read_files_round_trips_binary_and_non_ascii_names(repos: tuple[Path, Path]) -> None:
    _, work = repos
    files = {
        "kb/ünïcödé/規則.md": "règle\n".encode(),
        "kb/with space/and\ttab.bin": bytes(range(256)),
        "kb/empty.md": b"",
        "kb/nul.bin": b"\x00\n\x00",
        "top.txt": b"top\n",
    }
    repo = Git(work)
    sha = repo.commit_files(None, files, "files")
    assert repo.read_files(sha) == files
    assert repo.read_files(sha, "kb") == {
        path.removeprefix("kb/"): data for path, data in files.items() if path != "top.txt"
    }
    assert repo.read_files(sha, "kb/ünïcödé/") == {"規則.md": "règle\n".encode()}
    assert repo.read_files(sha, "missing") == {}


def test_read_files_leaves_out_symlinks(repos: tuple[Path, Path]) -> None:
    _, work = repos
    (work / "link.md").symlink_to("README.md")
    sha = commit(work, {})
    assert "link.md" not in Git(work).read_files(sha)
    assert "README.md" in Git(work).read_files(sha)


def test_a_link_that_replaces_a_file_is_a_refusal_never_its_target(repos: tuple[Path, Path]) -> None:
    """The daily run reads a commit as the last one plus what changed (`changed_files`): a file
    turned into a link comes back refused (empty, and saying what it is), not as removed."""
    _, work = repos
    repo = Git(work)
    before = repo.rev_parse("HEAD")
    (work / "kb/a.md").unlink()
    (work / "kb/a.md").symlink_to("/etc/hostname")
    after = commit(work, {})
    assert before is not None
    changed = repo.changed_files(before, after, "kb")
    assert isinstance(changed["a.md"], Refused) and changed["a.md"].what == "a symbolic link"
    assert changed["a.md"] == b""
    [entry] = [e for e in repo.tree_entries(after, "kb", sizes=True) if e.path == "a.md"]
    assert (entry.mode, entry.regular, entry.what) == ("120000", False, "a symbolic link")


def test_read_files_on_a_missing_ref_is_an_error(repos: tuple[Path, Path]) -> None:
    _, work = repos
    with pytest.raises(GitError, match=r"^`git ls-tree -r -z --full-tree no-such-ref` failed: fatal: "):
        Git(work).read_files("no-such-ref")


def test_read_file_and_tree_hash(repos: tuple[Path, Path]) -> None:
    _, work = repos
    repo = Git(work)
    assert repo.read_file("HEAD", "kb/deep/b.md") == b"rule b\n"
    assert repo.read_file("HEAD", "kb/nope.md") is None
    assert repo.read_file("no-such-ref", "kb/a.md") is None
    assert repo.read_file("HEAD", "kb") is None
    assert repo.tree_hash("HEAD") == git(work, "rev-parse", "HEAD^{tree}")
    assert repo.tree_hash("HEAD", "kb/") == git(work, "rev-parse", "HEAD:kb")
    assert repo.tree_hash("HEAD", "kb/a.md") is None
    assert repo.tree_hash("HEAD", "nope") is None
    assert repo.tree_hash("no-such-ref") is None


def test_rev_parse_and_remote_url(repos: tuple[Path, Path]) -> None:
    origin, work = repos
    repo = Git(work)
    assert repo.rev_parse("HEAD") == git(work, "rev-parse", "HEAD")
    assert repo.rev_parse("origin/main") == git(origin, "rev-parse", "main")
    assert repo.rev_parse("no-such-ref") is None
    assert repo.rev_parse("--all") is None
    assert repo.remote_url() == str(origin)
    assert repo.remote_url("upstream") is None
    assert Git(origin).remote_url() is None


def test_git_works_from_a_linked_worktree(repos: tuple[Path, Path], tmp_path: Path) -> None:
    _, work = repos
    git(work, "worktree", "add", "--quiet", "--detach", str(tmp_path / "linked"), "HEAD")
    assert Git(tmp_path / "linked").read_file("HEAD", "kb/a.md") == b"rule a\n"


# Pushing


def test_push_new_branch_fast_forward_and_rejection_as_a_value(repos: tuple[Path, Path]) -> None:
    origin, work = repos
    repo = Git(work)
    head = git(work, "rev-parse", "HEAD")
    first = repo.commit_files(head, {"x.md": b"1\n"}, "one")
    assert repo.push("origin", first, "homeostat/state").ok
    second = repo.commit_files(first, {"x.md": b"2\n"}, "two")
    assert repo.push("origin", second, "homeostat/state").ok
    sideways = repo.commit_files(first, {"x.md": b"other\n"}, "sideways")

    assert repo.push("origin", sideways, "homeostat/state") == PushResult(
        ok=False, rejected=True, message="[rejected] (non-fast-forward)"
    )
    assert git(origin, "rev-parse", "homeostat/state") == second


def test_push_of_a_commit_built_on_a_tip_it_never_saw_is_rejected(
    repos: tuple[Path, Path], tmp_path: Path
) -> None:
    origin, work = repos
    other = clone(origin, tmp_path / "other")
    commit(other, {"theirs.md": "t\n"}, push=True)
    mine = Git(work).commit_files("HEAD", {"mine.md": b"m\n"}, "mine")
    result = Git(work).push("origin", mine, "main")
    assert (result.ok, result.rejected, result.message) == (False, True, "[rejected] (fetch first)")


def test_push_refused_because_the_branch_moved_during_the_push(repos: tuple[Path, Path]) -> None:
    origin, work = repos
    install_hook(origin, "pre-receive", MOVE_BRANCH_UNDER_PUSH)
    mine = Git(work).commit_files("HEAD", {"mine.md": b"m\n"}, "mine")
    result = Git(work).push("origin", mine, "main")
    assert (result.ok, result.rejected) == (False, True)
    assert "failed to update ref" in result.message


def test_force_and_lease(repos: tuple[Path, Path]) -> None:
    origin, work = repos
    repo = Git(work)
    head = git(work, "rev-parse", "HEAD")
    a = repo.commit_files(head, {"c.md": b"a\n"}, "a")
    b = repo.commit_files(head, {"c.md": b"b\n"}, "b")
    assert repo.push("origin", a, "candidates/alice", expect="").ok
    assert repo.push("origin", b, "candidates/alice", expect="").rejected
    stale = repo.push("origin", b, "candidates/alice", expect=head)
    assert (stale.rejected, stale.message) == (True, "[rejected] (stale info)")
    assert repo.push("origin", b, "candidates/alice", expect=a).ok
    assert repo.push("origin", a, "candidates/alice", force=True).ok
    assert git(origin, "rev-parse", "candidates/alice") == a


def test_a_hook_refusal_is_an_error_not_a_rejection(repos: tuple[Path, Path]) -> None:
    origin, work = repos
    install_hook(origin, "pre-receive", "echo 'protected branch' >&2\nexit 1\n")
    mine = Git(work).commit_files("HEAD", {"mine.md": b"m\n"}, "mine")
    with pytest.raises(GitError) as error:
        Git(work).push("origin", mine, "main")
    assert str(error.value) == (
        f"`git push origin {mine}:refs/heads/main` was refused: [remote rejected] (pre-receive hook declined)"
    )


def test_errors_never_show_credentials(repos: tuple[Path, Path]) -> None:
    _, work = repos
    url = f"http://x-access-token:{TOKEN}@127.0.0.1:{closed_port()}/team/kb.git"
    git(work, "remote", "add", "leaky", url)
    repo = Git(work)
    head = git(work, "rev-parse", "HEAD")
    with pytest.raises(GitError) as by_url:
        repo.push(url, head, "main")
    with pytest.raises(GitError) as by_name:
        repo.fetch("leaky", ["+refs/heads/main:refs/remotes/leaky/main"])
    with pytest.raises(GitError) as listing:
        repo.ls_remote(url)
    for error in (by_url, by_name, listing):
        assert TOKEN not in str(error.value)
        assert "x-access-token" not in str(error.value)
    assert str(by_url.value).startswith(
        f"`git push http://127.0.0.1:{url.rsplit(':', 1)[1].split('/')[0]}/team/kb.git "
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("https://user:pass@host/x.git", "https://host/x.git"),
        ("fatal: 'ssh://git@host:22/x' and http://tok@h/y", "fatal: 'ssh://host:22/x' and http://h/y"),
        ("git@github.com:team/kb.git", "git@github.com:team/kb.git"),
        ("no url here", "no url here"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


# Fetching and listing


def test_fetch_tolerates_a_missing_branch_and_still_fetches_the_rest(
    repos: tuple[Path, Path], tmp_path: Path
) -> None:
    origin, work = repos
    other = clone(origin, tmp_path / "other")
    new_main = commit(other, {"n.md": "n\n"}, push=True)
    repo = Git(work)
    repo.run("update-ref", "refs/remotes/origin/homeostat/state", git(work, "rev-parse", "HEAD"))

    fetched = repo.fetch(
        "origin",
        [
            "+refs/heads/main:refs/remotes/origin/main",
            "+refs/heads/homeostat/state:refs/remotes/origin/homeostat/state",
        ],
    )

    assert fetched is False
    assert repo.rev_parse("refs/remotes/origin/main") == new_main
    assert repo.rev_parse("refs/remotes/origin/homeostat/state") is None
    assert repo.fetch("origin", ["+refs/heads/main:refs/remotes/origin/main"]) is True


def test_fetch_from_a_missing_remote_is_an_error(repos: tuple[Path, Path]) -> None:
    _, work = repos
    with pytest.raises(GitError) as error:
        Git(work).fetch("nowhere", ["+refs/heads/main:refs/remotes/nowhere/main"])
    assert str(error.value) == (
        "`git fetch --no-tags --no-write-fetch-head --quiet nowhere "
        "+refs/heads/main:refs/remotes/nowhere/main` failed: "
        "fatal: 'nowhere' does not appear to be a git repository"
    )


def test_ls_remote_and_delete_remote_branch(repos: tuple[Path, Path]) -> None:
    origin, work = repos
    repo = Git(work)
    head = git(work, "rev-parse", "HEAD")
    for member in ("alice", "bob"):
        assert repo.push("origin", head, f"candidates/{member}").ok
    assert repo.ls_remote("origin", "refs/heads/candidates/*") == {
        "refs/heads/candidates/alice": head,
        "refs/heads/candidates/bob": head,
    }
    assert set(repo.ls_remote("origin")) == {
        "refs/heads/main",
        "refs/heads/candidates/alice",
        "refs/heads/candidates/bob",
    }
    assert repo.delete_remote_branch("origin", "candidates/alice") is True
    assert repo.delete_remote_branch("origin", "candidates/alice") is False
    assert set(repo.ls_remote("origin")) == {"refs/heads/main", "refs/heads/candidates/bob"}


def test_ls_remote_of_an_empty_origin(tmp_path: Path) -> None:
    origin = make_bare(tmp_path / "empty.git")
    assert Git(origin).ls_remote(str(origin)) == {}


def test_a_missing_repository_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(GitError) as error:
        Git(tmp_path / "nowhere").rev_parse("HEAD")
    assert (
        str(error.value)
        == f"{tmp_path / 'nowhere'} is not a git repository: clone the KB there or pass its path"
    )
