"""Findings: what every check returns, so the CLI, curator, MCP server and dashboard share one shape."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True, order=True)
class Finding:
    """One problem a person can act on: which check, how bad, where, and what to change."""

    file: str
    line: int
    severity: Severity
    check: str
    message: str

    def as_dict(self) -> dict[str, object]:
        return {
            "check": self.check,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "message": self.message,
        }


def error(check: str, file: str, line: int, message: str) -> Finding:
    return Finding(file, max(line, 1), "error", check, message)


def warning(check: str, file: str, line: int, message: str) -> Finding:
    return Finding(file, max(line, 1), "warning", check, message)


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)
