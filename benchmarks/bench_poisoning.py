"""Poisoning corpus: how many probes `validate` catches and how many look-alikes it wrongly flags.

    .venv/bin/python benchmarks/bench_poisoning.py [--show]

Each probe is planted in a one-rule KB (or as a file of a real git checkout, validated on its working
tree and on `--ref HEAD`) and counts as caught when validate reports the check it names. To measure
another checkout's code (say, main before a change), put it first on the path:

    PYTHONPATH=/path/to/other/checkout .venv/bin/python benchmarks/bench_poisoning.py
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(1, str(Path(__file__).resolve().parents[1] / "tests"))

from poisoning import load_corpus, score  # noqa: E402

import homeostat  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--show", action="store_true", help="print the text of each miss and false positive")
    args = parser.parse_args()
    corpus = load_corpus()
    result = score(corpus)
    print(f"homeostat from {Path(homeostat.__file__).parent}")
    print(f"catch rate: {len(result.caught)}/{result.probes} = {result.catch_rate:.3f}")
    print(
        f"false-positive rate: {len(result.flagged)}/{result.look_alikes} = {result.false_positive_rate:.3f}"
    )
    by_check = Counter(p.check for p in corpus.probes)
    caught = Counter(p.check for p in result.caught)
    print("\nper check (caught/probes):")
    for check in sorted(by_check):
        print(f"  {check:32} {caught[check]}/{by_check[check]}")
    print(f"\nmissed ({len(result.missed)}):")
    for probe, got in result.missed:
        print(f"  {probe.id} (gap {probe.gap or '-'}): wanted {probe.check}, got {sorted(got) or 'nothing'}")
        if args.show:
            print(f"      {probe.text!r}")
    print(f"\nfalse positives ({len(result.flagged)}):")
    for probe, got in result.flagged:
        print(f"  {probe.id}: {sorted(got)}")
        if args.show:
            print(f"      {probe.text!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
