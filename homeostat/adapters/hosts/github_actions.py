"""Talking to the GitHub Actions runner: step outputs, the job summary and workflow commands.

Workflow commands (annotations) go to standard error, which the runner reads for commands exactly as
it reads standard output, so a command's standard output stays what it says it is (a JSON report
stays parseable). Outputs are written once, each as a `name<<delimiter` block so a value may hold
newlines, with a delimiter no value contains.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from homeostat.core.render.ci_report import CiReport


def in_github_actions(env: Mapping[str, str] = os.environ) -> bool:
    return env.get("GITHUB_ACTIONS") == "true"


def write_outputs(values: Mapping[str, str], env: Mapping[str, str] = os.environ) -> None:
    path = env.get("GITHUB_OUTPUT")
    if not path or not values:
        return
    chunks = []
    for name, value in values.items():
        delimiter = f"homeostat_{secrets.token_hex(8)}"
        while delimiter in value:
            delimiter = f"homeostat_{secrets.token_hex(8)}"
        chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("".join(chunks))


def append_summary(markdown: str, env: Mapping[str, str] = os.environ) -> None:
    path = env.get("GITHUB_STEP_SUMMARY")
    if path and markdown:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(markdown)


def write_commands(commands: str, stream: TextIO | None = None) -> None:
    """Annotations and other `::command::` lines, apart from the command's own output."""
    if commands:
        out = stream or sys.stderr
        out.write(commands)
        out.flush()


def write_report(report: CiReport) -> None:
    """A run's step outputs, job summary and annotations, as one report (homeostat.core.render.ci_report)."""
    write_outputs(report.outputs)
    append_summary(report.summary)
    write_commands(report.commands)
