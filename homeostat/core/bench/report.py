"""`homeostat bench report`: the two conditions side by side, per task and over all tasks.

Each task's score is its mean over the repeats that have a score; a condition's score is the mean of
its task means, with a seeded bootstrap interval, and the difference (plugin on minus off) is taken
over the tasks both conditions ran, paired by task. The cost part sets every call's actual cost (what
Claude Code reported) beside the estimate the budget was checked against. The JSON form carries
aggregates only: task ids, counts, means, tokens and dollars, never a prompt, an answer or a reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.bench.results import CONDITIONS, Record, latest
from homeostat.core.bench.stats import LEVEL, Interval, bootstrap, mean


@dataclass(frozen=True)
class Totals:
    """What one condition's finished runs used."""

    runs: int = 0
    unjudged: int = 0
    agent_calls: int = 0
    corrections: int = 0
    judge_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0
    cost_usd: float = 0.0
    estimate_usd: float = 0.0

    @property
    def calls(self) -> int:
        return self.agent_calls + self.corrections + self.judge_calls


@dataclass(frozen=True)
class TaskScores:
    runs: int
    mean: float | None  # None when no run of the task has a score yet


@dataclass(frozen=True)
class TaskRow:
    id: str
    kind: str
    scores: Mapping[str, TaskScores]

    @property
    def delta(self) -> float | None:
        off, on = self.scores["off"].mean, self.scores["on"].mean
        return on - off if off is not None and on is not None else None


@dataclass(frozen=True)
class BenchReport:
    out: str
    seed: int
    resamples: int
    tasks: tuple[TaskRow, ...]
    totals: Mapping[str, Totals]
    scores: Mapping[str, Interval | None]
    difference: Interval | None
    skipped_lines: int = 0


def build_report(
    results: Mapping[str, Sequence[Record]], *, out: str, seed: int, resamples: int, skipped_lines: int = 0
) -> BenchReport:
    finished = {condition: latest(results.get(condition, ())) for condition in CONDITIONS}
    order: dict[str, str] = {}
    for condition in CONDITIONS:
        for record in finished[condition].values():
            order.setdefault(record.task, record.kind)
    rows = tuple(
        TaskRow(task, kind, {c: _task_scores(finished[c].values(), task) for c in CONDITIONS})
        for task, kind in order.items()
    )
    scores = {
        condition: bootstrap(
            [m for row in rows if (m := row.scores[condition].mean) is not None],
            seed=seed,
            resamples=resamples,
        )
        for condition in CONDITIONS
    }
    deltas = [delta for row in rows if (delta := row.delta) is not None]
    return BenchReport(
        out=out,
        seed=seed,
        resamples=resamples,
        tasks=rows,
        totals={condition: _totals(finished[condition].values()) for condition in CONDITIONS},
        scores=scores,
        difference=bootstrap(deltas, seed=seed, resamples=resamples),
        skipped_lines=skipped_lines,
    )


def _task_scores(records: Iterable[Record], task: str) -> TaskScores:
    runs = [record for record in records if record.task == task]
    scored = [float(r.score) for r in runs if r.score is not None]
    return TaskScores(len(runs), mean(scored) if scored else None)


def _totals(records: Iterable[Record]) -> Totals:
    runs = list(records)
    calls = [call for record in runs for call in record.calls]
    return Totals(
        runs=len(runs),
        unjudged=sum(1 for r in runs if r.score is None),
        agent_calls=sum(1 for c in calls if c.role == "agent"),
        corrections=sum(1 for c in calls if c.role == "correction"),
        judge_calls=sum(1 for c in calls if c.role == "judge"),
        input_tokens=sum(c.input_tokens for c in calls),
        output_tokens=sum(c.output_tokens for c in calls),
        cache_creation_tokens=sum(c.cache_creation_tokens for c in calls),
        cache_read_tokens=sum(c.cache_read_tokens for c in calls),
        cost_usd=sum(c.cost_usd for c in calls),
        estimate_usd=sum(c.estimate_usd for c in calls),
    )


# --- text ------------------------------------------------------------------------------------------


def render(report: BenchReport) -> str:
    if not report.tasks:
        return f"No bench results in {report.out} yet: run `homeostat bench run` first.\n"
    width = max(24, *(len(row.id) for row in report.tasks))
    lines = [
        f"Plugin off vs on: {len(report.tasks)} tasks (results in {report.out})",
        "",
        f"{'task':<{width}}  {'kind':<8}  {'off':>10}  {'on':>10}  {'on - off':>8}",
    ]
    for row in report.tasks:
        off, on = row.scores["off"], row.scores["on"]
        lines.append(
            f"{row.id:<{width}}  {row.kind:<8}  {_score(off):>10}  {_score(on):>10}  {_signed(row.delta):>8}"
        )
    lines.append("")
    for condition in CONDITIONS:
        lines.append(f"mean score, plugin {condition}: {_interval(report.scores[condition], signed=False)}")
    lines.append(f"difference (on - off), paired by task: {_interval(report.difference, signed=True)}")
    lines.append(
        f"({LEVEL:.0%} bootstrap intervals over tasks, {report.resamples:,} resamples, seed {report.seed}; "
        "scores 0-2)"
    )
    lines += ["", "Calls and cost (actual as Claude Code reported it; estimate as the budget was checked):"]
    for condition in CONDITIONS:
        lines.append(_cost_line(condition, report.totals[condition]))
    unjudged = sum(t.unjudged for t in report.totals.values())
    if unjudged:
        lines.append(f"{unjudged} run(s) got no usable verdict from the judge and are left out of the means.")
    if report.skipped_lines:
        lines.append(f"{report.skipped_lines} unreadable line(s) in the results were skipped.")
    return "\n".join(lines) + "\n"


def _score(scores: TaskScores) -> str:
    return f"{scores.mean:.2f} ({scores.runs})" if scores.mean is not None else f"- ({scores.runs})"


def _signed(value: float | None) -> str:
    return f"{value:+.2f}" if value is not None else "-"


def _interval(interval: Interval | None, *, signed: bool) -> str:
    if interval is None:
        return "no tasks yet"
    show = _signed if signed else (lambda v: f"{v:.2f}")
    return f"{show(interval.mean)} [{show(interval.low)}, {show(interval.high)}] over {interval.n} task(s)"


def _cost_line(condition: str, totals: Totals) -> str:
    tokens = (
        f"tokens {totals.input_tokens:,} in, {totals.output_tokens:,} out, "
        f"{totals.cache_creation_tokens:,} cache write, {totals.cache_read_tokens:,} cache read"
    )
    return (
        f"  plugin {condition}: {totals.runs} runs, {totals.calls} calls ({totals.agent_calls} agent, "
        f"{totals.corrections} correction, {totals.judge_calls} judge); {tokens}; "
        f"${totals.cost_usd:.4f} actual vs ${totals.estimate_usd:.4f} estimated"
    )


# --- JSON ------------------------------------------------------------------------------------------


def to_data(report: BenchReport) -> dict[str, object]:
    """Aggregates only: never a prompt, an answer or the judge's reason."""
    return {
        "out": report.out,
        "seed": report.seed,
        "resamples": report.resamples,
        "level": LEVEL,
        "conditions": {
            condition: {
                **_totals_data(report.totals[condition]),
                "score": _interval_data(report.scores[condition]),
            }
            for condition in CONDITIONS
        },
        "difference": _interval_data(report.difference),
        "tasks": [
            {
                "id": row.id,
                "kind": row.kind,
                **{c: {"runs": row.scores[c].runs, "mean": row.scores[c].mean} for c in CONDITIONS},
                "delta": row.delta,
            }
            for row in report.tasks
        ],
        "skippedLines": report.skipped_lines,
    }


def _totals_data(totals: Totals) -> dict[str, object]:
    return {
        "runs": totals.runs,
        "unjudged": totals.unjudged,
        "calls": totals.calls,
        "agentCalls": totals.agent_calls,
        "corrections": totals.corrections,
        "judgeCalls": totals.judge_calls,
        "inputTokens": totals.input_tokens,
        "outputTokens": totals.output_tokens,
        "cacheCreationTokens": totals.cache_creation_tokens,
        "cacheReadTokens": totals.cache_read_tokens,
        "costUsd": round(totals.cost_usd, 6),
        "estimateUsd": round(totals.estimate_usd, 6),
    }


def _interval_data(interval: Interval | None) -> dict[str, object] | None:
    if interval is None:
        return None
    return {"mean": interval.mean, "low": interval.low, "high": interval.high, "tasks": interval.n}
