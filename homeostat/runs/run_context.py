"""What a daily run and a deep dive hold alike for every step: the run's clock and date, its claim,
and its model calls, each counted (so a run whose calls all failed is told apart from an empty one),
made only while the claim is held, and sent through the run's pools.

Each run's own context (homeostat.runs.daily.run_state.DailyContext,
homeostat.runs.deep_dive.run_state.DeepDiveContext) adds what is its alone: the branches it fetches,
its publisher, its output stream.
"""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, TextIO, TypeVar

from pydantic import BaseModel

from homeostat.adapters.git.plumbing import Git
from homeostat.core.asker import Asker, RunStats, SpendingCapError
from homeostat.core.hosts import CodeHost, RepoRef
from homeostat.core.safety.secrets import redacted
from homeostat.core.state.branch import Notice, NoticeKind
from homeostat.errors import HomeostatError
from homeostat.runs.model_pool import ModelPool, Pools, in_worker, pool_of, pooled

if TYPE_CHECKING:
    from homeostat.runs.daily.claim import RunClaim

T = TypeVar("T", bound=BaseModel)


@dataclass
class RunDeps:
    """What every run is given: the KB checkout (its `remote` is the KB repo), the code host, the KB
    repo, the model askers, the run's stats, its output and its clock."""

    git: Git | None
    host: CodeHost | None
    kb_repo: RepoRef | None
    asker_for: Callable[[str], Asker]
    stats: RunStats
    out: TextIO
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
    remote: str = "origin"


class RunOptions(Protocol):
    @property
    def dry_run(self) -> bool: ...

    @property
    def show_prompts(self) -> bool: ...


DepsT = TypeVar("DepsT", bound=RunDeps)
OptionsT = TypeVar("OptionsT", bound=RunOptions)


@dataclass
class CallTally:
    answered: int = 0
    unusable: int = 0
    errors: int = 0
    error_messages: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def all_failed(self) -> bool:
        return self.errors > 0 and self.answered == 0 and self.unusable == 0


class CountingAsker:
    """Counts answers, unusable answers and errors (from every worker of the run)."""

    def __init__(self, inner: Asker, tally: CallTally) -> None:
        self.inner = inner
        self.tally = tally

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        try:  # a pending lesson's text is the developer's, unredacted: no secret in it reaches a model
            answer = self.inner.ask(system, redacted(user), schema)
        except SpendingCapError:
            raise
        except HomeostatError as exc:
            with self.tally.lock:
                self.tally.errors += 1
                if len(self.tally.error_messages) < 3:
                    self.tally.error_messages.append(str(exc))
            raise
        with self.tally.lock:
            if answer is None:
                self.tally.unusable += 1
            else:
                self.tally.answered += 1
        return answer


class ClaimedAsker:
    """Asks only while the run holds its claim: renewed first when due (by the run's own thread; a
    worker waits for it), so a long run never outlives its claim and a run whose claim another run
    took over makes no further call (`ClaimLost`)."""

    def __init__(self, inner: Asker, claim: Callable[[], RunClaim | None], wake: Callable[[], None]) -> None:
        self.inner = inner
        self.claim = claim
        self.wake = wake

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        claim = self.claim()
        if claim is not None:
            if in_worker():
                claim.wait_fresh(self.wake)
            else:
                claim.renew_if_due()
        return self.inner.ask(system, user, schema)


def new_run_id(started: dt.datetime) -> str:
    """The run's id: its start and a random suffix, so runs started in the same second differ."""
    return f"{started.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:6]}"


def add_notice(notices: list[Notice], kind: NoticeKind, message: str, out: TextIO) -> None:
    """A notice for the run report (once, however many steps meet it) and a line in the log."""
    if not any(n.kind == kind and n.message == message for n in notices):
        notices.append(Notice(kind=kind, message=message))
    print(f"notice: {message}", file=out)


def fetch_branches(git: Git, remote: str, base: str, prefixes: Iterable[str]) -> None:
    """The base branch and every branch under `prefixes`, as remote-tracking refs, in one fetch."""
    specs = [f"+refs/heads/{base}:refs/remotes/{remote}/{base}"]
    specs += [f"+refs/heads/{prefix}*:refs/remotes/{remote}/{prefix}*" for prefix in prefixes]
    git.fetch(remote, specs)


class RunContext(Generic[DepsT, OptionsT]):
    """One run's dependencies and options, and the handles every run has alike."""

    def __init__(self, deps: DepsT, options: OptionsT) -> None:
        self.deps = deps
        self.options = options
        self.dry = options.dry_run or options.show_prompts
        self.tally = CallTally()
        self.started: dt.datetime | None = None  # set when the run starts
        self.claim: RunClaim | None = None  # None for a dry run, which writes nothing
        self.pools: Pools | None = None  # set once the run has read its settings

    def now(self) -> dt.datetime:
        return self.deps.now()

    def today(self) -> dt.date:
        """The run's date: the UTC date it started, so a run that crosses midnight stamps and judges
        everything by one date."""
        return (self.started or self.now()).date()

    def ask(self, agent: str) -> Asker:
        """The agent's asker, counted and claimed; its batches (`ask_each`) go through the run's pool
        for its runtime."""
        asker = ClaimedAsker(
            CountingAsker(self.deps.asker_for(agent), self.tally), lambda: self.claim, self._wake
        )
        return pooled(asker, self.pools, agent)

    def _wake(self) -> None:
        if self.pools is not None:
            self.pools.wake()

    def pool(self, agent: str) -> ModelPool:
        """The run's pool for `agent`'s runtime (one worker before the settings are read, and for
        --show-prompts, whose prompts print one after the other)."""
        return pool_of(self.pools, agent)

    def hold_claim(self, claim: RunClaim) -> None:
        """The run holds `claim` from now on: its model calls are made only while it is held, and every
        wait on the code host (the next hour's writes, a limit the host declared with or without a
        Retry-After) renews it when due, so a run that waits past the claim's hour keeps it and a
        second run stands aside (one mechanism for the daily run and the deep dive)."""
        self.claim = claim
        if self.deps.host is not None:
            self.deps.host.while_paced(self._renew_while_waiting)

    def _renew_while_waiting(self) -> None:
        if self.claim is not None:  # None once the run's records released it
            self.claim.renew_while_waiting()

    def close(self) -> None:
        """However the run ended: its pools stop and the host's waits renew no claim any more (a host
        kept for another run must not renew this one's)."""
        if self.pools is not None:
            self.pools.close()
        if self.deps.host is not None:
            self.deps.host.while_paced(None)
        self.deps.stats.memory = None

    def renew_claim(self) -> None:
        """Renew the run's claim when it is due (a dry run holds none)."""
        if self.claim is not None:
            self.claim.renew_if_due()
