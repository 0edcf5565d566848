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
    answered by giving up now rather than sleeping (or hammering it early). A rate limit is different: the
    host says when it will answer again, and giving up then fails a run over a wait of minutes. So a
    rate-limited answer is waited out up to `max_rate_wait` at once and `max_rate_total` in all (by
    default the same caps as any other failure), and retried until then whatever `attempts` says.
    """

    attempts: int = 4
    base_delay: float = 1.0
    max_delay: float = 60.0
    max_total_wait: float = 180.0
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False, repr=False)
    max_rate_wait: float | None = None
    max_rate_total: float | None = None

    def caps(self, transient: Transient) -> tuple[float, float]:
        """The longest single wait and the longest total wait for this kind of failure."""
        if transient.rate_limited:
            return (
                self.max_rate_wait if self.max_rate_wait is not None else self.max_delay,
                self.max_rate_total if self.max_rate_total is not None else self.max_total_wait,
            )
        return self.max_delay, self.max_total_wait

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
        attempt = 0
        while True:
            attempt += 1
            try:
                return operation(attempt)
            except Exception as exc:
                transient = classify(exc)
                if transient is None:
                    raise
                wait = self.delay(attempt, transient)
                longest, total = self.caps(transient)
                waits_out = transient.rate_limited and self.max_rate_total is not None
                if attempt >= self.attempts and not waits_out:
                    raise RetriesExhausted(exc, transient, attempt, waited, 0.0) from exc
                if wait > longest or waited + wait > total:
                    raise RetriesExhausted(exc, transient, attempt, waited, wait) from exc
                logger.warning(
                    "%s: %s; retrying in %.2fs (try %d of %d)",
                    what,
                    transient.reason,
                    wait,
                    attempt + 1,
                    max(self.attempts, attempt + 1),
                )
                self.sleep(wait)
                waited += wait


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


# Rate limits for hosts: a rate limit is waited out up to 15 minutes at once and an hour in all, so a
# run at a large team's scale goes on past GitHub's secondary limits instead of failing mid-publish.
HOST_RETRY_CAPS = {"max_rate_wait": 900.0, "max_rate_total": 3600.0}


def host_retry() -> RetryPolicy:
    """The policy a code-host adapter uses unless told otherwise."""
    return RetryPolicy(
        max_rate_wait=HOST_RETRY_CAPS["max_rate_wait"], max_rate_total=HOST_RETRY_CAPS["max_rate_total"]
    )


def is_rate_limited(status: int, headers: Mapping[str, object] | None, message: str = "") -> bool:
    """429, or a 403 that carries a wait (Retry-After), says no requests remain, or (GitHub's
    secondary limit, which may carry neither) says it is a rate limit."""
    if status == 429:
        return True
    lowered = _lower(headers)
    return status == 403 and (
        "retry-after" in lowered
        or lowered.get("x-ratelimit-remaining", "").strip() == "0"
        or "rate limit" in message.lower()
    )


def transient_status(
    status: int, headers: Mapping[str, object] | None, now: float | None = None, message: str = ""
) -> Transient | None:
    """Whether an HTTP answer may pass: a 5xx blip or a rate limit. Anything else is final."""
    if is_rate_limited(status, headers, message):
        return Transient(f"rate limited ({status})", retry_after(headers, now), rate_limited=True)
    if status >= 500 and status not in _PERMANENT_5XX:
        return Transient(f"server error ({status})", retry_after(headers, now))
    return None
