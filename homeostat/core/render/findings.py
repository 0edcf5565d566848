"""Rendering validation findings for people and machines: text, JSON, GitHub annotations and job
summary, Bitbucket Code Insights. Pure: strings and dicts out; the command decides where they go."""

from __future__ import annotations

import json
from collections.abc import Sequence

from homeostat.core.findings import Finding

GITHUB_SUMMARY_LIMIT = 1_000_000  # bytes; GitHub allows 1 MiB per step summary


def counts(findings: Sequence[Finding]) -> tuple[int, int]:
    errors = sum(1 for f in findings if f.severity == "error")
    return errors, len(findings) - errors


def summary_line(findings: Sequence[Finding], rules: int, documents: int) -> str:
    errors, warnings = counts(findings)
    return (
        f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} "
        f"in {rules} rule{'s' * (rules != 1)} and {documents} document{'s' * (documents != 1)}"
    )


def format_text(findings: Sequence[Finding]) -> str:
    return "".join(f"{f.file}:{f.line}: {f.severity} [{f.check}] {f.message}\n" for f in findings)


def format_json(findings: Sequence[Finding], rules: int, documents: int) -> str:
    errors, warnings = counts(findings)
    payload = {
        "ok": errors == 0,
        "errors": errors,
        "warnings": warnings,
        "rules": rules,
        "documents": documents,
        "findings": [f.as_dict() for f in findings],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def github_annotations(findings: Sequence[Finding]) -> str:
    """Workflow commands (`::error file=…,line=…::…`); GitHub shows the first 10 of each per step."""
    lines = []
    for f in findings:
        level = "error" if f.severity == "error" else "warning"
        props = (
            f"file={escape_property(f.file)},line={f.line},title={escape_property('homeostat ' + f.check)}"
        )
        lines.append(f"::{level} {props}::{escape_data(f.message)}\n")
    return "".join(lines)


def table_cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def github_summary(findings: Sequence[Finding], rules: int, documents: int) -> str:
    """The full list as a Markdown table for $GITHUB_STEP_SUMMARY (annotations are capped; this is not)."""
    head = f"## Homeostat validate\n\n{summary_line(findings, rules, documents)}\n\n"
    if not findings:
        return head + "No problems found.\n"
    rows = ["| Severity | Check | File | Line | Message |", "| --- | --- | --- | --- | --- |"]
    out = head
    for f in findings:
        row = f"| {f.severity} | {f.check} | `{table_cell(f.file)}` | {f.line} | {table_cell(f.message)} |"
        if len(out) + sum(len(r) + 1 for r in rows) + len(row) > GITHUB_SUMMARY_LIMIT - 200:
            rows.append(
                f"| … | | | | {len(findings) - len(rows) + 2} more findings; run homeostat validate locally |"
            )
            break
        rows.append(row)
    return out + "\n".join(rows) + "\n"


INSIGHTS_REPORT_ID = "homeostat-validate"


def code_insights(
    findings: Sequence[Finding], rules: int, documents: int
) -> tuple[dict[str, object], list[dict[str, object]]]:
    """A Bitbucket Code Insights report and its annotations."""
    errors, warnings = counts(findings)
    report: dict[str, object] = {
        "title": "Homeostat validate",
        "details": summary_line(findings, rules, documents),
        "report_type": "TEST",
        "reporter": "homeostat",
        "result": "FAILED" if errors else "PASSED",
        "data": [
            {"title": "Errors", "type": "NUMBER", "value": errors},
            {"title": "Warnings", "type": "NUMBER", "value": warnings},
        ],
    }
    annotations: list[dict[str, object]] = []
    for index, f in enumerate(findings):
        annotations.append(
            {
                "external_id": f"homeostat-{index + 1}",
                "annotation_type": "BUG" if f.severity == "error" else "CODE_SMELL",
                "summary": f"[{f.check}] {f.message}"[:450],
                "path": f.file,
                "line": f.line,
                "severity": "HIGH" if f.severity == "error" else "LOW",
            }
        )
    return report, annotations
