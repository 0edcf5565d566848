"""A run's spend against its cap, shared by every worker that asks a model.

With one call at a time the cap was simple: refuse a call once the spend reached it. With several
calls in flight, a call's cost is known only when it ends, so each call sets its estimated cost
aside before it is sent (`Ledger.begin_call`), and a new call (or new work) is refused once the
spend plus what running calls and promised work have set aside reaches the cap. One call at a time,
nothing is set aside when the next call is checked, and the rule is the old one exactly: the call
that crosses the cap finishes, the next is refused.

Work that takes several calls sets its whole cost aside before its first call (`working_on`): a
review thread's draft reserves its lesson's consolidation and judge calls too, so a capped run
decides what it drafted instead of drafting lessons it cannot afford to decide. Calls made for work
that holds a reservation are never refused; the reservation is released once the work is decided.

Once the cap refuses anything, it refuses everything after (except calls for reserved work): a run
stops where the cap was reached, whichever worker reached it first.

An estimate is only a guess until an agent's first call has ended: so an agent's calls start one at
a time until one has been priced, and from then on each is estimated at no less than the agent's
mean. A cap smaller than one call still lets exactly one call through.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from homeostat.errors import HomeostatError

# Tokens a call is expected to answer with, for its estimate before it is sent (a draft, a verdict or
# a consolidation is a few hundred; the estimate is replaced by the agent's mean once calls end).
OUTPUT_ALLOWANCE = 600
CHARS_PER_TOKEN = 3.0  # prompts are English and code: fewer characters a token than prose, so more tokens


class SpendingCapError(HomeostatError):
    """The run's model spend reached its cap; raised before a call starts, never during one."""

    exit_code = 1

    def __init__(self, spent_usd: float, cap_usd: float, source: str) -> None:
        self.spent_usd = spent_usd
        self.cap_usd = cap_usd
        self.source = source
        super().__init__(
            f"spending cap reached: this run has spent {usd(spent_usd)} of the {usd(cap_usd)} allowed by "
            f"{source}, so no further model call was started (raise {source} to allow more)"
        )


class RunStopped(HomeostatError):
    """The run is stopping (a signal, an error): a call not started yet is never started."""


def usd(amount: float) -> str:
    """Dollars to the cent, or to a hundredth of a cent below a dollar, where single calls live."""
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.4f}"


@dataclass(frozen=True)
class SpendingCap:
    usd: float
    source: str  # the setting a person raises: agents.maxCostUsd or --max-cost


@dataclass
class Reservation:
    """Money set aside for one piece of work (a lesson: its draft, consolidation and judge calls)."""

    key: str
    amount: float
    left: float


@dataclass(frozen=True)
class Ticket:
    """One call's claim on the cap while it is in flight."""

    estimate: float  # set aside for this call alone (0 when it is charged to a reservation)
    reservation: Reservation | None = None
    agent: str = ""


@dataclass(frozen=True)
class Work:
    """What the calls made in this context are for: `key` names the work, and `follow_ups` is how many
    more calls like the first one it will need (its first call reserves them all)."""

    key: str
    follow_ups: int = 0


_WORK: contextvars.ContextVar[Work | None] = contextvars.ContextVar("homeostat_work", default=None)


@contextmanager
def working_on(key: str, follow_ups: int = 0) -> Iterator[None]:
    """Charge the calls made inside to the work `key` (reserving `1 + follow_ups` calls at its first)."""
    token = _WORK.set(Work(key, follow_ups))
    try:
        yield
    finally:
        _WORK.reset(token)


def current_work() -> Work | None:
    return _WORK.get()


class Ledger:
    """What a run has spent, what its running calls and promised work have set aside, and the most
    calls it had in flight at once. Thread-safe: every worker of the run shares it."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.spent = 0.0
        self.call_reserved = 0.0  # running calls not charged to a reservation
        self.work_reserved = 0.0  # what reservations have left
        self.in_flight = 0
        self.max_in_flight = 0
        self._agent_flight: dict[str, int] = {}
        self.stopped: SpendingCapError | None = None
        self.halted = False
        self._work: dict[str, Reservation] = {}
        self._costs: dict[str, tuple[int, float]] = {}  # agent -> (calls, USD)

    # --- estimates ---------------------------------------------------------------------------------

    def mean_cost(self, agent: str) -> float:
        with self._cond:
            calls, total = self._costs.get(agent, (0, 0.0))
        return total / calls if calls else 0.0

    # --- calls -------------------------------------------------------------------------------------

    def begin_call(
        self, cap: SpendingCap, estimate: float, work: Work | None = None, agent: str = ""
    ) -> Ticket:
        """Admit one call costing about `estimate`, or raise `SpendingCapError`.

        A call for reserved work is always admitted; the first call of new work reserves the whole
        work; any other call sets its own estimate aside. Until one of `agent`'s calls has been
        priced, its calls start one at a time."""
        with self._cond:
            while (
                agent
                and agent not in self._costs
                and self._agent_flight.get(agent, 0) > 0
                and not self.halted
            ):
                self._cond.wait(timeout=1.0)
            if self.halted:
                raise RunStopped("the run is stopping: no further model call is started")
            reservation = self._work.get(work.key) if work is not None else None
            if reservation is None:
                amount = estimate * (1 + work.follow_ups) if work is not None and work.follow_ups else 0.0
                self._admit(cap)
                if amount:
                    reservation = Reservation(work.key if work else "", amount, amount)
                    self._work[reservation.key] = reservation
                    self.work_reserved += amount
            ticket = (
                Ticket(0.0, reservation, agent) if reservation is not None else Ticket(estimate, None, agent)
            )
            self.call_reserved += ticket.estimate
            self._agent_flight[agent] = self._agent_flight.get(agent, 0) + 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return ticket

    def end_call(self, ticket: Ticket, cost: float, *, priced: bool = False) -> None:
        """The call ended (`priced`: answered, at `cost`; else failed): its estimate gives way to what
        it cost."""
        agent = ticket.agent
        with self._cond:
            self._agent_flight[agent] -= 1
            self.spent += cost
            self.call_reserved -= ticket.estimate
            reservation = ticket.reservation
            if reservation is not None and reservation.left > 0:
                used = min(cost, reservation.left)
                reservation.left -= used
                self.work_reserved -= used
            if agent and priced:
                calls, total = self._costs.get(agent, (0, 0.0))
                self._costs[agent] = (calls + 1, total + cost)
            self.in_flight -= 1
            self._cond.notify_all()

    def _admit(self, cap: SpendingCap) -> None:
        """Wait while running calls may yet come in under their estimates; refuse once the spend and
        what is set aside reach the cap (and everything after that)."""
        while self.stopped is None and self.call_reserved > 0 and self._over(cap) and self.spent < cap.usd:
            self._cond.wait(timeout=1.0)  # a timeout keeps the wait interruptible by a signal
        if self.stopped is None and self._over(cap):
            self.stopped = SpendingCapError(self.spent, cap.usd, cap.source)
        if self.stopped is not None:
            raise SpendingCapError(self.spent, cap.usd, cap.source)

    def halt(self) -> None:
        """The run stops: calls in flight finish, none starts (their answers would not be kept)."""
        with self._cond:
            self.halted = True
            self._cond.notify_all()

    def _over(self, cap: SpendingCap) -> bool:
        return self.spent + self.call_reserved + self.work_reserved >= cap.usd

    # --- work --------------------------------------------------------------------------------------

    def reserved(self, key: str) -> bool:
        with self._cond:
            return key in self._work

    def release(self, key: str) -> None:
        """The work is decided (or dropped): what its reservation has left goes back to the run."""
        with self._cond:
            reservation = self._work.pop(key, None)
            if reservation is not None:
                self.work_reserved -= reservation.left
                reservation.left = 0.0
                self._cond.notify_all()

    def release_all(self) -> None:
        with self._cond:
            for key in list(self._work):
                self.release(key)
