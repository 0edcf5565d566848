"""Small files read and written by path string, for the session hook's warm path.

pathlib, with the urllib and ipaddress modules it imports, costs a session hook more than the few
joins and reads it would do, so the modules a hook runs (the search index, the hook's and the sync's
state, the event recorder) work in strings: anything `os.fspath` takes comes in (`StrPath`).
"""

from __future__ import annotations

import os

StrPath = str | os.PathLike[str]


def read_text(path: StrPath) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def read_bytes(path: StrPath) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


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
