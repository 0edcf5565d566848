"""The subject gate (homeostat.core.safety.subjects): how many poisoning probes would not merge with no
person once it stands beside the risky check, what review load it adds on look-alikes, what share of
ordinary lessons it sends to a person, and how its time grows on adversarial text.

    .venv/bin/python benchmarks/bench_subjects.py                   # tuning probes and ordinary lessons
    .venv/bin/python benchmarks/bench_subjects.py --show            # also each tuning miss and each ordinary hit
    .venv/bin/python benchmarks/bench_subjects.py --speed           # time per KB on adversarial text to 1 MB
    .venv/bin/python benchmarks/bench_subjects.py --heldout33 --heldout34 --heldout35 --heldout39 --heldout40 --heldout41 --reviews-heldout

A probe does not merge unread when validate gives it a risky or secret finding (the risky check,
through tests/poisoning.py), the gate names a subject (its word tables, or its learned model,
core.safety.resemblance: subject `resembles-poisoning`, counted apart as well), or the language gate (core.safety.language,
in an English KB) finds a sentence in another language. The tuning probes are the original corpus,
tests/fixtures/poisoning_tuning/ (gate.yaml: fresh paraphrases written for the gate's rounds;
topics.yaml: poisoned conventions per topic of the topic gate, core.safety.topics; mechanisms.yaml:
poisoned engineering choices per mechanism topic, core.safety.mechanism_words) and
the first thirty-two held-out sets and the thirty-sixth to thirty-eighth (retired to tuning; the sixth and seventh in the i29g3 round, the eighth
in the i29g8 round, the ninth in the i29r9 round, the tenth in the i29r10 round, the eleventh in the
i29r11 round, the twelfth in the i29r12 round, the thirteenth in the i29r13 round, the fourteenth in the
i29r14 round, the fifteenth in the i29r15b round, the sixteenth in the i29r16 round, when their misses
were read; the seventeenth to thirty-second in the i29r17 to i29r32 rounds and the thirty-sixth to thirty-eighth in the i29r36, i29r37b and i29r38 rounds, after the learned reading was
fitted). The tuning run also prints the seventh to sixteenth sets' ordinary lessons
(poisoning_heldout7/ to poisoning_heldout16/ ordinary.yaml), retired with them. The held-out flags
(`--heldout33` to `--heldout35`, `--heldout39` to `--heldout41`, `--reviews-heldout`) print totals and per-family counts only, never a
probe: measure them once a change is done, never while making one; `--show` is refused with them.
`--heldout33` to `--heldout35` and `--heldout39` to `--heldout41` read their poisoning_heldoutN/ folders (heldoutN.yaml and,
for cost, ordinary.yaml with `lessons: [{id, text}]`), each skipped with a message when absent.
`--heldout5` to `--heldout32` and `--heldout36` to `--heldout38` still
print a retired set's totals alone (and its misses with `--show`).

Ordinary lessons are real rules: tests/fixtures/reviews.yaml (flask and pip review threads),
tests/fixtures/eval150/knowledge, /work/shared/examples/kb (when present) and the imported memories
in tests/fixtures/memories (coderabbit learnings, Claude Code memories). A look-alike or an ordinary
lesson the gate names goes to a person: review load, not a false alarm.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(1, str(ROOT / "tests"))

from poisoning import CONFIG, Probe, flags_for, is_caught, load_corpus  # noqa: E402

from homeostat.core.daily.enactment import code_terms  # noqa: E402
from homeostat.core.safety.language import ENGLISH, foreign_sentences  # noqa: E402
from homeostat.core.safety.subjects import subjects  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
LEARNED = "resembles-poisoning"
ALLOWED = tuple(yaml.safe_load(CONFIG)["security"]["allowedDomains"])
TUNING = {
    "corpus": FIXTURES / "poisoning" / "corpus.yaml",
    "tuning": FIXTURES / "poisoning_tuning" / "tuning.yaml",
    "concepts": FIXTURES / "poisoning_tuning" / "concepts.yaml",
    "families": FIXTURES / "poisoning_tuning" / "families.yaml",
    "gate": FIXTURES / "poisoning_tuning" / "gate.yaml",
    "topics": FIXTURES / "poisoning_tuning" / "topics.yaml",
    "mechanisms": FIXTURES / "poisoning_tuning" / "mechanisms.yaml",
    "heldout (tuning)": FIXTURES / "poisoning_heldout" / "heldout.yaml",
    "heldout2 (tuning)": FIXTURES / "poisoning_heldout2" / "heldout2.yaml",
    "heldout3 (tuning)": FIXTURES / "poisoning_heldout3" / "heldout3.yaml",
    "heldout4 (tuning)": FIXTURES / "poisoning_heldout4" / "heldout4.yaml",
    "heldout5 (tuning)": FIXTURES / "poisoning_heldout5" / "heldout5.yaml",
    "heldout6 (tuning)": FIXTURES / "poisoning_heldout6" / "heldout6.yaml",
    "heldout7 (tuning)": FIXTURES / "poisoning_heldout7" / "heldout7.yaml",
    "heldout8 (tuning)": FIXTURES / "poisoning_heldout8" / "heldout8.yaml",
    "heldout9 (tuning)": FIXTURES / "poisoning_heldout9" / "heldout9.yaml",
    "heldout10 (tuning)": FIXTURES / "poisoning_heldout10" / "heldout10.yaml",
    "heldout11 (tuning)": FIXTURES / "poisoning_heldout11" / "heldout11.yaml",
    "heldout12 (tuning)": FIXTURES / "poisoning_heldout12" / "heldout12.yaml",
    "heldout13 (tuning)": FIXTURES / "poisoning_heldout13" / "heldout13.yaml",
    "heldout14 (tuning)": FIXTURES / "poisoning_heldout14" / "heldout14.yaml",
    "heldout15 (tuning)": FIXTURES / "poisoning_heldout15" / "heldout15.yaml",
    "heldout16 (tuning)": FIXTURES / "poisoning_heldout16" / "heldout16.yaml",
    "heldout17 (tuning)": FIXTURES / "poisoning_heldout17" / "heldout17.yaml",
    "heldout18 (tuning)": FIXTURES / "poisoning_heldout18" / "heldout18.yaml",
    "heldout19 (tuning)": FIXTURES / "poisoning_heldout19" / "heldout19.yaml",
    "heldout20 (tuning)": FIXTURES / "poisoning_heldout20" / "heldout20.yaml",
    "heldout21 (tuning)": FIXTURES / "poisoning_heldout21" / "heldout21.yaml",
    "heldout22 (tuning)": FIXTURES / "poisoning_heldout22" / "heldout22.yaml",
    "heldout23 (tuning)": FIXTURES / "poisoning_heldout23" / "heldout23.yaml",
    "heldout24 (tuning)": FIXTURES / "poisoning_heldout24" / "heldout24.yaml",
    "heldout25 (tuning)": FIXTURES / "poisoning_heldout25" / "heldout25.yaml",
    "heldout26 (tuning)": FIXTURES / "poisoning_heldout26" / "heldout26.yaml",
    "heldout27 (tuning)": FIXTURES / "poisoning_heldout27" / "heldout27.yaml",
    "heldout28 (tuning)": FIXTURES / "poisoning_heldout28" / "heldout28.yaml",
    "heldout29 (tuning)": FIXTURES / "poisoning_heldout29" / "heldout29.yaml",
    "heldout30 (tuning)": FIXTURES / "poisoning_heldout30" / "heldout30.yaml",
    "heldout31 (tuning)": FIXTURES / "poisoning_heldout31" / "heldout31.yaml",
    "heldout32 (tuning)": FIXTURES / "poisoning_heldout32" / "heldout32.yaml",
    "heldout36 (tuning)": FIXTURES / "poisoning_heldout36" / "heldout36.yaml",
    "heldout37 (tuning)": FIXTURES / "poisoning_heldout37" / "heldout37.yaml",
    "heldout38 (tuning)": FIXTURES / "poisoning_heldout38" / "heldout38.yaml",
}
HELDOUT = {
    "heldout5": FIXTURES / "poisoning_heldout5" / "heldout5.yaml",
    "heldout6": FIXTURES / "poisoning_heldout6" / "heldout6.yaml",
    "heldout7": FIXTURES / "poisoning_heldout7" / "heldout7.yaml",
    "heldout8": FIXTURES / "poisoning_heldout8" / "heldout8.yaml",
    "heldout9": FIXTURES / "poisoning_heldout9" / "heldout9.yaml",
    "heldout10": FIXTURES / "poisoning_heldout10" / "heldout10.yaml",
    "heldout11": FIXTURES / "poisoning_heldout11" / "heldout11.yaml",
    "heldout12": FIXTURES / "poisoning_heldout12" / "heldout12.yaml",
    "heldout13": FIXTURES / "poisoning_heldout13" / "heldout13.yaml",
    "heldout14": FIXTURES / "poisoning_heldout14" / "heldout14.yaml",
    "heldout15": FIXTURES / "poisoning_heldout15" / "heldout15.yaml",
    "heldout16": FIXTURES / "poisoning_heldout16" / "heldout16.yaml",
    "heldout17": FIXTURES / "poisoning_heldout17" / "heldout17.yaml",
    "heldout18": FIXTURES / "poisoning_heldout18" / "heldout18.yaml",
    "heldout19": FIXTURES / "poisoning_heldout19" / "heldout19.yaml",
    "heldout20": FIXTURES / "poisoning_heldout20" / "heldout20.yaml",
    "heldout21": FIXTURES / "poisoning_heldout21" / "heldout21.yaml",
    "heldout22": FIXTURES / "poisoning_heldout22" / "heldout22.yaml",
    "heldout23": FIXTURES / "poisoning_heldout23" / "heldout23.yaml",
    "heldout24": FIXTURES / "poisoning_heldout24" / "heldout24.yaml",
    "heldout25": FIXTURES / "poisoning_heldout25" / "heldout25.yaml",
    "heldout26": FIXTURES / "poisoning_heldout26" / "heldout26.yaml",
    "heldout27": FIXTURES / "poisoning_heldout27" / "heldout27.yaml",
    "heldout28": FIXTURES / "poisoning_heldout28" / "heldout28.yaml",
    "heldout29": FIXTURES / "poisoning_heldout29" / "heldout29.yaml",
    "heldout30": FIXTURES / "poisoning_heldout30" / "heldout30.yaml",
    "heldout31": FIXTURES / "poisoning_heldout31" / "heldout31.yaml",
    "heldout32": FIXTURES / "poisoning_heldout32" / "heldout32.yaml",
    "heldout33": FIXTURES / "poisoning_heldout33" / "heldout33.yaml",
    "heldout34": FIXTURES / "poisoning_heldout34" / "heldout34.yaml",
    "heldout35": FIXTURES / "poisoning_heldout35" / "heldout35.yaml",
    "heldout36": FIXTURES / "poisoning_heldout36" / "heldout36.yaml",
    "heldout37": FIXTURES / "poisoning_heldout37" / "heldout37.yaml",
    "heldout38": FIXTURES / "poisoning_heldout38" / "heldout38.yaml",
    "heldout39": FIXTURES / "poisoning_heldout39" / "heldout39.yaml",
    "heldout40": FIXTURES / "poisoning_heldout40" / "heldout40.yaml",
    "heldout41": FIXTURES / "poisoning_heldout41" / "heldout41.yaml",
}
# Retired to tuning use: `--show` may print their probes (the tuning run already does).
RETIRED = (
    "heldout5",
    "heldout6",
    "heldout7",
    "heldout8",
    "heldout9",
    "heldout10",
    "heldout11",
    "heldout12",
    "heldout13",
    "heldout14",
    "heldout15",
    "heldout16",
    "heldout17",
    "heldout18",
    "heldout19",
    "heldout20",
    "heldout21",
    "heldout22",
    "heldout23",
    "heldout24",
    "heldout25",
    "heldout26",
    "heldout27",
    "heldout28",
    "heldout29",
    "heldout30",
    "heldout31",
    "heldout32",
    "heldout36",
    "heldout37",
    "heldout38",
)
ORDINARY_HELDOUT7 = FIXTURES / "poisoning_heldout7" / "ordinary.yaml"
ORDINARY_HELDOUT8 = FIXTURES / "poisoning_heldout8" / "ordinary.yaml"
ORDINARY_HELDOUT9 = FIXTURES / "poisoning_heldout9" / "ordinary.yaml"
ORDINARY_HELDOUT10 = FIXTURES / "poisoning_heldout10" / "ordinary.yaml"
ORDINARY_HELDOUT11 = FIXTURES / "poisoning_heldout11" / "ordinary.yaml"
ORDINARY_HELDOUT12 = FIXTURES / "poisoning_heldout12" / "ordinary.yaml"
ORDINARY_HELDOUT13 = FIXTURES / "poisoning_heldout13" / "ordinary.yaml"
ORDINARY_HELDOUT14 = FIXTURES / "poisoning_heldout14" / "ordinary.yaml"
ORDINARY_HELDOUT15 = FIXTURES / "poisoning_heldout15" / "ordinary.yaml"
ORDINARY_HELDOUT16 = FIXTURES / "poisoning_heldout16" / "ordinary.yaml"
ORDINARY_HELDOUT = {
    "heldout7": ORDINARY_HELDOUT7,
    "heldout8": ORDINARY_HELDOUT8,
    "heldout9": ORDINARY_HELDOUT9,
    "heldout10": ORDINARY_HELDOUT10,
    "heldout11": ORDINARY_HELDOUT11,
    "heldout12": ORDINARY_HELDOUT12,
    "heldout13": ORDINARY_HELDOUT13,
    "heldout14": ORDINARY_HELDOUT14,
    "heldout15": ORDINARY_HELDOUT15,
    "heldout16": ORDINARY_HELDOUT16,
    "heldout17": FIXTURES / "poisoning_heldout17" / "ordinary.yaml",
    "heldout18": FIXTURES / "poisoning_heldout18" / "ordinary.yaml",
    "heldout19": FIXTURES / "poisoning_heldout19" / "ordinary.yaml",
    "heldout20": FIXTURES / "poisoning_heldout20" / "ordinary.yaml",
    "heldout21": FIXTURES / "poisoning_heldout21" / "ordinary.yaml",
    "heldout22": FIXTURES / "poisoning_heldout22" / "ordinary.yaml",
    "heldout23": FIXTURES / "poisoning_heldout23" / "ordinary.yaml",
    "heldout24": FIXTURES / "poisoning_heldout24" / "ordinary.yaml",
    "heldout25": FIXTURES / "poisoning_heldout25" / "ordinary.yaml",
    "heldout26": FIXTURES / "poisoning_heldout26" / "ordinary.yaml",
    "heldout27": FIXTURES / "poisoning_heldout27" / "ordinary.yaml",
    "heldout28": FIXTURES / "poisoning_heldout28" / "ordinary.yaml",
    "heldout29": FIXTURES / "poisoning_heldout29" / "ordinary.yaml",
    "heldout30": FIXTURES / "poisoning_heldout30" / "ordinary.yaml",
    "heldout31": FIXTURES / "poisoning_heldout31" / "ordinary.yaml",
    "heldout32": FIXTURES / "poisoning_heldout32" / "ordinary.yaml",
    "heldout33": FIXTURES / "poisoning_heldout33" / "ordinary.yaml",
    "heldout34": FIXTURES / "poisoning_heldout34" / "ordinary.yaml",
    "heldout35": FIXTURES / "poisoning_heldout35" / "ordinary.yaml",
    "heldout36": FIXTURES / "poisoning_heldout36" / "ordinary.yaml",
    "heldout37": FIXTURES / "poisoning_heldout37" / "ordinary.yaml",
    "heldout38": FIXTURES / "poisoning_heldout38" / "ordinary.yaml",
    "heldout39": FIXTURES / "poisoning_heldout39" / "ordinary.yaml",
    "heldout40": FIXTURES / "poisoning_heldout40" / "ordinary.yaml",
    "heldout41": FIXTURES / "poisoning_heldout41" / "ordinary.yaml",
}
REVIEWS_HELDOUT = FIXTURES / "reviews_heldout.yaml"


def _risky(probe: Probe) -> bool:
    """Validate holds the probe (a risky or secret finding; any error for `check: error`)."""
    flags = flags_for(probe)
    if probe.check:
        return is_caught(probe, flags)
    return any(not flag.startswith("error:") for flag in flags)


def foreign(text: str) -> bool:
    """The language gate (homeostat.core.safety.language) in an English KB: the third layer."""
    return bool(foreign_sentences(text, {ENGLISH}))


def held_by_words(probe: Probe) -> bool:
    """Some layer keeps the probe from an unread merge: the risky check, the subject gate (its word
    tables or its learned model) or the language gate (what `probe_set` counts as held)."""
    return _risky(probe) or bool(subjects(probe.text, ALLOWED)) or foreign(probe.text)


def probe_set(name: str, path: Path, *, show: bool, totals_only: bool = False) -> tuple[int, int]:
    """Print one set's recall (risky alone → risky or subject) and look-alike load; (held, probes)."""
    corpus = load_corpus(path)
    risky_held = subject_held = both_held = language_added = language_named = uncheckable = 0
    learned_named = learned_added = 0
    families: Counter[str] = Counter()
    families_held: Counter[str] = Counter()
    misses: list[Probe] = []
    gate_misses: list[Probe] = []
    for probe in corpus.probes:
        hits = {hit.subject for hit in subjects(probe.text, ALLOWED)}
        risky, named = _risky(probe), bool(hits)
        risky_held += risky
        subject_held += named
        in_other_language = foreign(probe.text)
        language_named += in_other_language
        language_added += not (risky or named) and in_other_language
        held = risky or named or in_other_language
        both_held += held
        by_words = risky or in_other_language or bool(hits - {LEARNED})
        learned_named += LEARNED in hits
        learned_added += held and not by_words
        uncheckable += held or not code_terms(probe.text)
        family = probe.family or probe.check
        families[family] += 1
        families_held[family] += held
        if not held:
            misses.append(probe)
        if not named:
            gate_misses.append(probe)
    named_look_alikes = [(p, {hit.subject for hit in subjects(p.text, ALLOWED)}) for p in corpus.look_alikes]
    load = [p for p, hits in named_look_alikes if hits]
    learned_load = sum(1 for _, hits in named_look_alikes if hits == {LEARNED})
    language_load = sum(1 for p in corpus.look_alikes if foreign(p.text) and p not in load)
    total = len(corpus.probes)
    print(f"\n== {name} ({path.relative_to(ROOT)})")
    print(
        f"risky alone {risky_held}/{total} → risky, subject or language {both_held}/{total} ({_pct(both_held, total)})"
    )
    print(
        f"  the gate alone names {subject_held}/{total}; it adds {both_held - risky_held - language_added} the risky check missed"
    )
    print(
        f"  the language gate alone names {language_named}/{total}; it adds {language_added} the other two missed"
    )
    print(
        f"  the learned model (resembles-poisoning) alone names {learned_named}/{total}; it adds"
        f" {learned_added} every word layer missed"
    )
    print(
        f"  look-alikes sent to a person: {len(load)}/{len(corpus.look_alikes)} ({learned_load} by the"
        f" learned model alone), +{language_load} by language"
    )
    print(
        f"  as a review lesson, also those naming no code (no change can show it enacted): {uncheckable}/{total}"
        f" ({_pct(uncheckable, total)}); the rest merge unread only if someone else's change uses their code"
    )
    print("  per family (not merging unread/probes):")
    for family in sorted(families):
        print(f"    {family:28} {families_held[family]}/{families[family]}")
    if show and not totals_only:
        for probe in misses:
            print(f"  missed {probe.id}: {probe.text!r}")
        for probe in gate_misses:
            print(f"  gate alone missed {probe.id} ({probe.family}): {probe.text!r}")
        for probe in load:
            print(f"  look-alike {probe.id}: {subjects(probe.text, ALLOWED)}")
    return both_held, total


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "-"


# --- ordinary lessons ------------------------------------------------------------------------------


def _reviews(path: Path) -> Iterator[tuple[str, str]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for rule in data["rules"]:
        fields = [rule.get(k, "") for k in ("title", "rule", "why", "example")]
        yield str(rule.get("id", "")), "\n".join([*map(str, fields), *rule.get("scope", [])])


def _kb(root: Path) -> Iterator[tuple[str, str]]:
    from homeostat.adapters.kb_files import load_kb_dir

    for rule in load_kb_dir(root).rules:
        fields = [rule.title, rule.rule, rule.why, rule.example or "", *rule.meta.scope]
        yield rule.id, "\n".join(fields)


def _memories(root: Path) -> Iterator[tuple[str, str]]:
    for item in json.loads((root / "coderabbit.json").read_text(encoding="utf-8"))["items"]:
        yield f"coderabbit.json:{item['id']}", item["learning"]
    with (root / "coderabbit.csv").open(encoding="utf-8") as rows:
        for row in csv.DictReader(rows):
            yield f"coderabbit.csv:{row['id']}", row["learning"]
    for path in sorted((root / "claude").rglob("*.md")):
        if path.name != "MEMORY.md":
            body = path.read_text(encoding="utf-8").split("---", 2)[-1]
            yield f"claude:{path.relative_to(root / 'claude')}", body


def _ordinary_yaml(path: Path) -> Iterator[tuple[str, str]]:
    for lesson in yaml.safe_load(path.read_text(encoding="utf-8"))["lessons"]:
        yield str(lesson["id"]), str(lesson["text"])


def ordinary(name: str, lessons: Callable[[], Iterator[tuple[str, str]]], *, show: bool) -> None:
    read = list(lessons())
    sent = [(lesson_id, found) for lesson_id, text in read if (found := subjects(text, ALLOWED))]
    print(f"  {name:34} {len(sent)}/{len(read)} sent to a person ({_pct(len(sent), len(read))})")
    learned_only = sum(1 for _, found in sent if [hit.subject for hit in found] == [LEARNED])
    print(f"  {'':34} of them {learned_only} by the learned model alone (resembles-poisoning)")
    unnamed = sum(1 for lesson_id, text in read if not code_terms(text) and lesson_id not in dict(sent))
    print(f"  {'':34} +{unnamed} as review lessons naming no code (the enactment check)")
    if show:
        for lesson_id, found in sent:
            shown = "; ".join(f"{hit.subject}: {hit.evidence}" for hit in found)
            print(f"      {lesson_id}: {shown}")
    ordinary_languages(read, show=show)


def ordinary_languages(read: list[tuple[str, str]], *, show: bool) -> None:
    """The ordinary lessons the language gate sends to a person in an English KB (any subject or not)."""
    sent = [(lesson_id, found) for lesson_id, text in read if (found := foreign_sentences(text, {ENGLISH}))]
    print(f"  {'  by the language gate':34} {len(sent)}/{len(read)} ({_pct(len(sent), len(read))})")
    if show:
        for lesson_id, found in sent:
            print(f"      {lesson_id}: " + "; ".join(f"{hit.name}: {hit.sentence}" for hit in found))


# --- speed -----------------------------------------------------------------------------------------

ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "skip tests ×n": lambda n: "skip the tests " * (n // 15),
    "token print ×n": lambda n: "token print " * (n // 12),
    "curl | ×n": lambda n: "curl x | " * (n // 9),
    "you must ×n": lambda n: "you must " * (n // 9),
    "<!-- ×n": lambda n: "<!--" * (n // 4),
    "letters spaced": lambda n: "a " * (n // 2),
    "one sentence of words": lambda n: "word " * (n // 5),
    "dots ×n": lambda n: ". " * (n // 2),
    "mixed script ×n": lambda n: "pаypal " * (n // 7),
    "hosts ×n": lambda n: "a.io " * (n // 5),
    "identifier of words": lambda n: "ab_" * (n // 3),
    "a stem in one long word": lambda n: "check_" * (n // 6),  # every `check\w*\s+` ran to its end
    "keys ×n": lambda n: "x:" * (n // 2),
    "pipes ×n": lambda n: "| " * (n // 2),
    "underscored words ×n": lambda n: "a_" * (n // 2),
    "bytes in binary ×n": lambda n: "01100011 " * (n // 9),
    "url escapes ×n": lambda n: "%2f" * (n // 3),
    "ellipses ×n": lambda n: "... " * (n // 4),
    "until ×n": lambda n: "until a " * (n // 8),
    "own ×n": lambda n: "own " * (n // 4),
    "nato words ×n": lambda n: "alpha " * (n // 6),
    "rules are ×n": lambda n: "rules x are " * (n // 12),
    "commands that ×n": lambda n: "commands that x " * (n // 16),
    "stop asking ×n": lambda n: "stop x asking " * (n // 14),
    "install from ×n": lambda n: "install the pkg from " * (n // 21),  # the topic gate's shapes
    "add to the ×n": lambda n: "add x to the " * (n // 13),
    "colons ×n": lambda n: ":" * n,
    "treat x as ×n": lambda n: "treat x as " * (n // 11),  # the mechanism topics' shapes
    "cache the key ×n": lambda n: "cache the key " * (n // 14),
    "redirect the url ×n": lambda n: "redirect the url " * (n // 17),
}


def speed() -> None:
    print("\n== speed (ms per KB, at 10 KB → 100 KB → 1 MB)")
    for name, make in ADVERSARIAL.items():
        cells = []
        for size in (10_000, 100_000, 1_000_000):
            text = make(size)
            start = time.perf_counter()
            subjects(text, ALLOWED)
            elapsed = time.perf_counter() - start
            cells.append(f"{1000 * elapsed / (len(text) / 1000):7.3f}")
        print(f"  {name:24} {' → '.join(cells)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--show", action="store_true", help="print tuning misses and ordinary hits")
    parser.add_argument("--speed", action="store_true", help="time per KB on adversarial text")
    for flag in HELDOUT:
        state = "retired to tuning" if flag in RETIRED else "held out"
        parser.add_argument(f"--{flag}", action="store_true", help=f"totals on {flag} ({state})")
    parser.add_argument(
        "--reviews-heldout", action="store_true", help="cost on reviews_heldout.yaml (held out)"
    )
    args = parser.parse_args(argv)
    held_out = [name for name in HELDOUT if getattr(args, name)]
    still_held = [name for name in held_out if name not in RETIRED]
    if args.show and (still_held or args.reviews_heldout):
        parser.error("--show prints probes and lessons: not with a held-out set")
    if held_out or args.reviews_heldout:
        return _held_out(held_out, reviews=args.reviews_heldout, show=args.show)
    if args.speed:
        speed()
        return 0
    held = total = 0
    for name, path in TUNING.items():
        got, of = probe_set(name, path, show=args.show)
        held, total = held + got, total + of
    print(f"\nall tuning probes: {held}/{total} not merging unread ({_pct(held, total)})")
    print("\n== ordinary lessons sent to a person by the gate")
    ordinary("reviews.yaml (flask, pip)", lambda: _reviews(FIXTURES / "reviews.yaml"), show=args.show)
    ordinary("eval150/knowledge", lambda: _kb(FIXTURES / "eval150"), show=args.show)
    shared = Path("/work/shared/examples/kb")
    if (shared / "homeostat.yaml").is_file():
        ordinary("/work/shared/examples/kb", lambda: _kb(shared), show=args.show)
    else:
        print(f"  {shared}: absent, skipped")
    ordinary("memories (coderabbit, claude)", lambda: _memories(FIXTURES / "memories"), show=args.show)
    seventh = partial(_ordinary_yaml, ORDINARY_HELDOUT7)
    ordinary("heldout7 ordinary.yaml (retired)", seventh, show=args.show)
    eighth = partial(_ordinary_yaml, ORDINARY_HELDOUT8)
    ordinary("heldout8 ordinary.yaml (retired)", eighth, show=args.show)
    ninth = partial(_ordinary_yaml, ORDINARY_HELDOUT9)
    ordinary("heldout9 ordinary.yaml (retired)", ninth, show=args.show)
    tenth = partial(_ordinary_yaml, ORDINARY_HELDOUT10)
    ordinary("heldout10 ordinary.yaml (retired)", tenth, show=args.show)
    eleventh = partial(_ordinary_yaml, ORDINARY_HELDOUT11)
    ordinary("heldout11 ordinary.yaml (retired)", eleventh, show=args.show)
    twelfth = partial(_ordinary_yaml, ORDINARY_HELDOUT12)
    ordinary("heldout12 ordinary.yaml (retired)", twelfth, show=args.show)
    thirteenth = partial(_ordinary_yaml, ORDINARY_HELDOUT13)
    ordinary("heldout13 ordinary.yaml (retired)", thirteenth, show=args.show)
    fourteenth = partial(_ordinary_yaml, ORDINARY_HELDOUT14)
    ordinary("heldout14 ordinary.yaml (retired)", fourteenth, show=args.show)
    fifteenth = partial(_ordinary_yaml, ORDINARY_HELDOUT15)
    ordinary("heldout15 ordinary.yaml (retired)", fifteenth, show=args.show)
    sixteenth = partial(_ordinary_yaml, ORDINARY_HELDOUT16)
    ordinary("heldout16 ordinary.yaml (retired)", sixteenth, show=args.show)
    return 0


def _held_out(names: list[str], *, reviews: bool, show: bool) -> int:
    """Totals and per-family counts only for a set still held out: no probe or lesson of one is
    printed. A retired set's misses and hits are printed with `--show`."""
    for name in names:
        path = HELDOUT[name]
        shown = show and name in RETIRED
        if not path.is_file():
            print(f"\n== {name}: {path.relative_to(ROOT)} does not exist yet; skipped")
        else:
            probe_set(name, path, show=shown, totals_only=not shown)
        lessons = ORDINARY_HELDOUT.get(name)
        if lessons is None:
            continue
        if lessons.is_file():
            ordinary(f"{name} ordinary.yaml", partial(_ordinary_yaml, lessons), show=shown)
        else:
            print(f"  {lessons.relative_to(ROOT)} does not exist yet; skipped")
    if reviews:
        if REVIEWS_HELDOUT.is_file():
            ordinary("reviews_heldout.yaml", lambda: _reviews(REVIEWS_HELDOUT), show=False)
        else:
            print(f"{REVIEWS_HELDOUT.relative_to(ROOT)} does not exist; skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
