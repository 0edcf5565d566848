"""What the plugin's hooks cost a session, and what a sync with nothing to do costs.

    .venv/bin/python benchmarks/bench_hooks.py [--rules 1000] [--runs 21] [--against REF]

On a generated KB (bench_context's generator, committed in git) and a code checkout with one changed
file, each row is the whole process, warm (the corpus cache in place), median of --runs:
  - `context --files` as the baseline the hooks build on, and `context` finding the changes in git;
  - `hook session-start` (the checkout's touched files come from `git status` and `git log`);
  - `hook prompt` with a message that matches nothing and one that matches rules;
  - `hook stop` over a 40-turn transcript;
  - `sync` with nothing to do (a bare origin, the candidates branch already current);
  - each row's ratio to `python -c pass`, run in turn with it (issue 18: at most 4x at 1,000 rules and
    8x at 20,000), by wall time and by cpu ms (the process and its git children; steadier than wall
    time on a loaded machine).
The code runs as an installed package does: from its source folder, by an interpreter that has this
one's packages but not the editable install's import finder, whose own imports (pathlib, urllib)
would otherwise be paid by `python -c pass` too and hide what the hooks import. `--against REF` also
runs this repository's code at REF (e.g. `main`) on its own copy of the KB, its runs alternating with
this checkout's, so a noisy machine slows both alike. Target (issue 14): SessionStart and
UserPromptSubmit medians under 150 ms at 1,000 rules. Prints numbers only.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_context import git, payments_setup  # noqa: E402
from bench_mcp import checkout_ref  # noqa: E402

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


def sync_setup(kb: Path, scratch: Path, env: dict[str, str], exe: list[str]) -> None:
    origin = scratch / "origin.git"
    git(scratch, "init", "--quiet", "--bare", str(origin))
    git(kb, "remote", "add", "origin", str(origin))
    git(kb, "push", "--quiet", "origin", "HEAD:main")
    git(kb, "branch", "--quiet", "-M", "main")
    subprocess.run([*exe, "sync", "--kb", str(kb)], env=env, check=True, capture_output=True)


def plain_python(scratch: Path) -> str:
    """An interpreter that starts as an installed package's does (see the module's docstring)."""
    venv = scratch / "python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    (site / "bench-packages.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return str(venv / "bin" / "python")


class Setup:
    """One version of the code on its own KB and checkout: its launcher, environment and rows."""

    def __init__(self, name: str, source: Path, python: str, folder: Path, rules: int) -> None:
        self.name = name
        folder.mkdir()
        launcher = folder / "homeostat"
        launcher.write_text(
            "import sys\nfrom homeostat.cli import main_entry\nmain_entry()\n", encoding="utf-8"
        )
        kb, checkout, comps, touched = payments_setup(folder, rules)
        (checkout / touched).parent.mkdir(parents=True, exist_ok=True)
        (checkout / touched).write_text("x = 1\n")
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("HOMEOSTAT_") and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
        }
        # PYTHONPATH, so the detached sync a session start begins (`python -m homeostat`) runs it too
        self.env = {**base, "HOMEOSTAT_DIR": str(kb), "HOMEOSTAT_MEMBER": "ana", "PYTHONPATH": str(source)}
        exe = [python, str(launcher)]
        sync_setup(kb, folder, self.env, exe)
        log = folder / "transcript.jsonl"
        transcript(log, 40)
        event = {"session_id": "bench", "cwd": str(checkout), "transcript_path": str(log)}

        def hook(name: str, **extra: object) -> tuple[list[str], str]:
            return [*exe, "hook", name], json.dumps({**event, **extra})

        context = [*exe, "context", "--kb", str(kb), "--checkout", str(checkout)]
        self.rows = {
            "context --files": ([*context, "--files", touched], ""),
            "context (from git)": (context, ""),
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
            "sync, nothing to do": ([*exe, "sync", "--kb", str(kb)], ""),
        }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="benchmark the plugin's hooks and sync")
    parser.add_argument("--rules", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--against", metavar="REF", help="also time this repository's code at REF")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        python = plain_python(scratch)
        setups = [Setup("this checkout", HERE.parent, python, scratch / "this", args.rules)]
        if args.against:
            ref = checkout_ref(args.against, scratch / "ref-code")
            assert ref.source is not None
            setups.append(Setup(args.against, ref.source, python, scratch / "ref", args.rules))
        for setup in setups:
            for command, stdin in setup.rows.values():  # warm every cache once
                timed(command, setup.env, stdin)
        time.sleep(1.0)  # let the one background sync the first session start started finish
        print(f"{args.rules} rules; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print(
            f"{'':<24} {'':<14} {'median ms':>10} {'p90 ms':>8} {'cpu ms':>7} {'python -c pass ms':>18} "
            f"{'ratio':>6} {'cpu ratio':>9}"
        )
        env = setups[0].env
        for label in setups[0].rows:
            walls: list[list[float]] = [[] for _ in setups]
            cpu: list[list[float]] = [[] for _ in setups]
            starts, start_cpu = [], []
            for _ in range(args.runs):  # in turn with `python -c pass`, so the ratio sees one load
                for setup, wall, used in zip(setups, walls, cpu, strict=True):
                    CPU.clear()
                    command, stdin = setup.rows[label]
                    wall.append(timed(command, setup.env, stdin))
                    used.append(CPU[0])
                CPU.clear()
                starts.append(timed([python, "-c", "pass"], env))
                start_cpu.append(CPU[0])
            start, start_used = statistics.median(starts), statistics.median(start_cpu)
            for setup, wall, used in zip(setups, walls, cpu, strict=True):
                wall.sort()
                p90 = wall[min(len(wall) - 1, int(len(wall) * 0.9))]
                median, median_cpu = statistics.median(wall), statistics.median(used)
                print(
                    f"{label:<24} {setup.name[:14]:<14} {median:>10.0f} {p90:>8.0f} {median_cpu:>7.0f} "
                    f"{start:>18.0f} {median / start:>5.1f}x {median_cpu / start_used:>8.1f}x"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
