"""Pacing requests under a code host's rolling-window limits, and waiting out a limit the host declares.

GitHub allows a token 80 content-creating requests a minute and 500 an hour (its secondary limits; reads
are not counted), and asks for a pause between writes. Bitbucket Cloud counts every request to
`/2.0/repositories/*` in a rolling hour (1,000 for a small workspace, scaled up to 10,000 with seats).
A daily run for a large team writes more than that in an hour: without pacing, the host refuses
mid-publish and the run fails halfway. So each adapter sends its paced requests through one
`Pacer`: before a request it waits until one more fits every window, and when the host answers with
a limit anyway (another process shares the token, or the host's budget is smaller than assumed) it
holds every paced request until the host's `Retry-After` (at least a minute when it names none).

Waits are real sleeps, logged once each; `clock` and `sleep` are injectable so tests run on a fake
clock shared with the host emulator.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

_log = logging.getLogger(__name__)

# GitHub: "If you receive a secondary rate limit error ... without a retry-after header, wait at least one
# minute before retrying."
MIN_LIMIT_WAIT = 60.0


@dataclass(frozen=True)
class Window:
    """At most `count` requests in any `seconds`."""

    count: int
    seconds: float


GITHUB_WRITES = (Window(80, 60.0), Window(500, 3600.0))
# The host counts a request when it arrives, the pacer when it is sent: a window is kept this much
# longer, so a burst's first request that took longer to arrive than a later one still left the
# host's window before the request that needs its place.
GITHUB_WRITE_MARGIN = 2.0
# A long wait wakes `on_wait` this often: the run asks itself whether its claim is due for renewal (it
# is every 10 minutes of the run's clock), which costs nothing when it is not.
WAKE_EVERY = 1.0
BITBUCKET_REQUESTS = (Window(1000, 3600.0),)


def _sleep(seconds: float) -> None:
    time.sleep(seconds)  # looked up at call time, so a benchmark that counts sleeps sees these


@dataclass
class Pacer:
    """Keeps requests of one kind under rolling-window limits; thread-safe."""

    windows: Sequence[Window]
    spacing: float = 0.0  # at least this long between two requests
    margin: float = 0.0  # seconds each window is kept longer than the host's
    # called at least every `WAKE_EVERY` seconds of a wait, the pacer's own or a declared limit's
    # (a run renews its claim: a wait for the next hour's writes is most of an hour)
    on_wait: Callable[[], None] | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = _sleep
    name: str = "requests"
    sent: deque[float] = field(default_factory=deque)
    held_until: float = 0.0
    waited: float = 0.0  # seconds spent waiting, all told (benchmarks print it)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def before(self) -> None:
        """Wait until one more request fits every window and any hold the host asked for has passed,
        then count it as sent."""
        with self._lock:
            while True:
                now = self.clock()
                wait = self._wait(now)
                if wait <= 0:
                    self.sent.append(now)
                    return
                if wait >= 5:
                    _log.warning("pacing %s: waiting %.0fs to stay under the host's limits", self.name, wait)
                self.waited += wait
                self.pause(wait)

    def pause(self, seconds: float, sleep: Callable[[float], None] | None = None) -> None:
        """Sleep `seconds` (with `sleep`, else the pacer's), waking `on_wait` every `WAKE_EVERY`: the
        retry of a request the host refused for a limit sleeps its `Retry-After` here too, since a
        declared limit's wait (up to 15 minutes at once, an hour in all) must not outlive a claim
        either."""
        nap = sleep or self.sleep
        left = seconds
        while left > 0:
            step = left if self.on_wait is None else min(left, WAKE_EVERY)
            nap(step)
            left -= step
            if self.on_wait is not None:
                self.on_wait()

    def hold(self, seconds: float | None) -> float:
        """The host refused for a limit: no paced request before `seconds` from now (at least a minute
        when it named no wait). Returns the wait to apply before retrying."""
        wait = MIN_LIMIT_WAIT if seconds is None else max(seconds, 0.0)
        with self._lock:
            self.held_until = max(self.held_until, self.clock() + wait)
        return wait

    def adopt(self, window: Window) -> None:
        """Use the host's own figure for a window of the same length (Bitbucket's `X-RateLimit-Limit`)."""
        with self._lock:
            self.windows = [window if w.seconds == window.seconds else w for w in self.windows]

    def _wait(self, now: float) -> float:
        longest = max((w.seconds for w in self.windows), default=0.0) + self.margin
        while self.sent and self.sent[0] <= now - longest:
            self.sent.popleft()
        wait = self.held_until - now
        if self.spacing and self.sent:
            wait = max(wait, self.sent[-1] + self.spacing - now)
        for window in self.windows:
            seconds = window.seconds + self.margin
            inside = [t for t in self.sent if t > now - seconds]
            if len(inside) >= window.count:
                # the oldest request that must leave the window before one more fits
                wait = max(wait, inside[len(inside) - window.count] + seconds - now)
        return wait
