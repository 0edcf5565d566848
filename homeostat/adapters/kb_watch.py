"""Knowing that a KB has not changed without reading it: inotify watches on its folders (Linux).

A long-lived MCP server must never answer from a corpus older than the KB, so it checks the KB's
key on every call; at 20,000 rules that check costs 30-40 ms (two git processes, or a stat of every
file), more than most answers. The kernel can say instead that nothing changed: the server sets
watches on the KB root (for `homeostat.yaml`, `knowledge/` and `.homeostat/`), on every folder below
`knowledge/`, on `.homeostat/` (for `pending/`) and on `.homeostat/pending/`, *before* it works the
key out. While no event that touches the key has arrived since, the key is the one worked out then.

Any such event, a full event queue, or a watch the kernel removed means "changed", and the caller
works the key out as before (and sets fresh watches first). Where inotify is missing (not Linux), a
watch cannot be set, or `knowledge/` holds a symbolic link (its target changes where no watch sees
it), `KbWatch.start` returns None and every call works the key out. The kernel
reports every change made through this machine's file system; an edit made from another machine
to a KB on a network file system is not reported, so such a KB should not be served from there.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import struct
import sys
from pathlib import Path

# <sys/inotify.h>
_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF = 0x400, 0x800
_Q_OVERFLOW, _IGNORED = 0x4000, 0x8000
_ONLYDIR = 0x01000000
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
_MASK = (
    _MODIFY
    | _ATTRIB
    | _CLOSE_WRITE
    | _MOVED_FROM
    | _MOVED_TO
    | _CREATE
    | _DELETE
    | _DELETE_SELF
    | _MOVE_SELF
    | _ONLYDIR
)
_HEADER = struct.Struct("iIII")  # wd, mask, cookie, len; then len bytes of NUL-padded name

# In these folders only the named entries touch the key; every entry of the others does.
_ROOT_NAMES = frozenset({b"homeostat.yaml", b"knowledge", b".homeostat"})
_STATE_NAMES = frozenset({b"pending"})


@functools.cache
def _libc() -> ctypes.CDLL | None:
    """The C library's inotify calls (the process's own symbols: no search for the library file,
    which `ctypes.util.find_library` does by running `ldconfig`)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc


def _folders(top: str) -> list[str] | None:
    """`top` and every folder below it; None when it holds a symbolic link, whose target's changes
    no watch here would see (a missing `top` has none: the root's watch sees it appear)."""
    found = [top]
    try:
        entries = list(os.scandir(top))
    except FileNotFoundError:
        return []
    except OSError:
        return None
    for entry in entries:
        if entry.is_symlink():
            return None
        if entry.is_dir(follow_symlinks=False):
            below = _folders(entry.path)
            if below is None:
                return None
            found += below
    return found


class KbWatch:
    """Watches on one KB's folders; `quiet()` says whether nothing touching its key happened."""

    def __init__(self, fd: int, names: dict[int, frozenset[bytes] | None]) -> None:
        self._fd = fd
        self._names = names  # watch descriptor → the entry names that matter (None: all of them)
        self._changed = False

    @classmethod
    def start(cls, root: Path) -> KbWatch | None:
        """Watches on the KB at `root`, or None where the kernel cannot give them."""
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_NONBLOCK | _CLOEXEC)
        if fd < 0:
            return None
        watch = cls(fd, {})
        below = _folders(str(root / "knowledge"))
        if below is None:
            watch.close()
            return None
        state = root / ".homeostat"
        folders: list[tuple[Path, frozenset[bytes] | None]] = [(root, _ROOT_NAMES), (state, _STATE_NAMES)]
        folders += [(state / "pending", None), *((Path(folder), None) for folder in below)]
        for folder, names in folders:
            wd = libc.inotify_add_watch(fd, os.fsencode(folder), _MASK)
            if wd >= 0:
                watch._names[wd] = names
            elif folder == root or ctypes.get_errno() != errno.ENOENT:  # else its parent watches for it
                watch.close()
                return None
        return watch

    def quiet(self) -> bool:
        """True while no event touching the key has arrived since the watches were set."""
        if self._changed:
            return False
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return True
            except OSError:
                self._changed = True
                return False
            if self._touches_key(data):
                self._changed = True
                return False

    def _touches_key(self, data: bytes) -> bool:
        at = 0
        while at + _HEADER.size <= len(data):
            wd, mask, _, length = _HEADER.unpack_from(data, at)
            name = data[at + _HEADER.size : at + _HEADER.size + length].rstrip(b"\0")
            at += _HEADER.size + length
            if mask & (_Q_OVERFLOW | _IGNORED) or wd not in self._names:
                return True
            names = self._names[wd]
            if names is None or not name or name in names:
                return True
        return False

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        self._changed = True
