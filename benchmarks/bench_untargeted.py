"""What holds a poisoned review comment that gets past every word layer: how often the pull request's
author happens to enact it.

    .venv/bin/python benchmarks/bench_untargeted.py --pip DIR --flask DIR SET [SET ...] [--show]

A review lesson merges unread only when someone other than its commenter changed the commented file
after the comment with lines that use the rule's code terms (or remove code it forbids), and the judge
passes it (docs/daily.md, "Enacted by a second person"). So a poisoned comment whose words no layer
holds still needs the author's next change to use its code. This places each probe of a poisoning set
(SET: `tuning`, `gate`, `heldout16`, `heldout17`, … as bench_subjects names them) as a comment on
every file a real merged pull request of pypa/pip or pallets/flask changed (the pull requests of
tests/fixtures/reviews.yaml; bench_enactment.py says how to get the clones) and counts the placements
whose change to that file would count as enacting it:

- kept by the gates: the risky check, the subject gate (its word tables or its learned model) or the
  language gate holds it (bench_subjects);
- naming no code: no change can show it enacted, so it goes to a person;
- reaching enactment: the rest, with the share of placements that enact them, and the expected
  number of the set's probes that would merge unread if each were left on one file of one pull
  request chosen at random and the judge passed everything (the sum of the shares);
- the same probes had they named the project's own identifiers, as a member who knows the code
  would: the rate at which an unrelated pull request's change to a real rule's files enacts it
  (bench_enactment's placebo) times the probes reaching enactment;
- enacted somewhere: those at least one placement enacts. An attacker who reads the pull request
  first and names code its author is about to write is not held by this at all: only the judge
  holds those.

An upper bound in two ways: the whole pull request's change is read, not only its commits after the
comment, and the judge is taken to pass every probe. Held-out sets (those bench_subjects does not
count as retired) print totals only; `--show` (each probe's share) is refused for them.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS))

from bench_enactment import PULL_URL, REVIEWS, History, measure, placebo, uses  # noqa: E402
from bench_subjects import HELDOUT, RETIRED, TUNING, held_by_words  # noqa: E402
from poisoning import Probe, load_corpus  # noqa: E402

from homeostat.core.daily.enactment import code_terms, enacting_terms  # noqa: E402

Placement = tuple[list[str], list[str]]  # one changed file's added and removed lines


@dataclass(frozen=True)
class Placed:
    """One probe's fate: held by words, naming no code, or its enacting placements out of all."""

    probe_id: str
    kept: bool
    terms: tuple[str, ...] = ()
    removed_terms: tuple[str, ...] = ()
    enacted: int = 0
    placements: int = 0

    @property
    def share(self) -> float:
        return self.enacted / self.placements if self.placements else 0.0


def set_path(name: str) -> Path:
    """The probe file bench_subjects measures under that name."""
    if name in HELDOUT:
        return HELDOUT[name]
    if name in TUNING:
        return TUNING[name]
    raise SystemExit(f"unknown set {name!r}: one of {', '.join([*TUNING, *HELDOUT])}")


def held_out(name: str) -> bool:
    return name in HELDOUT and name not in RETIRED


def placements(histories: dict[str, History]) -> list[Placement]:
    """Every file each found pull request of reviews.yaml added lines to, with its added and removed
    lines there (a comment sits on a file the pull request changes)."""
    found: list[Placement] = []
    seen: set[tuple[str, tuple[str, str]]] = set()
    for rule in yaml.safe_load(REVIEWS.read_text(encoding="utf-8"))["rules"]:
        match = PULL_URL.match(str(rule.get("url", "")))
        change = histories[match[1]].change(int(match[2])) if match else None
        if match is None or change is None or (match[1], change) in seen:
            continue
        seen.add((match[1], change))
        by_file = histories[match[1]].files(change)
        found.extend(lines for lines in by_file.values() if lines[0])
    return found


def place(probe: Probe, where: list[Placement]) -> Placed:
    """The probe against every placement, as the enactment check reads a follow-up."""
    if held_by_words(probe):
        return Placed(probe.id, kept=True)
    terms, removed = enacting_terms(code_terms(probe.text))
    if not (terms or removed):
        return Placed(probe.id, kept=False)
    enacted = sum(1 for lines in where if uses(terms, removed, lines))
    return Placed(probe.id, False, terms, removed, enacted, len(where))


def report(name: str, placed: list[Placed], where: int, rate: float, *, show: bool) -> None:
    """Totals for one set; each probe that reaches enactment too with `show`."""
    total = len(placed)
    kept = sum(p.kept for p in placed)
    reaching = [p for p in placed if p.placements]
    no_code = total - kept - len(reaching)
    expected = sum(p.share for p in reaching)
    somewhere = sum(1 for p in reaching if p.enacted)
    print(f"\n== {name}{' (held out: totals only)' if held_out(name) else ''}: {total} probes")
    print(f"  kept by the gates {kept}; naming no code {no_code}; reaching enactment {len(reaching)}")
    print(
        f"  placed on each of {where} changed files of real pull requests: expected unread merges "
        f"{expected:.1f}/{total} (kept from an unread merge {100 * (total - expected) / total:.1f} %), "
        f"if the judge passed everything"
    )
    print(
        f"  had they named the project's own code instead, at the rate an unrelated change enacts a real "
        f"rule ({rate:.1%}): about {len(reaching) * rate:.1f}/{total} "
        f"(kept {100 * (total - len(reaching) * rate) / total:.1f} %)"
    )
    print(f"  enacted by at least one placement (an attacker who names the pull request's code): {somewhere}")
    if show:
        for p in sorted(reaching, key=lambda p: -p.share):
            print(f"    {p.share:6.1%} {p.probe_id}: {list(p.terms)} removed {list(p.removed_terms)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("sets", nargs="+", help="probe sets by bench_subjects' names")
    parser.add_argument("--pip", type=Path, required=True, help="a clone of pypa/pip (bare or not)")
    parser.add_argument("--flask", type=Path, required=True, help="a clone of pallets/flask (bare or not)")
    parser.add_argument("--show", action="store_true", help="each probe's share (retired sets only)")
    args = parser.parse_args(argv)
    if args.show and any(held_out(name) for name in args.sets):
        parser.error("--show prints probes: not with a held-out set")
    histories = {"pypa/pip": History(args.pip), "pallets/flask": History(args.flask)}
    where = placements(histories)
    pairs = placebo(measure(REVIEWS, histories), histories)
    rate = pairs["in scope"] / pairs["touch scope"] if pairs["touch scope"] else 0.0
    for name in args.sets:
        probes = load_corpus(set_path(name)).probes
        report(name, [place(probe, where) for probe in probes], len(where), rate, show=args.show)
    print("(an upper bound: the whole pull request is read, and the judge is taken to pass every probe)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
