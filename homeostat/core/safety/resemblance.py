"""Resemblance: how much a lesson reads like the poisoned rules Homeostat has been shown, learned from
them rather than written down as words.

Every word layer (the risky check, the subject gate, its topics) reads phrasings someone listed, and
on red-team sets written without looking at them they hold 57-70 % of what a fresh set tries; each
round of new words reaches 100 % on the cases it was written from and moves a fresh set by one or
two. This reading is learned instead: a logistic model over the words, word pairs and 3- to
5-character runs of the gate's canonical reading (confusables folded, emphasis and letter-spacing
undone, casefolded), fitted by `scripts/train_resemblance.py` to every tuning and retired probe set
(poisoned rules against harmless look-alikes and ordinary lessons). It never reads a held-out set.
Learned from several thousand rules, it weighs what a phrasing is doing (turning a check off,
moving a secret, widening a permission) in many wordings and languages at once, which is why it
carries to sets it never saw; it is also an approximation, so a hit is never an error: like a
subject, it sends the lesson to a person, with the words that weighed most (`subjects()`, subject
`resembles-poisoning`, which `scoring.autoMerge.subjects` may accept unread).

The model is data (`homeostat/data/resemblance.model`): a header line and the weights of
`BUCKETS` hashed features, quantised to one signed byte each. Scoring is one pass over the text's
features: linear in the text.
"""

from __future__ import annotations

import json
import math
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

BUCKETS = 1 << 20
MAGIC = b"homeostat-resemblance 1\n"
CHAR_RUNS = (3, 4, 5)
EVIDENCE_WORDS = 4  # how many of the heaviest words a hit quotes
EVIDENCE_LENGTH = 4  # and the fewest letters a quoted word has
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Model:
    """The fitted weights: one signed byte per bucket, times `scale`, plus `bias`."""

    weights: bytes
    scale: float
    bias: float
    threshold: float  # a text whose score reaches it resembles the poisoned rules
    sentence_threshold: float  # and so does one whose single sentence reaches this
    trained_on: str  # sha256 of the training texts and labels (`scripts/train_resemblance.py`)

    def weight(self, bucket: int) -> float:
        return self.scale * _signed(self.weights[bucket])


@dataclass(frozen=True)
class Resemblance:
    """A text's score (a probability, 0-1), its most resembling sentence's, and the words that weighed
    most toward the higher of the two."""

    score: float
    sentence_score: float
    words: tuple[str, ...]


def _signed(byte: int) -> int:
    return byte - 256 if byte > 127 else byte


def bucket(feature: str) -> int:
    """A feature's weight slot: crc32 is stable across runs and Python versions (hash() is salted)."""
    return zlib.crc32(feature.encode("utf-8", "surrogatepass")) & (BUCKETS - 1)


def features(reading: str) -> Iterator[str]:
    """The features of a canonical reading: each word, each pair of neighbouring words, and each run
    of 3 to 5 characters (spaces folded to one, so letter-spaced or line-broken text reads the same)."""
    words = _WORD.findall(reading)
    for word in words:
        yield "w:" + word
    for first, second in zip(words, words[1:], strict=False):
        yield f"b:{first} {second}"
    flat = " " + " ".join(reading.split()) + " "
    for n in CHAR_RUNS:
        for start in range(len(flat) - n + 1):
            yield "c:" + flat[start : start + n]


def feature_buckets(reading: str) -> list[int]:
    """Each distinct bucket the reading's features fall in, in the order first seen."""
    return list(dict.fromkeys(bucket(feature) for feature in features(reading)))


def encode(model: Model) -> bytes:
    header = {
        "buckets": BUCKETS,
        "scale": model.scale,
        "bias": model.bias,
        "threshold": model.threshold,
        "sentence_threshold": model.sentence_threshold,
        "trained_on": model.trained_on,
    }
    return MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n" + zlib.compress(model.weights, 9)


def decode(blob: bytes) -> Model:
    """The model in `blob`; ValueError naming what is wrong when it is not one this version reads."""
    if not blob.startswith(MAGIC):
        raise ValueError("resemblance model: not a homeostat-resemblance 1 file")
    header_line, _, packed = blob[len(MAGIC) :].partition(b"\n")
    try:
        header = json.loads(header_line)
        weights = zlib.decompress(packed)
    except (ValueError, zlib.error) as error:
        raise ValueError(f"resemblance model: unreadable ({error})") from error
    if header.get("buckets") != BUCKETS or len(weights) != BUCKETS:
        raise ValueError(f"resemblance model: {len(weights)} weights, this version reads {BUCKETS}")
    try:
        return Model(
            weights,
            float(header["scale"]),
            float(header["bias"]),
            float(header["threshold"]),
            float(header["sentence_threshold"]),
            str(header["trained_on"]),
        )
    except KeyError as missing:
        raise ValueError(f"resemblance model: its header has no {missing}") from missing


@cache
def shipped_model() -> Model:
    """The model packaged with Homeostat (read once per process)."""
    return decode(resources.files("homeostat").joinpath("data", "resemblance.model").read_bytes())


def resemblance(reading: str, starts: Sequence[int] = (0,), model: Model | None = None) -> Resemblance:
    """How much `reading` (the gate's canonical reading, its sentences starting at `starts`) resembles
    the poisoned rules, read whole and sentence by sentence. Read whole only, one harmful sentence
    among ordinary ones is diluted below the threshold ("Log refund failures with the refund id.
    Charge the price the checkout form sends…"); a sentence alone is short and its words weigh more,
    so it must reach the higher `sentence_threshold`. The words quoted are the whole text's, or the
    sentence's when only the sentence reaches its threshold."""
    model = model or shipped_model()
    whole = _score(reading, model)
    ends = [*starts[1:], len(reading)]
    sentences = [reading[a:b] for a, b in zip(starts, ends, strict=True)] if len(starts) > 1 else []
    best, sentence = max(((_score(s, model), s) for s in sentences), default=(0.0, ""))
    quoted = sentence if best >= model.sentence_threshold > whole else reading
    return Resemblance(whole, best, _heaviest_words(quoted, model))


def _score(reading: str, model: Model) -> float:
    """One piece's probability: each distinct feature weighed once and the sum scaled by the square
    root of their count (so a long text is not a sum of many small weights)."""
    slots = feature_buckets(reading)
    if not slots:
        return 0.0
    norm = 1 / math.sqrt(len(slots))
    return sigmoid(model.bias + norm * sum(model.weight(slot) for slot in slots))


def _heaviest_words(reading: str, model: Model) -> tuple[str, ...]:
    """The words that weigh most toward poisoning; short words ("so", "the") weigh but tell a
    reviewer nothing."""
    weights = {word: model.weight(bucket("w:" + word)) for word in _WORD.findall(reading)}
    telling = [word for word, weight in weights.items() if weight > 0 and len(word) >= EVIDENCE_LENGTH]
    return tuple(sorted(telling, key=lambda word: -weights[word])[:EVIDENCE_WORDS])


def resembles(reading: str, starts: Sequence[int] = (0,), model: Model | None = None) -> Resemblance | None:
    """The resemblance when the whole text reaches the model's threshold or a sentence its
    sentence threshold, else None."""
    model = model or shipped_model()
    found = resemblance(reading, starts, model)
    reached = found.score >= model.threshold or found.sentence_score >= model.sentence_threshold
    return found if reached else None


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)
