"""Model calls in flight at once: a run's worker pool, shared by every step that asks a model.

A run's steps were written one call after another; each now hands its calls to a pool of
`agents.concurrency.<runtime>` workers (8 by default) and applies the answers in the order it asked,
so what it decides, the PR bodies and the records are what the calls one at a time would have made.
Work starts in the order it is submitted. A worker waiting out a rate limit or an overloaded server
waits alone; the others go on (the transport paces them all only where the server says nothing is
left: homeostat.adapters.models.pacing).

Steps whose next call depends on earlier answers (the judge's call cap, the deep dive's merges of
rules an earlier merge may already have dropped) are run through a gate (`run_gated`): a pure rule
that says, from what has finished and what is running, whether the next item certainly needs its
call, certainly does not, or must wait; so no call is made that one at a time would not have made.

The thread that waits for answers (the run's own) calls `tick` every few seconds while it waits:
the daily run renews its claim and writes its checkpoints there. Workers are daemon threads: a run
stopped by a signal exits without waiting for the calls it leaves in flight.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar

from pydantic import BaseModel

from homeostat.core.asker import Answered, Asker, Question, agent_name, resolve_agent
from homeostat.core.config import AgentsConfig, Runtime

R = TypeVar("R")
T = TypeVar("T", bound=BaseModel)
I = TypeVar("I")  # noqa: E741 - an item
I_contra = TypeVar("I_contra", contravariant=True)

Decision = Literal["start", "skip", "wait"]
TICK_SECONDS = 5.0
IDLE_SECONDS = 2.0  # a worker with nothing to do this long ends (a pool nobody closed leaves no thread)
_POLL = 0.1  # how often the waiting thread looks up from its wait (a worker's wake, a signal)

_local = threading.local()


def in_worker() -> bool:
    """Inside a pool's worker: a batch asked there runs in that worker, never back on the pool
    (a worker waiting for workers could wait for ever)."""
    return bool(getattr(_local, "worker", False))


class Gate(Protocol[I_contra, R]):
    """Whether the next item may start, given the items still running; told each item's outcome."""

    def decide(self, item: I_contra, running: Sequence[I_contra]) -> Decision: ...

    def finished(self, item: I_contra, outcome: Answered[R]) -> None: ...


@dataclass
class _Job:
    future: Future[object]
    run: Callable[[], object]
    context: contextvars.Context


class ModelPool:
    """`workers` threads running submitted work in submission order; results read back in order."""

    def __init__(
        self,
        workers: int,
        *,
        tick: Callable[[], None] | None = None,
        tick_seconds: float = TICK_SECONDS,
        wake: threading.Event | None = None,
    ) -> None:
        self.size = max(1, workers)
        self.tick = tick
        self.tick_seconds = tick_seconds
        self.woken = wake or threading.Event()  # a worker asks the waiting thread to tick now
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._running = 0
        self.max_running = 0
        self._last_tick = time.monotonic()
        self._closed = False

    # --- submitting ----------------------------------------------------------------------------------

    def submit(self, run: Callable[[], R]) -> Future[R]:
        """Start `run` when a worker is free, after everything submitted before it; in the
        submitter's context (so what it is working on travels with the call). A pool of one runs it
        at once, in the submitter's thread: exactly the calls one at a time of before."""
        if self.size == 1 or in_worker():
            return _done(_inline(run))
        future: Future[R] = Future()
        self._queue.put(_Job(future, run, contextvars.copy_context()))  # type: ignore[arg-type]
        self._grow()
        return future

    def _grow(self) -> None:
        with self._lock:
            if len(self._threads) < self.size and not self._closed:
                thread = threading.Thread(target=self._work, name=f"homeostat-model-{len(self._threads)}")
                thread.daemon = True
                self._threads.append(thread)
                thread.start()

    def _work(self) -> None:
        _local.worker = True
        while True:
            try:
                job = self._queue.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:  # `_grow` holds it too: work put after this look starts a new worker
                    if self._queue.empty():
                        self._threads.remove(threading.current_thread())
                        return
                continue
            if job is None:
                return
            if self._closed:
                job.future.cancel()  # the run stopped: work not started yet is never started
            if not job.future.set_running_or_notify_cancel():
                continue
            with self._lock:
                self._running += 1
                self.max_running = max(self.max_running, self._running)
            try:
                job.future.set_result(job.context.run(job.run))
            except BaseException as exc:  # noqa: BLE001 - handed to whoever reads the future
                job.future.set_exception(exc)
            finally:
                with self._lock:
                    self._running -= 1

    # --- waiting -------------------------------------------------------------------------------------

    def tick_if_due(self) -> None:
        """Call the run's tick when it is due, or a worker asked for it (`wake`); only from the
        thread that waits for answers."""
        if self.tick is None or in_worker():
            return
        now = time.monotonic()
        if now - self._last_tick >= self.tick_seconds or self.woken.is_set():
            self.woken.clear()
            self._last_tick = now
            self.tick()

    def wake(self) -> None:
        """From a worker: ask the waiting thread to tick now (a claim due for renewal)."""
        self.woken.set()

    def wait_any(self, futures: Collection[Future[R]]) -> set[Future[R]]:
        """Block until one of `futures` is done (ticking meanwhile); the done ones."""
        while True:
            done, _ = wait(futures, timeout=_POLL, return_when=FIRST_COMPLETED)
            self.tick_if_due()
            if done:
                return set(done)

    def outcome(self, future: Future[R]) -> Answered[R]:
        while not future.done():
            self.wait_any([future])
        error = future.exception()
        return Answered(error=error) if error is not None else Answered(future.result())

    # --- batches -------------------------------------------------------------------------------------

    def run_each(self, runs: Sequence[Callable[[], R]]) -> list[Answered[R]]:
        """Run every callable (at once, up to the pool's size) and hand back the outcomes in order."""
        if in_worker() or self.size == 1:
            return [_inline(run) for run in runs]
        futures = [self.submit(run) for run in runs]
        return [self.outcome(future) for future in futures]

    def run_gated(
        self, items: Sequence[I], run: Callable[[I], R], gate: Gate[I, R]
    ) -> list[Answered[R] | None]:
        """Run `run(item)` for the items `gate` lets start, in order; None for the items it skips."""
        results: list[Answered[R] | None] = [None] * len(items)
        running: dict[Future[R], int] = {}
        following = 0
        while following < len(items) or running:
            while following < len(items) and len(running) < self.size:
                decision = gate.decide(items[following], [items[i] for i in sorted(running.values())])
                if decision == "wait" and running:
                    break
                if decision != "skip":
                    item = items[following]
                    running[self._start(lambda item=item: run(item))] = following  # type: ignore[misc]
                following += 1
            if not running:
                continue
            for future in sorted(self.wait_any(running), key=lambda f: running[f]):
                index = running.pop(future)
                results[index] = self.outcome(future)
                gate.finished(items[index], results[index])  # type: ignore[arg-type]
        return results

    def _start(self, run: Callable[[], R]) -> Future[R]:
        return self.submit(run)

    def close(self) -> None:
        """No more work: what is queued is cancelled and idle workers end; running ones finish
        their call (they are daemons: a stopped run does not wait for them)."""
        with self._lock:
            self._closed = True
            count = len(self._threads)
        for _ in range(count):
            self._queue.put(None)


def _done(outcome: Answered[R]) -> Future[R]:
    future: Future[R] = Future()
    if outcome.error is not None:
        future.set_exception(outcome.error)
    else:
        future.set_result(outcome.value)  # type: ignore[arg-type]
    return future


def _inline(run: Callable[[], R]) -> Answered[R]:
    try:
        return Answered(run())
    except Exception as exc:  # noqa: BLE001 - handed back in order, raised by the reader
        return Answered(error=exc)


@dataclass
class Pools:
    """One pool per runtime a run uses, sized by `agents.concurrency.<runtime>`."""

    agents: AgentsConfig
    tick: Callable[[], None] | None = None
    _pools: dict[Runtime, ModelPool] = field(default_factory=dict)
    woken: threading.Event = field(default_factory=threading.Event)  # shared: any pool's wait ticks

    def for_agent(self, agent: str) -> ModelPool:
        runtime = resolve_agent(agent_name(agent), self.agents).runtime
        if runtime not in self._pools:
            workers = self.agents.concurrency.of(runtime)
            self._pools[runtime] = ModelPool(workers, tick=self.tick, wake=self.woken)
        return self._pools[runtime]

    def wake(self) -> None:
        self.woken.set()

    @property
    def max_running(self) -> int:
        return max((pool.max_running for pool in self._pools.values()), default=0)

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()


def pool_of(pools: Pools | None, agent: str) -> ModelPool:
    """A run's pool for `agent`'s runtime, or one worker (before the run has read its settings, and
    for --show-prompts, whose prompts print one after the other)."""
    return pools.for_agent(agent) if pools is not None else ModelPool(1)


def pooled(asker: Asker, pools: Pools | None, agent: str) -> Asker:
    """`asker`, its batches going through the run's pool for `agent` (when the run has pools)."""
    return asker if pools is None else PooledAsker(asker, pools.for_agent(agent))


class PooledAsker:
    """An asker whose batches (`ask_each`, see homeostat.core.asker) go through a pool."""

    def __init__(self, inner: Asker, pool: ModelPool) -> None:
        self.inner = inner
        self.pool = pool

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        return self.inner.ask(system, user, schema)

    def ask_each(self, questions: Sequence[Question[T]]) -> list[Answered[T]]:
        inner = self.inner
        return self.pool.run_each(
            [lambda q=q: inner.ask(q.system, q.user, q.schema) for q in questions]  # type: ignore[misc]
        )
