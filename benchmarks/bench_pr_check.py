"""The PR check with `--base` on a generated 10,000-rule KB, and `export` of 5,000 rules before and
after the always-on budgets.

    .venv/bin/python benchmarks/bench_pr_check.py [--rules 10000] [--runs 3] [--changed 5]
        [--added 10] [--export-rules 5000]

The KB is bench_validate's (two repos, ten areas, five topic files per area), committed on `main`
after one untimed `validate --fix`; a branch `pr` then edits `--changed` rules and adds `--added` in
one area, as a KB pull request does. Timed, per run, as whole processes: `validate` of the branch
alone, and `validate --base main` (the same plus the base read from git, both corpora built and the
paths the changed rules scope fitted on each side): "fresh" with no `.homeostat/` (a CI checkout,
every rule's tokens counted), "cached" with the token counts the previous run left. Medians of
--runs, the largest peak memory. Then `export` into an empty code checkout of a KB of
--export-rules rules (a fifth of them scoped `**`, the rest to their area): AGENTS.md's size with
the budgets off (`null`, what export wrote before them) and with the defaults. Prints numbers only.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_validate import REPOS, Run, generate, run_once, section, summary  # noqa: E402

TODAY = ["--today", "2026-11-29"]
NO_BUDGETS = """
distribution:
  exports:
    claude: {lines: null}
    copilot: {chars: null}
    agents: {lines: null, chars: null}
"""


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def homeostat() -> str:
    return str(Path(sys.executable).parent / "homeostat")


def make_pr(root: Path, changed: int, added: int) -> None:
    """Edit `changed` rules of payments/api's errors topic and add `added` more to it, on branch `pr`."""
    topic = root / "knowledge" / "payments" / "api" / "errors.md"
    text = topic.read_text(encoding="utf-8")
    edits = 0
    for marker in ("### Why\n",):
        start = 0
        while edits < changed and (at := text.find(marker, start)) >= 0:
            text = text[: at + len(marker)] + "Measured again this week: " + text[at + len(marker) :]
            start = at + len(marker) + 30
            edits += 1
    rng = random.Random(7)
    new = [section(rng, "payments", "api", 900_000 + i)[1] for i in range(added)]
    topic.write_text(text + "\n" + "\n".join(new), encoding="utf-8")
    git(root, "checkout", "-q", "-b", "pr")
    git(root, "commit", "-qam", "a KB pull request")


def timed(root: Path, argv: list[str], runs: int, *, fresh: bool) -> Run:
    done = []
    for _ in range(runs):
        if fresh:
            shutil.rmtree(root / ".homeostat", ignore_errors=True)
        done.append(run_once([homeostat(), "validate", "--kb", str(root), *argv, *TODAY, "--format", "json"]))
    return summary(done)


def pr_check(rules: int, runs: int, changed: int, added: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        generate(root, rules, rules // 20)
        subprocess.run(
            [homeostat(), "validate", str(root), "--fix", *TODAY], capture_output=True, check=False
        )
        git(root, "init", "-q", "-b", "main")
        (root / ".gitignore").write_text(".homeostat/\n")
        git(root, "add", "-A")
        git(root, "-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-qm", "KB")
        git(root, "config", "user.name", "b")
        git(root, "config", "user.email", "b@example.com")
        make_pr(root, changed, added)
        print(f"PR check, {rules:,} rules ({changed} changed, {added} added in one area), median of {runs}:")
        print(f"{'':28} {'wall s':>7} {'cpu s':>7} {'peak MB':>8}  exit")
        for fresh in (True, False):
            for label, argv in (("validate", []), ("validate --base main", ["--base", "main"])):
                run = timed(root, argv, runs, fresh=fresh)
                name = f"{label} ({'fresh' if fresh else 'cached'})"
                print(f"{name:28} {run.wall:7.2f} {run.cpu:7.2f} {run.peak_mb:8.0f}  {run.code}")
        done = subprocess.run(
            [homeostat(), "validate", "--kb", str(root), "--base", "main", *TODAY],
            capture_output=True,
            text=True,
            check=False,
        )
        for line in done.stdout.splitlines():
            if line.startswith("agents:"):
                print(f"  {line[:150]}")


def export_sizes(rules: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "kb"
        root.mkdir()
        generate(root, rules, rules // 100)
        for topic in (root / "knowledge").rglob("naming.md"):  # a fifth of the rules apply everywhere
            text = topic.read_text(encoding="utf-8")
            topic.write_text(text.replace('scope: ["src/', 'scope: ["**", "src/'), encoding="utf-8")
        subprocess.run(
            [homeostat(), "validate", str(root), "--fix", *TODAY], capture_output=True, check=False
        )
        print(f"\nexport of {rules:,} rules ({rules // 2:,} per repo) into payments:")
        print(f"{'':20} {'AGENTS.md bytes':>16} {'lines':>8} {'words':>9} {'always-on Claude lines':>23}")
        config = root / "homeostat.yaml"
        original = config.read_text(encoding="utf-8")
        for label, extra in (("budgets off (before)", NO_BUDGETS), ("default budgets", "")):
            config.write_text(original + extra, encoding="utf-8")
            code = Path(folder) / f"code-{len(extra)}"
            code.mkdir()
            git(code, "init", "-q")
            git(code, "remote", "add", "origin", "https://github.com/example/payments")
            subprocess.run(
                [homeostat(), "export", "--checkout", str(code), "--kb", str(root)],
                capture_output=True,
                check=False,
            )
            agents = (code / "AGENTS.md").read_text(encoding="utf-8")
            claude = [
                p.read_text(encoding="utf-8")
                for p in (code / ".claude" / "rules" / "homeostat").glob("*.md")
                if not p.read_text(encoding="utf-8").startswith("---\npaths:")
            ]
            always = sum(t.count("\n") for t in claude)
            print(
                f"{label:20} {len(agents.encode()):16,} {agents.count(chr(10)):8,} "
                f"{len(agents.split()):9,} {always:23,}"
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--changed", type=int, default=5)
    parser.add_argument("--added", type=int, default=10)
    parser.add_argument("--export-rules", type=int, default=5_000)
    args = parser.parse_args()
    assert "payments" in REPOS
    pr_check(args.rules, args.runs, args.changed, args.added)
    export_sizes(args.export_rules)


if __name__ == "__main__":
    main()
