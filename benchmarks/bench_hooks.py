"""What the plugin's hooks cost a session, and what a sync with nothing to do costs.

    .venv/bin/python benchmarks/bench_hooks.py [--rules 1000] [--runs 21]

On a generated KB (bench_context's generator, committed in git) and a code checkout with one changed
file, each row is the whole process, warm (the corpus cache in place), median of --runs:
  - `context --files` as the baseline the hooks build on;
  - `hook session-start` (the checkout's touched files come from `git status` and `git log`);
  - `hook prompt` with a message that matches nothing and one that matches rules;
  - `hook stop` over a 40-turn transcript;
  - `sync` with nothing to do (a bare origin, the candidates branch already current);
  - each row's ratio to `python -c pass`, run in turn with it (issue 18: at most 8x at 20,000 rules).
Target (issue 14): SessionStart and UserPromptSubmit medians under 150 ms at 1,000 rules. The machine
is shared: compare rows of one run; cpu ms (the process and its git children) is steadier than wall
time on a loaded machine. Prints numbers only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_context import git, write_kb  # noqa: E402

CPU: list[float] = []


def timed(command: list[str], env: dict[str, str], stdin: str = "") -> float:
    """Wall milliseconds of one whole process; its CPU milliseconds (with its children) go to CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, input=stdin.encode(), check=True, capture_output=True, env=env)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall


def transcript(path: Path, turns: int) -> None:
    lines = []
    for n in range(turns):
        lines.append({"type": "user", "message": {"role": "user", "content": f"step {n}: change the ledger"}})
        call = {"type": "tool_use", "id": f"t{n}", "name": "Edit", "input": {"file_path": "src/a.py"}}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [call]}})
        result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}
        lines.append({"type": "user", "message": {"role": "user", "content": [result]}})
        text = {"type": "text", "text": "Done. > From Homeostat (no-such-id)"}
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [text]}})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def sync_setup(kb: Path, scratch: Path, env: dict[str, str]) -> None:
    origin = scratch / "origin.git"
    git(scratch, "init", "--quiet", "--bare", str(origin))
    git(kb, "remote", "add", "origin", str(origin))
    git(kb, "push", "--quiet", "origin", "HEAD:main")
    git(kb, "branch", "--quiet", "-M", "main")
    subprocess.run([sys.executable, "-m", "homeostat", "sync", "--kb", str(kb)], env=env, check=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="benchmark the plugin's hooks and sync")
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args(argv)
    exe = str(Path(sys.executable).with_name("homeostat"))
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HOMEOSTAT_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        kb, checkout = scratch / "kb", scratch / "payments"
        comps = write_kb(kb, args.rules)
        touched = next(c.path for c in comps if c.area == "payments/api")
        checkout.mkdir()
        git(checkout, "init", "--quiet")
        git(checkout, "remote", "add", "origin", "https://github.com/acme/payments.git")
        (checkout / touched).parent.mkdir(parents=True, exist_ok=True)
        (checkout / touched).write_text("x = 1\n")
        env = {**base, "HOMEOSTAT_DIR": str(kb), "HOMEOSTAT_MEMBER": "ana"}
        sync_setup(kb, scratch, env)
        log = scratch / "transcript.jsonl"
        transcript(log, 40)
        event = {"session_id": "bench", "cwd": str(checkout), "transcript_path": str(log)}

        def hook(name: str, **extra: object) -> tuple[list[str], str]:
            return [exe, "hook", name], json.dumps({**event, **extra})

        rows = {
            "context --files": (
                [exe, "context", "--kb", str(kb), "--checkout", str(checkout), "--files", touched],
                "",
            ),
            "hook session-start": hook("session-start", hook_event_name="SessionStart", source="startup"),
            "hook prompt (no match)": hook(
                "prompt", hook_event_name="UserPromptSubmit", prompt="yes, go ahead"
            ),
            "hook prompt (matches)": hook(
                "prompt",
                hook_event_name="UserPromptSubmit",
                prompt=f"why does the {comps[0].words} retry the ledger write and log the refund id",
            ),
            "hook stop (40 turns)": hook("stop", hook_event_name="Stop", stop_hook_active=False),
            "sync, nothing to do": ([exe, "sync", "--kb", str(kb)], ""),
        }
        for command, stdin in rows.values():  # warm every cache once
            timed(command, env, stdin)
        time.sleep(1.0)  # let the one background sync the first session start started finish
        print(f"{args.rules} rules; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        python = [sys.executable, "-c", "pass"]
        print(
            f"{'':<24} {'median ms':>10} {'p90 ms':>8} {'cpu ms':>7} {'python -c pass ms':>18} {'ratio':>6}"
        )
        for label, (command, stdin) in rows.items():
            walls, starts, cpu = [], [], []
            for _ in range(args.runs):  # in turn with `python -c pass`, so the ratio sees one load
                CPU.clear()
                walls.append(timed(command, env, stdin))
                cpu.append(CPU[0])
                starts.append(timed(python, env))
            walls.sort()
            p90 = walls[min(len(walls) - 1, int(len(walls) * 0.9))]
            median, start = statistics.median(walls), statistics.median(starts)
            print(
                f"{label:<24} {median:>10.0f} {p90:>8.0f} {statistics.median(cpu):>7.0f} {start:>18.0f} "
                f"{median / start:>5.1f}x"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
