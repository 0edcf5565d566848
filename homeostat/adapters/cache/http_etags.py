"""ETags and bodies of a host's GET answers, kept in the KB checkout's git-ignored `.homeostat/cache/http/`
so the next run asks again with `If-None-Match` and GitHub answers an unchanged list with 304 Not Modified,
which does not count against its primary rate limit (5,000 requests an hour).

Why here and not on the state branch: the bodies are the code repos' data (PR titles and bodies, file
names, CODEOWNERS). The state branch is never force-pushed and is read by everyone who reads the KB, so
a copy there would stay in its history for good; and it is kept small (issue 30). A cache may go at any
time: a run without it sends each request unconditionally, as before. In CI it lasts between runs when
the workflow keeps `.homeostat/cache/http/` (a shared box keeps it as it is).

One file per API URL and token (by a digest of both: an answer depends on what the token may see), with
the entries used in the last `KEEP` days and at most `BUDGET` bytes of bodies, the most recently used
kept first. Unreadable or foreign files are ignored and written anew; failing to write never fails a run.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from homeostat.adapters.plain_files import write_atomic

HTTP_CACHE_DIR = ".homeostat/cache/http"
FORMAT = 1
KEEP = 8 * 86400.0  # a week and a day: the weekly deep dive finds its own entries again
BUDGET = 32 * 1024 * 1024  # bytes of bodies kept in one file
SAVE_EVERY = 5.0  # seconds between two writes of the file while a run goes on


@dataclass
class Cached:
    """One GET answer: its validator, its JSON body, when it was last sent or confirmed."""

    etag: str
    body: Any
    size: int
    used: float


class EtagCache:
    """`lookup` before a GET, `store` after a 200 with an ETag, `touch` after a 304."""

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._entries: dict[str, Cached] = _load(path, clock()) if path is not None else {}
        self._dirty = False
        self._saved_at = clock()
        self.hits = 0  # 304 answers this process got

    @classmethod
    def for_host(cls, root: Path, api_url: str, token: str) -> EtagCache:
        """The cache of one API URL and token under the KB checkout `root`."""
        digest = hashlib.sha256(f"{api_url}\n{token}".encode()).hexdigest()[:24]
        cache = cls(root / HTTP_CACHE_DIR / f"{digest}.json")
        atexit.register(cache.save)
        return cache

    def lookup(self, key: str) -> Cached | None:
        return self._entries.get(key)

    def store(self, key: str, etag: str, body: Any, size: int) -> None:
        self._entries[key] = Cached(etag, body, size, self._clock())
        self._changed()

    def touch(self, key: str) -> Any:
        """The body a 304 confirmed."""
        entry = self._entries[key]
        entry.used = self._clock()
        self.hits += 1
        self._changed()
        return entry.body

    def _changed(self) -> None:
        self._dirty = True
        if self._clock() - self._saved_at >= SAVE_EVERY:
            self.save()

    def save(self) -> None:
        """Write the entries kept (recent, within the budget) when any changed."""
        if not self._dirty or self.path is None:
            return
        self._dirty = False
        self._saved_at = self._clock()
        kept: dict[str, list[Any]] = {}
        total = 0
        for key, entry in sorted(self._entries.items(), key=lambda item: -item[1].used):
            if self._saved_at - entry.used > KEEP or total + entry.size > BUDGET:
                continue
            total += entry.size
            kept[key] = [entry.etag, entry.used, entry.size, entry.body]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            marker = self.path.parent.parent / ".gitignore"  # a cache, never committed
            if not marker.exists():
                marker.write_text("*\n", encoding="utf-8")
            write_atomic(self.path, json.dumps({"format": FORMAT, "entries": kept}, separators=(",", ":")))
        except OSError:
            pass  # a cache: the next run asks unconditionally


def _load(path: Path, now: float) -> dict[str, Cached]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    entries = data.get("entries") if isinstance(data, dict) and data.get("format") == FORMAT else None
    found: dict[str, Cached] = {}
    for key, value in (entries or {}).items() if isinstance(entries, dict) else ():
        if not (isinstance(value, list) and len(value) == 4 and isinstance(value[0], str)):
            continue
        etag, used, size, body = value
        if isinstance(used, (int, float)) and isinstance(size, int) and now - used <= KEEP:
            found[str(key)] = Cached(etag, body, size, float(used))
    return found
