"""The deep dive at scale: wall time and model calls over a KB of `--rules` rules (10,000 by default).

    .venv/bin/python benchmarks/bench_deep_dive.py [--rules 10000] [--seed 7] [--latency 2] [--next-week]

The KB is generated: rules in five areas of two repos, their words drawn from a shared vocabulary
(a few common words, many rare ones), 1 % planted near-duplicate pairs, 1 % look-alike pairs that
differ only by a number, a version or a code name, 2 % stale rules (half of them cited by a
document section), 1 % new this week. `homeostat deep-dive` runs in-process against the GitHub
emulator and the model stub (which answers at once, so model time is excluded) and prints:

- wall time of the run (and of its find step alone, the pure part);
- model calls by agent, against the pairs a comparison of all pairs would have made;
- candidate pairs the overlap index proposed, and how many of the planted pairs it merged.

`--latency S` makes the stub answer each call after S seconds (issue 30: 2 s), so the wall time shows
the calls running `agents.concurrency.api` at once; the most calls the stub answered at once is
printed. `--next-week` then closes this week's PR unmerged (a person declined the merges), rewrites
1 % of the rules, and runs the deep dive a week later: the calls it makes are what changed, since
last week's verdicts are remembered on the state branch by their questions' content hash.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from emulators.anthropic_stub import AnthropicStub  # noqa: E402
from emulators.github_server import GitHubEmulator, GitHubHarness  # noqa: E402

TODAY = dt.datetime.now(dt.UTC).date()
AREAS = {
    "billing/api": "src/billing/api/**",
    "billing/jobs": "src/billing/jobs/**",
    "billing/db": "src/billing/db/**",
    "storefront/ui": "web/components/**",
    "storefront/checkout": "web/checkout/**",
}
CONFIG = """version: 0.2.0
team:
  members:
    - {handle: ana, role: lead, teams: [payments]}
    - {handle: bo, role: senior, teams: [payments]}
    - {handle: cy, role: member, teams: [web]}
  teams:
    - {name: payments, handle: "@example/payments"}
    - {name: web, handle: "@example/web"}
  reviewers: [ana]
sources:
  host: github
  kbRepo: https://github.com/example/kb
repos:
  - name: billing
    url: https://github.com/example/billing
    areas:
      - {name: api, paths: ["src/billing/api/**"], owner: payments}
      - {name: jobs, paths: ["src/billing/jobs/**"], owner: payments}
      - {name: db, paths: ["src/billing/db/**"], owner: payments}
  - name: storefront
    url: https://github.com/example/storefront
    areas:
      - {name: ui, paths: ["web/components/**"], owner: web}
      - {name: checkout, paths: ["web/checkout/**"], owner: web}
agents:
  maxCostUsd: 1000
"""
SYLLABLES = "ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo vu za ze zi zo zu".split()
COMMON = "handler service request response record ledger cursor payment refund client cache query".split()


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(3, 4))))
    return sorted(words)


def sentence(rng: random.Random, vocab: list[str], n: int) -> list[str]:
    """n words: one in eight from a dozen common ones, one in four from a long-tailed head of the
    vocabulary, the rest anywhere in it (a team's rules share a few words and many rare ones)."""
    out = []
    for _ in range(n):
        roll = rng.random()
        if roll < 0.125:
            out.append(rng.choice(COMMON))
        elif roll < 0.375:
            out.append(vocab[min(len(vocab) - 1, int(rng.paretovariate(1.0) * 20))])
        else:
            out.append(rng.choice(vocab))
    return out


def rule_text(
    rule_id: str, area: str, title: str, text: str, *, confirmed: dt.date, created: dt.date, url: str
) -> str:
    return (
        f'---\nid: {rule_id}\ntitle: {title}\narea: {area}\nscope: ["{AREAS[area]}"]\nstatus: accepted\n'
        f"source:\n  type: pr-feedback\n  url: {url}\n  author: bo\n  changedCode: true\n"
        f"created: {created.isoformat()}\nlastConfirmed: {confirmed.isoformat()}\n---\n"
        f"## Rule\n{text}\n\n## Why\nA reviewer asked for it and the code changed after.\n"
    )


def generate(n: int, seed: int) -> tuple[dict[str, str], dict[str, int]]:
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    files = {"homeostat.yaml": CONFIG}
    planted = Counter[str]()
    areas = list(AREAS)
    recent = TODAY - dt.timedelta(days=3)
    cited: list[str] = []
    i = 0
    while i < n:
        area = areas[i % len(areas)]
        roll = rng.random()
        words = sentence(rng, vocab, 9)
        name = f"call{vocab[rng.randrange(len(vocab))].title()}{i}"
        title = " ".join(words[:6]).capitalize()
        text = f"{' '.join(words).capitalize()} with `{name}()` in every handler."
        created, confirmed = dt.date(2026, 1, 5), recent
        if roll < 0.02:
            confirmed = TODAY - dt.timedelta(days=400)
            created = confirmed
            planted["stale"] += 1
            if planted["stale"] % 2:
                cited.append(f"r{i:05d}")
        elif roll < 0.03:
            created = recent
            planted["new"] += 1
        url = f"https://github.com/example/{area.split('/')[0]}/pull/{i}#discussion_r{i + 1}"
        files[f"knowledge/{area}/r{i:05d}.md"] = rule_text(
            f"r{i:05d}", area, title, text, confirmed=confirmed, created=created, url=url
        )
        i += 1
        if i < n and roll > 0.99:  # a near-duplicate: the same lesson reworded a little
            twin = f"{' '.join(words[:8]).capitalize()} with `{name}()` in each handler."
            files[f"knowledge/{area}/r{i:05d}.md"] = rule_text(
                f"r{i:05d}",
                area,
                title.replace(words[0], words[0] + "s", 1),
                twin,
                confirmed=recent,
                created=created,
                url=url + "0",
            )
            planted["duplicate pairs"] += 1
            i += 1
        elif i < n and 0.98 < roll <= 0.99:  # a look-alike: the same words, another number
            other = re.sub(r"\d+\(\)", f"{i}()", text)
            files[f"knowledge/{area}/r{i:05d}.md"] = rule_text(
                f"r{i:05d}",
                area,
                title,
                other + f" Keep {i} retries.",
                confirmed=recent,
                created=created,
                url=url + "1",
            )
            planted["look-alike pairs"] += 1
            i += 1
    sections = "".join(
        f"## About {rule_id} {{#about-{rule_id}}}\n<!-- homeostat: source=manual updated={recent.isoformat()} -->\n"
        f"Handlers follow the rule ({rule_id}). They also log every request.\n\n"
        for rule_id in cited
    )
    files["knowledge/billing/api/docs/handlers.md"] = (
        f'---\ntitle: Handlers\narea: billing/api\nowner: payments\nscope: ["src/billing/api/**"]\n'
        f"updated: {recent.isoformat()}\n---\n{sections}"
    )
    planted["cited sections"] = len(cited)
    return files, dict(planted)


class Script:
    def __init__(self) -> None:
        self.calls = Counter[str]()

    def __call__(self, system: str, user: str) -> Any:
        if "look alike" in system:
            self.calls["merge"] += 1
            return {"reason": "same", "same": True}
        if "contradictions" in system:
            self.calls["contradiction"] += 1
            return {"reason": "none", "contradicts": []}
        self.calls["retract"] += 1
        rule = re.search(r"^Retired rule (\S+):", user, re.M)
        return {"change": True, "body": "They also log every request."} if rule else {"change": False}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the stub takes to answer a call")
    parser.add_argument(
        "--next-week", action="store_true", help="run again a week later (remembered verdicts)"
    )
    args = parser.parse_args()
    files, planted = generate(args.rules, args.seed)
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        emulator = GitHubEmulator(folder / "github")
        emulator.start()
        stub = AnthropicStub(latency=args.latency).start()
        script = Script()
        stub.respond_with(script)
        try:
            harness = GitHubHarness(emulator)
            for handle in ("ana", "bo", "cy"):
                harness.add_member(handle, ())
            repo = harness.create_repo("example", "kb")
            work = folder / "kb"
            git(folder, "clone", "--quiet", str(harness.bare_path(repo)), str(work))
            for rel, text in files.items():
                (work / rel).parent.mkdir(parents=True, exist_ok=True)
                (work / rel).write_text(text)
            git(work, "add", "-A")
            git(work, "commit", "--quiet", "-m", "KB")
            git(work, "push", "--quiet", "origin", "HEAD:main")
            os.environ.update(
                {
                    "GITHUB_TOKEN": harness.token,
                    "GITHUB_API_URL": emulator.api_url,
                    "ANTHROPIC_API_KEY": "sk-ant-bench",
                    "ANTHROPIC_BASE_URL": stub.url,
                    "CI": "true",
                }
            )
            run(work, args.rules, planted, script, stub)
            if args.next_week:
                next_week(work, harness, repo, script, stub, args.rules)
        finally:
            stub.stop()
            emulator.stop()


def run(work: Path, rules: int, planted: dict[str, int], script: Script, stub: AnthropicStub) -> None:
    from homeostat.adapters.kb_files import load_kb_dir
    from homeostat.cli import main as homeostat
    from homeostat.core.daily.consolidate import OverlapIndex, candidate_from_rule
    from homeostat.core.deep_dive.duplicates import in_force, near_duplicate_pairs

    kb = load_kb_dir(work)
    live = in_force(kb.rules)
    started, cpu = time.perf_counter(), time.process_time()
    index = OverlapIndex(candidate_from_rule(r) for r in live)
    indexed = time.perf_counter() - started
    pairs = near_duplicate_pairs(live, kb.config, index)
    proposing, proposing_cpu = time.perf_counter() - started, time.process_time() - cpu
    compared = sum(len(index.candidates(candidate_from_rule(r), exclude=r.id)) for r in live)
    started, cpu = time.perf_counter(), time.process_time()
    code = homeostat(["deep-dive", "--kb", str(work)])
    wall, wall_cpu = time.perf_counter() - started, time.process_time() - cpu
    every_pair = len(live) * (len(live) - 1) // 2
    print(f"KB: {rules} rules generated; planted: {planted}")
    print(
        f"overlap index: built in {indexed:.2f} s; {compared} candidates read over {len(live)} rules "
        f"(all pairs would be {every_pair:,}); {len(pairs)} near-duplicate pairs proposed; "
        f"index and proposals {proposing:.1f} s wall, {proposing_cpu:.1f} s cpu"
    )
    total = sum(script.calls.values())
    print(
        f"deep dive over {rules} rules: exit {code}, {wall:.1f} s wall ({wall_cpu:.1f} s cpu, the "
        f"emulator's and the stub's threads included), {total} model calls "
        f"({dict(script.calls)}), {stub.latency:g} s each at the stub, at most {stub.max_in_flight} at once"
    )


def next_week(
    work: Path, harness: GitHubHarness, repo: Any, script: Script, stub: AnthropicStub, rules: int
) -> None:
    """A person closes this week's PR; 1 % of the rules are rewritten; the deep dive a week later."""
    from homeostat.cli import build_parser
    from homeostat.commands.ci import deep_dive
    from homeostat.workspace import Workspace

    record = harness.emulator.repo("example", "kb")
    for number, pull in list(record.pulls.items()):
        if pull.state == "open":
            harness.close_as(repo, number, "ana")
    git(work, "pull", "--quiet", "origin", "main")
    rng = random.Random(1)
    paths = sorted((work / "knowledge").rglob("r*.md"))
    changed = rng.sample(paths, max(1, len(paths) // 100))
    for path in changed:
        path.write_text(path.read_text().replace("in every handler.", "in every request handler."))
    git(work, "commit", "--quiet", "-am", "a week of edits")
    git(work, "push", "--quiet", "origin", "HEAD:main")
    script.calls.clear()
    stub.max_in_flight = 0
    later = dt.datetime.now(dt.UTC) + dt.timedelta(days=7)
    started, cpu = time.perf_counter(), time.process_time()
    args = build_parser("deep-dive").parse_args(["deep-dive", "--kb", str(work)])
    code = deep_dive.run(args, Workspace.of(args), now=lambda: later)
    wall, wall_cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"the next week, {len(changed)} of {rules} rules rewritten: exit {code}, {wall:.1f} s wall "
        f"({wall_cpu:.1f} s cpu), {sum(script.calls.values())} model calls ({dict(script.calls)}), "
        f"at most {stub.max_in_flight} at once"
    )


if __name__ == "__main__":
    main()
