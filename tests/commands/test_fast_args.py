"""A session hook's command line (`context …`, `hook <event>`) is read without argparse; it must
read exactly as argparse reads it, and anything else must be left to argparse."""

from __future__ import annotations

from pathlib import Path

import pytest

from homeostat.cli import _fast_args, build_parser


def argparse_reads(argv: list[str]) -> dict[str, object]:
    return vars(build_parser(argv[0]).parse_args(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["context"],
        ["context", "--files", "src/a.py"],
        ["context", "--files", "src/a.py", "--files=src/b.py,src/c.py", "--repo", "payments"],
        ["context", "--kb", "KB", "--checkout", "CHECKOUT", "--files", "src/a.py", "--format", "json"],
        ["context", "--prompt", "why does the ledger retry?", "--session", "s1", "--explain"],
        ["context", "--prompt=", "--budget", "500", "--json", "--kb=KB"],
        ["context", "--budget", "200", "--budget", "300", "--format=text"],
        ["context", "--files", "src/a.py", "--task", "fix the ledger retry"],
        ["context", "--files", "src/a.py", "--no-task"],
        ["hook", "prompt"],
        ["hook", "session-start"],
        ["hook", "stop"],
    ],
)
def test_a_hook_command_line_reads_as_argparse_reads_it(argv: list[str], tmp_path: Path) -> None:
    argv = [str(tmp_path) if a == "CHECKOUT" else a for a in argv]
    fast = _fast_args(argv)
    assert fast is not None
    assert vars(fast) == argparse_reads(argv)


@pytest.mark.parametrize(
    "argv",
    [
        ["context", "src/a.py"],  # the old positional spelling
        ["context", "--file", "src/a.py"],  # an abbreviation
        ["context", "--budget", "lots"],
        ["context", "--format", "yaml"],
        ["context", "--checkout", "/no/such/folder"],
        ["context", "--prompt", "-x"],
        ["context", "--prompt"],
        ["context", "--explain=yes"],
        ["context", "--task", "x", "--no-task"],
        ["context", "-v"],
        ["context", "--help"],
        ["hook"],
        ["hook", "prompt", "-v"],
        ["hook", "unknown"],
        ["-v", "context"],
        ["search", "ledger"],
    ],
)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert _fast_args(argv) is None
