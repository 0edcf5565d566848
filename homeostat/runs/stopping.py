"""How a long run stops: SIGTERM as SIGINT, for `daily` and a sharded `curate` alike."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def stopped_by_signals() -> Iterator[None]:
    """SIGTERM (a cancelled or timed-out CI job; GitHub Actions sends SIGINT, then SIGTERM) stops the
    run the way SIGINT does, so it records its window and checkpoints before it exits; `claude -p`
    calls still running, in process groups of their own, are ended with it."""
    from homeostat.adapters.models.claude_code import stop_running

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, interrupt) if main_thread else None
    try:
        yield
    except KeyboardInterrupt:
        stop_running()
        raise
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
