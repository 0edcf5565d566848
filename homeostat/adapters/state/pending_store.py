"""The clone's pending lessons under `.homeostat/pending/` (git-ignored; the sync carries them)."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from homeostat.adapters.plain_files import PENDING_LIMIT, RefusedRead, read_kb_text, write_atomic
from homeostat.core.pending import PENDING_DIR, PendingLesson, pending_path
from homeostat.errors import HomeostatError


def write_pending(kb_root: Path, lesson: PendingLesson) -> Path:
    """Write atomically; writing the same lesson twice is one file (named by its content hash)."""
    target = kb_root / pending_path(lesson)
    write_atomic(target, lesson.to_json())
    return target


def list_pending(kb_root: Path) -> list[tuple[Path, PendingLesson]]:
    folder = kb_root / PENDING_DIR
    if not folder.is_dir():
        return []
    found: list[tuple[Path, PendingLesson]] = []
    for path in sorted(folder.glob("*.json")):
        try:
            text = read_kb_text(path, PENDING_DIR, PENDING_LIMIT)  # never through a link, nor from a FIFO
        except RefusedRead as exc:
            raise HomeostatError(f"{path}: {exc.strerror}") from None
        try:
            found.append((path, PendingLesson.from_json(text)))
        except (ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0]
            raise HomeostatError(f"{path}: not a pending lesson ({first}); fix or delete it") from None
    return found


def remove_pending(kb_root: Path, keys: set[str]) -> list[Path]:
    removed: list[Path] = []
    for path, lesson in list_pending(kb_root):
        if lesson.content_key() in keys:
            path.unlink()
            removed.append(path)
    return removed
