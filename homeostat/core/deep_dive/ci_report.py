"""What the deep dive tells a CI job: step outputs, the job summary and annotations, from plain values.

Outputs give a later step the PR's URL and one number per kind of change (zeros included, so
`outputs.retired > 0` always works); the summary carries what the PR body says, and each notice the
run raised (the spending cap, citations left for a person, a model failure) becomes an annotation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.daily.ci_report import WARNING_NOTICES
from homeostat.core.render.findings import escape_data, escape_property, table_cell
from homeostat.core.state.branch import NoticeKind

COUNTS = ("merged", "contradictions", "retired", "retracted", "listed", "notes", "skipped")


@dataclass(frozen=True)
class DeepDiveReport:
    counts: Mapping[str, int]
    summary: str  # the run's one line, as the PR body opens with it
    pr_url: str
    notices: Sequence[tuple[NoticeKind, str]]
    cost_usd: float | None
    dry_run: bool
    capped: bool
    failed: str = ""
    week_done: str = ""  # this week's PR, already merged or closed: the run did nothing


def outputs(report: DeepDiveReport) -> dict[str, str]:
    values = {name: str(report.counts.get(name, 0)) for name in COUNTS}
    values["pr-url"] = report.pr_url
    values["capped"] = "true" if report.capped else "false"
    values["cost-usd"] = "" if report.cost_usd is None else f"{report.cost_usd:.4f}"
    values["dry-run"] = "true" if report.dry_run else "false"
    return values


def workflow_commands(report: DeepDiveReport) -> str:
    lines = []
    if report.failed:
        lines.append(f"::error title=homeostat deep dive::{escape_data(report.failed)}\n")
    for kind, message in report.notices:
        level = "warning" if kind in WARNING_NOTICES else "notice"
        title = escape_property(f"homeostat deep dive ({kind})")
        lines.append(f"::{level} title={title}::{escape_data(message)}\n")
    return "".join(lines)


def summary(report: DeepDiveReport) -> str:
    head = "## Homeostat deep dive" + (" (dry run: nothing was written)" if report.dry_run else "") + "\n\n"
    if report.failed:
        return head + f"**The run failed:** {table_cell(report.failed)}\n"
    if report.week_done:
        return head + f"This week's deep-dive PR is already settled: {report.week_done}. Nothing was done.\n"
    out = head + report.summary.rstrip(".")
    out += f"; model cost ${report.cost_usd:.2f}.\n\n" if report.cost_usd is not None else ".\n\n"
    if report.pr_url:
        out += f"Pull request, for a person to merge: {report.pr_url}\n\n"
    rows = [(name, report.counts.get(name, 0)) for name in COUNTS if report.counts.get(name, 0)]
    if rows:
        out += "| Change | Count |\n| --- | ---: |\n" + "".join(f"| {name} | {n} |\n" for name, n in rows)
    if report.notices:
        out += "\n### Notices\n\n" + "".join(f"- {kind}: {table_cell(m)}\n" for kind, m in report.notices)
    return out
