"""`homeostat validate` as a whole process on a generated KB of 10,000 rules and 500 documents.

    .venv/bin/python benchmarks/bench_validate.py [--rules 10000] [--documents 500] [--runs 3]

Targets (issue: the KB format and validate): under 10 s wall and under 500 MB peak memory on a 2-core
machine. Prints wall time per run, the median, and the child's peak resident memory; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize()


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
            f"## {sentence(rng, 4)} {n} {{#part-{n}}}\n<!-- homeostat: source=bootstrap updated=2026-10-20 confidence=70 -->\n"
            f"{sentence(rng, 120)}.\n"
            for n in range(6)
        )
        (folder / f"doc-{index:04d}.md").write_text(
            f"---\ntitle: Document {index}\narea: {repo}/{area}\nowner: {'payments' if repo == 'payments' else 'web'}\n"
            f'scope: ["src/{area}/**"]\nupdated: 2026-11-01\n---\n{sections}'
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--documents", type=int, default=500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        generate(root, args.rules, args.documents)
        size = sum(p.stat().st_size for p in root.rglob("*.md"))
        print(f"KB: {args.rules} rules, {args.documents} documents, {size / 1e6:.1f} MB of Markdown")
        homeostat = Path(sys.executable).parent / "homeostat"
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run(
                [str(homeostat), "validate", str(root), "--today", "2026-11-29", "--format", "json"],
                capture_output=True,
                text=True,
            )
            times.append(time.perf_counter() - started)
            summary = done.stdout[-200:].replace("\n", " ")
        peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"exit {done.returncode}; last output: …{summary.strip()[-120:]}")
        print("wall s per run: " + ", ".join(f"{t:.2f}" for t in times))
        print(f"median wall: {statistics.median(times):.2f} s (target < 10 s)")
        print(f"peak memory of one run: {peak_mb:.0f} MB (target < 500 MB)")


if __name__ == "__main__":
    main()
