"""Reading a KB's files from a working tree or from a git tree-ish, and writing changed files back.

The core loads a KB from a map of path → bytes; these functions are the only places that build that
map. Reading from a ref needs no checkout (one `git ls-tree` and one `git cat-file --batch`).

Most commands need only `homeostat.yaml` and `knowledge/`. `validate` reads the whole repo
(`whole_repo=True`): every file CI checks out may hold a secret, whatever its name or folder. In a git
checkout that is what git tracks or would commit (ignored files are skipped, as CI never sees them),
and from a ref it is the ref's whole tree, so the PR check and `--ref` read the same files. The KB's
own files are read from disk as every reader reads them, whatever git says: validate checks exactly
the text that is served (issue 29).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path

from homeostat.adapters.git.plumbing import Git, work_tree_files
from homeostat.adapters.plain_files import read_regular, write_atomic
from homeostat.console import Progress
from homeostat.core.format.readable import SYMLINK, TOO_LARGE, Refused, in_kb, size_limit
from homeostat.core.kb import CASES_FILE, CONFIG_FILE, KB, load_kb
from homeostat.errors import KBReadError

_SKIP_DIRS = {".git", ".homeostat", "node_modules", ".venv", "__pycache__"}
KB_PREFIXES = ("knowledge/",)
_OBJECT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _wanted(path: str) -> bool:
    return path == CONFIG_FILE or path.startswith(KB_PREFIXES)


def _check_kb_folder(root: Path) -> None:
    if not root.exists():
        raise KBReadError(f"{root}: the KB path does not exist")
    if not root.is_dir():
        raise KBReadError(f"{root}: the KB path is not a folder")
    for name, what in ((CONFIG_FILE, "file"), ("knowledge", "folder")):
        if (root / name).is_symlink():
            raise KBReadError(
                f"{root / name}: a symbolic link; Homeostat reads no part of a KB through a link "
                f"(it would serve text from outside the KB): put the {what} itself there"
            )
    if not (root / CONFIG_FILE).is_file():
        raise KBReadError(
            f"{root}: no {CONFIG_FILE} found; is this a Homeostat KB? (run homeostat init to make one)"
        )
    if not (root / "knowledge").is_dir():
        raise KBReadError(f"{root}: no knowledge/ folder; rules live under knowledge/<area>/")


def _read(root: Path, rel: str) -> str | bytes:
    return _read_at(os.path.join(root, rel), rel)


def _read_at(path: str, rel: str, *, checked: bool = False) -> str | bytes:
    """One file by the KB's reading rule (`plain_files.read_regular`): a link, FIFO, socket or
    device, or a KB file over its size limit, is a `Refused` that the loader reports."""
    try:
        return _text(read_regular(path, size_limit(rel), checked=checked))
    except OSError as exc:
        raise KBReadError(f"{rel}: cannot be read ({exc.strerror})") from None


# Homeostat's own per-clone state and caches (git-ignored by `init` and by the folder's own marker):
# never checked out by CI, so read only where someone committed a file there.
_LOCAL_STATE = ".homeostat"


def _whole_repo_paths(root: Path) -> list[str]:
    """What CI would check out: git's files, or (outside git) every file but `.git/` and the local
    state folder. Links and other entries that are not regular files are listed too: the reader
    refuses them (and reports those in the KB)."""
    listed = work_tree_files(root, untracked_skip=(f"{_LOCAL_STATE}/",))
    if listed is not None:
        return listed
    paths: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in {".git", _LOCAL_STATE})
        # a link to a folder is listed among the folders, and never walked into
        names = filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        paths += [(Path(dirpath) / name).relative_to(root).as_posix() for name in names]
    return paths


def _walk_knowledge(root: str, files: dict[str, str | bytes]) -> None:
    """Every entry below knowledge/, read by the KB's rule. `os.scandir` says what each entry is
    without a stat: a folder is walked into, a regular file read, and anything else (a link to a
    file or a folder, a FIFO, a socket, a device) is never opened but put in the map as refused.
    Paths are strings: a Path per file was half the time of reading 10,000 files. The order is
    `os.walk`'s: a folder's files as listed, then its folders by name, depth first."""
    folders = [(os.path.join(root, "knowledge"), "knowledge")]
    while folders:
        top, folder = folders.pop()
        below = []
        with os.scandir(top) as listing:
            entries = list(listing)
        for entry in entries:
            rel = f"{folder}/{entry.name}"
            if entry.is_symlink():
                files[rel] = Refused(SYMLINK)
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in _SKIP_DIRS:
                    below.append((entry.path, rel))
            elif entry.is_file(follow_symlinks=False):
                files[rel] = _read_at(entry.path, rel, checked=True)
            else:
                files[rel] = _read_at(entry.path, rel)  # refused: lstat names what it is
        folders += sorted(below, reverse=True)  # depth first, each folder's folders by name: os.walk's order


def _read_listed(root: Path, rel: str) -> str | bytes | None:
    """A file git (or the walk) listed: None where it is gone since, or, outside the KB, where it
    cannot be read or is no regular file (no reader serves it)."""
    try:
        content = _text(read_regular(os.path.join(root, rel), size_limit(rel)))
    except FileNotFoundError:
        return None  # a tracked file deleted in the working tree
    except OSError as exc:
        if in_kb(rel):
            raise KBReadError(f"{rel}: cannot be read ({exc.strerror})") from None
        return None
    return content if in_kb(rel) or not isinstance(content, Refused) else None


def read_tree(root: Path, *, whole_repo: bool = False) -> dict[str, str | bytes]:
    """homeostat.yaml and everything under knowledge/ (or the whole repo), as repo-relative POSIX paths.

    Each file is decoded as it is read (left as bytes when it is not UTF-8, for the loader to report):
    holding every file's bytes and its text at once doubled the memory of loading a large KB. An
    entry of the KB that is not a regular file, or a KB file over its size limit, is never read: it
    is a `Refused` in the map, which the loader reports and every reader leaves out. Outside the KB
    (`whole_repo`) such an entry is skipped: no reader serves it."""
    _check_kb_folder(root)
    files: dict[str, str | bytes] = {CONFIG_FILE: _read(root, CONFIG_FILE)}
    _walk_knowledge(os.fspath(root), files)
    if whole_repo:
        _read_rest_of_repo(root, files)
    files.setdefault("knowledge/", b"")  # an empty knowledge/ folder is still a KB
    return files


def _read_rest_of_repo(root: Path, files: dict[str, str | bytes]) -> None:
    """Add to the KB's own files (read as every reader reads them) the rest of the repository, for
    the secret check. The KB's files are never taken from git's listing: git lists no FIFO and no
    ignored file, which the readers would still meet on disk, so validate would pass what they serve.
    `eval/selection.yaml`, which `homeostat eval` reads from disk, is read the same way."""
    if os.path.lexists(root / CASES_FILE) and not os.path.islink(root / "eval"):
        files[CASES_FILE] = _read(root, CASES_FILE)
    for rel in _whole_repo_paths(root):
        if rel in files:
            continue  # read by the readers' rule above
        content = _read_listed(root, rel)
        if content is not None:
            files[rel] = content


def _text(data: bytes) -> str | bytes:
    if isinstance(data, Refused):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _tree_files(git: Git, treeish: str, folder: str, *, whole_repo: bool) -> dict[str, bytes]:
    """The KB's entries in a tree by the reading rule `read_tree` follows: a link or submodule in
    the KB, or a KB file over its size limit (told by the listing, so it is never read), is a
    `Refused`; outside the KB they are left out."""
    listed: list[tuple[str, bytes | str]] = []  # in the listing's order: a refusal, or a blob to read
    for entry in git.tree_entries(treeish, folder, sizes=True):
        if not (whole_repo or _wanted(entry.path)):
            continue
        limit = size_limit(entry.path)
        if not entry.regular:
            if in_kb(entry.path):
                listed.append((entry.path, Refused(entry.what)))
        elif limit is not None and entry.size is not None and entry.size > limit:
            listed.append((entry.path, Refused(TOO_LARGE, entry.size)))
        else:
            listed.append((entry.path, entry.sha))
    contents = git.blobs(sha for _, sha in listed if isinstance(sha, str))
    return {path: contents[got] if isinstance(got, str) else got for path, got in listed}


def read_ref(git: Git, treeish: str, folder: str = "", *, whole_repo: bool = False) -> dict[str, bytes]:
    """The same map from a commit, branch or tree, without a checkout; `folder` is where the KB sits
    inside the repository ('' at its top)."""
    if git.rev_parse(f"{treeish}^{{tree}}") is None:
        raise KBReadError(f"{treeish}: no such ref in {git.git_dir}")
    files = _tree_files(git, treeish, folder, whole_repo=whole_repo)
    where = f"{folder}/ in that tree" if folder else "the root of that tree"
    if CONFIG_FILE not in files:
        raise KBReadError(f"{treeish}: no {CONFIG_FILE} at {where}")
    if not any(path.startswith("knowledge/") for path in files):
        raise KBReadError(f"{treeish}: no knowledge/ folder at {where}")
    return files


def kb_repository(root: Path) -> tuple[Git, str]:
    """The git repository holding the KB at `root`, and the KB's folder inside it ('' at its top).

    A KB may be a folder of a larger repository (the validate action's `kb-path`): its files at a ref
    are then under that folder. A bare repository is its own top.
    """
    here = root.resolve()
    if (here / "HEAD").is_file() and (here / "objects").is_dir():
        return Git(here), ""
    for top in (here, *here.parents):
        if (top / ".git").exists():
            folder = here.relative_to(top).as_posix()
            return Git(top), "" if folder == "." else folder
    raise KBReadError(f"{root}: not inside a git repository; --ref needs the KB's git history")


def load_kb_dir(root: Path, progress: Progress | None = None) -> KB:
    """The working tree's KB; a large one shows its parsing as progress on stderr."""
    files = read_tree(root)
    if progress is not None:  # the caller's, which it finishes
        return load_kb(files, root=str(root), on_file=progress.update)
    with Progress("reading the KB") as own:
        return load_kb(files, root=str(root), on_file=own.update)


def load_kb_ref(git: Git, treeish: str) -> KB:
    return load_kb(read_ref(git, treeish), root=f"{treeish}")


class KbTrees:
    """The KB at each commit one run reads, by tree: each tree is read once, and a tree that differs
    from the last one read in a few files (a daily PR's merge, a review branch) is that KB with those
    files read again (`KB.with_files`), so a run parses the whole KB once however many commits it
    reads. The KB is at the top of the repository."""

    def __init__(self, git: Git) -> None:
        self.git = git
        self._by_tree: dict[str, KB] = {}
        self._last: str | None = None
        self._tree_of: dict[str, str] = {}  # commit id to its tree: an object's tree never changes

    def _tree(self, treeish: str) -> str | None:
        tree = self._tree_of.get(treeish)
        if tree is None:
            tree = self.git.rev_parse(f"{treeish}^{{tree}}")
            if tree is not None and _OBJECT_ID.fullmatch(treeish):
                self._tree_of[treeish] = tree
        return tree

    def at(self, treeish: str) -> KB:
        tree = self._tree(treeish)
        if tree is None:
            raise KBReadError(f"{treeish}: no such ref in {self.git.git_dir}")
        kb = self._by_tree.get(tree)
        if kb is None:
            kb = self._read(treeish, tree)
            self._by_tree[tree] = kb
        self._last = tree
        return kb

    def _read(self, treeish: str, tree: str) -> KB:
        if self._last is not None:
            changes = {p: c for p, c in self.git.changed_files(self._last, tree).items() if _wanted(p)}
            try:
                return self._by_tree[self._last].with_files(changes)
            except KBReadError:
                pass  # no KB left in that tree: read it whole, for the error naming it
        return load_kb(read_ref(self.git, treeish), root=treeish)

    def know(self, treeish: str, kb: KB) -> None:
        """`kb` is what `treeish` holds (a commit made from it), so reading it costs nothing."""
        tree = self._tree(treeish)
        if tree is not None:
            self._by_tree.setdefault(tree, kb)

    def seed(self, kb: KB) -> None:
        """`kb` was read from the checkout's working tree: where that is byte for byte HEAD's KB,
        HEAD's tree is not read again."""
        head = self.git.rev_parse("HEAD^{tree}")
        if head is None or head in self._by_tree:
            return
        texts = {path: text for path, text in kb.files.items() if path != "knowledge/"}
        listing = self.git.run("ls-tree", "-r", "-z", head, "--", CONFIG_FILE, "knowledge/").stdout
        blobs: dict[str, str] = {}
        for entry in listing.split(b"\0"):
            meta, _, raw_path = entry.partition(b"\t")
            if not entry:
                continue
            mode, _, sha = meta.decode().split(" ")
            if mode not in ("100644", "100755"):
                return
            blobs[raw_path.decode("utf-8", "surrogateescape")] = sha
        if kb.unreadable_bytes() or blobs.keys() != texts.keys():
            return
        if any(_blob_id(texts[path].encode("utf-8"), len(sha)) != sha for path, sha in blobs.items()):
            return
        try:
            self._by_tree[head] = kb.with_files({"knowledge/": None}) if "knowledge/" in kb.files else kb
        except KBReadError:
            return  # no rule file at all: reading HEAD says so, naming it


def _blob_id(data: bytes, length: int) -> str:
    """The object id git gives a blob of `data` (SHA-1, or SHA-256 in a repository that uses it)."""
    digest = hashlib.sha1 if length == 40 else hashlib.sha256
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


def _same_file(target: Path, data: bytes) -> bool:
    """Whether `target` is a regular file holding `data`: a link, FIFO or device there is replaced
    by the file (`write_atomic` renames over it), never read."""
    try:
        found = read_regular(target)
    except OSError:
        return False
    return not isinstance(found, Refused) and found == data


def write_changed(root: Path, changed: Mapping[str, str]) -> list[str]:
    """Write files whose text changed, each atomically (`write_atomic`); return what was written."""
    written: list[str] = []
    for rel, text in sorted(changed.items()):
        target = root / rel
        data = text.encode("utf-8")
        if _same_file(target, data):
            continue
        write_atomic(target, data)
        written.append(rel)
    return written
