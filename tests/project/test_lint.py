"""The code itself: ruff (lint and format) over everything, mypy --strict over the package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kit import REPO

BIN = Path(sys.executable).parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=900)


def test_ruff_finds_nothing() -> None:
    done = run(str(BIN / "ruff"), "check", "homeostat", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_code_is_formatted() -> None:
    done = run(str(BIN / "ruff"), "format", "--check", "homeostat", "tests", "benchmarks")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_on_the_package() -> None:
    done = run(sys.executable, "-m", "mypy")
    assert done.returncode == 0, done.stdout + done.stderr
