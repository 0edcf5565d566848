"""What the daily run tells a CI job: step outputs, the job summary and annotations, from plain values.

Outputs give a later step one number per outcome and the PRs opened; the summary carries the whole
decisions table (annotations are capped at ten of each kind per step, the summary is not); each notice
the run raised (a spending cap, a judge cap, an unset Slack variable) becomes one annotation, a
warning when it means work was left for the next run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import get_args

from homeostat.core.render.findings import GITHUB_SUMMARY_LIMIT, escape_data, escape_property, table_cell
from homeostat.core.state.branch import NoticeKind, Outcome

OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
# Notices that mean something was not done this run; the rest are for information.
WARNING_NOTICES: frozenset[NoticeKind] = frozenset(
    {"spending-cap", "judge-cap", "retract-cap", "model-failure", "merge-refused", "host-unclear"}
)


@dataclass(frozen=True)
class DecisionRow:
    outcome: str
    confidence: int
    member: str
    title: str
    reason: str


@dataclass(frozen=True)
class DailyReport:
    counts: Mapping[Outcome, int]
    rows: Sequence[DecisionRow]
    pr_urls: Sequence[str]
    notices: Sequence[tuple[NoticeKind, str]]
    cost_usd: float | None
    dry_run: bool
    failed: str | None = None


def outputs(report: DailyReport) -> dict[str, str]:
    """One count per outcome (zeros included, so `outputs.merged > 0` always works) and the PRs as JSON."""
    values: dict[str, str] = {outcome: str(report.counts.get(outcome, 0)) for outcome in OUTCOMES}
    values["decided"] = str(sum(report.counts.get(outcome, 0) for outcome in OUTCOMES))
    values["pr-urls"] = json.dumps(list(report.pr_urls))
    values["cost-usd"] = "" if report.cost_usd is None else f"{report.cost_usd:.4f}"
    values["dry-run"] = "true" if report.dry_run else "false"
    return values


def workflow_commands(report: DailyReport) -> str:
    lines = []
    if report.failed:
        lines.append(f"::error title=homeostat daily::{escape_data(report.failed)}\n")
    for kind, message in report.notices:
        level = "warning" if kind in WARNING_NOTICES else "notice"
        lines.append(
            f"::{level} title={escape_property(f'homeostat daily ({kind})')}::{escape_data(message)}\n"
        )
    return "".join(lines)


def summary(report: DailyReport) -> str:
    counted = [f"{report.counts[o]} {o}" for o in OUTCOMES if report.counts.get(o)]
    line = ", ".join(counted) or "nothing to decide"
    prs = len(report.pr_urls)
    head = "## Homeostat daily" + (" (dry run: nothing was written)" if report.dry_run else "") + "\n\n"
    out = head + (f"**The run failed:** {table_cell(report.failed)}\n\n" if report.failed else "")
    out += f"{line}; {prs} pull request{'s' if prs != 1 else ''} opened"
    out += f"; model cost ${report.cost_usd:.2f}.\n\n" if report.cost_usd is not None else ".\n\n"
    if report.rows:
        out += _decisions_table(report.rows, GITHUB_SUMMARY_LIMIT - 20_000 - len(out))
    if report.pr_urls:
        out += "\n### Pull requests opened\n\n" + "".join(f"- {url}\n" for url in report.pr_urls)
    if report.notices:
        out += "\n### Notices\n\n" + "".join(f"- {kind}: {table_cell(m)}\n" for kind, m in report.notices)
    return out


def _decisions_table(rows: Sequence[DecisionRow], budget: int) -> str:
    lines = ["| Outcome | Confidence | Member | Lesson | Reason |", "| --- | ---: | --- | --- | --- |"]
    used = sum(len(line) + 1 for line in lines)
    for index, row in enumerate(rows):
        text = (
            f"| {row.outcome} | {row.confidence} | @{table_cell(row.member)} | {table_cell(row.title[:120])} "
            f"| {table_cell(row.reason[:300])} |"
        )
        if used + len(text) + 1 > budget:
            lines.append(f"| … | | | {len(rows) - index} more decisions | see the run log |")
            break
        lines.append(text)
        used += len(text) + 1
    return "\n".join(lines) + "\n"
