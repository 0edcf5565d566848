"""Pacing model calls by what the server says is left, and retrying them for as long as it asks.

Anthropic answers every call with its organisation's rate-limit state: `anthropic-ratelimit-requests-
remaining` and `-reset` (RFC 3339), the same for `-tokens-`, `-input-tokens-` and `-output-tokens-`,
and a `retry-after` on a 429. With several calls in flight, a run reads those headers from every
answer (`RateGate`, one per endpoint, shared by the run's workers): while the server says no request
or too few input tokens are left, a new call waits for the reset instead of being refused; calls
already sent are not touched. A 429 or 529 is retried by the worker that got it, waiting what the
server asked for (up to `MODEL_RETRY.max_delay`), while the other workers go on.

Bedrock and Vertex send no such headers; their 429s are retried the same way.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from anthropic import APIRequest, APIResponse, CallNext, Middleware

from homeostat.adapters.hosts.http_retry import RetryPolicy

# A model call may be asked to wait minutes (a 429's retry-after of 120 s is common under load):
# a run waits that out rather than dropping the thread. Six tries, at most 5 minutes a wait and
# 15 in all for one call; a call that still fails goes on the run's retry list.
MODEL_RETRY = RetryPolicy(attempts=6, base_delay=1.0, max_delay=300.0, max_total_wait=900.0)
_PREFIX = "anthropic-ratelimit-"
_CHARS_PER_TOKEN = 3.0
_WAIT_STEP = 0.5  # waits are taken in steps, so a signal still stops the run at once


def _reset_at(value: str) -> float | None:
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _count(value: str | None) -> int | None:
    if value is None:
        return None
    value = value.strip()
    return int(value) if value.isdigit() else None


class RateGate:
    """What the server last said is left, per limit; a call waits while a limit it needs is spent.

    Past a limit's reset the whole limit is there again (`-limit`); calls sent since are counted
    against it until an answer brings the server's own figures. A call that finds a limit spent with
    no reset known yet waits for the next answer to say when."""

    def __init__(
        self, clock: Callable[[], float] = time.time, sleep: Callable[[float], None] | None = None
    ) -> None:
        self._cond = threading.Condition()
        self._clock = clock
        self._sleep = sleep
        self._left: dict[str, int] = {}  # requests, tokens, input-tokens -> what is left
        self._limit: dict[str, int] = {}  # the same -> the whole limit
        self._reset: dict[str, float | None] = {}  # the same -> when it resets (epoch s; None: unknown)
        self._in_flight = 0  # requests sent and not answered: the server's counts may not hold them yet
        self.waited = 0.0  # seconds calls spent waiting for a reset, for the run's numbers

    def before(self, input_tokens: int) -> None:
        """Wait until the server's limits allow one more request of `input_tokens`, then count it."""
        with self._cond:
            while True:
                wait = self._wait_for(input_tokens)
                if wait == 0:
                    self._take(input_tokens)
                    self._in_flight += 1
                    return
                step = min(wait, _WAIT_STEP)
                started = time.monotonic()
                if self._sleep is not None:
                    self._sleep(step)
                else:
                    self._cond.wait(timeout=step)  # an answer's headers wake it early
                self.waited += time.monotonic() - started

    def _wait_for(self, input_tokens: int) -> float:
        """0 when the call may go; else how long to wait (at most a step when no reset is known)."""
        now = self._clock()
        longest = 0.0
        for limit, need in (("requests", 1), ("input-tokens", input_tokens), ("tokens", input_tokens)):
            if limit not in self._left:
                continue
            reset = self._reset.get(limit)
            if reset is not None and reset <= now:
                # a new window; a request still in flight may reach the server after it turned, and count
                # in this window rather than the last
                pending = self._in_flight if limit == "requests" else 0
                self._left[limit] = max(0, self._limit.get(limit, self._left[limit]) - pending)
                self._reset[limit] = None
                reset = None
            if self._left[limit] >= min(need, self._limit.get(limit, need)):
                continue
            longest = max(longest, reset - now if reset is not None else _WAIT_STEP)
        return longest

    def _take(self, input_tokens: int) -> None:
        """Count this call against what is left until the next answer says the server's own figure."""
        for limit, need in (("requests", 1), ("input-tokens", input_tokens), ("tokens", input_tokens)):
            if limit in self._left:
                self._left[limit] = max(0, self._left[limit] - need)

    def after(self, headers: Mapping[str, str]) -> None:
        """Read the limits an answer (a 429 too) reports. The other requests still in flight may have
        reached the server after it counted this one, so they are taken off what it says is left."""
        lowered = {key.lower(): value for key, value in headers.items()}
        with self._cond:
            self._in_flight = max(0, self._in_flight - 1)
            for limit in ("requests", "tokens", "input-tokens", "output-tokens"):
                left = _count(lowered.get(f"{_PREFIX}{limit}-remaining"))
                reset = _reset_at(lowered.get(f"{_PREFIX}{limit}-reset", ""))
                if left is None or reset is None:
                    continue
                if reset <= self._clock() and self._reset.get(limit) != reset:
                    continue  # a late answer about a window that has ended: it would refill the new one
                whole = _count(lowered.get(f"{_PREFIX}{limit}-limit"))
                if whole is not None:
                    self._limit[limit] = whole
                pending = self._in_flight if limit == "requests" else 0
                known = self._reset.get(limit)
                fresh = max(0, left - pending)
                # an answer about the same window never gives back what later calls already took
                self._left[limit] = (
                    min(fresh, self._left[limit]) if known == reset and limit in self._left else fresh
                )
                self._reset[limit] = reset
            self._cond.notify_all()

    def failed(self) -> None:
        """A request that got no answer at all (a timeout, a lost connection)."""
        with self._cond:
            self._in_flight = max(0, self._in_flight - 1)
            self._cond.notify_all()


class Pacing(Middleware):
    """The SDK middleware that holds each HTTP attempt at the gate and reads the limits back."""

    def __init__(self, gate: RateGate) -> None:
        self.gate = gate

    def handle(self, request: APIRequest, call_next: CallNext) -> APIResponse[Any]:
        self.gate.before(_input_tokens(request))
        try:
            response = call_next(request)
        except BaseException:
            self.gate.failed()
            raise
        self.gate.after(dict(response.http_response.headers))
        return response


def _input_tokens(request: APIRequest) -> int:
    body = request.options.json_data
    size = len(str(body)) if body is not None else 0
    return int(size / _CHARS_PER_TOKEN)


_GATES: dict[str, RateGate] = {}
_GATES_LOCK = threading.Lock()


def gate_for(endpoint: str) -> RateGate:
    """One gate per endpoint in a process: every agent of a run shares its organisation's limits."""
    with _GATES_LOCK:
        return _GATES.setdefault(endpoint, RateGate())
