"""What `homeostat context` pays when its cache is missing (the cold rebuild), whole and in parts.

    .venv/bin/python benchmarks/bench_cold.py [--sizes 1000,20000] [--runs 3] [--against ../main]

For bench_context's generated KBs of each size:
  - cold: the whole process with `.homeostat/` deleted (medians of --runs; wall to the answer, wall
    until the cache files are written, which a cold `context` does behind its answer, and CPU); with
    --against, the same command from another checkout (its code on PYTHONPATH) in turn with this
    one, so the two see the same load;
  - the rebuild's parts in this process (best of three, imports paid): loading and parsing the KB,
    loading the tokenizer, counting tokens (a build with no counts known, less one with every
    count known), the index, flattening and writing the whole corpus, cutting and writing the
    session repo's part;
  - the corpus build from the loaded KB (wall, best of three), counting its tokens in this process
    and in the second process the cold path counts them in (`count_worker`);
  - reading the KB's files into what the build takes from them (wall, best of three): all in this
    process, and with the last rule files read in a forked child (`parse_worker`), as the cold path
    reads a large KB. On a loaded machine the child finds no free core, and the two take as long.
Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import gc
import marshal
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_context import feature_branch, payments_setup  # noqa: E402


def cold_run(command: list[str], env: dict[str, str], kb: Path) -> tuple[float, float, float]:
    """Wall seconds to the answer, wall seconds until the cache files are written (a cold
    `context` may write them behind its answer, `write_behind`) and the CPU seconds of the process
    and the children it waited for, with the KB's cache deleted first. It runs beside the KB, not in
    the caller's folder: `python -m` puts its folder first on the path, so a run started in a
    checkout would time that checkout's code instead of the one PYTHONPATH names."""
    shutil.rmtree(kb / ".homeostat", ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env, cwd=kb.parent)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    _writer_done(kb / ".homeostat/index/writing.lock")
    written = time.perf_counter() - started
    return wall, written, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def _writer_done(lock: Path) -> None:
    """Wait for a writer behind the answer (it holds `lock`), so the next run starts cold."""
    import fcntl

    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    finally:
        os.close(fd)


def best(step: Callable[[], object], runs: int = 3) -> float:
    """The least CPU seconds of a few runs of `step`, with the collector off as the build has it."""
    times = []
    for _ in range(runs):
        gc.disable()
        started = time.process_time()
        step()
        times.append(time.process_time() - started)
        gc.enable()
    return min(times)


def parts(kb: Path) -> dict[str, float]:
    from homeostat.adapters.cache.corpus_cache import build_from_kb
    from homeostat.adapters.kb_files import load_kb_dir
    from homeostat.core.cost.tiktoken_count import _encoding
    from homeostat.core.cost.token_counts import TokenCounts
    from homeostat.core.selection.index import _index
    from homeostat.core.selection.parts import repo_part

    out = {"load": best(lambda: load_kb_dir(kb), 1)}
    loaded = load_kb_dir(kb)
    started = time.process_time()
    _encoding()
    out["tokenizer"] = time.process_time() - started
    counted = TokenCounts()
    corpus = build_from_kb(loaded, (), counted)
    fresh = best(lambda: build_from_kb(loaded, (), TokenCounts()))
    known = best(lambda: build_from_kb(loaded, (), TokenCounts(counted.used)))
    out["count"] = fresh - known
    out["index"] = best(lambda: _index(corpus.entries, corpus.sections))
    out["rest of corpus"] = known - out["index"]
    out["write whole"] = best(lambda: marshal.dumps(corpus.to_data()))
    out["cut part"] = best(lambda: marshal.dumps(repo_part(corpus, "payments").to_data()))
    return out


def beside(kb: Path) -> dict[str, float]:
    """Wall seconds of the corpus build from the loaded KB (best of three), counting here and
    counting in the second process (`count_worker`); the tokenizer is loaded already (`parts`), as
    the cold path's child loads it while the KB is parsed."""
    from homeostat.adapters.forked.count_worker import WORKER_MIN_BYTES, count_worker
    from homeostat.adapters.kb_files import load_kb_dir
    from homeostat.core.cost.token_counts import TokenCounts
    from homeostat.core.selection.build import build_corpus

    loaded = load_kb_dir(kb)
    here: list[float] = []
    there: list[float] = []
    for _ in range(3):
        gc.disable()
        started = time.perf_counter()
        build_corpus(loaded, (), TokenCounts())
        here.append(time.perf_counter() - started)
        with count_worker(TokenCounts(), WORKER_MIN_BYTES) as counter:
            started = time.perf_counter()
            build_corpus(loaded, (), TokenCounts(), counter)
            there.append(time.perf_counter() - started)
        gc.enable()
    return {"counting here": min(here), "counting beside": min(there)}


def apart(kb: Path) -> dict[str, float]:
    """Wall seconds (best of three) from the files read to every rule's row: one process, or two."""
    from homeostat.adapters.forked.parse_worker import child_share, parse_apart
    from homeostat.adapters.kb_files import read_tree
    from homeostat.core.kb import load_kb
    from homeostat.core.selection.corpus_rows import merged_rows, rows_by_file

    files = read_tree(kb)
    share = child_share(files)
    skipped = set(share)
    here = {path: text for path, text in files.items() if path not in skipped}
    one: list[float] = []
    two: list[float] = []
    for _ in range(3):
        gc.disable()
        started = time.perf_counter()
        rows_by_file(load_kb(files))
        one.append(time.perf_counter() - started)
        started = time.perf_counter()
        with parse_apart(files, share) as received:
            mine = rows_by_file(load_kb(here))
            found = received()
        merged_rows(mine, found.rows if found is not None else [])
        two.append(time.perf_counter() - started)
        gc.enable()
    return {"one process": min(one), f"two ({len(share)} files apart)": min(two)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="benchmark the cold rebuild of context's cache")
    parser.add_argument("--sizes", default="1000,20000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another checkout (e.g. main) to run in turn")
    args = parser.parse_args(argv)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HOMEOSTAT_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    trees = {"this": str(ROOT)}
    if args.against is not None:
        trees["against"] = str(args.against.resolve())
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; medians, seconds")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            kb, checkout, _, touched = payments_setup(Path(scratch), size)
            feature_branch(checkout, touched)
            command = [sys.executable, "-m", "homeostat", "context", "--kb", str(kb)]
            command += ["--checkout", str(checkout), "--files", touched]
            runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in trees}
            for _ in range(args.runs):
                for name, tree in trees.items():
                    runs[name].append(cold_run(command, {**env, "PYTHONPATH": tree}, kb))
            for name, done in runs.items():
                wall = statistics.median(w for w, _, _ in done)
                written = statistics.median(w for _, w, _ in done)
                cpu = statistics.median(c for _, _, c in done)
                print(
                    f"{size:>6} rules, cold, {name:<8} wall {wall:6.2f}  written {written:6.2f}"
                    f"  cpu {cpu:6.2f} (a writer behind the answer not counted)"
                )
            found = parts(kb)
            print(f"{size:>6} rules, parts (cpu): " + ", ".join(f"{k} {v:.2f}" for k, v in found.items()))
            built = beside(kb)
            print(
                f"{size:>6} rules, corpus build (wall): "
                + ", ".join(f"{k} {v:.2f}" for k, v in built.items())
            )
            read = apart(kb)
            print(f"{size:>6} rules, KB read (wall): " + ", ".join(f"{k} {v:.2f}" for k, v in read.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
