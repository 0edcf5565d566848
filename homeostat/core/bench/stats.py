"""A seeded bootstrap interval for a mean: the report's "how sure are we" beside each difference.

Tasks, not single runs, are resampled: repeats of one task are not independent evidence about the
KB, so each task contributes its mean and the interval says how much the result depends on which
tasks were in the set. The seed makes two reports of the same results print the same interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_SEED = 7
DEFAULT_RESAMPLES = 10_000
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    mean: float
    low: float
    high: float
    n: int


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def bootstrap(values: Sequence[float], *, seed: int, resamples: int, level: float = LEVEL) -> Interval | None:
    """The mean of `values` and its percentile bootstrap interval; None with no values."""
    if not values:
        return None
    if len(values) == 1:
        return Interval(values[0], values[0], values[0], 1)
    rng = random.Random(seed)
    size = len(values)
    means = sorted(sum(rng.choices(values, k=size)) / size for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return Interval(mean(values), low, high, size)
