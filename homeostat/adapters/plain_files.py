"""Small files read and written by path string, for the session hook's warm path.

pathlib, with the urllib and ipaddress modules it imports, costs a session hook more than the few
joins and reads it would do, so the modules a hook runs (the search index, the hook's and the sync's
state, the event recorder) work in strings: anything `os.fspath` takes comes in (`StrPath`).
"""

from __future__ import annotations

import errno
import os
import stat

from homeostat.core.format.readable import SYMLINK, TOO_LARGE, Refused, refused_message, size_limit

StrPath = str | os.PathLike[str]


def read_text(path: StrPath) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def read_bytes(path: StrPath) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


# Never blocks on a FIFO (it opens at once, and `fstat` tells it apart), never follows a link in the
# last part of the path, and never makes a device the process's terminal.
_OPEN_REGULAR = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def entry_kind(mode: int) -> str:
    """What a non-regular entry is, for the line that refuses it."""
    if stat.S_ISLNK(mode):
        return SYMLINK
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def read_regular(path: StrPath, limit: int | None = None, *, checked: bool = False) -> bytes:
    """The bytes of the regular file at `path`, or a `Refused` in their place: the one rule every
    reader of a KB file follows. A symbolic link is never followed, and a FIFO, socket or device is
    never read (nor opened, unless `checked` says the caller's directory listing found a regular
    file, which saves a stat per file); a file over `limit` bytes is not read at all. Raises OSError
    as `open` does for a path that is missing or unreadable."""
    if not checked:
        mode = os.lstat(path).st_mode
        if not stat.S_ISREG(mode):
            return Refused(entry_kind(mode))
    try:
        fd = os.open(path, _OPEN_REGULAR)
    except OSError as exc:
        if os.path.islink(path):  # swapped for a link since it was listed (ELOOP, or EMLINK on BSD)
            return Refused(SYMLINK)
        raise exc from None
    with os.fdopen(fd, "rb", buffering=0) as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return Refused(entry_kind(info.st_mode))
        if limit is not None and info.st_size > limit:
            return Refused(TOO_LARGE, info.st_size)
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:  # grew since the stat
        return Refused(TOO_LARGE, len(data))
    return data


# A pending lesson is one lesson's JSON: a few KB.
PENDING_LIMIT = 1_000_000


class RefusedRead(OSError):
    """A file the reading rule refused (`read_regular`); `strerror` is the line that says why."""


def read_kb_text(path: StrPath, rel: str, limit: int | None = None, *, errors: str = "strict") -> str:
    """The text of the file `rel` of a KB (or of a checkout) at `path`, by `read_regular`'s rule
    and within `rel`'s size limit (`limit` for a file the KB sets none for); a refused one raises
    `RefusedRead`, so a caller that handles OSError says why in its own words."""
    data = read_regular(path, size_limit(rel) or limit)
    if isinstance(data, Refused):
        raise RefusedRead(errno.EINVAL, refused_message(rel, data), os.fspath(path))
    return data.decode("utf-8", errors)


def write_atomic(path: StrPath, content: str | bytes) -> None:
    """Write `content` (text as UTF-8) through a temporary file beside `path`, named by this
    process, and a rename: a reader, or a second process writing the same file, sees the old file
    or a whole new one, never part of one. The folder is made when missing (a bare file name is in
    the current folder: its folder is "", which no makedirs takes); a write that fails (a full disk)
    leaves no temporary file behind."""
    folder, name = os.path.split(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    temp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    try:
        with open(temp, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)
        os.replace(temp, path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise
