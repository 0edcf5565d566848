"""Weights that tune themselves: `scoring.confidence` fitted to what reviewers settled.

Every lesson the daily run sends to a reviewer is recorded on the state branch with its confidence
and the terms that made it (`base:manual`, `role:senior`, `specific`, …); the reviewer's merge or
close settles it. Those settled reviews say which terms reviewers actually trust. This module fits
the weights to them and says what would have changed; it proposes, a person decides (the command
opens a PR to homeostat.yaml, never applies it).

The fit is a logistic regression with the confidence formula as its linear part, anchored on the
thresholds: calibrated weights make a lesson scored at the merge threshold one reviewers merged
`TARGET` (9 in 10) of the time, one at `decline` one they merged 1 in 10, so the middle band is where
people disagree. Each weight starts at its current value and moves only as far as the reviews push
it (a Gaussian prior of `PRIOR_POINTS` around it, so a small or one-sided sample changes little); a
weight whose term is in fewer than `MIN_TERM` reviews is kept. The terms that count something (a
lesson repeated by others, open flags, conflicts, the model's rating, a judge's failure) are kept as
recorded: their points enter as they were. Fitted by coordinate-wise Newton steps, rounded to whole
points.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.config import Confidence as ConfidenceWeights
from homeostat.core.state.branch import DecisionRecord

MIN_SAMPLE = 100  # settled reviews below which no proposal is made
MIN_TERM = 10  # a weight is fitted only when its term is in this many settled reviews
TARGET = 0.9  # a lesson at the merge threshold is merged this often, one at `decline` 1 - TARGET
PRIOR_POINTS = 10.0  # how far (standard deviation, in points) the reviews may move a weight easily
BAND_WIDTH = 10
LESSON_KINDS = ("new", "update", "review-thread")
_SWEEPS = 200
_BONUSES = {"owner": "owner", "specific": "specific", "clearTitle": "clear_title"}
_PENALTIES = {"vagueTitle": "vague_title"}
# The daily run's three reasons for a decision made by the score alone (core/daily/decide.py).
_MERGED = re.compile(r"^confidence (\d+) ≥ (\d+)$")
_BETWEEN = re.compile(r"^confidence (\d+) is between (\d+) and (\d+)$")
_BELOW = re.compile(r"^confidence (\d+) is below (\d+)$")


class NotEnoughReviews(ValueError):
    """Fewer settled reviews than the fit needs."""

    def __init__(self, found: int, needed: int) -> None:
        super().__init__(f"{found} settled review(s), fewer than the {needed} a fit needs")
        self.found = found
        self.needed = needed


# --- what the records say ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Lesson:
    """A decided lesson as the fit sees it: its terms, what became of it, and the bar it faced."""

    terms: tuple[tuple[str, int], ...]
    threshold: int  # the merge threshold it faced (accept, or coreAccept)
    reviewed: bool  # a person settled it
    merged: bool  # the reviewer merged it (for reviewed ones), else the run did
    by_score: str  # "merge", "review" or "decline" when the score alone decided it, else ""


def weight_key(term: str) -> str | None:
    """The `scoring.confidence` weight a term's points come from (`base.manual`, `bonus.owner`), or
    None for a term whose points are counted, not weighed (kept as recorded)."""
    if term.startswith("base:"):
        return f"base.{term[5:]}"
    if term.startswith("role:") and term != "role:unknown":
        return f"role.{term[5:]}"
    if term in _BONUSES:
        return f"bonus.{term}"
    if term in _PENALTIES:
        return f"penalty.{term}"
    return None


def lessons_of(records: Iterable[DecisionRecord], config: Config) -> list[Lesson]:
    """Every decided lesson with a score: settled reviews, and those the score alone decided."""
    weights = config.scoring.confidence
    found: list[Lesson] = []
    for record in records:
        if record.kind not in LESSON_KINDS or not record.breakdown:
            continue
        reviewed = (
            record.review_opened_at is not None
            and record.state == "settled"
            and record.outcome in ("merged", "declined")
        )
        by_score, threshold = _by_score(record.reason)
        if not reviewed and not by_score:
            continue
        if threshold is None:
            threshold = weights.core_accept if record.area == CORE_AREA else weights.accept
        terms = tuple(sorted(record.breakdown.items()))
        found.append(Lesson(terms, threshold, reviewed, record.outcome == "merged", by_score))
    return found


def _by_score(reason: str) -> tuple[str, int | None]:
    if match := _MERGED.match(reason):
        return "merge", int(match.group(2))
    if match := _BETWEEN.match(reason):
        return "review", int(match.group(3))
    if _BELOW.match(reason):
        return "decline", None
    return "", None


# --- the weights --------------------------------------------------------------------------------------


def current_weights(weights: ConfidenceWeights) -> dict[str, int]:
    """Every weight the fit may move, as `weight_key` names them (penalties as positive points)."""
    found = {f"base.{source}": points for source, points in weights.base.items()}
    found.update({f"role.{role}": points for role, points in weights.role.items()})
    found.update({f"bonus.{term}": getattr(weights.bonus, name) for term, name in _BONUSES.items()})
    found.update({f"penalty.{term}": getattr(weights.penalty, name) for term, name in _PENALTIES.items()})
    return found


def with_weights(weights: ConfidenceWeights, values: Mapping[str, int]) -> ConfidenceWeights:
    """`weights` with the fitted values in place."""
    base = dict(weights.base)
    role = dict(weights.role)
    bonus, penalty = weights.bonus.model_dump(), weights.penalty.model_dump()
    for key, value in values.items():
        part, name = key.split(".", 1)
        if part == "base":
            base[name] = value
        elif part == "role":
            role[name] = value
        elif part == "bonus":
            bonus[_BONUSES[name]] = value
        else:
            penalty[_PENALTIES[name]] = value
    return weights.model_copy(
        update={
            "base": base,
            "role": role,
            "bonus": weights.bonus.model_validate(bonus),
            "penalty": weights.penalty.model_validate(penalty),
        }
    )


def _sign(key: str) -> int:
    return -1 if key.startswith("penalty.") else 1


def score(lesson: Lesson, values: Mapping[str, float]) -> float:
    """The lesson's confidence under `values` (unclamped): weighed terms from `values`, the rest as
    recorded."""
    total = 0.0
    for term, points in lesson.terms:
        key = weight_key(term)
        total += points if key is None or key not in values else _sign(key) * values[key]
    return total


def clamp(value: float) -> int:
    return max(0, min(100, round(value)))


def decision(confidence: int, threshold: int, decline: int) -> str:
    if confidence >= threshold:
        return "merge"
    return "decline" if confidence < decline else "review"


# --- the fit ------------------------------------------------------------------------------------------


@dataclass
class _Group:
    """Reviews with the same terms, bar and outcome: fitted once, counted `count` times."""

    keys: tuple[str, ...]  # the weights it carries
    offset: float  # the points of its terms kept as recorded
    slope: float  # k: how fast the merge odds rise per point at its threshold
    middle: float  # where the odds are even: halfway between decline and its threshold
    merged: int
    count: int
    total: float = 0.0


def _groups(reviews: Sequence[Lesson], decline: int, fitted: set[str]) -> list[_Group]:
    counted: Counter[tuple[tuple[str, ...], int, int, bool]] = Counter()
    for lesson in reviews:
        carried = tuple(sorted(k for term, _ in lesson.terms if (k := weight_key(term)) in fitted))
        offset = sum(points for term, points in lesson.terms if weight_key(term) not in fitted)
        counted[(carried, offset, lesson.threshold, lesson.merged)] += 1
    groups = []
    for (keys, offset, threshold, merged), count in counted.items():
        middle = (threshold + decline) / 2
        slope = math.log(TARGET / (1 - TARGET)) / max(1.0, threshold - middle)
        groups.append(_Group(keys, offset, slope, middle, int(merged), count))
    return groups


def _odds(group: _Group) -> float:
    value = group.slope * (group.total - group.middle)
    return 1 / (1 + math.exp(-max(-40.0, min(40.0, value))))


def fit(reviews: Sequence[Lesson], start: Mapping[str, int], decline: int) -> dict[str, int]:
    """The weights that best explain the reviews, each pulled toward its `start` value."""
    seen = Counter(key for lesson in reviews for term, _ in lesson.terms if (key := weight_key(term)))
    fitted = {key for key, n in seen.items() if n >= MIN_TERM and key in start}
    values = {key: float(value) for key, value in start.items()}
    groups = _groups(reviews, decline, fitted)
    members: dict[str, list[_Group]] = defaultdict(list)
    for group in groups:
        group.total = group.offset + sum(_sign(k) * values[k] for k in group.keys)
        for key in group.keys:
            members[key].append(group)
    prior = 1 / PRIOR_POINTS**2
    for _ in range(_SWEEPS):
        largest = 0.0
        for key in sorted(fitted):
            sign = _sign(key)
            gradient = prior * (values[key] - start[key])
            curvature = prior
            for group in members[key]:
                p = _odds(group)
                gradient += group.count * sign * group.slope * (p - group.merged)
                curvature += group.count * group.slope**2 * p * (1 - p)
            step = gradient / curvature
            values[key] -= step
            for group in members[key]:
                group.total -= sign * step
            largest = max(largest, abs(step))
        if largest < 1e-4:
            break
    return {key: max(0, min(100, round(values[key]))) for key in start}


# --- what it would have changed -----------------------------------------------------------------------


@dataclass(frozen=True)
class Band:
    band: str
    before_reviewed: int
    before_merged: int
    after_reviewed: int
    after_merged: int


@dataclass(frozen=True)
class Component:
    """One weighed term: how often reviewers merged the lessons that had it, and those that did not."""

    key: str
    with_reviewed: int
    with_merged: int
    without_reviewed: int
    without_merged: int


def _components(reviews: Sequence[Lesson], keys: Iterable[str]) -> tuple[Component, ...]:
    found = []
    for key in sorted(keys):
        carried = [any(weight_key(term) == key for term, _ in lesson.terms) for lesson in reviews]
        with_it = [lesson.merged for lesson, has in zip(reviews, carried, strict=True) if has]
        without = [lesson.merged for lesson, has in zip(reviews, carried, strict=True) if not has]
        found.append(Component(key, len(with_it), sum(with_it), len(without), sum(without)))
    return tuple(found)


@dataclass(frozen=True)
class Calibration:
    """A proposal and the evidence for it."""

    reviews: int  # settled reviews the fit read
    merged: int  # of them, merged by the reviewer
    current: dict[str, int]
    proposed: dict[str, int]
    fitted: tuple[str, ...]  # the weights the reviews were enough to fit
    bands: tuple[Band, ...]
    components: tuple[Component, ...]  # per fitted weight: merged with the term and without it
    loss_before: float  # mean log loss of the anchored model on the reviews
    loss_after: float
    ranking_before: float  # how often a merged review outscores a declined one (AUC)
    ranking_after: float
    scored: int = 0  # past lessons the score alone decided (or would have): what `changed` is out of
    changed: dict[str, int] = field(default_factory=dict)  # "<before>→<after>" -> lessons
    agree: dict[str, tuple[int, int]] = field(default_factory=dict)  # for reviewed ones: (agreed, not)

    @property
    def moved(self) -> dict[str, tuple[int, int]]:
        return {
            k: (self.current[k], self.proposed[k])
            for k in self.current
            if self.current[k] != self.proposed[k]
        }

    @property
    def decided_differently(self) -> int:
        return sum(self.changed.values())

    @property
    def better(self) -> bool:
        """Worth proposing: the proposed weights explain the reviews better by more than the freedom
        they were given could by chance (Akaike's criterion: the log-likelihood gained exceeds the
        number of weights moved)."""
        gained = (self.loss_before - self.loss_after) * self.reviews
        return bool(self.moved) and gained > len(self.moved)


def band_of(confidence: int) -> str:
    low = min(confidence // BAND_WIDTH * BAND_WIDTH, 100 - BAND_WIDTH)
    high = 100 if low == 100 - BAND_WIDTH else low + BAND_WIDTH - 1
    return f"{low}-{high}"


def _bands(
    reviews: Sequence[Lesson], before: Mapping[str, int], after: Mapping[str, int]
) -> tuple[Band, ...]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for lesson in reviews:
        old, new = counts[band_of(clamp(score(lesson, before)))], counts[band_of(clamp(score(lesson, after)))]
        old[0] += 1
        old[1] += lesson.merged
        new[2] += 1
        new[3] += lesson.merged
    order = sorted(counts, key=lambda band: int(band.split("-")[0]))
    return tuple(Band(band, *counts[band]) for band in order)


def _loss(reviews: Sequence[Lesson], values: Mapping[str, int], decline: int) -> float:
    total = 0.0
    for lesson in reviews:
        middle = (lesson.threshold + decline) / 2
        slope = math.log(TARGET / (1 - TARGET)) / max(1.0, lesson.threshold - middle)
        p = 1 / (1 + math.exp(-max(-40.0, min(40.0, slope * (score(lesson, values) - middle)))))
        total -= math.log(max(1e-12, p if lesson.merged else 1 - p))
    return total / max(1, len(reviews))


def _ranking(reviews: Sequence[Lesson], values: Mapping[str, int]) -> float:
    """The share of (merged, declined) pairs the weights put in the right order (ties half)."""
    merged = sorted(score(lesson, values) for lesson in reviews if lesson.merged)
    declined = sorted(score(lesson, values) for lesson in reviews if not lesson.merged)
    if not merged or not declined:
        return 1.0
    right = 0.0
    for value in merged:
        below = _count_below(declined, value)
        equal = _count_below(declined, value, inclusive=True) - below
        right += below + equal / 2
    return right / (len(merged) * len(declined))


def _count_below(ordered: Sequence[float], value: float, *, inclusive: bool = False) -> int:
    return (bisect.bisect_right if inclusive else bisect.bisect_left)(ordered, value)


def calibrate(
    records: Iterable[DecisionRecord], config: Config, *, min_sample: int = MIN_SAMPLE
) -> Calibration:
    """Fit the weights to the settled reviews and say what they would have changed."""
    weights = config.scoring.confidence
    lessons = lessons_of(records, config)
    reviews = [lesson for lesson in lessons if lesson.reviewed]
    if len(reviews) < min_sample:
        raise NotEnoughReviews(len(reviews), min_sample)
    current = current_weights(weights)
    proposed = fit(reviews, current, weights.decline)
    seen = Counter(key for lesson in reviews for term, _ in lesson.terms if (key := weight_key(term)))
    fitted = tuple(sorted(k for k, n in seen.items() if n >= MIN_TERM and k in current))
    changed: Counter[str] = Counter()
    agree: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for lesson in lessons:
        if not lesson.by_score:
            continue
        old = decision(clamp(score(lesson, current)), lesson.threshold, weights.decline)
        new = decision(clamp(score(lesson, proposed)), lesson.threshold, weights.decline)
        if old != new:
            changed[f"{old}→{new}"] += 1
            if lesson.reviewed and new != "review":
                right = (new == "merge") == lesson.merged
                agree[new][0 if right else 1] += 1
    return Calibration(
        reviews=len(reviews),
        merged=sum(lesson.merged for lesson in reviews),
        current=current,
        proposed=proposed,
        fitted=fitted,
        bands=_bands(reviews, current, proposed),
        components=_components(reviews, fitted),
        loss_before=_loss(reviews, current, weights.decline),
        loss_after=_loss(reviews, proposed, weights.decline),
        ranking_before=_ranking(reviews, current),
        ranking_after=_ranking(reviews, proposed),
        scored=sum(1 for lesson in lessons if lesson.by_score),
        changed=dict(sorted(changed.items())),
        agree={k: (v[0], v[1]) for k, v in sorted(agree.items())},
    )


def proposed_config(config: Config, calibration: Calibration) -> Config:
    scoring = config.scoring.model_copy(
        update={"confidence": with_weights(config.scoring.confidence, calibration.proposed)}
    )
    return config.model_copy(update={"scoring": scoring})


# --- what it says ---------------------------------------------------------------------------------------


def _share(merged: int, reviewed: int) -> str:
    return f"{merged / reviewed:.0%}" if reviewed else "–"


def table(calibration: Calibration) -> list[str]:
    """The calibration table, as Markdown rows: per band, reviews and the share merged, before and after."""
    rows = [
        "| Confidence | Reviews now | Merged now | Reviews proposed | Merged proposed |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for b in calibration.bands:
        rows.append(
            f"| {b.band} | {b.before_reviewed} | {_share(b.before_merged, b.before_reviewed)} | "
            f"{b.after_reviewed} | {_share(b.after_merged, b.after_reviewed)} |"
        )
    return rows


def weight_rows(calibration: Calibration) -> list[str]:
    """Per fitted weight: its points now and proposed, and how often reviewers merged the lessons
    with the term and without it (the evidence for the move)."""
    rows = [
        "| Weight | Now | Proposed | Merged with it | Merged without it |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for c in calibration.components:
        old, new = calibration.current[c.key], calibration.proposed[c.key]
        rows.append(
            f"| `scoring.confidence.{c.key}` | {old} | {'**' + str(new) + '**' if new != old else new} | "
            f"{_share(c.with_merged, c.with_reviewed)} of {c.with_reviewed} | "
            f"{_share(c.without_merged, c.without_reviewed)} of {c.without_reviewed} |"
        )
    return rows


def summary_lines(calibration: Calibration) -> list[str]:
    c = calibration
    lines = [
        f"{c.reviews} settled reviews ({c.merged} merged by the reviewer, {c.reviews - c.merged} closed); "
        f"{len(c.fitted)} weights had enough of them to fit",
        f"fit (mean log loss, lower is better): {c.loss_before:.3f} now, {c.loss_after:.3f} proposed",
        f"ranking (a merged review outscores a closed one): {c.ranking_before:.0%} now, {c.ranking_after:.0%} proposed",
        f"decided differently: {c.decided_differently} of the {c.scored} past lessons the score decided"
        + (": " + ", ".join(f"{n} {move}" for move, n in c.changed.items()) if c.changed else ""),
    ]
    for verdict, (right, wrong) in c.agree.items():
        what = "merged with no person" if verdict == "merge" else "declined with no person"
        lines.append(
            f"  of the reviewed ones that would have been {what}: {right} as the reviewer decided, {wrong} not"
        )
    return lines
