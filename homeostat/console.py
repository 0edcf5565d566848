"""What commands tell a person on stderr besides their answer: notes and progress.

stdout carries the answer (text or JSON) and nothing else, so a script can parse it; everything said
along the way goes to stderr, prefixed `homeostat:`. Progress draws a bar only at a terminal and writes
plain lines elsewhere (CI logs keep every line, and a bar's carriage returns make them unreadable).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO, TypeVar

T = TypeVar("T")


def note(message: str, stream: TextIO | None = None) -> None:
    print(f"homeostat: {message}", file=stream or sys.stderr)


def plural(count: int, one: str, many: str | None = None) -> str:
    """`1 file`, `2 files`: counts in messages read as English."""
    return f"{count} {one if count == 1 else (many or one + 's')}"


Unreadable = tuple[str, int, str, tuple[str, ...]]  # file, line, message, the rule ids it would hold


def unreadable_note(items: Sequence[Unreadable]) -> str | None:
    """One line naming the KB files a reader left out, or None when there are none."""
    if not items:
        return None
    files = sorted({item[0] for item in items})
    file, line, message, _ = items[0]
    verb = "is" if len(files) == 1 else "are"
    return (
        f"{plural(len(files), 'KB file')} could not be read and {verb} left out "
        f"({file}:{line}: {message}); run homeostat validate"
    )


def note_unreadable(items: Sequence[Unreadable]) -> None:
    """Readers say what they left out, once, on stderr: a broken rule must not vanish silently."""
    line = unreadable_note(items)
    if line:
        note(line)


class Progress:
    """Progress of long work on stderr: a redrawn bar at a terminal, a plain line every step elsewhere.

    Quiet for work that ends quickly: nothing is shown before `delay` seconds have passed, so a warm
    command prints nothing. In CI (not a terminal) a line is written at most every `every` seconds.
    """

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        delay: float = 1.0,
        every: float = 5.0,
    ) -> None:
        self.label = label
        self.total = total
        self.stream = stream or sys.stderr
        self.delay = delay
        self.every = every
        self.done = 0
        self.started = time.monotonic()
        self._last = 0.0
        self._drawn = False
        self.bar = _is_terminal(self.stream)

    def step(self, count: int = 1, what: str = "") -> None:
        self.done += count
        now = time.monotonic()
        if now - self.started < self.delay:
            return
        if self.bar:
            if now - self._last >= 0.1:
                self._draw(what)
                self._last = now
        elif now - self._last >= self.every:
            self._line(what)
            self._last = now

    def finish(self, what: str = "") -> None:
        """End the bar's line; in a log, one closing line only when progress was shown at all."""
        if self.bar and self._drawn:
            self._draw(what)
            self.stream.write("\n")
        elif not self.bar and self._last:
            self._line(what or "done")
        self.stream.flush()

    def _count(self) -> str:
        return f"{self.done}/{self.total}" if self.total else str(self.done)

    def _draw(self, what: str) -> None:
        width = 24
        if self.total:
            filled = min(width, self.done * width // max(self.total, 1))
            bar = "#" * filled + "-" * (width - filled)
        else:
            bar = ""
        tail = f" {what}" if what else ""
        text = f"\rhomeostat: {self.label} [{bar}] {self._count()}{tail}"
        self.stream.write(text[:200].ljust(80))
        self.stream.flush()
        self._drawn = True

    def _line(self, what: str) -> None:
        tail = f" {what}" if what else ""
        seconds = time.monotonic() - self.started
        self.stream.write(f"homeostat: {self.label}: {self._count()}{tail} ({seconds:.0f} s)\n")
        self.stream.flush()


def track(items: Iterable[T], label: str, total: int | None = None, **options: float) -> Iterator[T]:
    """Iterate with progress: `for rule in track(rules, "checking rules", len(rules))`."""
    progress = Progress(label, total, **options)  # type: ignore[arg-type]
    try:
        for item in items:
            yield item
            progress.step()
    finally:
        progress.finish()


def _is_terminal(stream: TextIO) -> bool:
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
