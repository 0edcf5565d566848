"""Build KBs for tests: the shipped example as a map of files, easy to plant problems in."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "kb"


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
