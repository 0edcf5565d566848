"""The rate gate's count when a window turns with requests still in flight: a request sent just before
the turn may reach the server just after it and count in the new window, so the gate counts it there
too until the answers say otherwise (otherwise a loaded machine sees a 429 the gate was meant to avoid)."""

from __future__ import annotations

import pytest

from homeostat.adapters.models.pacing import RateGate


class Stuck(Exception):
    """The call waited (the fake sleep stops it rather than wait for an answer that never comes)."""


def _headers(remaining: int, reset: str) -> dict[str, str]:
    return {
        "anthropic-ratelimit-requests-limit": "3",
        "anthropic-ratelimit-requests-remaining": str(remaining),
        "anthropic-ratelimit-requests-reset": reset,
    }


def test_requests_in_flight_when_the_window_turns_count_in_the_new_window() -> None:
    now = [1_000_000.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds
        if len(sleeps) > 8:
            raise Stuck

    gate = RateGate(clock=lambda: now[0], sleep=sleep)
    gate.before(1)  # the first call: nothing known yet
    gate.after(_headers(2, "1970-01-12T13:46:41Z"))  # 1,000,001: two left in this window
    gate.before(1)
    gate.before(1)  # two calls in flight, none left
    gate.before(1)  # waits for the turn; one of the three the new window allows is left after it
    assert sleeps and now[0] >= 1_000_001.0
    with pytest.raises(Stuck):
        gate.before(1)  # the two in flight may count here: nothing is left until an answer says so
