"""ETags and bodies of a host's GET answers, kept in the KB checkout's git-ignored `.homeostat/cache/http/`
so the next run asks again with `If-None-Match` and GitHub answers an unchanged list with 304 Not Modified,
which does not count against its primary rate limit (5,000 requests an hour).

Why here and not on the state branch: the bodies are the code repos' data (PR titles and bodies, file
names, CODEOWNERS). The state branch is never force-pushed and is read by everyone who reads the KB, so
a copy there would stay in its history for good; and it is kept small (issue 30). A cache may go at any
time: a run without it sends each request unconditionally, as before. In CI it lasts between runs when
the workflow keeps `.homeostat/cache/http/` (a shared box keeps it as it is).

One folder per API URL and token (by a digest of both: an answer depends on what the token may see),
one small file per request, written when its answer comes and touched when a 304 confirms it, so a
run killed halfway keeps what it read and no run rewrites the whole cache. Files unused for `KEEP` days
are deleted by the first write of a run; a body over `MAX_BODY` is not kept. Unreadable or foreign
files are ignored; failing to write never fails a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeostat.adapters.plain_files import write_atomic

HTTP_CACHE_DIR = ".homeostat/cache/http"
FORMAT = 1
KEEP = 8 * 86400.0  # a week and a day: the weekly deep dive finds its own entries again
MAX_BODY = 4 * 1024 * 1024  # a larger answer (a huge tree) is asked for unconditionally


@dataclass(frozen=True)
class Cached:
    """One GET answer: its validator and its JSON body."""

    etag: str
    body: Any


class EtagCache:
    """`lookup` before a GET, `store` after a 200 with an ETag, `touch` after a 304. Without a folder
    it keeps nothing (every request is sent unconditionally)."""

    def __init__(self, folder: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.folder = folder
        self._clock = clock
        self._pruned = False
        self.hits = 0  # 304 answers this process got

    @classmethod
    def for_host(cls, root: Path, api_url: str, token: str) -> EtagCache:
        """The cache of one API URL and token under the KB checkout `root`."""
        digest = hashlib.sha256(f"{api_url}\n{token}".encode()).hexdigest()[:24]
        return cls(root / HTTP_CACHE_DIR / digest)

    def lookup(self, key: str) -> Cached | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == key):
            return None
        etag = data.get("etag")
        return Cached(etag, data.get("body")) if isinstance(etag, str) and etag else None

    def store(self, key: str, etag: str, body: Any, size: int) -> None:
        path = self._path(key)
        if path is None or size > MAX_BODY:
            return
        self._prune()
        entry = {"format": FORMAT, "key": key, "etag": etag, "body": body}
        try:
            marker = path.parent.parent / ".gitignore"  # a cache, never committed
            if not marker.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text("*\n", encoding="utf-8")
            write_atomic(path, json.dumps(entry, separators=(",", ":")))
        except OSError:
            pass  # a cache: the next run asks unconditionally

    def touch(self, key: str) -> None:
        """A 304 confirmed the entry: it is used, so kept another `KEEP` days."""
        self.hits += 1
        path = self._path(key)
        if path is not None:
            try:
                os.utime(path, (self._clock(), self._clock()))
            except OSError:
                pass

    def _path(self, key: str) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.json"

    def _prune(self) -> None:
        """Delete the entries no run used for `KEEP` days, once a process."""
        if self._pruned or self.folder is None:
            return
        self._pruned = True
        cutoff = self._clock() - KEEP
        try:
            for entry in os.scandir(self.folder):
                if entry.name.endswith(".json") and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
        except OSError:
            pass
