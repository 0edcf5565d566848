"""What commands tell a person on stderr besides their answer: notes and progress.

stdout carries the answer (text or JSON) and nothing else, so a script can parse it; everything said
along the way goes to stderr, prefixed `homeostat:`. Progress draws a bar only at a terminal and writes
plain lines elsewhere (CI logs keep every line, and a bar's carriage returns make them unreadable).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence

from homeostat.core.text import plural
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TextIO


def note(message: str, stream: TextIO | None = None) -> None:
    print(f"homeostat: {message}", file=stream or sys.stderr)


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
    """Progress of long work on stderr: a redrawn bar at a terminal, a plain line now and then elsewhere.

    Quiet for work that ends quickly: nothing is shown before `delay` seconds have passed, so a warm
    command prints nothing. Not at a terminal (CI), a line is written at most every `every` seconds.
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
        self.what = ""
        self.started = time.monotonic()
        self._last = 0.0
        self._shown = False
        self.bar = _is_terminal(self.stream)

    def update(self, done: int, total: int | None = None, what: str = "") -> None:
        """`done` of `total` (kept from before when not given), and what is being done now."""
        self.done = done
        self.total = total if total is not None else self.total
        self.what = what or self.what
        now = time.monotonic()
        if now - self.started < self.delay or now - self._last < (0.1 if self.bar else self.every):
            return
        self._last = now
        self._show()

    def step(self, count: int = 1, what: str = "") -> None:
        self.update(self.done + count, what=what)

    def finish(self) -> None:
        """End the bar's line; in a log, a closing line, but only when progress was shown at all."""
        if self._shown:
            if self.total:
                self.done = self.total
            self.what = "done"
            self._show()
            if self.bar:
                self.stream.write("\n")
        self.stream.flush()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.finish()

    def _show(self) -> None:
        count = f"{self.done:,}/{self.total:,}" if self.total else f"{self.done:,}"
        tail = f" {self.what}" if self.what else ""
        seconds = time.monotonic() - self.started
        if self.bar:
            width = 24
            filled = min(width, self.done * width // self.total) if self.total else 0
            bar = f" [{'#' * filled}{'-' * (width - filled)}]" if self.total else ""
            self.stream.write(f"\rhomeostat: {self.label}{bar} {count}{tail}\x1b[K")
        else:
            self.stream.write(f"homeostat: {self.label}: {count}{tail} ({seconds:.0f} s)\n")
        self.stream.flush()
        self._shown = True


def _is_terminal(stream: TextIO) -> bool:
    if os.environ.get("CI") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
