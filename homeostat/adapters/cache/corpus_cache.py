"""The `.homeostat/` cache: the flattened corpus, who the session is, and per-session "already given" sets.

The corpus cache carries its identity (PEERS.md, lesson 9): its file name is a hash of the KB's git
tree (plus the content of any uncommitted KB file), or of the KB's content when it is not a git
repository, together with the tokenizer, the stemmer and the corpus format version, and this clone's pending
lessons. When any of them changes the corpus is rebuilt by itself (logged, never an error) and written
atomically; deleting `.homeostat/` loses nothing. A warm load reads one cached file and proves it
current with a stat walk (or, for a large KB, one git command), so a session hook never pays for the
models, the YAML parser or the tokenizer.
"""

from __future__ import annotations

import json
import marshal
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Mapping

from homeostat.adapters.cache.corpus_part import PART_FORMAT, part_bytes, read_part
from homeostat.adapters.git.env import git_env
from homeostat.adapters.plain_files import (
    PENDING_LIMIT,
    StrPath,
    read_bytes,
    read_kb_text,
    read_regular,
    read_text,
    write_atomic,
)
from homeostat.core.format.readable import Refused
from homeostat.core.records import Record
from homeostat.core.selection.corpus import CORPUS_FORMAT, Corpus
from homeostat.core.selection.terms import STEMMER_ID
from homeostat.core.text import sha256
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    import hashlib
    import logging
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any

    from homeostat.adapters.forked.count_worker import Worker
    from homeostat.console import Progress
    from homeostat.core.cost.token_counts import TokenCounts
    from homeostat.core.kb import KB
    from homeostat.core.pending import PendingLesson
    from homeostat.core.selection.corpus_rows import ByFile


def _join(root: StrPath, *parts: str) -> str:
    return os.path.join(os.fspath(root), *parts)


def _log() -> logging.Logger:
    """Imported on first use: the warm path of a session hook logs nothing."""
    import logging

    return logging.getLogger("homeostat.index")


STATE_DIR = ".homeostat"
INDEX_DIR = f"{STATE_DIR}/index"
SESSIONS_DIR = f"{STATE_DIR}/sessions"
PENDING_DIR = f"{STATE_DIR}/pending"
SESSION_DAYS = 14


class GitDone(Record):
    returncode: int
    stdout: bytes


def _git(cwd: StrPath, *args: str) -> GitDone | None:
    """Run a read-only git command; None when git is missing or `cwd` is no folder. Never prompts,
    never takes locks. Started with posix_spawn and read through a pipe where the platform has it:
    `subprocess` (with the threading, signal and selectors modules it imports) costs a session hook
    more than the git command itself."""
    return _git_done(_git_started(cwd, *args))


Started = tuple[int, int] | GitDone | None  # (pid, pipe) of a running git, or its result already


def _git_started(cwd: StrPath, *args: str) -> Started:
    """A read-only git command started (`_git`); `_git_done` waits for it, so the caller can work meanwhile."""
    env = git_env(GIT_OPTIONAL_LOCKS="0")
    argv = ["git", "-c", "core.fsmonitor=false", *args]
    if not os.path.isdir(cwd):
        return None
    if not hasattr(os, "posix_spawnp"):
        import subprocess

        try:
            done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
        except (FileNotFoundError, NotADirectoryError):
            return None
        return GitDone(done.returncode, done.stdout)
    read, write = os.pipe()  # both ends close on exec; the child holds only its stdout
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, write, 1),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    try:
        pid = os.posix_spawnp("git", [argv[0], "-C", str(cwd), *argv[1:]], env, file_actions=actions)
    except OSError:
        os.close(read)
        return None
    finally:
        os.close(write)
    return pid, read


def _git_done(started: Started) -> GitDone | None:
    if not isinstance(started, tuple) or isinstance(started, GitDone):
        return started
    pid, read = started
    with os.fdopen(read, "rb") as pipe:
        out = pipe.read()
    return GitDone(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), out)


# --- the KB's identity ----------------------------------------------------------------------------


def _hash_file(digest: hashlib._Hash, path: str, name: str) -> None:
    """A KB file's content into the key, read by the rule the loader reads by (`read_regular`): a
    link or FIFO is never followed or opened, only named (its refusal stands in for its content)."""
    digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
    try:
        data = read_regular(path)
    except OSError:
        data = b"<missing>"
    if isinstance(data, Refused):
        data = f"<refused: {data.what}>".encode()
    digest.update(data)
    digest.update(b"\0")


def git_fingerprint(root: StrPath) -> str | None:
    """HEAD's trees for knowledge/ and homeostat.yaml, plus the content of every uncommitted KB file.
    None when the KB is not (yet) committed in a git repository."""
    found = _git_fingerprint(root)
    return None if found is None else found[0]


def _git_fingerprint(root: StrPath) -> tuple[str, list[str], str] | None:
    """`git_fingerprint`, the KB paths `git status` listed (changed or untracked, relative to the
    KB) and the git index file's path: what the index check (`_index_shape`) watches."""
    done = _git(
        root,
        "rev-parse",
        "--show-toplevel",
        "--git-path",
        "index",
        "HEAD:./knowledge",
        "HEAD:./homeostat.yaml",
    )
    if done is None or done.returncode != 0:
        return None
    top, index, tree, config = done.stdout.decode("utf-8", "surrogateescape").split("\n")[:4]
    status = _git(
        root,
        "status",
        "--porcelain=v1",
        "-z",
        "--no-renames",
        "--untracked-files=all",
        "--",
        "knowledge",
        "homeostat.yaml",
    )
    if status is None or status.returncode != 0:
        return None
    digest = sha256(f"{tree}\0{config}\0".encode())
    listed = []
    for item in sorted(p for p in status.stdout.decode("utf-8", "surrogateescape").split("\0") if p):
        rel = item[3:]
        _hash_file(digest, os.path.join(top, rel), item)
        listed.append(os.path.relpath(os.path.join(top, rel), root))
    return digest.hexdigest(), listed, _join(root, index)


def content_fingerprint(root: StrPath) -> str:
    """For a KB that is not a git repository: a hash of every file the loader reads."""
    digest = sha256()
    base = os.fspath(root)
    _hash_file(digest, os.path.join(base, "homeostat.yaml"), "homeostat.yaml")
    for dirpath, dirnames, filenames in os.walk(os.path.join(base, "knowledge")):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            _hash_file(digest, full, os.path.relpath(full, base))
    return digest.hexdigest()


def pending_names(root: StrPath) -> list[str]:
    """Pending lesson files are named by their content hash, so their names are their identity."""
    try:
        names = os.listdir(_join(root, PENDING_DIR))
    except OSError:
        return []
    return sorted(n for n in names if n.endswith(".json"))


def tokenizer_id() -> str:
    from homeostat.core.cost.tiktoken_count import TOKENIZER_ID

    return TOKENIZER_ID


def corpus_key(root: StrPath, git: tuple[str, list[str], str] | None = None) -> str:
    """The cached corpus's identity; `git`: the KB's `_git_fingerprint`, when the caller has it."""
    found = git or _git_fingerprint(root)
    source = f"git:{found[0]}" if found is not None else f"content:{content_fingerprint(root)}"
    # marshal's format belongs to the Python version that wrote it
    python = f"python={sys.version_info[0]}.{sys.version_info[1]} marshal={marshal.version}"
    parts = [
        f"format={CORPUS_FORMAT}",
        f"tokenizer={tokenizer_id()}",
        f"stemmer={STEMMER_ID}",
        python,
        source,
        *pending_names(root),
    ]
    return sha256("\n".join(parts).encode()).hexdigest()[:24]


# --- building and caching ---------------------------------------------------------------------------


def _load_pending(root: StrPath) -> list[PendingLesson]:
    """This clone's pending lessons; a broken file is skipped with a warning, never fails a session.
    Their model is imported only when there are some (most clones have none)."""
    names = pending_names(root)
    if not names:
        return []
    from pydantic import ValidationError

    from homeostat.core.pending import PendingLesson

    found: list[PendingLesson] = []
    for name in names:
        path = _join(root, PENDING_DIR, name)
        try:
            found.append(PendingLesson.from_json(read_kb_text(path, PENDING_DIR, PENDING_LIMIT)))
        except (OSError, ValueError, ValidationError) as exc:
            _log().warning("%s: skipped, not a pending lesson (%s)", path, str(exc).splitlines()[0])
    return found


def build(root: Path) -> Corpus:
    """The slow path: load and parse the KB, count tokens, index. Token counts come from the clone's
    count cache (validate's too) by the digest of the text counted, so a rebuild after an edit counts
    only the texts that changed; the cache keeps what it held plus what was counted. A large KB's
    texts are counted in a second process (`count_worker`), which loads the tokenizer while this one
    parses the KB and counts while this one builds the index, and part of its rule files are parsed
    in a third (`parse_worker`) while this one parses the rest. The cyclic garbage collector is off
    meanwhile: the build makes hundreds of thousands of objects and frees none it could find (the KB
    and the corpus live until it returns)."""
    corpus, counts, _ = _build(root)
    _save_counts(root, counts)
    return corpus


def _build(root: Path, repo_of: RepoOf | None = None) -> tuple[Corpus, TokenCounts, Callable[[], Corpus]]:
    """`build`, with the token counts it looked up and made, still to be saved (`_save_counts`).
    With `repo_of` and a counting child, only the session repo's part's texts are counted (the
    rest counted 0, `counted_first`): the function given counts the rest, for the whole corpus."""
    import gc

    from homeostat.adapters.cache.token_memo import load_token_counts
    from homeostat.adapters.forked.count_worker import count_worker, kb_bytes
    from homeostat.console import Progress

    collecting = gc.isenabled()
    gc.disable()
    try:
        with Progress("building the search index") as progress:
            counts = load_token_counts(root)
            with count_worker(counts, kb_bytes(root)) as counter:
                corpus, rest = _built(
                    root, progress, counts, counter, repo_of if counter is not None else None
                )
    finally:
        if collecting:
            gc.enable()
    return corpus, counts, lambda: rest(counts)


def _save_counts(root: Path, counts: TokenCounts) -> None:
    from homeostat.adapters.cache.token_memo import save_token_counts

    if counts.counted:
        counts.used.update(counts.known)  # keep validate's counts this build did not look up
        counts.known.clear()
        save_token_counts(root, counts)


def _built(
    root: Path, progress: Progress, counts: TokenCounts, counter: Worker | None, repo_of: RepoOf | None
) -> tuple[Corpus, Callable[[TokenCounts], Corpus]]:
    """The KB read (part of its rule files in a child, where the counting has one: a second core and
    nothing against forking) and its corpus built, counting first the texts of `repo_of`'s part
    (`counted_first`). The rules read here come first: their texts go to the counter while the
    child's rows are awaited. The child's, the last rule files by path, come with their index."""
    from homeostat.adapters.forked.parse_worker import child_share, parse_apart
    from homeostat.adapters.kb_files import read_tree  # the loader's modules, after the counter's fork
    from homeostat.core.kb import load_kb
    from homeostat.core.selection.build import counted_first
    from homeostat.core.selection.corpus_rows import merged_rows, rows_by_file, rule_row, served_head

    files = read_tree(root)
    apart = child_share(files) if counter is not None else []
    with parse_apart(files, apart) as received:
        skipped = set(apart)
        here = {path: text for path, text in files.items() if path not in skipped}
        kb = load_kb(
            here, root=str(root), on_file=lambda done, total: progress.update(done, total + len(apart))
        )
        rows_here = rows_by_file(kb) if apart else {}  # while the child is still at work
        first = _part_areas(kb, repo_of) if apart and _behind_surely(kb, rows_here) else None
        if counter is not None and apart:
            counter.ahead(served_head(rows_here, first))
        found = received()
    progress.update(progress.total or 0, what="counting tokens")
    pending = _load_pending(root)
    indexed = None
    if found is None:  # read here what the child did not
        kb = kb.with_files({path: files[path] for path in apart}) if apart else kb
        rows, unreadable = [rule_row(rule) for rule in kb.rules], [u.row() for u in kb.unreadable]
    else:
        rows, unreadable = merged_rows(rows_here, found.rows)
        # the child's rules come last (as `child_share` takes them): their index goes in whole
        last = all(path < apart[0] for path, (read, _) in rows_here.items() if read)
        indexed = found.indexed if last else None
    config = kb.require_config()
    return counted_first(config, rows, kb.documents, unreadable, pending, counts, counter, indexed, first)


def _behind_surely(kb: KB, rows_here: ByFile) -> bool:
    """Whether the rules and sections read here alone are enough for `write_behind` to write from
    a detached process: only there is counting the other repos' texts after the answer free (in
    this process it would load the tokenizer the counting child has already loaded)."""
    from homeostat.adapters.forked.write_behind import BEHIND_MIN_RECORDS
    from homeostat.core.selection.corpus_rows import served_rows

    sections = sum(len(document.sections) for document in kb.documents)
    return len(served_rows(rows_here.values())) + sections >= BEHIND_MIN_RECORDS


def _part_areas(kb: KB, repo_of: RepoOf | None) -> Callable[[str], bool] | None:
    """The areas of the session repo's part, where the KB has repos to pick from."""
    from homeostat.core.selection.parts import part_areas

    if repo_of is None or kb.config is None or not kb.config.repos:
        return None
    return part_areas(repo_of([(r.name, r.url) for r in kb.config.repos]))


def build_from_kb(kb: KB, pending: Sequence[PendingLesson] = (), counts: TokenCounts | None = None) -> Corpus:
    """A corpus for a loaded KB (validate builds one for a ref it never checked out)."""
    from homeostat.core.cost.token_counts import TokenCounts
    from homeostat.core.selection.build import build_corpus

    return build_corpus(kb, pending, counts or TokenCounts())


class Loaded(Record):
    corpus: Corpus
    key: str
    rebuilt: bool
    reason: str


# --- the stat shortcut ------------------------------------------------------------------------------
#
# Working out the git key takes two git processes. When no KB file (nor a pending lesson) has changed
# size or modification time since the key was last worked out, the key is the one recorded then; this
# is the check git itself makes before it reads a file. A file modified within two seconds of the
# record is never trusted ("racily clean"), and any doubt falls back to git.

STAT_FILE = f"{INDEX_DIR}/stat.json"
_RACY_NS = 2_000_000_000
# Above this many files, walking them in Python costs more than asking git (which walks in C): the
# index check below takes over. benchmarks/bench_stat_key.py, 2 cores, load 4, medians of 9, stat ms
# / index check ms (/ the full git key ms): 500 files 3.0 / 17.2 (/ 14.5), 1,000 9.6 / 15.9 (/ 19.1),
# 2,000 22.3 / 15.2 (/ 24.9), 4,000 63.6 / 26.2 (/ 34.7), 6,000 81.8 / 19.5 (/ 39.1); the walk grows
# ~10 ms per 1,000 files while the index check (one git process, run while the corpus is read)
# stays near 15-25 ms. Before the index check, against the git key alone, this was 3,500.
STAT_MAX_FILES = 1500


def _scan(folder: str, prefix: str, out: list[tuple[str, int, int]]) -> None:
    """(relative path, size, mtime) of every file below `folder`, with os.scandir: pathlib's
    per-file objects cost a session hook tens of milliseconds on a KB of a thousand files."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            _scan(entry.path, f"{prefix}{entry.name}/", out)
        else:  # a link or FIFO too (as itself, never followed): the loader refuses and reports it
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            out.append((f"{prefix}{entry.name}", st.st_size, st.st_mtime_ns))


def stat_signature(root: StrPath) -> tuple[str, int, int]:
    """A hash of every KB file's path, size and mtime; the newest mtime; the number of files."""
    from homeostat import VERSION

    digest = sha256(f"{VERSION}\0{CORPUS_FORMAT}\0{STEMMER_ID}\0{sys.version_info[:2]}\n".encode())
    base = os.fspath(root)
    found: list[tuple[str, int, int]] = []
    try:
        st = os.stat(os.path.join(base, "homeostat.yaml"))
        found.append(("homeostat.yaml", st.st_size, st.st_mtime_ns))
    except OSError:
        pass
    _scan(os.path.join(base, "knowledge"), "knowledge/", found)
    pending = os.path.join(base, PENDING_DIR)
    if os.path.isdir(pending):
        found += sorted(item for item in _scan_list(pending, PENDING_DIR + "/") if item[0].endswith(".json"))
    newest = max((mtime for _, _, mtime in found), default=0)
    digest.update("".join(f"{path}\0{size}\0{mtime}\n" for path, size, mtime in found).encode())
    return digest.hexdigest(), newest, len(found)


def _scan_list(folder: str, prefix: str) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    _scan(folder, prefix, out)
    return out


def _recorded(root: StrPath) -> dict[str, object]:
    try:
        data = json.loads(read_text(_join(root, STAT_FILE)))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _record_key(root: StrPath, signature: str, newest: int, files: int, key: str) -> None:
    """Remember the key for this signature (and how many files there are, to know when to stop)."""
    if time.time_ns() - newest < _RACY_NS:
        return
    try:
        write_atomic(_join(root, STAT_FILE), json.dumps({"signature": signature, "key": key, "files": files}))
    except OSError:
        pass


# --- the index check --------------------------------------------------------------------------------
#
# Above `STAT_MAX_FILES` the KB is proved unchanged by git's own stat check instead: one
# `git diff-files` (the tracked KB files that differ from the git index; git lstats them in C) started
# before the cached corpus is read, so the two run at once, together with the stat of the index file
# (a commit, checkout, pull or `git add` rewrites it), of every KB folder (a file added, removed or
# renamed changes its folder's mtime) and of each file that differs from the index or is untracked
# (their content is in no index). When all match what was recorded with the key, the key stands;
# else git works it out (`corpus_key`) and the shape is recorded again, taken before the key, and
# never when anything in it was modified within two seconds.

_PATHS = ("--", "knowledge", "homeostat.yaml")
# Without git's preload threads: it runs beside the corpus read anyway, and they cost ~20 % more CPU
_DIFF_FILES = ("-c", "core.preloadIndex=false", "diff-files", "--name-only", "--relative", "-z", *_PATHS)


def _stat_of(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _kb_folders(root: StrPath) -> tuple[list[str], int]:
    """The KB's top folder, knowledge/ and every folder below it (relative to the KB), and how many
    files they hold below knowledge/ (plus homeostat.yaml), to know when the stat check is cheaper."""
    found, files = [".", "knowledge"], 1
    at = 1
    while at < len(found):
        try:
            with os.scandir(os.path.join(root, found[at])) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        found.append(f"{found[at]}/{entry.name}")
                    else:
                        files += 1
        except OSError:
            pass
        at += 1
    return found, files


def _shape(root: StrPath, index: str, folders: Iterable[str], loose: Iterable[str]) -> dict[str, Any]:
    """What the index check compares: the index file's, the folders' and the loose files' stat, and
    the pending lessons' names (and the versions the key holds, as the stat check's signature does)."""
    from homeostat import VERSION

    base = os.fspath(root)
    return {
        "index": [index, _stat_of(index)],
        "folders": {f: (_stat_of(os.path.join(base, f)) or [0, 0, 0])[1] for f in folders},
        "loose": {f: _stat_of(os.path.join(base, f)) for f in loose},
        "pending": pending_names(root),
        "format": [VERSION, CORPUS_FORMAT, STEMMER_ID, list(sys.version_info[:2]), marshal.version],
    }


def _differs(done: GitDone | None) -> list[str] | None:
    if done is None or done.returncode != 0:
        return None
    return sorted(p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p)


def _newest(shape: Mapping[str, Any]) -> int:
    stats = [shape["index"][1], *shape["loose"].values()]
    return int(max([*(s[1] for s in stats if s), *shape["folders"].values(), 0]))


class _Check:
    """Whether the KB is unchanged since its key was recorded (`candidate`, then `confirmed`), and
    the key worked out by git when it is not (`key`, which records it for next time)."""

    def __init__(self, root: StrPath) -> None:
        self.root = root
        self.record = _recorded(root)
        counted = self.record.get("files")
        # Nothing recorded (a first run, or `.homeostat/` deleted): the folders are walked without a
        # stat, to tell a large KB before a stat walk of every file it would only throw away.
        self.folders = _kb_folders(root) if not isinstance(counted, int) else None
        if self.folders is not None:
            counted = self.folders[1]
        self.large = isinstance(counted, int) and counted > STAT_MAX_FILES
        self.stat = None if self.large else stat_signature(root)
        self.running: Started = None
        self.differs: list[str] | None = None  # what the running diff-files said, once it is done
        self.asked = False  # whether it was started
        self.shape: dict[str, Any] | None = None
        recorded = self.record.get("index")
        if self.large and isinstance(recorded, dict):
            self.running = _git_started(root, *_DIFF_FILES)
            self.asked = True
            try:
                was = recorded["shape"]
                self.shape = _shape(root, str(was["index"][0]), was["folders"], was["loose"])
            except (KeyError, IndexError, TypeError):
                self.shape = None

    def candidate(self) -> str | None:
        """The recorded key, if the check's own part passes (above STAT_MAX_FILES git's part is
        still running: read the corpus meanwhile, then ask `confirmed`)."""
        key = self.record.get("key")
        if not isinstance(key, str):
            return None
        if self.stat is not None:
            return key if self.stat[0] == self.record.get("signature") else None
        recorded = self.record.get("index")
        return key if isinstance(recorded, dict) and self.shape == recorded.get("shape") else None

    def confirmed(self) -> bool:
        if self.stat is not None:
            return True
        differs = self._differs()
        recorded = self.record.get("index")
        return differs is not None and isinstance(recorded, dict) and differs == recorded.get("differs")

    def _differs(self) -> list[str] | None:
        """The started diff-files' answer (it started before anything else was read)."""
        if self.running is not None:
            self.differs = _differs(_git_done(self.running))
            self.running = None
        return self.differs

    def key(self) -> str:
        """The KB's key from git (or its content), recorded against what was checked before it."""
        differs = self._differs()
        stat = self.stat
        large = stat is None or stat[2] > STAT_MAX_FILES
        before: tuple[list[str] | None, list[str], int] | None = None
        if large:
            if not self.asked:
                differs = _differs(_git(self.root, *_DIFF_FILES))
            folders, files = self.folders or _kb_folders(self.root)
            before = (differs, folders, files)
        found = _git_fingerprint(self.root)
        key = corpus_key(self.root, found)
        if before is not None and found is not None and before[0] is not None:
            differs, folders, files = before
            shape = _shape(self.root, found[2], folders, sorted({*before[0], *found[1]}))
            if time.time_ns() - _newest(shape) >= _RACY_NS:
                record = {"files": files, "key": key, "index": {"shape": shape, "differs": differs}}
                try:
                    write_atomic(_join(self.root, STAT_FILE), json.dumps(record))
                except OSError:
                    pass
        elif stat is not None:  # a KB outside git records its size, to go straight to its key
            _record_key(self.root, *stat, key)
        return key


RepoOf = Callable[[list[tuple[str, str]]], "str | None"]


def require_kb(root: StrPath) -> None:
    """Refuse a folder without homeostat.yaml before any cache is written: run in a developer's code
    checkout (no KB found, `--kb` left out), the caches would land in that repo as untracked files."""
    if not os.path.isfile(_join(root, "homeostat.yaml")):
        from homeostat.errors import KBReadError

        raise KBReadError(
            f"{os.fspath(root)}: no homeostat.yaml found; is this a Homeostat KB? (run homeostat init to"
            " make one, or pass --kb with the KB clone's folder)"
        )


def load_corpus(
    root: StrPath, kept: Loaded | None = None, repo_of: RepoOf | None = None, *, answer_first: bool = False
) -> Loaded:
    """The cached corpus when its identity matches, else a fresh one (written for next time).

    `kept` is one already in memory (a long-lived MCP server's): it is the answer, unread, while the
    key it was loaded under is the KB's key now. The key is checked on every call all the same.
    `repo_of` picks the session's repo from the KB's (name, url) pairs: then only that repo's part of
    the corpus is loaded (`repo_part`; cut from the whole corpus once per key and cached beside it).
    `answer_first`: a caller that answers and exits (`context`, a session hook) has a large fresh
    corpus's cache files written behind its answer (`write_behind`). A corpus another process is
    writing behind is waited for, not built again."""
    require_kb(root)
    check = _Check(root)
    recorded_key = check.candidate()
    loaded = None
    if recorded_key is not None:
        loaded = _kept(kept, recorded_key) or _load(root, recorded_key, repo_of)
        if check.confirmed() and loaded is not None:
            return loaded
    key = check.key()
    if loaded is None or loaded.key != key:
        loaded = _kept(kept, key) or _load(root, key, repo_of)
    if loaded is None and _written_behind(root):
        loaded = _load(root, key, repo_of)
    if loaded is None:
        loaded = _rebuild(root, key, repo_of, answer_first=answer_first)
    return loaded


def _written_behind(root: StrPath) -> bool:
    from homeostat.adapters.forked.write_behind import wait_for_writer

    return wait_for_writer(_join(root, INDEX_DIR))


def known_ids(root: StrPath) -> frozenset[str]:
    """Every rule id and section key in the KB, for the Stop hook's check of the ids a turn cites:
    from a small file cut beside the whole corpus once per key, so a turn never loads the corpus.
    The key is checked on every call, as `load_corpus` checks it."""
    check = _Check(root)
    recorded_key = check.candidate()
    found = _read_ids(root, recorded_key) if recorded_key is not None else None
    if found is not None and check.confirmed():
        return found
    key = check.key()
    found = _read_ids(root, key)
    if found is None:
        corpus = load_corpus(root).corpus
        found = frozenset([e.id for e in corpus.entries] + [s.key for s in corpus.sections])
        try:
            write_atomic(_join(root, INDEX_DIR, f"corpus-{key}.ids.marshal"), marshal.dumps(sorted(found)))
        except OSError:
            pass  # cut again next time
    return found


def _read_ids(root: StrPath, key: str) -> frozenset[str] | None:
    data = _unmarshal(_join(root, INDEX_DIR, f"corpus-{key}.ids.marshal"))
    return frozenset(str(i) for i in data) if isinstance(data, list) else None


def _kept(kept: Loaded | None, key: str) -> Loaded | None:
    if kept is None or kept.key != key:
        return None
    return kept._replace(rebuilt=False, reason="kept")


def _load(root: StrPath, key: str, repo_of: RepoOf | None = None) -> Loaded | None:
    """The cached corpus for `key` (with `repo_of`, the session repo's part), None when missing."""
    folder = _join(root, INDEX_DIR)
    if repo_of is not None:
        repos = _unmarshal(os.path.join(folder, f"corpus-{key}.repos.marshal"))
        if isinstance(repos, list) and repos:
            name = _part_name(key, repo_of([(str(n), str(u)) for n, u in repos]))
            part = read_part(os.path.join(folder, name))
            if part is not None:
                return Loaded(part, key, False, "cached")
    whole = _read(os.path.join(folder, f"corpus-{key}.marshal"))
    if whole is None:
        return None
    loaded = Loaded(whole, key, False, "cached")
    return loaded if repo_of is None else _cut(root, loaded, repo_of)


def _read(path: str) -> Corpus | None:
    """A cached corpus (whole or a part); None when missing or unreadable (it is built again)."""
    data = _unmarshal(path)
    if data is None:
        return None
    try:
        return Corpus.from_data(data)
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        _log().info("%s: unreadable (%s)", path, type(exc).__name__)
        return None


def _unmarshal(path: str) -> Any:
    try:
        raw = read_bytes(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        _log().info("%s: unreadable (%s)", path, type(exc).__name__)
        return None
    try:
        return marshal.loads(raw)
    except (ValueError, EOFError, TypeError) as exc:
        _log().info("%s: unreadable (%s)", path, type(exc).__name__)
        return None


def _part_name(key: str, repo: str | None) -> str:
    """The file of one repo's part (None: the part a checkout in no repo sees, `core`'s), named by
    the part file's layout too: a part of another layout is cut again, never misread."""
    label = ("core" if repo is None else f"repo:{repo}") + f"\0{PART_FORMAT}"
    return f"corpus-{key}.part-{sha256(label.encode()).hexdigest()[:16]}"


def _cut(root: StrPath, whole: Loaded, repo_of: RepoOf) -> Loaded:
    """The session repo's part of a whole corpus, written beside it (with the KB's repos, to pick
    the part by) so the next session loads only the part."""
    part, write = _part(root, whole, repo_of)
    write()
    return part


def _part(root: StrPath, whole: Loaded, repo_of: RepoOf) -> tuple[Loaded, Callable[[], None]]:
    """The session repo's part of a whole corpus, and the function that writes it beside it."""
    from homeostat.core.selection.parts import repo_part

    corpus = whole.corpus
    repos = [(r.name, r.url) for r in corpus.repos]
    repo = repo_of(repos)
    part = repo_part(corpus, repo)
    if part is corpus:  # a KB without repos is its own part
        return whole, lambda: None

    def write() -> None:
        folder = _join(root, INDEX_DIR)
        try:
            write_atomic(os.path.join(folder, _part_name(whole.key, repo)), part_bytes(part))
            repos_file = os.path.join(folder, f"corpus-{whole.key}.repos.marshal")
            write_atomic(repos_file, marshal.dumps([list(r) for r in repos]))
        except OSError:
            pass  # it is cut again next time

    return whole._replace(corpus=part), write


def _dumped(corpus: Corpus) -> bytes:
    """The corpus in marshal's form, its bytes a function of its values alone (`_canonical`)."""
    data, memo = _canonical(corpus.to_data())
    dumped = marshal.dumps(data)
    del memo  # held until here: every value in it is referenced twice while it is written
    return dumped


def _canonical(data: dict[str, Any]) -> tuple[dict[str, Any], object]:
    """`data` with every equal string, number, bytes and tuple of strings one object, and the memo
    that holds each of them, to be kept while the data is written.

    marshal writes an object that more than one reference holds once, and a reference to it after;
    so what it writes depends on which equal values are one object, which is up to how they were
    made (in this process or read from another, through which cache). Here every such value is one
    object, held twice, so it is written once: the areas, topics, scopes and files thousands of rules
    share, and a warm load makes one string where it made thousands. Lists, dicts and other tuples
    are made anew (held once, never shared); True, False and None are marshal's constants. The rows
    and the large maps are done column by column, in C's loops (`_Memo.column`)."""
    memo = _Memo()
    out: dict[str, Any] = {}
    for name, value in data.items():
        if name in ("entries", "sections") and value:
            out[name] = list(zip(*[memo.column(column) for column in zip(*value, strict=True)], strict=True))
        elif type(value) is dict:
            out[name] = dict(zip(memo.column(value.keys()), memo.column(value.values()), strict=True))
        else:
            out[name] = memo.column(value) if type(value) is list else memo.one(value)
    return out, memo


class _Memo:
    """One object for each value (`_canonical`): by type, so 1, 1.0 and True stay apart."""

    def __init__(self) -> None:
        self.by_type: dict[type, dict[Any, Any]] = {str: {}, int: {}, float: {}, bytes: {}, tuple: {}}

    def column(self, values: Iterable[Any]) -> list[Any]:
        """Each value's one object; a column of one type of scalar in one C loop."""
        values = list(values)
        kinds = set(map(type, values))
        if len(kinds) == 1 and (kind := next(iter(kinds))) in self.by_type and kind is not tuple:
            held = self.by_type[kind].setdefault
            return list(map(held, values, values))
        return [self.one(value) for value in values]

    def one(self, value: Any) -> Any:
        kind = type(value)
        if kind is tuple:
            known = self.by_type[tuple].get(value)
            if known is not None:
                return known
            items = tuple(self.column(value))
            if all(type(item) is str for item in items):
                self.by_type[tuple][items] = items
            return items
        if kind is list:
            return self.column(value)
        if kind is dict:
            return dict(zip(self.column(value.keys()), self.column(value.values()), strict=True))
        held = self.by_type.get(kind)
        return value if held is None else held.setdefault(value, value)


# The whole corpus (and its token counts) a caller answering first was given a part of, held until
# the process ends: that caller exits once its answer is out, and freeing the whole corpus's hundreds
# of thousands of objects as `load_corpus` returns cost it ~40 ms at 20,000 rules, most of it copying
# the pages it shares with the writer behind it (a write to a page after a fork copies it).
_KEPT: list[object] = []


def _rebuild(root: StrPath, key: str, repo_of: RepoOf | None = None, *, answer_first: bool = False) -> Loaded:
    """A fresh corpus (with `repo_of`, the session repo's part of it), its cache files written: the
    token counts, the whole corpus (old keys' files removed), then the part. With `answer_first`
    the writing may go on behind the caller's answer (`write_behind`)."""
    from pathlib import Path  # the slow path: the loader works in Paths

    from homeostat.adapters.forked.write_behind import write_behind

    folder = Path(root) / INDEX_DIR
    path = folder / f"corpus-{key}.marshal"
    reason = "no cached index"
    if path.is_file():
        reason = "cached index unreadable"
    elif folder.is_dir() and any(folder.glob("corpus-*")):
        reason = "the KB, pending lessons, tokenizer, stemmer or index format changed"
    started = time.perf_counter()
    corpus, counts, whole = _build(Path(root), repo_of if answer_first else None)
    loaded = Loaded(corpus, key, True, reason)
    answer, write_part = _part(root, loaded, repo_of) if repo_of is not None else (loaded, lambda: None)

    def writes() -> None:
        written = whole()  # the counts the part did not need
        _save_counts(Path(root), counts)
        _write_whole(folder, key, written)
        write_part()

    if answer_first:
        write_behind(str(folder), writes, len(corpus.entries) + len(corpus.sections))
        _KEPT[:] = [corpus, counts]
    else:
        writes()
    if "logging" in sys.modules:  # else nothing set logging up (`context` without -v): the line goes nowhere
        _log().info("search index rebuilt (%s) in %.0f ms", reason, (time.perf_counter() - started) * 1000)
    return answer


def _write_whole(folder: Path, key: str, corpus: Corpus) -> None:
    path = folder / f"corpus-{key}.marshal"
    try:
        write_atomic(path, _dumped(corpus))
        for old in folder.glob("corpus-*"):
            if not old.name.startswith(f"corpus-{key}."):  # a repo's part of this key stays
                old.unlink(missing_ok=True)
    except OSError as exc:
        _log().warning(
            "%s: could not write the search index (%s); it will be rebuilt next time", path, exc.strerror
        )


# --- who the session is -------------------------------------------------------------------------------


class Identity(Record):
    """Read from the code checkout: its top folder, `origin` URL and the git user."""

    top: str  # the checkout's top folder, resolved
    origin: str | None
    email: str | None
    name: str | None
    is_git: bool

    @property
    def folder(self) -> str:
        return os.path.basename(self.top)


def find_top(start: StrPath) -> Path | None:
    """The working tree holding `start` (a `.git` folder, or a `.git` file in a worktree)."""
    from pathlib import Path

    top = find_top_dir(start)
    return None if top is None else Path(top)


def find_top_dir(start: StrPath) -> str | None:
    """`find_top`, as a resolved path string."""
    here = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def checkout_top(checkout: StrPath) -> str:
    """The checkout's top folder, as its identity has it (`Identity.top`): its working tree's, else
    the folder itself, resolved."""
    return find_top_dir(checkout) or os.path.realpath(checkout)


def _config_files(top: str | None) -> list[str]:
    """The git config files that decide origin and user: the checkout's, the user's, XDG's."""
    home = os.path.expanduser(os.environ.get("HOME", "~"))
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    files = [os.path.join(home, ".gitconfig"), os.path.join(xdg, "git", "config")]
    if os.environ.get("GIT_CONFIG_GLOBAL"):
        files.append(os.environ["GIT_CONFIG_GLOBAL"])
    if top is not None:
        dot_git = os.path.join(top, ".git")
        files.append(os.path.join(dot_git, "config") if os.path.isdir(dot_git) else dot_git)
    return files


def _config_stamp(top: str | None) -> str:
    parts = []
    for name in _config_files(top):
        try:
            st = os.stat(name)
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:-")
    return "|".join(parts)


def checkout_identity(checkout: StrPath, cache: StrPath | None = None) -> Identity:
    """Origin and git user, read with `git config` — or, when `cache` (a file under the KB's
    `.homeostat/`) holds them for unchanged config files, without starting git at all."""
    top = find_top_dir(checkout)
    where = top or os.path.realpath(checkout)
    stamp = _config_stamp(top) if cache is not None else ""
    if cache is not None:
        try:
            recorded = json.loads(read_text(cache)).get(where)
        except (OSError, ValueError, AttributeError):
            recorded = None
        if isinstance(recorded, dict) and recorded.get("stamp") == stamp:
            return Identity(
                where, recorded.get("origin"), recorded.get("email"), recorded.get("name"), top is not None
            )
    found: dict[str, str] = {}
    done = _git(where, "config", "--get-regexp", r"^(remote\.origin\.url|user\.email|user\.name)$")
    if done is not None and done.returncode == 0:
        for line in done.stdout.decode("utf-8", "replace").splitlines():
            key, _, value = line.partition(" ")
            found.setdefault(key, value.strip())
    identity = Identity(
        where,
        found.get("remote.origin.url"),
        found.get("user.email"),
        found.get("user.name"),
        top is not None,
    )
    if cache is not None and done is not None:
        _remember_identity(cache, where, stamp, identity)
    return identity


def _remember_identity(cache: StrPath, where: str, stamp: str, identity: Identity) -> None:
    try:
        known = json.loads(read_text(cache))
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}
    known[where] = {
        "stamp": stamp,
        "origin": identity.origin,
        "email": identity.email,
        "name": identity.name,
    }
    try:
        write_atomic(cache, json.dumps(known, sort_keys=True))
    except OSError:
        pass


class WorkingChange(Record):
    """What the checkout says the session is working on, from the two git commands it already ran."""

    paths: tuple[str, ...]  # changed and untracked files, then the files of the last few commits
    branch: str  # "" when detached or not a git checkout
    commits: tuple[str, ...]  # subject (and first body line) of each of those commits, newest first
    changed: tuple[str, ...]  # the working tree's changed and untracked files only


def change_from_git(top: StrPath, commits: int = 3) -> WorkingChange:
    """`git status --branch` gives the changed files and the branch; one `git log` gives the last
    few commits' files, subjects and first body lines. No other git process runs."""
    return change_found(change_started(top, commits))


ChangeStarted = tuple[Started, Started]
# One commit of `git log -z`: its subject, its body, then (with --name-only) its files.
LOG_FORMAT = "--pretty=format:%x1e%s%x1f%b%x1f"


def change_started(top: StrPath, commits: int = 3) -> ChangeStarted:
    """`change_from_git`'s two git commands started, both at once: a session start reads its corpus
    while they run, and `change_found` waits for them."""
    status = _git_started(top, "status", "--porcelain=v1", "-z", "--branch", "--untracked-files=all")
    logged = _git_started(top, "log", f"-n{commits}", "--name-only", "--no-renames", "-z", LOG_FORMAT)
    return status, logged


def change_found(started: ChangeStarted) -> WorkingChange:
    changed: list[str] = []
    branch = ""
    status, logged = _git_done(started[0]), _git_done(started[1])
    if status is not None and status.returncode == 0:
        skip = False
        for item in status.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if skip or not item:
                skip = False
                continue
            if item.startswith("## "):
                branch = _branch_of(item[3:])
                continue
            changed.append(item[3:])
            skip = item[0] in "RC"  # a rename's source path follows
    paths = list(changed)
    subjects: list[str] = []
    for subject, names in _log_records(logged):
        subjects.append(subject)
        paths += names
    return WorkingChange(
        tuple(dict.fromkeys(p for p in paths if p)), branch, tuple(subjects), tuple(dict.fromkeys(changed))
    )


def _log_records(done: GitDone | None) -> list[tuple[str, list[str]]]:
    """Each commit of a `git log` run with LOG_FORMAT: its subject and first body line, and its files."""
    if done is None or done.returncode != 0:
        return []
    found = []
    for record in done.stdout.decode("utf-8", "surrogateescape").split("\x1e")[1:]:
        subject, _, rest = record.partition("\x1f")
        body, _, names = rest.partition("\x1f")
        first_body = next((line.strip() for line in body.splitlines() if line.strip()), "")
        found.append(
            (
                f"{subject.strip()}\n{first_body}".strip(),
                [p.strip("\n") for p in names.split("\0") if p.strip()],
            )
        )
    return found


def recent_subjects(top: StrPath, commits: int = 3) -> tuple[str, ...]:
    """The subject and first body line of each of HEAD's last few commits, newest first, as a session
    start reads them (`change_found`) but without their files: for a reader that has the touched
    paths already (the MCP tools). Empty when git cannot say (no commit yet, not a checkout)."""
    done = _git(top, "log", f"-n{commits}", "-z", LOG_FORMAT)
    return tuple(subject for subject, _ in _log_records(done))


def current_branch(top: StrPath) -> str:
    """HEAD's branch as git names it; "" when detached or git cannot say."""
    done = _git(top, "symbolic-ref", "--quiet", "--short", "HEAD")
    return done.stdout.decode("utf-8", "surrogateescape").strip() if done and done.returncode == 0 else ""


def _branch_of(header: str) -> str:
    """The branch from `git status --branch`'s header: `main...origin/main [ahead 1]`, `No commits
    yet on main`, or `HEAD (no branch)` when detached."""
    if header.startswith("No commits yet on "):
        return header.removeprefix("No commits yet on ").strip()
    if header.startswith("HEAD (no branch)"):
        return ""
    return header.split("...", 1)[0].split(" ", 1)[0]


def touched_from_git(top: StrPath, commits: int = 3) -> list[str]:
    """Paths changed in the working tree, then in the last few commits: what the session is working on."""
    return list(change_from_git(top, commits).paths)


# --- per-session state ------------------------------------------------------------------------------

_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,80}$")


def _session_path(root: StrPath, session: str) -> str:
    name = session if _SAFE.match(session) else sha256(session.encode()).hexdigest()[:32]
    return _join(root, SESSIONS_DIR, f"{name}.json")


def _known_path(root: StrPath, session: str) -> str:
    """A session's `known` ids (every rule it could be served at its start: the whole repo's part,
    thousands of ids) live beside its small sets, one per line, written only when they change: the
    session's other sets are rewritten on every message that matches. A first line `@<stamp>` says
    for which corpus and audience they hold every visible rule already (`know_at_start`)."""
    return _session_path(root, session).removesuffix(".json") + ".known"


def _session_sets(path: str) -> dict[str, list[str]] | None:
    try:
        data = json.loads(read_text(path))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    return {k: [str(v) for v in vals] for k, vals in data.items() if isinstance(vals, list)}


def _known_file(root: StrPath, session: str) -> tuple[str, list[str]] | None:
    """The `known` file's stamp ("" for none) and ids; None when there is none yet (or the session
    file was written before `known` moved beside it)."""
    try:
        text = read_text(_known_path(root, session))
    except OSError:
        return None
    stamp = ""
    if text.startswith("@"):
        first, _, text = text.partition("\n")
        stamp = first[1:]
    return stamp, text.split("\n") if text else []


def _write_known(root: StrPath, session: str, stamp: str, ids: Iterable[str]) -> None:
    write_atomic(_known_path(root, session), (f"@{stamp}\n" if stamp else "") + "\n".join(sorted(ids)))


def load_session(root: StrPath, session: str) -> dict[str, list[str]]:
    state = _session_sets(_session_path(root, session))
    if state is None:
        return {}
    found = _known_file(root, session)
    if found is not None:  # with an older version's inline set too, should one have written it since
        stamp, known = found
        state["known"] = sorted({*state["known"], *known}) if "known" in state else known
        if stamp:
            state["knownAt"] = [stamp]  # they hold every rule visible under it (`know_at_start`)
    return state


def know_at_start(root: StrPath, session: str, stamp: str, visible: Callable[[], Iterable[str]]) -> None:
    """Add every rule a session start could serve (`visible()`) to the session's `known` ids, unless
    they were added under this stamp (the corpus key and the audience) already: a resumed session
    neither works them out nor writes them again."""
    try:
        with open(_known_path(root, session), encoding="utf-8") as handle:
            if handle.readline().rstrip("\n") == f"@{stamp}":
                return  # its first line: the ids below need not be read
    except OSError:
        pass
    found = _known_file(root, session)
    known = set(found[1]) if found is not None else set()
    _write_known(root, session, stamp, known.union(visible()))


def add_to_session(root: StrPath, session: str, additions: Mapping[str, Iterable[str]]) -> None:
    """Add ids to the session's sets (`given`, `known`, `files`); old sessions are pruned. The
    `known` file is rewritten only when the set grows (or moves out of an older session file)."""
    path = _session_path(root, session)
    data = _session_sets(path) or {}
    inline = data.pop("known", None)  # a session file written before `known` moved beside it
    for key, values in additions.items():
        if key != "known":
            data[key] = sorted(set(data.get(key, [])) | set(values))
    adding = set(additions.get("known", ()))
    if "known" in additions or inline is not None:
        have = os.path.isfile(_known_path(root, session))
        if not have or adding or inline is not None:
            stamp, ids = _known_file(root, session) or ("", [])
            known = {*ids, *(inline or ())}
            if not have or inline is not None or not known.issuperset(adding):
                _write_known(root, session, stamp, known | adding)
    write_atomic(path, json.dumps(data, sort_keys=True))
    _prune_sessions(_join(root, SESSIONS_DIR))


def touch_session(root: StrPath, session: str) -> None:
    """Mark a session in use (old ones are pruned by modification time) without rewriting it."""
    try:
        os.utime(_session_path(root, session))
    except OSError:
        pass


def _prune_sessions(folder: str) -> None:
    cutoff = time.time() - SESSION_DAYS * 86400
    try:
        names = [n for n in os.listdir(folder) if n.endswith(".json")]
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < cutoff:
                os.unlink(path)
                known = path.removesuffix(".json") + ".known"
                if os.path.exists(known):
                    os.unlink(known)
        except OSError:
            continue
