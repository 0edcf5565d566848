"""Bounded retries with backoff for code-host calls, shared by the host adapters.

The client libraries' own retries are switched off: PyGithub's default retries POSTs on a 5xx, which can
open a duplicate PR, and neither library caps the total time it will sleep. Instead an adapter wraps one
whole operation, written so that running it again is safe (look before writing), and tells `run` which
failures may pass. The policy honours a server's Retry-After (or rate-limit reset) but never sleeps past
its caps: a wait longer than that is reported at once, so a CI job fails with a reason instead of hanging.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TypeVar

T = TypeVar("T")

_log = logging.getLogger(__name__)

# 501 and 505 say the server will never do this; retrying cannot help.
_PERMANENT_5XX = frozenset({501, 505})


@dataclass(frozen=True)
class Transient:
    """A failure that may pass. `reason` is logged, so it names a status, never the server's text."""

    reason: str
    wait: float | None = None  # seconds the server asked for; None means use the backoff
    rate_limited: bool = False


class RetriesExhausted(Exception):
    """The operation kept failing transiently, or the server asked for a longer wait than the caps allow."""

    def __init__(self, last: BaseException, transient: Transient, attempts: int, waited: float, asked: float):
        super().__init__(transient.reason)
        self.last = last
        self.transient = transient
        self.attempts = attempts
        self.waited = waited
        self.asked = asked  # the wait that would have come next (0 when the attempts ran out)


@dataclass(frozen=True)
class RetryPolicy:
    """How long a run keeps trying one operation: `attempts` tries, exponential backoff between them.

    `max_delay` caps one wait and `max_total_wait` all of them; a server asking for more than either is
    answered by giving up now rather than sleeping (or hammering it early).
    """

    attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_total_wait: float = 180.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)

    def delay(self, attempt: int, transient: Transient) -> float:
        """The wait after failed try number `attempt` (1-based)."""
        if transient.wait is not None:
            return max(transient.wait, 0.0)
        backoff: float = self.base_delay * 2.0 ** (attempt - 1)
        return min(backoff, self.max_delay)

    def run(
        self,
        operation: Callable[[int], T],
        classify: Callable[[BaseException], Transient | None],
        *,
        what: str,
        log: logging.Logger | None = None,
    ) -> T:
        """Call `operation(attempt)` until it succeeds, a failure is not transient, or the caps are reached.

        The attempt number lets a write look for its own earlier effect before repeating itself.
        """
        logger = log or _log
        waited = 0.0
        for attempt in range(1, self.attempts + 1):
            try:
                return operation(attempt)
            except Exception as exc:
                transient = classify(exc)
                if transient is None:
                    raise
                wait = self.delay(attempt, transient)
                if attempt == self.attempts:
                    raise RetriesExhausted(exc, transient, attempt, waited, 0.0) from exc
                if wait > self.max_delay or waited + wait > self.max_total_wait:
                    raise RetriesExhausted(exc, transient, attempt, waited, wait) from exc
                logger.warning(
                    "%s: %s; retrying in %.2fs (try %d of %d)",
                    what,
                    transient.reason,
                    wait,
                    attempt + 1,
                    self.attempts,
                )
                self.sleep(wait)
                waited += wait
        raise AssertionError("unreachable: the loop returns or raises")


def _lower(headers: Mapping[str, object] | None) -> dict[str, str]:
    return {str(key).lower(): str(value) for key, value in (headers or {}).items()}


def retry_after(headers: Mapping[str, object] | None, now: float | None = None) -> float | None:
    """Seconds the server asked for: Retry-After (seconds or an HTTP date), else the rate-limit reset
    when no requests remain (`x-ratelimit-remaining: 0`, `x-ratelimit-reset` in epoch seconds)."""
    lowered = _lower(headers)
    current = time.time() if now is None else now
    value = lowered.get("retry-after", "").strip()
    if value:
        if value.replace(".", "", 1).isdigit():
            return float(value)
        try:
            return max(parsedate_to_datetime(value).timestamp() - current, 0.0)
        except (TypeError, ValueError):
            return None
    if lowered.get("x-ratelimit-remaining", "").strip() == "0":
        reset = lowered.get("x-ratelimit-reset", "").strip()
        if reset.replace(".", "", 1).isdigit():
            return max(float(reset) - current, 0.0) + 1.0  # the reset second itself may not have passed
    return None


def is_rate_limited(status: int, headers: Mapping[str, object] | None) -> bool:
    """429, or a 403 that carries a wait (Retry-After) or says no requests remain."""
    if status == 429:
        return True
    lowered = _lower(headers)
    return status == 403 and (
        "retry-after" in lowered or lowered.get("x-ratelimit-remaining", "").strip() == "0"
    )


def transient_status(
    status: int, headers: Mapping[str, object] | None, now: float | None = None
) -> Transient | None:
    """Whether an HTTP answer may pass: a 5xx blip or a rate limit. Anything else is final."""
    if is_rate_limited(status, headers):
        return Transient(f"rate limited ({status})", retry_after(headers, now), rate_limited=True)
    if status >= 500 and status not in _PERMANENT_5XX:
        return Transient(f"server error ({status})", retry_after(headers, now))
    return None
