"""Measuring rule selection for `homeostat eval` (the health counts `report` shows are `health`).

Eval cases (`eval/selection.yaml`) name touched paths or a search task, an optional repo and the rule
ids they expect; they run through `select_entries`/`build_view` and `search_entries`, the code the
hook and the MCP server use. Metrics (adapted from vectorize-io/hindsight, MIT): Hit, MRR, nDCG,
recall and precision at 1, 3, 5 and 10, R-precision, and the share of expected rules served within
the budget. No model call; a broken case file or a `--min` floor is the only failure.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from homeostat.core.findings import Finding, error
from homeostat.core.kb import CASES_FILE
from homeostat.core.render.view import build_view
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.search import search_entries
from homeostat.core.selection.terms import task_words
from homeostat.core.text import plural
from homeostat.errors import HomeostatError

if TYPE_CHECKING:
    pass

KS = (1, 3, 5, 10)


class EvalError(HomeostatError):
    """A case file that cannot be read, or a floor that is not `metric=value`."""

    exit_code = 2


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    files: tuple[str, ...] = ()
    task: str = ""
    repo: str | None = None
    branch: str = ""
    commits: tuple[str, ...] = ()
    source: str = ""
    expect: tuple[str, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_kind(self) -> Case:
        if bool(self.files) == bool(self.task.strip()):
            raise ValueError("a case has either files (touched paths) or a task (search words), not both")
        if (self.branch or self.commits) and not self.files:
            raise ValueError("branch and commits describe a change, so they need files")
        return self


class CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    cases: tuple[Case, ...] = Field(min_length=1)


def parse_cases(text: str, file: str = CASES_FILE) -> tuple[Case, ...]:
    """Cases from YAML; any problem is one line naming the file, the case and the key. Read with
    aliases bounded (`yamltext.load_full`): the file is in the KB, and a "billion laughs" anchor
    would stall validate."""
    from homeostat.core.format.yamltext import YamlError, load_full

    try:
        data = load_full(text).data
    except YamlError as exc:
        raise EvalError(
            f"{file}:{exc.line}: not valid YAML ({str(exc).removeprefix('invalid YAML: ')})"
        ) from None
    try:
        return CaseFile.model_validate(data).cases
    except ValidationError as exc:
        raise EvalError(f"{file}: {_case_problem(exc)} (see docs/delivery.md, 'homeostat eval')") from None


_PROBLEMS = {
    "missing": "is missing",
    "extra_forbidden": "is an unknown key; remove it or check its spelling",
    "too_short": "needs at least one entry",
    "model_type": "must be a mapping of keys to values",
    "tuple_type": "must be a list",
}


def _case_problem(exc: ValidationError) -> str:
    """The first problem as a person would say it: `case 2: expect needs at least one entry`."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")  # a typo explains a miss
    first = errors[0]
    loc = list(first["loc"])
    where = "(top level)"
    if loc[:1] == ["cases"] and len(loc) > 1 and isinstance(loc[1], int):
        where = f"case {loc[1] + 1}" + (f": {'.'.join(str(p) for p in loc[2:])}" if loc[2:] else "")
    elif loc:
        where = ".".join(str(p) for p in loc)
    detail = _PROBLEMS.get(first["type"], str(first["msg"]).removeprefix("Value error, "))
    return f"{where} {detail}" if first["type"] in _PROBLEMS else f"{where}: {detail}"


# --- metrics ---------------------------------------------------------------------------------------


def case_metrics(ranked: Sequence[str], expected: Iterable[str], served: Iterable[str]) -> dict[str, float]:
    """All metrics for one case: `ranked` is the full order, `served` what fit within the budget."""
    want = set(expected)
    if not want:
        return {}
    relevant = [1 if rid in want else 0 for rid in ranked]
    first = next((i for i, r in enumerate(relevant, start=1) if r), None)
    out: dict[str, float] = {"mrr": 1.0 / first if first else 0.0}
    for k in KS:
        top = relevant[:k]
        hits = sum(top)
        out[f"hit@{k}"] = 1.0 if hits else 0.0
        out[f"precision@{k}"] = hits / k
        out[f"recall@{k}"] = hits / len(want)
        dcg = sum(r / math.log2(i + 1) for i, r in enumerate(top, start=1))
        ideal = sum(1 / math.log2(i + 1) for i in range(1, min(k, len(want)) + 1))
        out[f"ndcg@{k}"] = dcg / ideal
    out["r-precision"] = sum(relevant[: len(want)]) / len(want)
    out["served"] = len(want & set(served)) / len(want)
    return out


METRICS = (
    "hit@1",
    "hit@3",
    "hit@5",
    "hit@10",
    "mrr",
    "ndcg@1",
    "ndcg@3",
    "ndcg@5",
    "ndcg@10",
    "recall@1",
    "recall@3",
    "recall@5",
    "recall@10",
    "precision@1",
    "precision@3",
    "precision@5",
    "precision@10",
    "r-precision",
    "served",
)


def mean_metrics(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    if not rows:
        return {name: 0.0 for name in METRICS}
    return {name: sum(r.get(name, 0.0) for r in rows) / len(rows) for name in METRICS}


def parse_floor(text: str) -> tuple[str, float]:
    """`hit@5=0.8` → ("hit@5", 0.8)."""
    name, sep, value = text.partition("=")
    name = name.strip().lower()
    if not sep or name not in METRICS:
        raise EvalError(f"--min {text!r}: expected metric=value with metric one of {', '.join(METRICS)}")
    try:
        number = float(value)
    except ValueError:
        raise EvalError(f"--min {text!r}: {value!r} is not a number") from None
    return name, number


def failed_floors(summary: Mapping[str, float], floors: Iterable[tuple[str, float]]) -> list[str]:
    return [
        f"{name} {summary[name]:.3f} < {floor:g}" for name, floor in floors if summary[name] < floor - 1e-12
    ]


@dataclass(frozen=True)
class CaseResult:
    case: Case
    ranked: tuple[str, ...]
    served: tuple[str, ...]
    metrics: Mapping[str, float]

    @property
    def label(self) -> str:
        return self.case.name or (", ".join(self.case.files) if self.case.files else self.case.task)


@dataclass(frozen=True)
class EvalReport:
    results: tuple[CaseResult, ...]
    summary: Mapping[str, float] = field(default_factory=dict)

    def to_data(self) -> dict[str, object]:
        return {
            "cases": len(self.results),
            "summary": {k: round(v, 4) for k, v in self.summary.items()},
            "results": [
                {
                    "name": r.label,
                    "expect": list(r.case.expect),
                    "top": list(r.ranked[:10]),
                    "metrics": {k: round(v, 4) for k, v in r.metrics.items()},
                }
                for r in self.results
            ],
        }


def run_cases(
    corpus: Corpus,
    cases: Sequence[Case],
    audience_for: Callable[[str | None], Audience],
    count: Callable[[str], int],
) -> EvalReport:
    """Run every case through the same selection and search the hook and MCP use."""
    results = []
    for case in cases:
        audience = audience_for(case.repo)
        if case.files:
            # A case is a branch whose work is committed: its task is the branch and the commits.
            task = task_words(case.branch, case.commits)
            view = build_view(corpus, case.files, audience, count, task=task)
            ranked = tuple(r.entry.id for r in view.selection.ranked)
            served = view.served_ids
        else:
            hits = search_entries(corpus, case.task, audience, limit=None)
            ranked = tuple(h.id for h in hits)
            served = ranked[:10]
        results.append(CaseResult(case, ranked, served, case_metrics(ranked, case.expect, served)))
    return EvalReport(tuple(results), mean_metrics([r.metrics for r in results]))


def render_report(report: EvalReport) -> str:
    s = report.summary
    lines = [plural(len(report.results), "case")]
    for k in KS:
        lines.append(
            f"  @{k:<3} hit {s[f'hit@{k}']:.3f}  ndcg {s[f'ndcg@{k}']:.3f}  "
            f"recall {s[f'recall@{k}']:.3f}  precision {s[f'precision@{k}']:.3f}"
        )
    lines.append(
        f"  MRR {s['mrr']:.3f}  R-precision {s['r-precision']:.3f}  served within budget {s['served']:.3f}"
    )
    misses = [r for r in report.results if r.metrics.get("hit@5", 0.0) < 1.0]
    for r in misses:
        lines.append(
            f"  miss@5  {r.label}: expected {', '.join(r.case.expect)}; "
            f"top {', '.join(r.ranked[:5]) or 'nothing'}"
        )
    return "\n".join(lines) + "\n"


def check_repos(cases: Sequence[Case], corpus: Corpus, file: str) -> None:
    """A case naming a repo homeostat.yaml does not have is a broken case file."""
    names = {r.name for r in corpus.repos}
    for case in cases:
        if case.repo is not None and corpus.multi_repo and case.repo not in names:
            raise EvalError(
                f"{file}: case {case.name or case.expect[0]!r}: repo {case.repo!r} is not in homeostat.yaml"
            )


def audiences(corpus: Corpus, default_repo: str | None = None) -> Callable[[str | None], Audience]:
    """Eval sees every area, team-only ones included: it measures selection, not permissions."""
    teams = frozenset(info.owner for info in corpus.areas.values())
    return lambda repo: Audience(repo or default_repo, "eval", teams)


FLOOR_KEYS = {
    "hit@1": "minHitAt1",
    "hit@3": "minHitAt3",
    "hit@5": "minHitAt5",
    "mrr": "minMrr",
    "served": "minServed",
}
NAMED_CASES = 5


def short_cases(report: EvalReport, metric: str, floor: float) -> list[CaseResult]:
    """The cases that pull a summary metric below its floor, worst first."""
    if metric.startswith("hit@"):
        return [r for r in report.results if r.metrics.get(metric, 0.0) < 1.0]
    below = [r for r in report.results if r.metrics.get(metric, 0.0) < floor]
    return sorted(below, key=lambda r: (r.metrics.get(metric, 0.0), r.label))


def selection_findings(
    corpus: Corpus,
    text: str,
    floors: Mapping[str, float],
    count: Callable[[str], int],
    file: str = CASES_FILE,
) -> list[Finding]:
    """`validate`'s check of eval/selection.yaml: a broken case file is an error; so is each floor set
    in homeostat.yaml (`eval.minHitAt5` …) that the cases fall below, naming the cases that fall short."""
    try:
        cases = parse_cases(text, file)
        check_repos(cases, corpus, file)
    except EvalError as exc:
        return [error("eval", file, 1, str(exc).removeprefix(f"{file}: "))]
    if not floors:
        return []
    report = run_cases(corpus, cases, audiences(corpus), count)
    findings = []
    for metric, floor in floors.items():
        value = report.summary[metric]
        if value >= floor - 1e-12:
            continue
        short = short_cases(report, metric, floor)
        named = "; ".join(
            f"{r.label!r} (expected {', '.join(r.case.expect)}; top {', '.join(r.ranked[:3]) or 'nothing'})"
            for r in short[:NAMED_CASES]
        )
        more = f"; and {len(short) - NAMED_CASES} more" if len(short) > NAMED_CASES else ""
        findings.append(
            error(
                "eval",
                file,
                1,
                f"{metric} {value:.3f} is below eval.{FLOOR_KEYS[metric]} {floor:g} in homeostat.yaml; "
                f"{len(short)} of {len(report.results)} cases fall short: {named}{more}",
            )
        )
    return findings
