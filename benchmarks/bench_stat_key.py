"""Where the stat check stops being cheaper than the git key, by the number of KB files.

    .venv/bin/python benchmarks/bench_stat_key.py [--files 250,500,1000,2000,4000,8000] [--runs 11]

A warm session hook proves its cached corpus current on every call, one of two ways
(adapters/cache/corpus_cache.py): the stat check (every KB file's size and mtime, walked in Python) or,
above `STAT_MAX_FILES`, the index check (one `git diff-files`, git's own lstat walk in C, and the
stat of the git index, the KB's folders and its loose files). For a committed KB of each size (one
small rule file each, as a KB of one file per rule is laid out), this prints the wall ms of each
(median of --runs, in this process, in turn), their ratio, and the full git key (`git rev-parse`
and `git status`) the index check falls back to when something changed; `STAT_MAX_FILES` is set
from where the stat/index ratio crosses 1. Prints numbers only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from homeostat.adapters.cache import corpus_cache as search_index
from homeostat.adapters.cache.corpus_cache import STAT_MAX_FILES, corpus_key, stat_signature


def write_kb(root: Path, files: int) -> None:
    (root / "knowledge").mkdir(parents=True)
    (root / "homeostat.yaml").write_text("version: 0.2.0\n", encoding="utf-8")
    for n in range(files - 1):
        folder = root / "knowledge" / f"area-{n % 12}"
        folder.mkdir(exist_ok=True)
        (folder / f"rule-{n}.md").write_text(
            f"---\nid: rule-{n}\n---\n## Rule\nRule {n}.\n", encoding="utf-8"
        )
    who = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    for args in (["init", "--quiet"], ["add", "."], [*who, "commit", "--quiet", "-m", "kb"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def index_check(root: Path) -> bool:
    check = search_index._Check(root)
    candidate = check.candidate()
    return check.confirmed() and candidate is not None  # confirmed waits for its git process


def medians_ms(root: Path, runs: int) -> tuple[float, float, float]:
    """Median wall ms of the stat check, the index check and the git key, taken in turn so load hits
    them alike."""
    stat, index, git = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        stat_signature(root)
        middle = time.perf_counter()
        assert index_check(root)
        later = time.perf_counter()
        corpus_key(root)
        stat.append((middle - started) * 1000)
        index.append((later - middle) * 1000)
        git.append((time.perf_counter() - later) * 1000)
    return statistics.median(stat), statistics.median(index), statistics.median(git)


def record_index_check(root: Path) -> None:
    """The index check's record, as a warm hook leaves it (every file past the racy window)."""
    (root / ".homeostat" / "index").mkdir(parents=True, exist_ok=True)  # as a clone that ran a hook has
    past = time.time_ns() - 60_000_000_000
    for folder, _, files in os.walk(root):
        if "/.git" not in folder:
            for name in [*files, "."]:
                os.utime(os.path.join(folder, name), ns=(past, past))
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=root, check=False)
    os.utime(root / ".git" / "index", ns=(past + 30_000_000_000,) * 2)
    search_index._Check(root).key()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="stat check against git key, by KB size")
    parser.add_argument("--files", default="250,500,1000,2000,3000,4000,6000,8000")
    parser.add_argument("--runs", type=int, default=11)
    args = parser.parse_args(argv)
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; STAT_MAX_FILES = {STAT_MAX_FILES}"
    )
    print(f"{'files':>6} {'stat ms':>8} {'index ms':>9} {'stat/index':>11} {'git key ms':>11}")
    for count in (int(f) for f in args.files.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch) / "kb"
            write_kb(root, count)
            stat_signature(root), corpus_key(root)  # warm the page cache and git's index
            search_index.STAT_MAX_FILES = 0  # record the index check at every size
            record_index_check(root)
            stat, index, git = medians_ms(root, args.runs)
            print(f"{count:>6} {stat:>8.1f} {index:>9.1f} {stat / index:>11.2f} {git:>11.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
