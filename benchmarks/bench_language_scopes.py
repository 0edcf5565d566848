"""What `lang:` scopes and CODEOWNERS reviewers cost.

    .venv/bin/python benchmarks/bench_language_scopes.py [--rules 10000] [--runs 9]

  - expand: turning every rule's scope into globs as a corpus build does (`selection.scope_expander`),
    for a KB whose rules share a few hundred scopes and a fifth of which name a language;
  - codeowners: parsing a 500-line CODEOWNERS and picking the reviewers for 50 globs.
Prints medians in milliseconds; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from homeostat.core.config import Config  # noqa: E402
from homeostat.core.daily.codeowners_lookup import parse_codeowners, pick_reviewers  # noqa: E402
from homeostat.core.selection.build import scope_expander  # noqa: E402

LANGS = ("python", "ts", "go", "rust", "java")


def median_ms(task: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        task()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def scopes(count: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for i in range(count):
        if i % 5 == 0:
            out.append((f"lang:{LANGS[i % len(LANGS)]}",))
        else:
            out.append((f"src/svc{i % 300}/**",))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    config = Config.model_validate({"areas": [{"name": "api", "paths": ["src/**"], "owner": "t"}]})
    raw = scopes(args.rules)

    def expand() -> list[tuple[str, ...]]:
        of = scope_expander(config)
        return [of(s) for s in raw]

    print(f"expand   {args.rules:>6} rules: {median_ms(expand, args.runs):8.2f} ms")
    owners = "".join(f"src/svc{i}/ @u{i % 40} @org/team{i % 7}\n" for i in range(500))
    lines = parse_codeowners(owners)
    globs = [f"src/svc{i}/**" for i in range(0, 500, 10)]
    print(f"codeowners parse 500 lines: {median_ms(lambda: parse_codeowners(owners), args.runs):8.2f} ms")
    took = median_ms(lambda: pick_reviewers(config, [(lines, globs)], "", team_reviewers=True), args.runs)
    print(f"codeowners pick for 50 globs: {took:8.2f} ms")


if __name__ == "__main__":
    main()
