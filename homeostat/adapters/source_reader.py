"""The one way bootstrap, seed and import read a code checkout's files.

Every read of a code repo's content goes through `SourceReader.read`, so what may be opened is decided
in one place and a test can watch every open. It lists what git tracks (never untracked files: a
local `.env` beside the clone is not the repo), refuses a path the caller's `refuse` rule names (the
never-read list) before touching it, and opens only regular files: not a symlink (which could point
anywhere on the machine), not a file over the size limit (checked with `lstat`, before opening), and
what it reads must be text (no NUL byte, valid UTF-8). A refusal is a value with a reason, never an
error: one odd file must not stop a run.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.core.bootstrap.sources import MAX_FILE_BYTES
from homeostat.errors import ConfigError, GitError


@dataclass(frozen=True)
class Read:
    path: str
    text: str | None
    skipped: str = ""  # why there is no text

    @property
    def ok(self) -> bool:
        return self.text is not None


def _size(count: int) -> str:
    return f"{count / 1_000_000:.1f} MB" if count >= 1_000_000 else f"{count / 1000:.0f} kB"


def require_checkout(root: Path) -> None:
    """A folder at the top of a git clone, or a one-line error saying what was given instead."""
    if not root.is_dir():
        raise ConfigError(f"{root}: not a folder; pass the code repo's checkout")
    if not (root / ".git").exists():
        raise ConfigError(
            f"{root}: not a git checkout (no .git); pass the top folder of a clone of the code repo"
        )


class SourceReader:
    """A code checkout, read through one door."""

    def __init__(self, root: Path, refuse: Callable[[str], str | None] | None = None) -> None:
        require_checkout(root)
        self.root = root
        self._real_root = os.path.realpath(root) + os.sep
        self._refuse = refuse
        self.git = Git(root)
        self.opened: list[str] = []

    def tracked(self) -> list[str]:
        """The files git tracks, as repo-relative POSIX paths, sorted."""
        try:
            done = self.git.run("ls-files", "-z", "--cached")
        except GitError as exc:
            raise ConfigError(f"{self.root}: git cannot list its files ({exc})") from None
        names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        return sorted({name for name in names if name})

    def origin(self) -> str | None:
        return self.git.remote_url("origin")

    def read(self, path: str, limit: int = MAX_FILE_BYTES) -> Read:
        """The file's text, or why it was not read."""
        if self._refuse is not None:
            why = self._refuse(path)
            if why is not None:
                return Read(path, None, f"never read ({why})")
        full = self.root / path
        try:
            info = os.lstat(full)
        except FileNotFoundError:
            return Read(path, None, "tracked but missing from the checkout")
        except OSError as exc:
            return Read(path, None, f"cannot be read ({exc.strerror})")
        if stat.S_ISLNK(info.st_mode):
            return Read(path, None, "a symlink (only files inside the checkout are read)")
        if not os.path.realpath(full).startswith(self._real_root):  # a folder on the way is a symlink
            return Read(path, None, "outside the checkout (a folder on its path is a symlink)")
        if not stat.S_ISREG(info.st_mode):
            return Read(path, None, "not a regular file")
        if info.st_size > limit:
            return Read(path, None, f"too large ({_size(info.st_size)}; the limit is {_size(limit)})")
        try:
            with open(full, "rb") as handle:
                self.opened.append(path)
                data = handle.read(limit + 1)
        except OSError as exc:
            return Read(path, None, f"cannot be read ({exc.strerror})")
        if b"\0" in data[:8192]:
            return Read(path, None, "binary")
        try:
            return Read(path, data.decode("utf-8"))
        except UnicodeDecodeError:
            return Read(path, None, "not UTF-8 text")
