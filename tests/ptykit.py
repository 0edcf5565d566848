"""A command run in a real pseudo-terminal and answered prompt by prompt, as a person would.

code, shown = at_a_terminal(["learn", "--kb", kb], [(b"Title", "Send a key")])
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from collections.abc import Sequence


def at_a_terminal(argv: Sequence[str], answers: Sequence[tuple[bytes, str]]) -> tuple[int, str]:
    """`homeostat <argv>` at a terminal; each answer is typed once its prompt has shown. The exit
    code and everything it showed."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "homeostat", *argv],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        close_fds=True,
    )
    os.close(secondary)
    seen = b""
    deadline = time.monotonic() + 60
    for prompt, answer in answers:
        while prompt not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")
            seen += os.read(primary, 4096)
        os.write(primary, answer.encode() + b"\n")
    while True:  # until it ends and all it wrote is read
        try:
            chunk = os.read(primary, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    process.wait(timeout=60)
    os.close(primary)
    return process.returncode, seen.decode(errors="replace")
