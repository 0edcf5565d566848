"""Git plumbing over the real `git` binary that never touches a working tree.

Homeostat reads KBs and writes commits straight to refs (the state branch, candidate branches, daily
PR branches), so a developer's checkout, index and HEAD are never disturbed, even while they work in
it. Every call pins the few settings that change plumbing output or behaviour with `-c`, runs under
`LC_ALL=C` so error text can be matched, never prompts, and never runs the repository's hooks.
Credentials (`user:pass@` in a URL) are stripped from anything this module puts in an error.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from homeostat.adapters.git.env import git_env
from homeostat.core.format.readable import SYMLINK, Refused
from homeostat.errors import GitError

DEFAULT_IDENTITY = ("Homeostat", "homeostat@users.noreply.invalid")

_PINNED_CONFIG = (
    "core.quotePath=false",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "color.ui=false",
    "commit.gpgSign=false",
    "i18n.commitEncoding=UTF-8",
    "gc.auto=0",
    "maintenance.auto=false",
    "fetch.recurseSubmodules=false",
    "push.recurseSubmodules=no",
)
_CREDENTIALS = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]+@")
_REJECTED_REASONS = ("non-fast-forward", "fetch first", "stale info")
# A concurrent push that won the server's ref lock shows up as a remote rejection with these words.
_RACE_REASONS = ("failed to update ref", "cannot lock ref", "incorrect old value", "failed to lock")
_MISSING_REF = re.compile(r"couldn't find remote ref (\S+)")
_REGULAR_FILE_MODES = ("100644", "100755")
# What a tree entry of another mode is, for the reader that refuses it (`core.format.readable`).
_NOT_REGULAR = {"120000": SYMLINK, "160000": "a git submodule"}
_TREE_MODE = "040000"
# What `mktree` is told each entry is, by its mode (any other mode is a blob).
_KIND = {_TREE_MODE: "tree", "160000": "commit"}


def redact(text: str) -> str:
    """Drop `user:password@` from every URL in the text, so tokens never reach a log or an error."""
    return _CREDENTIALS.sub(r"\g<scheme>", text)


class TreeEntry(NamedTuple):
    """One entry of a git tree listing (`Git.tree_entries`)."""

    path: str
    mode: str  # 100644 and 100755 a file, 120000 a symbolic link, 160000 a submodule
    kind: str  # blob or commit
    sha: str
    size: int | None  # a blob's size, when asked for

    @property
    def regular(self) -> bool:
        return self.kind == "blob" and self.mode in _REGULAR_FILE_MODES

    @property
    def what(self) -> str:
        """What an entry that is not a regular file is."""
        return _NOT_REGULAR.get(self.mode, "not a regular file")


@dataclass(frozen=True)
class PushResult:
    """How a push went: a refusal because the branch moved is an answer the caller acts on."""

    ok: bool
    rejected: bool = False
    message: str = ""


def _first_error_line(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    for line in lines:
        if line.startswith(("fatal:", "error:")):
            return line
    return lines[0] if lines else "no error output"


def _check_path(path: str) -> str:
    parts = path.split("/")
    if not path or any(part in ("", ".", "..", ".git") for part in parts) or "\0" in path:
        raise GitError(
            f"cannot commit the path {path!r}: use a relative file path without '.', '..' or '.git'"
        )
    return path


def _resolve_git_dir(repo_dir: Path) -> Path:
    """A clone's `.git` (a folder, or a `gitdir:` file in a worktree), else the folder itself (bare)."""
    dot_git = repo_dir / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        target = dot_git.read_text(encoding="utf-8").strip().removeprefix("gitdir:").strip()
        return (repo_dir / target).resolve()
    return repo_dir


def _canonical_mode(raw: bytes) -> str:
    """A tree entry's mode as git reads it (`canon_mode`), so an old tree's odd modes are written
    back the way an index would write them."""
    mode = int(raw, 8)
    kind = mode & 0o170000
    if kind == 0o100000:
        return "100755" if mode & 0o100 else "100644"
    return {0o040000: _TREE_MODE, 0o120000: "120000"}.get(kind, "160000")


def _parse_tree(raw: bytes, oid_size: int) -> dict[str, tuple[str, str]]:
    """A tree object's entries: name -> (mode, object id)."""
    entries: dict[str, tuple[str, str]] = {}
    pos = 0
    while pos < len(raw):
        space = raw.index(b" ", pos)
        nul = raw.index(b"\0", space)
        name = raw[space + 1 : nul].decode("utf-8", "surrogateescape")
        entries[name] = (_canonical_mode(raw[pos:space]), raw[nul + 1 : nul + 1 + oid_size].hex())
        pos = nul + 1 + oid_size
    return entries


class _Folders:
    """The folders one commit rewrites (each folder above a changed path) and their entries.

    The rest of the tree is never read: an unchanged subtree keeps its object id. The result is the
    tree a temporary index would give (`read-tree` of the base, `update-index` of the changes,
    `write-tree`): a folder left empty disappears, and a file where the result has a folder (or the
    other way round) is refused rather than one of them dropped."""

    def __init__(self, paths: Sequence[str]) -> None:
        self._entries: dict[str, dict[str, tuple[str, str]]] = {"": {}}
        for path in paths:
            parts = path.split("/")
            for depth in range(1, len(parts)):
                self._entries.setdefault("/".join(parts[:depth]), {})
        self._children: dict[str, list[str]] = {folder: [] for folder in self._entries}
        for folder in self._entries:
            if folder:
                self._children[folder.rpartition("/")[0]].append(folder)
        self._first_added: dict[str, str] = {}  # folder -> the first path written under it
        self._written: dict[str, str | None] = {}  # folder -> its new tree (None: left empty)

    def levels(self) -> list[list[str]]:
        """The folders by depth, the root first."""
        by_depth: dict[int, list[str]] = {}
        for folder in self._entries:
            by_depth.setdefault(folder.count("/") + 1 if folder else 0, []).append(folder)
        return [sorted(by_depth[depth]) for depth in sorted(by_depth)]

    def subtree(self, folder: str) -> str | None:
        """The folder's tree in the base, read from its parent's entries (None: not a folder there)."""
        parent, _, name = folder.rpartition("/")
        entry = self._entries[parent].get(name)
        return entry[1] if entry is not None and entry[0] == _TREE_MODE else None

    def load(self, folder: str, entries: dict[str, tuple[str, str]]) -> None:
        self._entries[folder] = entries

    def apply(self, path: str, blob: str | None) -> None:
        """Write a file (`blob`) or delete one (None; nothing when there is none, or a folder)."""
        folder, _, name = path.rpartition("/")
        entries = self._entries[folder]
        existing = entries.get(name)
        if blob is None:
            if existing is not None and existing[0] != _TREE_MODE:
                del entries[name]
            return
        if existing is not None and existing[0] == _TREE_MODE and path not in self._entries:
            raise _clash(path)  # a folder with no change in it stays a folder
        entries[name] = ("100644", blob)
        parts = path.split("/")
        for depth in range(len(parts)):
            self._first_added.setdefault("/".join(parts[:depth]), path)

    def entries(self, folder: str) -> dict[str, tuple[str, str]]:
        """The folder's entries once its changed subfolders are written."""
        entries = dict(self._entries[folder])
        for child in self._children[folder]:
            name = child.rpartition("/")[2]
            tree, existing = self._written[child], entries.get(name)
            if tree is None:
                if existing is not None and existing[0] == _TREE_MODE:
                    del entries[name]
            elif existing is not None and existing[0] != _TREE_MODE:
                raise _clash(self._first_added.get(child, child))
            else:
                entries[name] = (_TREE_MODE, tree)
        return entries

    def written(self, folder: str, tree: str | None) -> None:
        self._written[folder] = tree

    def root(self) -> str:
        root = self._written[""]
        assert root is not None  # the root is written even when empty
        return root


def _clash(path: str) -> GitError:
    return GitError(f"cannot commit {path!r}: '{path}' appears as both a file and as a directory")


class Git:
    """One repository's object store and refs, driven by `git` plumbing commands."""

    def __init__(self, repo_dir: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> None:
        self.git_dir = _resolve_git_dir(Path(repo_dir).resolve())
        # Set for every command, e.g. origin credentials as GIT_CONFIG_* (homeostat.adapters.git.auth).
        self.env = dict(env or {})

    def run(
        self, *args: str, input: bytes | None = None, env: Mapping[str, str] | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[bytes]:
        """Run one git command on this repository; a failure raises `GitError` unless `check` is off."""
        command = ["git", "--git-dir", str(self.git_dir)]
        for setting in _PINNED_CONFIG:
            command += ["-c", setting]
        command += args
        full_env = git_env(**self.env)
        full_env.update(env or {})
        if not self.git_dir.is_dir():
            raise GitError(f"{self.git_dir} is not a git repository: clone the KB there or pass its path")
        try:
            done = subprocess.run(
                command, input=input, capture_output=True, env=full_env, cwd=self.git_dir, check=False
            )
        except FileNotFoundError:
            raise GitError("git is not installed or not on PATH: install git 2.30 or later") from None
        if check and done.returncode != 0:
            raise self._error(args, done.stderr)
        return done

    @staticmethod
    def _error(args: Sequence[str], stderr: bytes) -> GitError:
        shown = " ".join(args[:6]) + (" …" if len(args) > 6 else "")
        return GitError(redact(f"`git {shown}` failed: {_first_error_line(stderr)}"))

    # Reading

    def rev_parse(self, ref: str) -> str | None:
        """The object a ref or revision names, or None when it does not exist."""
        done = self.run("rev-parse", "--verify", "--quiet", "--end-of-options", ref, check=False)
        return done.stdout.decode().strip() if done.returncode == 0 else None

    def remote_url(self, name: str = "origin") -> str | None:
        """The remote's URL as configured (it may carry credentials: never print it unredacted)."""
        done = self.run("config", "--get", f"remote.{name}.url", check=False)
        return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else None

    def _batch(
        self, names: Iterable[str], *, check_only: bool = False
    ) -> list[tuple[str, str, bytes] | None]:
        """Look objects up in one `cat-file` process: (sha, type, content) for each, None when missing."""
        names = list(names)
        if not names:
            return []
        request = "".join(f"{name}\n" for name in names).encode("utf-8", "surrogateescape")
        mode = "--batch-check" if check_only else "--batch"
        out = self.run("cat-file", mode, "--buffer", input=request).stdout
        found: list[tuple[str, str, bytes] | None] = []
        pos = 0
        for _ in names:
            end = out.index(b"\n", pos)
            header = out[pos:end].split(b" ")
            pos = end + 1
            if len(header) != 3 or header[1] == b"missing":
                found.append(None)
                continue
            size = int(header[2])
            content = b"" if check_only else out[pos : pos + size]
            pos += 0 if check_only else size + 1
            found.append((header[0].decode(), header[1].decode(), content))
        return found

    def tree_entries(
        self, treeish: str, prefix: str = "", *, sizes: bool = False, skip: str = ""
    ) -> list[TreeEntry]:
        """Every entry but folders under `prefix` in a tree-ish (files, links, submodules), each path
        relative to `prefix`; with `sizes`, each blob's size too (`ls-tree -l`). A folder `skip` (a
        path from the root, directly in `prefix`) is left out without being walked at all."""
        folder = prefix.strip("/")
        args = ["ls-tree", "-r", "-z", "--full-tree", *(["-l"] if sizes else []), treeish]
        skipped = skip.strip("/")
        if skipped:
            top = self.run(
                "ls-tree",
                "-z",
                "--name-only",
                "--full-tree",
                treeish,
                *(["--", folder + "/"] if folder else []),
            )
            names = [n.decode("utf-8", "surrogateescape") for n in top.stdout.split(b"\0") if n]
            kept = [name for name in names if name != skipped]
            if not kept:
                return []
            args += ["--", *kept]
        elif folder:
            args += ["--", folder + "/"]
        entries: list[TreeEntry] = []
        for entry in self.run(*args, env={"GIT_LITERAL_PATHSPECS": "1"}).stdout.split(b"\0"):
            if not entry:
                continue
            meta, _, raw_path = entry.partition(b"\t")
            mode, kind, sha, *size = meta.decode().split()
            path = raw_path.decode("utf-8", "surrogateescape")
            length = int(size[0]) if size and size[0].isdigit() else None
            entries.append(TreeEntry(path[len(folder) + 1 :] if folder else path, mode, kind, sha, length))
        return entries

    def blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        """The content of each blob, by its id (one `cat-file` process); a missing one is left out."""
        unique = list(dict.fromkeys(shas))  # in the order asked: a tree's order keeps delta chains warm
        return {sha: found[2] for sha, found in zip(unique, self._batch(unique), strict=True) if found}

    def read_files(self, treeish: str, prefix: str = "", *, skip: str = "") -> dict[str, bytes]:
        """Every regular file under `prefix` in a tree-ish, keyed by its path relative to `prefix`;
        none under the folder `skip` (a path from the root, directly in `prefix`: the state branch's
        archive), which `tree_entries` leaves out without walking it.

        One `ls-tree` and one `cat-file` process whatever the file count, so a KB of 10,000 files loads
        from a ref as fast as git can stream it. Symlinks and submodules are left out.
        """
        files = [e for e in self.tree_entries(treeish, prefix, skip=skip) if e.regular]
        contents = self.blobs(e.sha for e in files)
        return {e.path: contents[e.sha] for e in files}

    def changed_files(self, old: str, new: str, prefix: str = "") -> dict[str, bytes | None]:
        """The entries under `prefix` that differ between two tree-ishes: each regular file's content
        in `new`, None where `new` has none (removed), and a `Refused` where `new` has a link or a
        submodule there (never read: no reader follows one). One `diff-tree` and one `cat-file`,
        however large the trees."""
        folder = prefix.strip("/")
        args = ["diff-tree", "-r", "-z", "--no-renames", old, new]
        if folder:
            args += ["--", folder + "/"]
        fields = self.run(*args).stdout.split(b"\0")
        changed: dict[str, str | None] = {}
        refused: dict[str, bytes] = {}
        for meta, raw_path in zip(fields[0::2], fields[1::2], strict=False):
            if not meta.startswith(b":"):
                continue
            _, mode, _, sha, _ = meta[1:].decode().split(" ")
            path = raw_path.decode("utf-8", "surrogateescape")
            path = path[len(folder) + 1 :] if folder else path
            changed[path] = sha if mode in _REGULAR_FILE_MODES else None
            if mode in _NOT_REGULAR:
                refused[path] = Refused(_NOT_REGULAR[mode])
        contents = self.blobs(sha for sha in changed.values() if sha is not None)
        return {
            path: refused[path] if path in refused else contents.get(sha) if sha is not None else None
            for path, sha in changed.items()
        }

    def read_paths(self, treeish: str, paths: Sequence[str]) -> dict[str, bytes | None]:
        """Several files' contents at a tree-ish in one `cat-file` (None where a path is not a file)."""
        found = self._batch([f"{treeish}:{path}" for path in paths])
        return {
            path: item[2] if item and item[1] == "blob" else None
            for path, item in zip(paths, found, strict=True)
        }

    def read_file(self, treeish: str, path: str) -> bytes | None:
        """One file's content at a tree-ish, or None when the ref or the path does not exist."""
        [found] = self._batch([f"{treeish}:{path}"])
        return found[2] if found and found[1] == "blob" else None

    def tree_hash(self, treeish: str, path: str = "") -> str | None:
        """The tree object of a folder at a tree-ish (the whole tree by default), or None."""
        name = f"{treeish}:{path.strip('/')}" if path.strip("/") else f"{treeish}^{{tree}}"
        [found] = self._batch([name], check_only=True)
        return found[0] if found and found[1] == "tree" else None

    # Writing objects

    def _hash_blobs(self, contents: Sequence[bytes], scratch: Path) -> list[str]:
        """Store blobs byte for byte (no filters, no EOL changes): one `hash-object` for one blob, and
        for several one `fast-import`, which writes a single pack instead of a loose file per blob."""
        if len(contents) == 1:
            return [self.run("hash-object", "-w", "--stdin", input=contents[0]).stdout.decode().strip()]
        stream = bytearray()
        for mark, content in enumerate(contents, start=1):
            stream += b"blob\nmark :%d\ndata %d\n" % (mark, len(content)) + content + b"\n"
        stream += b"done\n"
        marks = scratch / "marks"
        self.run("fast-import", "--quiet", "--done", f"--export-marks={marks}", input=bytes(stream))
        by_mark = dict(line.split(" ") for line in marks.read_text().splitlines())
        return [by_mark[f":{mark}"] for mark in range(1, len(contents) + 1)]

    def commit_files(
        self,
        base: str | None,
        changes: Mapping[str, bytes | None],
        message: str,
        *,
        author: tuple[str, str] | None = None,
        parents: Sequence[str] | None = None,
    ) -> str:
        """A new commit: `base`'s tree with `changes` applied (None deletes a file); returns its sha.

        Only the folders holding a change are rewritten (`_Folders`); every other subtree is `base`'s
        own object, so a commit to a branch of 14,000 files costs what its few changes cost. No index
        is used and no ref moves, so the repository's HEAD, index and work tree are untouched.
        `parents` defaults to `[base]` (none for an orphan commit when `base` is None).
        """
        paths = sorted(_check_path(path) for path in changes)
        written = [path for path in paths if changes[path] is not None]
        with tempfile.TemporaryDirectory(prefix="homeostat-git-") as scratch_dir:
            blobs = dict(
                zip(
                    written,
                    self._hash_blobs([changes[p] or b"" for p in written], Path(scratch_dir)),
                    strict=True,
                )
            )
        folders = _Folders(paths)
        self._read_folders(base, folders)
        for path in paths:
            folders.apply(path, blobs.get(path))
        tree = self._write_folders(folders)
        return self._commit_tree(
            tree, [base] if parents is None and base else list(parents or []), message, author
        )

    def _read_folders(self, base: str | None, folders: _Folders) -> None:
        """Each changed folder's entries at `base`, read level by level from the root (one `cat-file`
        a level, by object id, so no path is ever parsed by git)."""
        if base is None:
            return
        found = self._batch([f"{base}^{{tree}}"])[0]
        if found is None or found[1] != "tree":
            raise GitError(f"cannot commit on {base!r}: it is not a commit or a tree")
        folders.load("", _parse_tree(found[2], len(found[0]) // 2))
        for level in folders.levels()[1:]:
            wanted = [(folder, sha) for folder in level if (sha := folders.subtree(folder)) is not None]
            trees = self._batch(sha for _, sha in wanted)
            for (folder, _), tree in zip(wanted, trees, strict=True):
                if tree is not None and tree[1] == "tree":
                    folders.load(folder, _parse_tree(tree[2], len(tree[0]) // 2))

    def _write_folders(self, folders: _Folders) -> str:
        """Write the changed folders deepest first (one `mktree --batch` a level); the root tree."""
        for level in reversed(folders.levels()):
            entries = {folder: folders.entries(folder) for folder in level}
            kept = [folder for folder in level if entries[folder] or folder == ""]
            request = b"".join(
                b"".join(
                    f"{mode} {_KIND.get(mode, 'blob')} {sha}\t{name}\0".encode("utf-8", "surrogateescape")
                    for name, (mode, sha) in sorted(entries[folder].items())
                )
                + b"\0"
                for folder in kept
            )
            made = (
                {}
                if not kept
                else dict(
                    zip(
                        kept,
                        self.run("mktree", "-z", "--batch", input=request).stdout.decode().split(),
                        strict=True,
                    )
                )
            )
            for folder in level:
                folders.written(folder, made.get(folder))
        return folders.root()

    def _commit_tree(
        self, tree: str, parents: Sequence[str], message: str, author: tuple[str, str] | None
    ) -> str:
        name, email = author or DEFAULT_IDENTITY
        env = {
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_COMMITTER_NAME": DEFAULT_IDENTITY[0],
            "GIT_COMMITTER_EMAIL": DEFAULT_IDENTITY[1],
        }
        args = ["commit-tree", "--no-gpg-sign", tree]
        for parent in parents:
            args += ["-p", parent]
        text = message if message.endswith("\n") else message + "\n"
        return self.run(*args, input=text.encode("utf-8"), env=env).stdout.decode().strip()

    # Talking to remotes

    def push(
        self, remote: str, sha: str, branch: str, *, force: bool = False, expect: str | None = None
    ) -> PushResult:
        """Point `branch` on the remote at `sha`.

        A refusal because the branch moved (not a fast-forward, or `expect` no longer matches) comes
        back as `PushResult(ok=False, rejected=True)`; any other failure raises. `force` overwrites
        whatever is there; `expect` overwrites only if the remote branch is still at that sha (an
        empty string: only if the branch does not exist yet).
        """
        ref = f"refs/heads/{branch}"
        args = ["push", "--porcelain", "--no-verify"]
        if expect is not None:
            args.append(f"--force-with-lease={ref}:{expect}")
        done = self.run(*args, remote, f"{'+' if force else ''}{sha}:{ref}", check=False)
        status = _porcelain_status(done.stdout, ref)
        if status is None:
            raise self._error(["push", remote, f"{sha}:{ref}"], done.stderr)
        flag, summary = status
        if flag != "!":
            return PushResult(ok=True, message=redact(summary))
        if any(reason in summary for reason in _REJECTED_REASONS + _RACE_REASONS):
            return PushResult(ok=False, rejected=True, message=redact(summary))
        raise GitError(redact(f"`git push {remote} {sha}:{ref}` was refused: {summary}"))

    def fetch(self, remote: str, refspecs: Sequence[str]) -> bool:
        """Fetch the refspecs; False (not an error) when a source branch does not exist on the remote.

        The refspecs whose source does exist are still fetched, and the local ref a missing source
        would have written is deleted (as `--prune` would), so a deleted branch is never read stale;
        a glob's local refs whose branches are gone are pruned too.
        """
        args = ["fetch", "--no-tags", "--no-write-fetch-head", "--quiet", remote]
        done = self.run(*args, *refspecs, "--prune", check=False)
        if done.returncode == 0:
            return True
        if not _MISSING_REF.search(done.stderr.decode("utf-8", "replace")):
            raise self._error([*args, *refspecs], done.stderr)
        present = self.ls_remote(remote)
        kept = [spec for spec in refspecs if _refspec_source(spec) in present]
        for spec in refspecs:
            if spec not in kept and _refspec_destination(spec):
                self.run("update-ref", "-d", _refspec_destination(spec))
        if kept:
            self.run(*args, *kept, "--prune")
        return False

    def unshallow(self, remote: str) -> bool:
        """Fetch the rest of the history when this clone is shallow (a CI checkout's default depth),
        for a command that reads history or merge bases; True when it had to."""
        shallow = self.run("rev-parse", "--is-shallow-repository").stdout.decode().strip() == "true"
        if shallow:
            self.run("fetch", "--unshallow", "--no-tags", "--no-write-fetch-head", "--quiet", remote)
        return shallow

    def ls_remote(self, remote: str, pattern: str | None = None) -> dict[str, str]:
        """The remote's refs (optionally those matching a pattern such as `refs/heads/candidates/*`)."""
        args = ["ls-remote", "--refs", remote] + ([pattern] if pattern else [])
        refs: dict[str, str] = {}
        for line in self.run(*args).stdout.decode("utf-8", "surrogateescape").splitlines():
            sha, _, ref = line.partition("\t")
            refs[ref] = sha
        return refs

    def delete_remote_branch(self, remote: str, branch: str) -> bool:
        """Delete a branch on the remote; False when it was already gone."""
        ref = f"refs/heads/{branch}"
        done = self.run("push", "--porcelain", "--no-verify", remote, f":{ref}", check=False)
        if done.returncode == 0:
            return b"non-existent ref" not in done.stderr
        if b"remote ref does not exist" in done.stderr:
            return False
        raise self._error(["push", remote, f":{ref}"], done.stderr)


def _porcelain_status(stdout: bytes, ref: str) -> tuple[str, str] | None:
    """The flag and summary `git push --porcelain` printed for `ref` (None if it printed none)."""
    for line in stdout.decode("utf-8", "replace").splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and fields[1].endswith(f":{ref}"):
            return fields[0], fields[2]
    return None


def _refspec_source(spec: str) -> str:
    return spec.removeprefix("+").split(":", 1)[0]


def _refspec_destination(spec: str) -> str:
    return spec.split(":", 1)[1] if ":" in spec else ""


def work_tree_files(folder: Path, untracked_skip: tuple[str, ...] = ()) -> list[str] | None:
    """The files git would check out or commit under `folder` (tracked, and untracked but neither
    ignored nor matching `untracked_skip`), relative to it; None when `folder` is not inside a git work
    tree. Only reads the index."""
    command = ["git", "-C", str(folder)]
    for setting in _PINNED_CONFIG:
        command += ["-c", setting]
    command += ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    command += [f"--exclude={pattern}" for pattern in untracked_skip]  # applies to untracked files only
    try:
        done = subprocess.run(command, capture_output=True, env=git_env(), check=False)
    except FileNotFoundError:
        return None
    if done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({name for name in names if name})
