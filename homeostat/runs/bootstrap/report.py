"""What seed and bootstrap say when they are done: the terminal summary and the PR body."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

from homeostat.core.asker import usd
from homeostat.core.bootstrap.merge import MergeReport
from homeostat.core.text import plural
from homeostat.runs.bootstrap.draft import RepoResult
from homeostat.runs.publish import body


def disagreement_line(section: str, document: str) -> str:
    return f"source now disagrees on section {section} ({document}) — kept"


def _report_line(path: str, report: MergeReport) -> str:
    parts = [
        f"{label} {', '.join(ids)}"
        for label, ids in (
            ("added", report.added),
            ("refreshed", report.refreshed),
            ("unioned", report.unioned),
            ("kept", report.kept),
        )
        if ids
    ]
    return f"  {path}: {'; '.join(parts) or 'no section changed'}"


def _repo_summary(result: RepoResult) -> list[str]:
    head = [f"drafted {len(result.drafted)}" + (f" ({', '.join(result.drafted)})" if result.drafted else "")]
    if result.skipped:
        head.append(f"skipped {len(result.skipped)} (unchanged: {', '.join(result.skipped)})")
    written = plural(len(result.files), "file") + " to write" if result.files else "nothing to write"
    lines = [f"{result.plan.name}: {', '.join(head)}; {written}"]
    lines += [
        _report_line(path, result.reports[path]) for path in sorted(result.files) if path in result.reports
    ]
    lines += [f"  {disagreement_line(section, doc)}" for doc, section in result.disagreements]
    for blocked in result.blocked:
        where = f"{blocked.document}#{blocked.section}" if blocked.section else blocked.document
        lines.append(f"  left out {where}: {blocked.finding}")
    for path, report in result.reports.items():
        lines += [f"  left out {path}#{section}: {why}" for section, why in report.refused]
    for topic, why in result.failed:
        lines.append(f"  not drafted: {topic}: {why}")
    if result.left:
        lines.append(f"  left for a rerun (spending cap): {', '.join(result.left)}")
    if result.plan.docs:
        lines.append(
            f"  Markdown docs: {len(result.docs_imported)} imported, {result.docs_skipped} unchanged"
        )
    return lines


def summary(results: Sequence[RepoResult], cost: float, pulls: Mapping[str, str] | None = None) -> str:
    lines: list[str] = []
    for result in results:
        lines += _repo_summary(result)
        if pulls and result.plan.name in pulls:
            lines.append(f"  PR: {pulls[result.plan.name]}")
    cap = next((r.cap_message for r in results if r.cap_message), "")
    if cap:
        lines.append(cap)
    lines.append(f"model cost: {usd(cost)} (list prices)")
    return "\n".join(lines) + "\n"


def pr_body(result: RepoResult, today: dt.date, model: str) -> str:
    plan = result.plan
    return body(
        "bootstrap_pr.md.j2",
        repo=plan.name,
        date=today.isoformat(),
        model=model,
        topics=[t for t in plan.topics if t.topic in result.drafted],
        skipped=result.skipped,
        reports=[
            (path, _report_line(path, result.reports[path]).strip())
            for path in sorted(result.files)
            if path in result.reports
        ],
        disagreements=[disagreement_line(section, doc) for doc, section in result.disagreements],
        blocked=result.blocked,
        refused=[(path, section, why) for path, r in result.reports.items() for section, why in r.refused],
        failed=result.failed,
        left=result.left,
        docs=result.docs_imported,
        never_read=len(plan.never_read),
        never_kinds=sorted(set(plan.never_read.values())),
    )
