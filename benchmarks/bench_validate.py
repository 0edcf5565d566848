"""`homeostat validate` as a whole process on generated KBs of 1,000 to 100,000 rules.

    .venv/bin/python benchmarks/bench_validate.py [--sizes 1000,10000,30000,100000] [--runs 3]
        [--documents-per-1000 50] [--detect-secrets-up-to 10000] [--against /tmp/main-checkout]

Each KB (two repos, ten areas, five topic files per area, one document per 20 rules so the tree grows
evenly; prose with a long tail of rare words, as near-duplicate detection meets in a real KB) first
gets its cached score and tokens written by one untimed `validate --fix`, as a daily run leaves them.
Then, per size, the median wall and CPU time (user + system, of the child alone) of --runs runs and
the largest peak resident memory of one: "fresh" with no `.homeostat/` (a CI checkout, every rule's
tokens counted), "cached" with the token counts the previous run left (a developer's clone); CPU
seconds per MB of Markdown; and `detect-secrets scan --all-files` of the same tree in the same run
(up to --detect-secrets-up-to rules; it takes minutes), for ratios the machine's load skews least.
`--against` names another checkout of the repository (`git worktree add --detach /tmp/main-ref main`):
its validate runs on the same KBs, each of its runs taken in turn with this tree's, for before/after
ratios from one window of the machine's load.

Targets (issue 18): 10k rules under 3 s and at most 0.02x detect-secrets; 100k under 30 s and
500 MB; time per MB flat across sizes. Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
WORDS = """ledger refund invoice voucher courier tariff parcel beacon quota sensor ticket budget mandate
coupon batch gateway router bundle cursor channel digest engine filter harvest index journal kiosk
lantern market needle orbit pilot quarry relay signal tunnel vault widget handler service retry cache
timeout schema migration column payload request response client server worker queue event""".split()
REPOS = {
    "payments": ["api", "workers", "db", "jobs", "auth"],
    "storefront": ["ui", "checkout", "client", "search", "cart"],
}
TOPICS = ["errors", "testing", "naming", "data", "security"]


# Besides the common words, a long tail drawn by Zipf's law, as in real prose: it is what gives the
# near-duplicate check rare words to index, so the benchmark pays what a real KB pays there.
_SYLLABLES = "ba ko ri tu me sa lo ni pe da fu gi ra ve zo".split()
TAIL = [a + b + c for a in _SYLLABLES for b in _SYLLABLES for c in _SYLLABLES]
_TAIL_WEIGHTS = list(itertools.accumulate(1 / rank for rank in range(1, len(TAIL) + 1)))


def sentence(rng: random.Random, n: int) -> str:
    tail = iter(rng.choices(TAIL, cum_weights=_TAIL_WEIGHTS, k=n))
    words = [rng.choice(WORDS) if rng.random() < 0.7 else next(tail) for _ in range(n)]
    return " ".join(words).capitalize()


def provenance(repo: str, index: int, n: int) -> str:
    """Most sections drafted at bootstrap; every third patched by the curator from a review."""
    if n % 3:
        return "<!-- homeostat: source=bootstrap updated=2026-10-20 confidence=70 -->"
    url = f"https://github.com/example/{repo}/pull/{index}#discussion_r{index}{n}"
    return f"<!-- homeostat: source=curator url={url} updated=2026-11-02 -->"


def config() -> str:
    lines = [
        "version: 0.2.0",
        "team:",
        "  members:",
        "    - {handle: ana, role: lead, teams: [payments]}",
        "    - {handle: bo, role: senior, teams: [payments]}",
        "    - {handle: cy, role: member, teams: [web]}",
        "  teams:",
        "    - {name: payments, handle: '@example/payments'}",
        "    - {name: web, handle: '@example/web'}",
        "repos:",
    ]
    for repo, areas in REPOS.items():
        lines += [
            f"  - name: {repo}",
            f"    url: https://github.com/example/{repo}",
            f"    topics: [{', '.join(TOPICS)}]",
            "    areas:",
        ]
        owner = "payments" if repo == "payments" else "web"
        for area in areas:
            lines += [f"      - name: {area}", f"        paths: ['src/{area}/**']", f"        owner: {owner}"]
    return "\n".join(lines) + "\n"


def section(rng: random.Random, repo: str, area: str, index: int) -> tuple[str, str]:
    rule_id = f"{repo}-{area}-rule-{index:05d}"
    text = (
        f"## {sentence(rng, 6)} {index} {{#{rule_id}}}\n<!-- homeostat\n"
        f'scope: ["src/{area}/**/*.py"]\nstatus: accepted\nkind: convention\napprovedBy: [ana]\n'
        f"source:\n  type: pr-feedback\n  url: https://github.com/example/{repo}/pull/{index}#discussion_r{index}\n"
        f"  author: ana\n  changedCode: true\ncreated: 2026-09-01\nlastConfirmed: 2026-11-01\n-->\n"
        f"### Rule\n{sentence(rng, 30)} in `src/{area}/handler_{index}.py`.\n\n### Why\n{sentence(rng, 40)}.\n"
    )
    return rule_id, text


def generate(root: Path, rules: int, documents: int) -> None:
    rng = random.Random(20261129)
    (root / "homeostat.yaml").write_text(config())
    buckets: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    areas = [(repo, area) for repo, items in REPOS.items() for area in items]
    for index in range(rules):
        repo, area = areas[index % len(areas)]
        topic = TOPICS[(index // len(areas)) % len(TOPICS)]
        buckets.setdefault((repo, area, topic), []).append(section(rng, repo, area, index))
    for (repo, area, topic), sections in buckets.items():
        folder = root / "knowledge" / repo / area
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join(text for _, text in sorted(sections))
        (folder / f"{topic}.md").write_text(f"---\narea: {repo}/{area}\ntopic: {topic}\n---\n{body}")
    for index in range(documents):
        repo, area = areas[index % len(areas)]
        folder = root / "knowledge" / repo / area / "docs"
        folder.mkdir(parents=True, exist_ok=True)
        sections = "\n".join(
            f"## {sentence(rng, 4)} {n} {{#part-{n}}}\n{provenance(repo, index, n)}\n{sentence(rng, 120)}.\n"
            for n in range(6)
        )
        (folder / f"doc-{index:04d}.md").write_text(
            f"---\ntitle: Document {index}\narea: {repo}/{area}\nowner: {'payments' if repo == 'payments' else 'web'}\n"
            f'scope: ["src/{area}/**"]\nupdated: 2026-11-01\n---\n{sections}'
        )


class Run(NamedTuple):
    wall: float  # seconds
    cpu: float  # user + system seconds of the child alone: what a busy shared machine skews least
    peak_mb: float  # the child's own peak resident memory
    code: int
    tail: str  # the end of its output


def run_once(argv: list[str], cwd: Path | None = None) -> Run:
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        out.seek(max(0, out.seek(0, os.SEEK_END) - 200))
        tail = out.read().decode("utf-8", "replace").replace("\n", " ").strip()
    cpu = usage.ru_utime + usage.ru_stime
    return Run(wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), tail)


# The other checkout's package, not the editable install this venv points at: its finder is dropped
# from sys.meta_path and the checkout put first on sys.path.
_AGAINST = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]; "
    "sys.path.insert(0, {path!r}); from homeostat.cli import main_entry; sys.argv[0] = 'homeostat'; "
    "sys.exit(main_entry())"
)


def validate_argv(root: Path, against: Path | None) -> list[str]:
    args = ["validate", str(root), "--today", "2026-11-29", "--format", "json"]
    if against is None:
        return [str(Path(sys.executable).parent / "homeostat"), *args]
    return [sys.executable, "-c", _AGAINST.format(path=str(against)), *args]


def measure(root: Path, runs: int, *, fresh: bool, against: Path | None = None) -> tuple[Run, Run | None]:
    """Median wall and CPU of `runs` runs, the largest peak, the last run's exit code and output; and
    the same of the `against` checkout's validate, each of its runs right after one of this tree's."""
    done: list[Run] = []
    other: list[Run] = []
    for _ in range(runs):
        for argv, into in [(validate_argv(root, None), done)] + (
            [(validate_argv(root, against), other)] if against else []
        ):
            if fresh:
                shutil.rmtree(root / ".homeostat", ignore_errors=True)
            into.append(run_once(argv))
    return summary(done), summary(other) if other else None


def summary(done: list[Run]) -> Run:
    return Run(
        statistics.median(r.wall for r in done),
        statistics.median(r.cpu for r in done),
        max(r.peak_mb for r in done),
        done[-1].code,
        done[-1].tail,
    )


def detect_secrets(root: Path) -> Run:
    # from inside the tree: given an absolute path outside the working directory, it scans nothing
    return run_once([str(Path(sys.executable).parent / "detect-secrets"), "scan", "--all-files", "."], root)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,30000,100000", help="rule counts, comma-separated")
    parser.add_argument("--documents-per-1000", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--detect-secrets-up-to", type=int, default=10_000, help="largest KB to time detect-secrets on"
    )
    parser.add_argument("--against", type=Path, help="another checkout whose validate to time in turn")
    args = parser.parse_args()
    homeostat = str(Path(sys.executable).parent / "homeostat")
    rows = []
    before = []
    for rules in [int(n) for n in args.sizes.split(",")]:
        documents = rules * args.documents_per_1000 // 1000
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            generate(root, rules, documents)
            fix = [homeostat, "validate", str(root), "--fix", "--today", "2026-11-29"]
            subprocess.run(fix, capture_output=True, check=False)
            mb = sum(p.stat().st_size for p in root.rglob("*.md")) / 1e6
            print(f"KB: {rules} rules, {documents} documents, {mb:.1f} MB of Markdown", flush=True)
            fresh, fresh_before = measure(root, args.runs, fresh=True, against=args.against)
            print(f"  exit {fresh.code}: …{fresh.tail[-90:]}")
            cached, cached_before = measure(root, args.runs, fresh=False, against=args.against)
            scan = detect_secrets(root) if rules <= args.detect_secrets_up_to else None
            rows.append((rules, mb, fresh, cached, scan))
            show(rows[-1:], header=False)
            if fresh_before and cached_before:
                if fresh_before.tail != fresh.tail or cached_before.tail != cached.tail:
                    print(f"  NOTE: {args.against} printed something else: …{fresh_before.tail[-90:]}")
                before.append((rules, mb, fresh_before, cached_before, scan))
    print()
    show(rows, header=True)
    if before:
        print(f"\n{args.against}, each run in turn with the one above:")
        show(before, header=True)
    print("targets: 10k < 3 s and <= 0.02x detect-secrets; 100k < 30 s and < 500 MB; s/MB flat")


def show(rows: list[tuple[int, float, Run, Run, Run | None]], *, header: bool) -> None:
    """fresh: no .homeostat/ (a CI checkout); cached: the clone after --fix; ds: detect-secrets scan."""
    if header:
        print(
            "rules      MB | fresh wall  cpu   MB  cpu/MB | cached wall  cpu   MB  cpu/MB "
            "| ds wall    cpu | fresh/ds wall  cpu"
        )
    for rules, mb, fresh, cached, scan in rows:
        ds = (
            f"| {scan.wall:7.1f} {scan.cpu:6.1f} | {fresh.wall / scan.wall:13.3f} {fresh.cpu / scan.cpu:5.3f}"
            if scan
            else "|       -      - |             -     -"
        )
        print(
            f"{rules:<7} {mb:6.1f} | {fresh.wall:10.2f} {fresh.cpu:4.1f} {fresh.peak_mb:4.0f} {fresh.cpu / mb:7.3f} "
            f"| {cached.wall:11.2f} {cached.cpu:4.1f} {cached.peak_mb:4.0f} {cached.cpu / mb:7.3f} {ds}",
            flush=True,
        )


if __name__ == "__main__":
    main()
