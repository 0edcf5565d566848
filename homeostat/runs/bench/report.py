"""`homeostat bench report`: the results folder read back and compared (`core.bench.report`)."""

from __future__ import annotations

from homeostat.adapters.bench_store import BenchStore
from homeostat.core.bench.report import BenchReport, build_report
from homeostat.core.bench.results import CONDITIONS, Record


def bench_report(store: BenchStore, *, seed: int, resamples: int) -> BenchReport:
    results: dict[str, list[Record]] = {}
    skipped = 0
    for condition in CONDITIONS:
        results[condition], unreadable = store.read(condition)
        skipped += unreadable
    return build_report(results, out=str(store.folder), seed=seed, resamples=resamples, skipped_lines=skipped)
