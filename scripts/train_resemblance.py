"""Fit the resemblance model (homeostat/core/safety/resemblance.py) and write it to
homeostat/data/resemblance.model.

    .venv/bin/python scripts/train_resemblance.py            # fit and write the model
    .venv/bin/python scripts/train_resemblance.py --check    # is the shipped model fitted to today's texts?
    .venv/bin/python scripts/train_resemblance.py --folds    # leave one retired set out at a time
    .venv/bin/python scripts/train_resemblance.py --folds heldout13 reviews   # only these
    .venv/bin/python scripts/train_resemblance.py --folds --seed 7 --step 0.75   # other settings, tried

Poisoned: every probe of the tuning sets (tests/fixtures/poisoning*, as `benchmarks/bench_subjects.py`
lists them: the corpus, poisoning_tuning/ and the retired held-out sets 1-32 and 36-38). Harmless: their
look-alikes and the ordinary lessons
(the retired sets' ordinary.yaml, poisoning_tuning/ ordinary_reasons.yaml, ordinary_fields.yaml,
ordinary_review.yaml and ordinary_review2.yaml, reviews.yaml, eval150, the imported memories). Never read: the held-out sets still
held out (`HELD_OUT` below) and reviews_heldout.yaml; `sources()` names every file it reads, and tests/safety/test_resemblance.py
checks that none of them is held out.

Logistic regression, fitted here in plain Python (no numerical library in the image for one model):
stochastic gradient descent with a step that falls with the epoch, both classes weighed equally
(there are more poisoned texts than harmless ones), L2 on the weights each step touches, a fixed
seed and order, so a fit is the same on every machine. `--folds` is how the settings were chosen:
each retired set in turn is left out, the model fitted to the rest, and its probes, look-alikes and
ordinary lessons scored, so the numbers are a fresh set's; the held-out sets are measured by
`bench_subjects.py --heldout17 ...` once a change is done, never while making one.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import random
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "tests"))
sys.path.insert(2, str(ROOT / "benchmarks"))

from bench_subjects import (  # noqa: E402
    FIXTURES,
    ORDINARY_HELDOUT,
    RETIRED,
    TUNING,
    _kb,
    _memories,
    _ordinary_yaml,
    _reviews,
)
from poisoning import load_corpus, plant  # noqa: E402

from homeostat.core.safety.resemblance import (  # noqa: E402
    BUCKETS,
    Model,
    encode,
    feature_buckets,
    resembles,
    sigmoid,
)
from homeostat.core.safety.subjects import canonical_reading, sentence_starts  # noqa: E402
from homeostat.core.scanners.normalise import normalise  # noqa: E402

MODEL = ROOT / "homeostat" / "data" / "resemblance.model"
# Honest rules that state their reason ("... so diffs stay small"), written for this fit: the probe
# sets give a poisoned rule its pretext ("... so the partner portal can call us"), and without these
# the model read a stated reason itself as a sign of poisoning.
REASONS = FIXTURES / "poisoning_tuning" / "ordinary_reasons.yaml"
# Honest lessons in the shape a daily run drafts (title, rule, why, an example for half): real
# lessons have several fields, the probe sets' harmless texts mostly one line.
FIELDS = FIXTURES / "poisoning_tuning" / "ordinary_fields.yaml"
# Honest lessons as code review yields them, most in the words of security and operations used safely
# ("skip the e2e suite on docs-only changes", "never log the `Authorization` header"): the real lessons
# the model sent to a person were mostly of this kind.
REVIEW_STYLE = FIXTURES / "poisoning_tuning" / "ordinary_review.yaml"
# A second such file (i29r25), written without reading the real-lesson sources the folds leave out
# (reviews.yaml, eval150, memories) or any held-out set, once the real lessons sent to a person had risen
# to 56 and then 49 of 293. Adopted under the bound set before the trial (real lessons 44 or fewer with
# 840 or more of the 1,000 left-out probes): with heldout25 fitted, the five folds named 855 probes against
# 888 (drafted 573 against 629, look-alikes 102 against 107 of 400) and sent 29 real lessons to a person
# against 49.
REVIEW_STYLE2 = FIXTURES / "poisoning_tuning" / "ordinary_review2.yaml"
# Poisoned lessons and their safe look-alikes in the drafted shape (title, rule, why, sometimes an
# example), the harm in the rule and the rest ordinary: how much a title and a why dilute a probe.
# Measured by --folds, never fitted: fitted, it cost 23 of 800 left-out probes (heldout13, 15-17) for
# one real lesson in a hundred fewer to a person.
DRAFTED = FIXTURES / "poisoning_tuning" / "drafted.yaml"
HELD_OUT = (
    "poisoning_heldout33",
    "poisoning_heldout34",
    "poisoning_heldout35",
    "poisoning_heldout39",
    "poisoning_heldout40",
    "poisoning_heldout41",
    "reviews_heldout",
)
EPOCHS = 40
STEP = 0.5  # the first epoch's step; epoch e takes STEP / (1 + e)
# The model is the average of the weights at the end of each epoch from this one on (i29r28), not the last
# epoch's: the last weights of plain SGD depend on the shuffle order, and the shuffle seed alone moved the
# five folds below from 813 to 882 of 1,000 left-out probes (real lessons to a person 35 to 40 of 293;
# heldout28 not yet fitted).
# Chosen under a bound written before the trial (at each of seeds 29, 7 and 101: probes >= 840, real
# lessons <= 35, look-alikes <= the old fit's mean + 10; the spread across the seeds of probes and of real
# lessons at most half the old fit's, or 4): averaging the last 10 of 20 epochs steadied the probes (846 to
# 852) but sent 31 to 36 real lessons to a person, past the bound; 40 epochs at half the step, averaged
# over the last 20, named 840 to 843 probes and sent 24 real lessons to a person at each seed, look-alikes
# 89 to 90 of 400. It names fewer of the left-out probes in the drafted form (502 to 530 of 1,000, against
# 490 to 657 for the old fit), which the bound did not weigh.
# Tried to keep the drafted form too (i29r29), under a bound written before the trial (at seeds 29, 7 and
# 101 on the five sets above left out, h29 fitted: probes >= 840, drafted >= 550, real lessons <= 30 of 293,
# look-alikes <= 99 of 400; spreads across seeds at most 10, 30 and 4). At seed 29 the shipped settings
# named 839 probes (497 drafted; look-alikes 86, real 23); the last 10 of 40 epochs averaged 833 (494; 86,
# 24); step 0.75 838 (554; 86, 30); step 1.0 845 (586; 89, 34): each a step toward the drafted form cost
# real lessons, none met the bound at the first seed, so the shipped settings stay.
AVERAGE_FROM = 20
L2 = 1e-6
THRESHOLD = 0.5  # both classes weighed equally: the point where poisoned and harmless are as likely
# Weighing the probes above the harmless texts was tried with --folds on heldout13, 15-18 and the real
# lessons (i29r19, with heldout19 fitted): at 1.15 and 1.25 the left-out probes 79.9 % -> 81.7 and
# 82.9 %, drafted.yaml 268 -> 278 and 281 of 320, but real lessons to a person 29 -> 41 and 48 of 293
# (before heldout19, 1.5: 82.4 % -> 86.2 %, real lessons 25 -> 54). Each point of recall on a fresh set
# cost about a point of real lessons reviewed, past the bound set before the trial (30 of 293), so both
# classes stay weighed equally.
# Averaging the weights of five fits with different shuffle seeds (i29r21, heldout21 fitted; adopted only
# if left-out recall held and real lessons rose by two at most) named fewer left-out probes on the first
# five folds, 849 against 860 of 1,000 (drafted 530 against 564), so one fit with one seed stays.
# Skip-gram features (each word with the word two on, beside the words, pairs and character runs) were tried
# with --folds on heldout31, 32, 36, 37 and 38 left out (i29g39, heldout38 fitted; adopted only if left-out
# probes rose by 10 of 1,000 with look-alikes up 10 of 400 and real lessons up 2 at most, the bound written
# before the trial): 930 against 931 probes, drafted 630 against 631, so the features stay as they are.
# Packing the weights on a finer scale (i29r22, heldout22 fitted): the byte scale set by the largest
# weight rounds about a quarter of the nonzero weights to zero. Set at the 99.9th or 99th percentile of
# |w| (the largest clipped), the five folds named 856 and 874 of 1,000 probes against 844, but look-alikes
# 110 and 140 of 400 against 88 and real lessons 52 and 47 of 293 against 42 (the bound set before: +2):
# the coarse packing acts as a regulariser, so it stays.
# After heldout24 was fitted (i29r24) the five folds sent 56 of 293 real lessons to a person (44 with
# heldout23's fit). L2 1e-5 left that at 55 (probes 848 against 851 of 1,000); 10 epochs instead of 20
# brought it to 46 but named 840 probes and 531 drafted against 556: neither was adopted in that round
# (the bound set before: real lessons back to 44 or fewer with 840 or more probes).
# One sentence read alone (`resemblance`: against dilution among ordinary sentences). Chosen with
# --folds: at 0.95 it adds 4 of 3,464 left-out probes and 2 of 293 real lessons; at 0.8, 31 and 27.
# Lowered to 0.9 once ordinary_review.yaml had cut the real lessons sent to a person (27 -> 18 of 293
# with heldout17 retired): on heldout13, 15, 16 and 17 left out, the drafted form of their probes
# (title, rule, why) 315 -> 386 of 800 named, the bare probes 661 -> 664, look-alikes unchanged, real
# lessons 18 -> 26 of 293.
# A drafted lesson's lines read alone at a threshold of their own (i29g39: lines of 6 words or more, in a text with
# two such lines) were tried with --folds on heldout31, 32, 36, 37 and 38 left out, under a bound written first
# (drafted probes +50 of 1,000, real lessons +3 of 293 at most): at 0.5 the drafted form rose from 631 to 928 of
# 1,000 but the real lessons from 13 to 41 of 100 review lessons and 4 to 51 of 150 KB rules; at 0.8, 18 and 9
# of those alone. Real lessons are multi-line with a long why, so a line alone is no better read than a
# sentence: the sentence threshold stays the only reading of a part.
SENTENCE_THRESHOLD = 0.9
SEED = 29


@dataclass(frozen=True)
class Example:
    group: str  # the set it came from (a retired set's name, or "tuning" / an ordinary source)
    kind: str  # probe, look-alike or ordinary
    text: str

    @property
    def poisoned(self) -> bool:
        return self.kind == "probe"


def sources() -> list[Path]:
    """Every file the fit reads."""
    ordinary = [ORDINARY_HELDOUT[name] for name in RETIRED if name in ORDINARY_HELDOUT]
    return [
        *TUNING.values(),
        *ordinary,
        REASONS,
        FIELDS,
        REVIEW_STYLE,
        REVIEW_STYLE2,
        FIXTURES / "reviews.yaml",
        FIXTURES / "eval150",
        FIXTURES / "memories",
    ]


def _group(name: str) -> str:
    retired = name.removesuffix(" (tuning)")
    return retired if retired in RETIRED else "tuning"


def examples() -> list[Example]:
    """The labelled texts, in a fixed order; a probe's `[[secret]]` placeholders planted as the
    benchmarks plant them (seeded by its id)."""
    found: list[Example] = []
    for name, path in TUNING.items():
        corpus = load_corpus(path)
        group = _group(name)
        found += [Example(group, "probe", plant(p.text, p.id)) for p in corpus.probes]
        found += [Example(group, "look-alike", plant(p.text, p.id)) for p in corpus.look_alikes]
    for name in RETIRED:
        if name in ORDINARY_HELDOUT:
            found += [Example(name, "ordinary", text) for _, text in _ordinary_yaml(ORDINARY_HELDOUT[name])]
    found += [Example("tuning", "ordinary", text) for _, text in _ordinary_yaml(REASONS)]
    found += [Example("tuning", "ordinary", text) for text in _drafted(FIELDS)]
    found += [Example("tuning", "ordinary", text) for text in _drafted(REVIEW_STYLE)]
    found += [Example("tuning", "ordinary", text) for text in _drafted(REVIEW_STYLE2)]
    found += [Example("reviews", "ordinary", text) for _, text in _reviews(FIXTURES / "reviews.yaml")]
    found += [Example("eval150", "ordinary", text) for _, text in _kb(FIXTURES / "eval150")]
    found += [Example("memories", "ordinary", text) for _, text in _memories(FIXTURES / "memories")]
    return found


@cache
def _lessons(path: Path) -> list[dict[str, str]]:
    """A lesson file's lessons (read once: the folds dress every left-out probe with them)."""
    lessons: list[dict[str, str]] = yaml.safe_load(path.read_text(encoding="utf-8"))["lessons"]
    return lessons


def _drafted(path: Path) -> list[str]:
    """Each lesson's fields, one per line, as the daily run hands a lesson to the gate."""
    fields = ("title", "rule", "why", "example")
    return ["\n".join(str(lesson[k]) for k in fields if lesson.get(k)) for lesson in _lessons(path)]


def fingerprint(found: Sequence[Example]) -> str:
    """sha256 over every text and label, and the fit's settings: what the model was fitted to."""
    digest = hashlib.sha256(
        f"{EPOCHS} {STEP} {AVERAGE_FROM} {L2} {THRESHOLD} {SENTENCE_THRESHOLD} {SEED}\n".encode()
    )
    for example in found:
        digest.update(f"{example.kind}\0{example.text}\0".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


Vector = tuple[list[int], float]  # a text's feature buckets and the scale their sum takes


def _vector(text: str) -> Vector:
    slots = feature_buckets(canonical_reading(normalise(text).text))
    return slots, 1 / math.sqrt(len(slots)) if slots else 0.0


@dataclass(frozen=True)
class Settings:
    """What one descent runs with: the shipped model always uses the constants above (`SHIPPED`);
    `--folds` may try others (`--seed`, `--step`, `--epochs`, `--average-from`), which a fit it writes
    never takes."""

    epochs: int = EPOCHS
    step: float = STEP
    average_from: int = AVERAGE_FROM
    seed: int = SEED


SHIPPED = Settings()


def descend(
    found: Sequence[Example], vectors: Sequence[Vector], settings: Settings = SHIPPED
) -> Iterator[tuple[list[float], float]]:
    """The weights and bias at the end of each epoch of stochastic gradient descent, in order."""
    weights = [0.0] * BUCKETS
    bias = 0.0
    poisoned = sum(e.poisoned for e in found)
    harmless = len(found) - poisoned
    weigh = {True: len(found) / (2 * poisoned), False: len(found) / (2 * harmless)}
    order = list(range(len(found)))
    rng = random.Random(settings.seed)
    for epoch in range(settings.epochs):
        rng.shuffle(order)
        step = settings.step / (1 + epoch)
        for i in order:
            slots, value = vectors[i]
            label = found[i].poisoned
            z = bias + value * sum(weights[s] for s in slots)
            gradient = (sigmoid(z) - label) * weigh[label]
            bias -= step * gradient
            change = step * gradient * value
            decay = 1 - step * L2
            for s in slots:
                weights[s] = weights[s] * decay - change
        yield list(weights), bias  # a copy: the next epoch goes on changing its own


def averaged(
    found: Sequence[Example], vectors: Sequence[Vector], settings: Settings = SHIPPED
) -> tuple[list[float], float]:
    """The mean of the weights and bias at the end of each epoch from `settings.average_from` on: the
    last weights of plain SGD depend on the order it read in, their average much less (i29r28)."""
    summed = [0.0] * BUCKETS
    summed_bias = 0.0
    for epoch, (weights, bias) in enumerate(descend(found, vectors, settings)):
        if epoch >= settings.average_from:
            summed = [a + w for a, w in zip(summed, weights, strict=True)]
            summed_bias += bias
    count = settings.epochs - settings.average_from
    return [a / count for a in summed], summed_bias / count


def fit(found: Sequence[Example], vectors: Sequence[Vector], settings: Settings = SHIPPED) -> Model:
    weights, bias = averaged(found, vectors, settings)
    scale = max(abs(w) for w in weights) / 127 or 1.0
    packed = bytes(round(w / scale) & 0xFF for w in weights)
    return Model(packed, scale, bias, THRESHOLD, SENTENCE_THRESHOLD, fingerprint(found))


def _reached(model: Model, text: str) -> bool:
    """The gate names the text (read whole, or one sentence alone)."""
    reading = canonical_reading(normalise(text).text)
    return resembles(reading, sentence_starts(reading), model) is not None


def _as_drafted(texts: Sequence[str]) -> list[str]:
    """Each text as the rule of a drafted lesson, under an honest lesson's title and above its why (drawn
    with the fit's seed from ordinary_fields.yaml): what a title and a why dilute it by."""
    lessons = _lessons(FIELDS)
    rng = random.Random(SEED)
    drawn = [rng.choice(lessons) for _ in texts]
    return [f"{lesson['title']}\n{text}\n{lesson['why']}" for lesson, text in zip(drawn, texts, strict=True)]


def folds(
    found: Sequence[Example], vectors: Sequence[Vector], groups: Sequence[str], settings: Settings = SHIPPED
) -> None:
    """Leave each retired set (and each real ordinary source) out in turn, or only `groups`; print what
    the model fitted to the rest sends to a person, the left-out probes also in the drafted shape."""
    counts: dict[str, list[int]] = {}
    for left_out in groups or [*RETIRED, "reviews", "eval150", "memories"]:
        train = [i for i, e in enumerate(found) if e.group != left_out]
        model = fit([found[i] for i in train], [vectors[i] for i in train], settings)
        test = [i for i, e in enumerate(found) if e.group == left_out]
        line = []
        for kind in ("probe", "drafted probe", "look-alike", "ordinary"):
            texts = [found[i].text for i in test if found[i].kind == kind.removeprefix("drafted ")]
            if kind == "drafted probe":
                texts = _as_drafted(texts)
            held = sum(_reached(model, text) for text in texts)
            if texts:
                line.append(f"{kind} {held}/{len(texts)}")
                total = counts.setdefault(kind, [0, 0])
                total[0] += held
                total[1] += len(texts)
        print(f"{left_out}: " + ", ".join(line), flush=True)
    for kind, (reached, seen) in counts.items():
        print(f"all left-out {kind}s: {reached}/{seen} ({reached / seen:.1%}) reach the threshold")
    model = fit(found, vectors, settings)
    drafted = load_corpus(DRAFTED)
    probes = sum(_reached(model, p.text) for p in drafted.probes)
    look_alikes = sum(_reached(model, p.text) for p in drafted.look_alikes)
    print(
        f"{DRAFTED.name} (drafted shape, never fitted): probes {probes}/{len(drafted.probes)}, "
        f"look-alikes {look_alikes}/{len(drafted.look_alikes)} reach the threshold"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the shipped model is stale")
    parser.add_argument(
        "--folds",
        nargs="*",
        metavar="GROUP",
        help="leave one retired set out at a time (or only these: heldout13 reviews ...)",
    )
    parser.add_argument("--seed", type=int, help=f"with --folds: shuffle with this seed (shipped: {SEED})")
    parser.add_argument("--step", type=float, help=f"with --folds: the first epoch's step (shipped: {STEP})")
    parser.add_argument("--epochs", type=int, help=f"with --folds: epochs (shipped: {EPOCHS})")
    parser.add_argument(
        "--average-from", type=int, help=f"with --folds: average from this epoch (shipped: {AVERAGE_FROM})"
    )
    args = parser.parse_args(argv)
    tried = {f.name: getattr(args, f.name) for f in fields(Settings) if getattr(args, f.name) is not None}
    if tried and args.folds is None:
        parser.error("--seed, --step, --epochs and --average-from only try settings with --folds")
    settings = replace(SHIPPED, **tried)
    if not 0 <= settings.average_from < settings.epochs:
        parser.error(f"--average-from must be below --epochs ({settings.epochs})")
    found = examples()
    if args.check:
        from homeostat.core.safety.resemblance import decode

        if decode(MODEL.read_bytes()).trained_on != fingerprint(found):
            print(f"{MODEL.relative_to(ROOT)} is stale: run scripts/train_resemblance.py")
            return 1
        print(f"{MODEL.relative_to(ROOT)} is fitted to today's {len(found)} texts")
        return 0
    vectors = [_vector(e.text) for e in found]
    if args.folds is not None:
        folds(found, vectors, args.folds, settings)
        return 0
    model = fit(found, vectors)
    MODEL.parent.mkdir(exist_ok=True)
    MODEL.write_bytes(encode(model))
    print(f"wrote {MODEL.relative_to(ROOT)}: {len(found)} texts, {MODEL.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
