"""How long `homeostat digest` takes to build a week with many new rules.

    .venv/bin/python benchmarks/bench_digest.py [--rules 500,5000] [--runs 5]

For each size: a KB repo (real git, a bare origin) whose week added that many rules to one topic file,
with 50 lessons waiting in review on the state branch. Timed, median of --runs:

- build: `build_digest` and `digest_message` alone, on the two KBs already loaded (the digest's own
  work: comparing them and rendering Block Kit within Slack's limits);
- run: the whole `run_digest` with `--print` (fetch, read the state branch, load the KB at the
  window's start and now from git, build, render): what the weekly job spends before posting.

Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from digestworld import TOPIC, DigestWorld, many_rules  # noqa: E402

from homeostat.adapters.git.plumbing import Git  # noqa: E402
from homeostat.adapters.kb_files import load_kb_dir, load_kb_ref  # noqa: E402
from homeostat.core.measure.digest import build_digest, digest_message  # noqa: E402
from homeostat.core.state.branch import parse_state  # noqa: E402
from homeostat.runs.curate import kb_repo_ref  # noqa: E402
from homeostat.runs.digest import DigestDeps, DigestOptions, links_for, run_digest  # noqa: E402

NOW = dt.datetime(2026, 12, 7, 8, 0, tzinfo=dt.UTC)


def world(root: Path, rules: int) -> DigestWorld:
    made = DigestWorld(root, now=NOW)
    made.commit({TOPIC: many_rules(rules, "2026-12-05")}, when=NOW - dt.timedelta(days=2))
    made.in_review([(f"Lesson {n}", "bo", NOW - dt.timedelta(days=n % 5)) for n in range(50)])
    return made


def median_ms(step, runs: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def measure(rules: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-digest-") as folder:
        made = world(Path(folder), rules)
        git = Git(made.work)
        config = load_kb_dir(made.work).require_config()
        then = load_kb_ref(git, "HEAD~1")
        now = load_kb_ref(git, "HEAD")
        records = parse_state(made.state_files(), None).records()
        repo = kb_repo_ref(config, None)

        def build() -> None:
            digest = build_digest(
                kb_name="example/kb",
                then=then,
                now=now,
                records=records,
                desire_paths=[],
                since=NOW - dt.timedelta(days=7),
                until=NOW,
                overdue_days=2,
                links=links_for(repo, "main"),
            )
            digest_message(digest)

        def whole() -> None:
            deps = DigestDeps(git=git, config=config, kb_repo=repo, out=io.StringIO(), now=lambda: NOW)
            run_digest(deps, DigestOptions(print_only=True))

        build_ms = median_ms(build, runs)
        run_ms = median_ms(whole, runs)
        print(f"{rules:>6} new rules: build {build_ms:8.1f} ms   run --print {run_ms:8.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--rules", default="500,5000", help="comma-separated sizes (default 500,5000)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    for size in (int(part) for part in args.rules.split(",")):
        measure(size, args.runs)


if __name__ == "__main__":
    main()
