"""What the daily run and the deep dive tell a CI job, from plain values: step outputs, the job summary
and annotations (`CiReport`, which homeostat.adapters.hosts.github_actions.write_report writes).

Outputs give a later step one number per outcome or kind of change (zeros included, so
`outputs.merged > 0` always works), the PRs, the cost and whether the run was dry. The daily summary
carries the whole decisions table (annotations are capped at ten of each kind per step, the summary
is not); the deep dive's carries what its PR body says. Each notice a run raised (a spending cap, a
judge cap, citations left for a person, an unset Slack variable) becomes one annotation, a warning
when it means work was left for the next run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import get_args

from homeostat.core.render.findings import GITHUB_SUMMARY_LIMIT, escape_data, escape_property, table_cell
from homeostat.core.state.branch import NoticeKind, Outcome

OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
DEEP_DIVE_COUNTS = ("merged", "contradictions", "retired", "retracted", "listed", "notes", "skipped")
# Notices that mean something was not done this run; the rest are for information.
WARNING_NOTICES: frozenset[NoticeKind] = frozenset(
    {"spending-cap", "judge-cap", "retract-cap", "model-failure", "merge-refused", "host-unclear"}
)
Notices = Sequence[tuple[NoticeKind, str]]


@dataclass(frozen=True)
class CiReport:
    """What one run tells its CI job: step outputs, the job summary (Markdown) and workflow commands."""

    outputs: Mapping[str, str]
    summary: str
    commands: str


# --- the daily run ---------------------------------------------------------------------------------


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
    notices: Notices
    cost_usd: float | None
    dry_run: bool
    failed: str | None = None


def daily(report: DailyReport) -> CiReport:
    return CiReport(
        _daily_outputs(report),
        _daily_summary(report),
        _commands("homeostat daily", report.failed, report.notices),
    )


def _daily_outputs(report: DailyReport) -> dict[str, str]:
    values: dict[str, str] = {outcome: str(report.counts.get(outcome, 0)) for outcome in OUTCOMES}
    values["decided"] = str(sum(report.counts.get(outcome, 0) for outcome in OUTCOMES))
    values["pr-urls"] = json.dumps(list(report.pr_urls))
    return values | _run_outputs(report.cost_usd, report.dry_run)


def _daily_summary(report: DailyReport) -> str:
    counted = [f"{report.counts[o]} {o}" for o in OUTCOMES if report.counts.get(o)]
    line = ", ".join(counted) or "nothing to decide"
    prs = len(report.pr_urls)
    head = _head("Homeostat daily", report.dry_run)
    out = head + (f"**The run failed:** {table_cell(report.failed)}\n\n" if report.failed else "")
    out += f"{line}; {prs} pull request{'s' if prs != 1 else ''} opened" + _cost(report.cost_usd)
    if report.rows:
        out += _decisions_table(report.rows, GITHUB_SUMMARY_LIMIT - 20_000 - len(out))
    if report.pr_urls:
        out += "\n### Pull requests opened\n\n" + "".join(f"- {url}\n" for url in report.pr_urls)
    return out + _notices(report.notices)


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


# --- the deep dive ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeepDiveReport:
    counts: Mapping[str, int]
    summary: str  # the run's one line, as the PR body opens with it
    pr_url: str
    notices: Notices
    cost_usd: float | None
    dry_run: bool
    capped: bool
    failed: str = ""
    week_done: str = ""  # this week's PR, already merged or closed: the run did nothing


def deep_dive(report: DeepDiveReport) -> CiReport:
    commands = _commands("homeostat deep dive", report.failed, report.notices)
    return CiReport(_deep_dive_outputs(report), _deep_dive_summary(report), commands)


def _deep_dive_outputs(report: DeepDiveReport) -> dict[str, str]:
    values = {name: str(report.counts.get(name, 0)) for name in DEEP_DIVE_COUNTS}
    values["pr-url"] = report.pr_url
    values["capped"] = "true" if report.capped else "false"
    return values | _run_outputs(report.cost_usd, report.dry_run)


def _deep_dive_summary(report: DeepDiveReport) -> str:
    head = _head("Homeostat deep dive", report.dry_run)
    if report.failed:
        return head + f"**The run failed:** {table_cell(report.failed)}\n"
    if report.week_done:
        return head + f"This week's deep-dive PR is already settled: {report.week_done}. Nothing was done.\n"
    out = head + report.summary.rstrip(".") + _cost(report.cost_usd)
    if report.pr_url:
        out += f"Pull request, for a person to merge: {report.pr_url}\n\n"
    rows = [(name, report.counts.get(name, 0)) for name in DEEP_DIVE_COUNTS if report.counts.get(name, 0)]
    if rows:
        out += "| Change | Count |\n| --- | ---: |\n" + "".join(f"| {name} | {n} |\n" for name, n in rows)
    return out + _notices(report.notices)


# --- what both say alike ---------------------------------------------------------------------------


def _run_outputs(cost_usd: float | None, dry_run: bool) -> dict[str, str]:
    return {
        "cost-usd": "" if cost_usd is None else f"{cost_usd:.4f}",
        "dry-run": "true" if dry_run else "false",
    }


def _head(title: str, dry_run: bool) -> str:
    return f"## {title}" + (" (dry run: nothing was written)" if dry_run else "") + "\n\n"


def _cost(cost_usd: float | None) -> str:
    """The end of the summary's first sentence."""
    return f"; model cost ${cost_usd:.2f}.\n\n" if cost_usd is not None else ".\n\n"


def _notices(notices: Notices) -> str:
    if not notices:
        return ""
    return "\n### Notices\n\n" + "".join(f"- {kind}: {table_cell(m)}\n" for kind, m in notices)


def _commands(title: str, failed: str | None, notices: Notices) -> str:
    """The run's failure as an error annotation, and one annotation per notice."""
    lines = []
    if failed:
        lines.append(f"::error title={title}::{escape_data(failed)}\n")
    for kind, message in notices:
        level = "warning" if kind in WARNING_NOTICES else "notice"
        lines.append(f"::{level} title={escape_property(f'{title} ({kind})')}::{escape_data(message)}\n")
    return "".join(lines)
