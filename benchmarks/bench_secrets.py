"""Secret-scanner benchmark: recall and false positives on three labelled sets, and scanning speed.

    .venv/bin/python benchmarks/bench_secrets.py [CASES_JSONL] [--show] [--show-heldout] [--show-heldout2]
                                                 [--show-heldout3] [--heldout4] [--speed]

The sets: the TUNING set (tests/secrets_tuning.py, what rules are written against), the first
held-out set (tests/secrets_heldout.py, retired to tuning use in issue 29 once its misses were read;
its misses are printed with `--show-heldout`), the second held-out set (tests/secrets_heldout2.py,
written by an independent red team without reading the scanner, and likewise retired to tuning use in
issue 29 once its misses were read; its misses are printed with `--show-heldout2`), the third held-out
set (tests/secrets_heldout3.py, written the same way, measured by totals only, then retired to tuning
use in issue 29 too; `--show-heldout3` prints its misses), the FOURTH held-out set
(tests/secrets_heldout4.py; only its totals are ever printed, with `--heldout4`, and only at the start
and the end of a change), and the shared corpus, which lives outside this repository (`../shared/bench/secrets/cases.jsonl` by default) and must
never be copied into it: hosted secret scanning blocks its strings. `--show` prints the text of each miss and false
positive of the tuning set and the shared corpus; without it only ids and kinds are printed. To
measure another checkout's code (say, main before a change), put it first on the path:

    PYTHONPATH=/path/to/other/checkout .venv/bin/python benchmarks/bench_secrets.py

Speed is measured on a generated KB of the size `homeostat validate` must handle (10,000 rules of
about 100 words and 500 documents), built from ordinary words so it contains no secrets; the
risky-content linter, which `validate` runs over the same text, is timed on it too (not with
`--speed`, which times the secret scan alone and skips the sets). Times are CPU
time (`time.process_time`), so other work on the machine does not skew them.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.append(str(REPO))
sys.path.insert(1, str(REPO / "tests"))

from secret_sets import Case, score_cases  # noqa: E402
from secrets_heldout import heldout_cases  # noqa: E402
from secrets_heldout2 import heldout2_cases  # noqa: E402
from secrets_heldout3 import heldout3_cases  # noqa: E402
from secrets_heldout4 import heldout4_cases  # noqa: E402
from secrets_tuning import tuning_cases  # noqa: E402

import homeostat  # noqa: E402
from homeostat.core.safety.risky import find_risks  # noqa: E402
from homeostat.core.safety.secrets import SecretHit, find_emails, find_secrets  # noqa: E402

DEFAULT_CASES = REPO.parent / "shared" / "bench" / "secrets" / "cases.jsonl"

_WORDS = (
    "the a to of and in for is on that with use when run test build deploy service api client server "
    "request response cache database query index migration schema config setting value default timeout "
    "retry error handler logging metric trace span user account session review merge branch commit "
    "release version package module function class method field type interface always never prefer "
    "avoid instead because otherwise must should before after each every only payments ledger sync "
    "billing invoice customer order shipping inventory search frontend backend worker queue job batch "
    "token key secret password header"
).split()


def _words(r: random.Random, n: int) -> str:
    out = []
    for _ in range(n):
        x = r.random()
        if x < 0.04:
            out.append(f"`{r.choice(_WORDS)}.{r.choice(_WORDS)}()`")
        elif x < 0.06:
            out.append(f"`src/{r.choice(_WORDS)}/{r.choice(_WORDS)}_{r.choice(_WORDS)}.py`")
        elif x < 0.065:
            out.append(f"https://docs.acme.dev/{r.choice(_WORDS)}/{r.choice(_WORDS)}")
        elif x < 0.07:
            out.append(f"v{r.randint(0, 9)}.{r.randint(0, 20)}.{r.randint(0, 30)}")
        else:
            out.append(r.choice(_WORDS))
    return " ".join(out)


def _rule(r: random.Random, i: int) -> str:
    return (
        f"---\nid: rule-{i:05d}\ntitle: {_words(r, 6)}\narea: {r.choice(_WORDS)}\n"
        f"scope:\n  paths: ['src/{r.choice(_WORDS)}/**']\nstatus: accepted\n"
        f"lastConfirmed: 2024-03-{r.randint(1, 28):02d}\n"
        f"source: https://github.com/acme/api/pull/{r.randint(1, 9999)}"
        f"#discussion_r{r.randint(10**8, 10**9)}\n"
        f"---\n{_words(r, 70)}\n\nWhy: {_words(r, 30)}\n"
    )


def _document(r: random.Random, i: int) -> str:
    sections = []
    for s in range(12):
        code = (
            f"```python\n{r.choice(_WORDS)} = {r.choice(_WORDS)}({r.choice(_WORDS)})\n```\n"
            if s % 3 == 0
            else ""
        )
        sections.append(
            f"## {_words(r, 4)}\n<!-- homeostat: source=seed id=s{i}-{s} -->\n\n{_words(r, 60)}\n\n{code}"
        )
    return f"# Document {i}\n\n" + "\n".join(sections)


def generated_kb(rules: int = 10_000, documents: int = 500, seed: int = 7) -> list[str]:
    r = random.Random(seed)
    return [_rule(r, i) for i in range(rules)] + [_document(r, i) for i in range(documents)]


def _caught(hits: list[SecretHit], start: int, end: int) -> bool:
    return any(h.start <= start and h.end >= end for h in hits)


def score(cases_path: Path, show: bool) -> None:
    rows = [json.loads(line) for line in cases_path.read_text(encoding="utf-8").splitlines() if line.strip()]
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses, false_positives = [], []
    pos = neg = caught = flagged = 0
    for row in rows:
        hits = find_secrets(row["text"])
        tally = per_kind[f"{row['label'][:3]} {row['kind']}"]
        tally[1] += 1
        if row["label"] == "positive":
            pos += 1
            s = row["text"].index(row["secret"])
            if _caught(hits, s, s + len(row["secret"])):
                caught += 1
                tally[0] += 1
            else:
                misses.append((row, hits))
        else:
            neg += 1
            if hits:
                flagged += 1
                tally[0] += 1
                false_positives.append((row, hits))
    print(f"corpus: {cases_path}")
    print(f"recall:  {caught}/{pos} = {caught / pos:.3f}")
    print(f"FP rate: {flagged}/{neg} = {flagged / neg:.3f}")
    print("\nper kind (pos: caught/total, neg: flagged/total):")
    for kind in sorted(per_kind):
        got, total = per_kind[kind]
        print(f"  {kind:36} {got}/{total}")
    for title, items in (("misses", misses), ("false positives", false_positives)):
        print(f"\n{title} ({len(items)}):")
        for row, hits in items:
            found = ", ".join(f"{h.kind}[{h.start}:{h.end}]" for h in hits) or "nothing"
            print(f"  {row['id']}: found {found}")
            if show:
                print(f"      {row['text'][:300]!r}")
    texts = [row["text"] for row in rows]
    _speed("corpus texts", texts)


def _speed(label: str, texts: list[str], repeat: int = 1) -> None:
    size = sum(len(t.encode("utf-8")) for t in texts) * repeat
    t0 = time.process_time()
    count = 0
    for _ in range(repeat):
        for t in texts:
            count += len(find_secrets(t))
    elapsed = time.process_time() - t0
    print(
        f"speed [{label}]: {size / 1e6:.2f} MB in {elapsed:.2f} s CPU"
        f" = {size / 1e6 / elapsed:.1f} MB/s ({count} hits)"
    )


def _spans(text: str) -> list[tuple[int, int]]:
    return [(h.start, h.end) for h in find_secrets(text)]


def score_sets(
    show: bool, show_heldout: bool, show_heldout2: bool = False, show_heldout3: bool = False
) -> None:
    """The tuning set and the three retired held-out sets (built at run time, so they are always
    present)."""
    for name, cases, detail in (
        ("tuning set", tuning_cases(), show),
        ("first held-out set (tuning use)", heldout_cases(), show_heldout),
        ("second held-out set (tuning use)", heldout2_cases(), show_heldout2),
        ("third held-out set (tuning use)", heldout3_cases(), show_heldout3),
    ):
        result = score_cases(cases, _spans)
        print(f"{name}: {result.line()}")
        if detail:
            _print_cases("misses", result.misses)
            _print_cases("false alarms", result.false_alarms)
    print()


def _print_cases(title: str, cases: list[Case]) -> None:
    print(f"  {title} ({len(cases)}):")
    for case in cases:
        found = ", ".join(f"{h.kind}[{h.start}:{h.end}]" for h in find_secrets(case.text)) or "nothing"
        print(f"    {case.id}: found {found}\n        {case.text[:200]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("cases", nargs="?", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--show", action="store_true", help="print the text of misses and false positives")
    parser.add_argument(
        "--heldout4", action="store_true", help="also score the fourth held-out set (totals only)"
    )
    parser.add_argument(
        "--show-heldout",
        action="store_true",
        help="print the first held-out set's misses too (tuning use since issue 29)",
    )
    parser.add_argument(
        "--show-heldout2",
        action="store_true",
        help="print the second held-out set's misses too (tuning use since issue 29)",
    )
    parser.add_argument(
        "--show-heldout3",
        action="store_true",
        help="print the third held-out set's misses too (tuning use since issue 29)",
    )
    parser.add_argument(
        "--speed",
        action="store_true",
        help="time the secret scan on the generated KB only (no sets, no linter)",
    )
    args = parser.parse_args()
    print(f"homeostat from {Path(homeostat.__file__).parent}")
    if args.speed:
        _speed("generated KB, 10,000 rules + 500 documents", generated_kb())
        return 0
    score_sets(args.show, args.show_heldout, args.show_heldout2, args.show_heldout3)
    if args.cases.exists():
        score(args.cases, args.show)
    else:
        print(f"corpus not found at {args.cases}; speed only")
    if args.heldout4:
        print(f"HELD-OUT set 4 (totals only): {score_cases(heldout4_cases(), _spans).line()}")
    kb = generated_kb()
    _speed("generated KB, 10,000 rules + 500 documents", kb)
    t0 = time.process_time()
    emails = sum(len(find_emails(t)) for t in kb)
    print(f"emails on the generated KB: {time.process_time() - t0:.2f} s CPU ({emails} hits)")
    size = sum(len(t.encode("utf-8")) for t in kb) / 1e6
    t0 = time.process_time()
    risks = sum(len(find_risks(t, ["acme.dev", "github.com"])) for t in kb)
    elapsed = time.process_time() - t0
    print(f"risky linter on the generated KB: {elapsed:.2f} s CPU = {size / elapsed:.1f} MB/s ({risks} hits)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
