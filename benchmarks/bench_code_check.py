"""The deep dive's code check (`agents.deepDive.checkCode`) on a KB of `--rules` rules (1,000 by default).

    .venv/bin/python benchmarks/bench_code_check.py [--rules 1000] [--files 4000] [--seed 7]

Two code repos on the GitHub emulator hold `--files` files between them; the generated rules each
name one distinctive identifier and, for half of them, a file path: 75 % name code that is there,
10 % name code that is gone, 5 % name a path that is there and an identifier that is gone (kept),
10 % name no code at all. The step runs through the real GitHub adapter over HTTP, once with the
default search cap (`agents.deepDive.codeSearches`: 100) and once without a cap, and prints:

- rules that name code, tree listings and code searches sent, rules retired and left for later;
- the step's wall time here (the emulator answers at once and its search limit is lifted);
- what the searches cost on github.com, whose code search allows 10 requests a minute;
- how many weekly runs at the default cap it takes to find every rule whose code is gone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from emulators.github_server import GitHubEmulator, GitHubHarness  # noqa: E402

from homeostat.adapters.git.plumbing import Git  # noqa: E402
from homeostat.core.asker import RunStats  # noqa: E402
from homeostat.core.kb import load_kb  # noqa: E402
from homeostat.core.state.branch import StateSnapshot  # noqa: E402
from homeostat.runs.deep_dive.code_check import check_code  # noqa: E402
from homeostat.runs.deep_dive.find import Loaded  # noqa: E402
from homeostat.runs.deep_dive.run_state import DeepDiveContext, DeepDiveDeps, DeepDiveOptions, Found  # noqa: E402

TODAY = dt.datetime.now(dt.UTC).date()
CONFIG = """version: 0.2.0
team:
  members:
    - {{handle: ana, role: lead, teams: [payments]}}
  teams:
    - {{name: payments, handle: "@example/payments"}}
sources:
  host: github
repos:
  - name: billing
    url: https://github.com/example/billing
    areas:
      - {{name: api, paths: ["src/**"], owner: payments}}
  - name: storefront
    url: https://github.com/example/storefront
    areas:
      - {{name: ui, paths: ["web/**"], owner: payments}}
agents:
  deepDive:
    checkCode: true
    codeSearches: {cap}
"""
REPOS = {"billing": ("billing/api", "src"), "storefront": ("storefront/ui", "web")}


def identifier(n: int) -> str:
    return f"useThing{n:05d}Client"


def rule_file(rule_id: str, area: str, root: str, text: str) -> str:
    return (
        f'---\nid: {rule_id}\ntitle: Rule {rule_id}\narea: {area}\nscope: ["{root}/**"]\nstatus: accepted\n'
        f"kind: convention\nsource:\n  type: manual\n  author: ana\ncreated: 2026-01-01\n"
        f"lastConfirmed: {(TODAY - dt.timedelta(days=10)).isoformat()}\n---\n## Rule\n{text}\n\n"
        "## Why\nThe team agreed on it.\n"
    )


def world(rules: int, files: int, seed: int) -> tuple[dict[str, dict[str, str]], dict[str, str], set[str]]:
    """Code per repo, the KB's files, and how many rules name only vanished code."""
    rng = random.Random(seed)
    code: dict[str, dict[str, str]] = {name: {} for name in REPOS}
    kb: dict[str, str] = {}
    gone: set[str] = set()
    per_repo = files // len(REPOS)
    for name, (_area, root) in REPOS.items():
        for i in range(per_repo):
            code[name][f"{root}/pkg{i % 97}/mod{i}.ts"] = f"export const x{i} = {i};\n"
    for n in range(rules):
        name = rng.choice(list(REPOS))
        area, root = REPOS[name]
        roll = rng.random()
        path = f"{root}/pkg{n % 97}/mod{n}.ts"
        if roll < 0.75:  # present
            code[name][path] = f"export function {identifier(n)}() {{}}\n"
            text = f"Call `{identifier(n)}()`" + (f" from `{path}`." if n % 2 else ".")
        elif roll < 0.85:  # gone
            gone.add(f"r{n:05d}")
            text = f"Call `{identifier(n)}()` from `{root}/gone/mod{n}.ts`."
        elif roll < 0.90:  # a path still there keeps it
            code[name][path] = "export {};\n"
            text = f"Call `{identifier(n)}()` from `{path}`."
        else:
            text = "Write small functions and name them for what they do."
        kb[f"knowledge/{area}/r{n:05d}.md"] = rule_file(f"r{n:05d}", area, root, text)
    return code, kb, gone


def run(
    harness: GitHubHarness, kb_files: dict[str, str], cap: int, scratch: Path, week: int = 0
) -> tuple[dict[str, float], set[str]]:
    files = {**kb_files, "homeostat.yaml": CONFIG.format(cap=cap)}
    kb = load_kb(files)
    config = kb.require_config()
    loaded = Loaded(kb, config, "main", "0" * 40, StateSnapshot(), "2026-W49", dt.datetime.now(dt.UTC))
    deps = DeepDiveDeps(
        git=Git(scratch),
        host=harness.adapter(),
        kb_repo=None,
        asker_for=lambda agent: None,  # type: ignore[arg-type,return-value]  # the step asks no model
        stats=RunStats(),
        out=io.StringIO(),
    )
    ctx = DeepDiveContext(deps, DeepDiveOptions())
    ctx.started = dt.datetime.now(dt.UTC) + dt.timedelta(weeks=week)  # which week's rotation
    found = Found()
    before = len(harness.requests.entries)
    started = time.perf_counter()
    check_code(ctx, loaded, found)
    seconds = time.perf_counter() - started
    code = found.code
    return {
        "named": code.checked,
        "requests": len(harness.requests.entries) - before,
        "trees": len(code.trees),
        "searches": code.searches,
        "retired": len(code.retired),
        "later": code.unsearched,
        "seconds": seconds,
    }, {rule_id for rule_id, _ in code.retired}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--files", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    code, kb_files, gone = world(args.rules, args.files, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        emulator = GitHubEmulator(Path(tmp) / "github")
        emulator.start()
        try:
            emulator.search_limit = 10**9  # measured here; github.com's 10 a minute is computed below
            harness = GitHubHarness(emulator)
            for name, files in code.items():
                repo = harness.create_repo("example", name)
                harness.push_commit(repo, "main", dict(files), "code")
            print(
                f"{args.rules} rules ({len(gone)} name only vanished code), {args.files} code files in 2 repos"
            )
            for cap in (100, 10**6):
                got, retired = run(harness, kb_files, cap, Path(tmp))
                label = "default cap (100 searches)" if cap == 100 else "no cap"
                minutes = got["searches"] / 10
                print(
                    f"{label}: {got['named']:.0f} rules name code; {got['requests']:.0f} requests "
                    f"({got['trees']:.0f} tree listings, {got['searches']:.0f} code searches); "
                    f"{got['retired']:.0f} retired, {got['later']:.0f} left for a later run; "
                    f"{got['seconds']:.1f} s here; on github.com the searches alone take "
                    f"≥{minutes:.0f} min (10 a minute); wrongly retired: {len(retired - gone)}"
                )
            found: set[str] = set()
            for week in range(1, 41):  # weekly runs at the default cap, each entering the ring elsewhere
                found |= run(harness, kb_files, 100, Path(tmp), week)[1]
                if found >= gone:
                    break
            print(
                f"default cap, weekly runs: {len(found & gone)} of {len(gone)} vanished rules found after "
                f"{week} weeks; wrongly retired: {len(found - gone)}"
            )
        finally:
            emulator.stop()


if __name__ == "__main__":
    main()
