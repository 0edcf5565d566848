"""Labelled secret strings built at run time, and how a scanner is scored on them.

A case is one snippet a scanner reads as a whole document: a positive names the exact substring that
must lie inside one finding; a negative (a look-alike) must get no finding at all. The scoring rule is
the shared corpus's (../shared/bench/secrets/README.md), so the three sets' numbers compare.

Every secret is assembled here from split prefixes and seeded random bodies, so the repository never
holds a literal credential for a hosted scanner to trip on (docs/dev/engineering-rules.md).
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

UPPER = string.ascii_uppercase
LOWER = string.ascii_lowercase
DIGITS = string.digits
ALNUM = UPPER + LOWER + DIGITS
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "_-"
# Characters people put in passwords: letters, digits and a few marks that need no quoting in a shell.
PASSWORD_CHARS = ALNUM + "!#%+-_.~"


@dataclass(frozen=True)
class Case:
    id: str
    text: str
    label: str  # "positive" or "negative"
    secret: str | None = None
    kind: str = ""

    def span(self) -> tuple[int, int]:
        assert self.secret is not None
        start = self.text.index(self.secret)
        return start, start + len(self.secret)


def rnd(n: int, alphabet: str = ALNUM, seed: object = 0) -> str:
    """A seeded random string with a digit and both cases where the alphabet has them."""
    r = random.Random(f"{seed}:{n}:{alphabet}")
    while True:
        s = "".join(r.choice(alphabet) for _ in range(n))
        wants = [set(DIGITS), set(UPPER), set(LOWER)]
        if all(not (w & set(alphabet)) or (w & set(s)) for w in wants):
            return s


def password(n: int = 14, seed: object = 0) -> str:
    """A human-made password: mixed letters, digits and one mark."""
    r = random.Random(f"pw:{seed}:{n}")
    while True:
        s = "".join(r.choice(PASSWORD_CHARS) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(not c.isalnum() for c in s):
            return s


def b64(n_bytes: int, seed: object = 0) -> str:
    return base64.b64encode(random.Random(f"b64:{seed}").randbytes(n_bytes)).decode()


@dataclass
class CaseSet:
    """Cases added one at a time; `pos` takes a text with `{s}` where the secret goes."""

    name: str
    cases: list[Case] = field(default_factory=list)

    def pos(self, kind: str, text: str, secret: str) -> None:
        n = sum(c.kind == kind and c.label == "positive" for c in self.cases) + 1
        case = Case(f"pos-{kind}-{n:02d}", text.replace("{s}", secret), "positive", secret, kind)
        assert case.text.count(secret) == 1, case.id
        self.cases.append(case)

    def neg(self, kind: str, text: str) -> None:
        n = sum(c.kind == kind and c.label == "negative" for c in self.cases) + 1
        self.cases.append(Case(f"neg-{kind}-{n:02d}", text, "negative", None, kind))


@dataclass
class Score:
    positives: int
    negatives: int
    misses: list[Case]
    false_alarms: list[Case]

    @property
    def caught(self) -> int:
        return self.positives - len(self.misses)

    @property
    def recall(self) -> float:
        return self.caught / self.positives if self.positives else 1.0

    def line(self) -> str:
        return (
            f"recall {self.caught}/{self.positives} = {self.recall:.3f}, "
            f"false alarms {len(self.false_alarms)}/{self.negatives}"
        )


Spans = Callable[[str], Iterable[tuple[int, int]]]


def score_cases(cases: Iterable[Case], spans: Spans) -> Score:
    """A positive is caught when one finding covers its secret; a negative is a false alarm when the
    scanner reports anything in it."""
    positives = negatives = 0
    misses: list[Case] = []
    false_alarms: list[Case] = []
    for case in cases:
        found = list(spans(case.text))
        if case.label == "positive":
            positives += 1
            start, end = case.span()
            if not any(s <= start and e >= end for s, e in found):
                misses.append(case)
        else:
            negatives += 1
            if found:
                false_alarms.append(case)
    return Score(positives, negatives, misses, false_alarms)
