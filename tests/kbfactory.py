"""Build KBs for tests: the shipped example as a map of files, easy to plant problems in."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from kit import EXAMPLE_KB

EXAMPLE = EXAMPLE_KB
CLONE_STATE = shutil.ignore_patterns(".homeostat")  # a clone's index, events and pending lessons


def example_files(root: Path = EXAMPLE) -> dict[str, str]:
    """The KB's files; a clone's own `.homeostat/` (pending lessons, caches) is not part of the KB."""
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".homeostat" not in p.relative_to(root).parts
    }


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


_PROGRESS = re.compile(r"^homeostat: [^:]+: [\d,]+(?:/[\d,]+)?(?: .*)? \(\d+ s\)$")


def stderr_errors(err: str) -> str:
    """stderr without progress lines, which a loaded machine shows for work that passes a second."""
    return "".join(line for line in err.splitlines(keepends=True) if not _PROGRESS.match(line.rstrip("\n")))


def run_limited(
    *argv: str, cwd: Path | None = None, seconds: float = 120
) -> subprocess.CompletedProcess[str]:
    """`homeostat <argv>` in a child process that may take at most `seconds` (it raises past them):
    for inputs built to stall a reader, so a regression fails its test instead of hanging the run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOMEOSTAT_")}
    return subprocess.run(
        [sys.executable, "-m", "homeostat", *argv],
        capture_output=True,
        text=True,
        timeout=seconds,
        cwd=cwd,
        env=env,
        check=False,
    )


# --- fixtures (a pytest plugin: tests/conftest.py lists this module) ---------------------------------


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """The example KB as a fresh clone has it, at tmp_path/kb: its files without a clone's own
    `.homeostat/`. A module that needs more (a git repository, planted files) overrides it, asking
    for this one: `def kb(kb: Path) -> Path`."""
    root = tmp_path / "kb"
    shutil.copytree(EXAMPLE, root, ignore=CLONE_STATE)
    return root


# A safety rule the example KB lacks: the subject gate names its text (card numbers in logs), so a
# flag on it waits for a person (issue 29). `example_files() | {CARD_RULE_FILE: CARD_RULE}` validates.
CARD_RULE_ID = "no-card-numbers-in-logs"
CARD_RULE_FILE = "knowledge/billing/api/no-card-numbers-in-logs.md"
CARD_RULE = """\
---
id: no-card-numbers-in-logs
title: Never log card numbers
area: billing/api
scope: ["src/billing/api/**"]
status: accepted
kind: convention
approvedBy: [ana]
source:
  type: manual
  author: ana
created: 2026-09-01
lastConfirmed: 2026-11-02
score: 3
tokens: 58
---
## Rule
Never write a full card number to the logs; mask all but the last four digits with `mask_pan()`.

## Why
Logs are shipped to a third-party service, and card numbers there break PCI DSS.
"""
