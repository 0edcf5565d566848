"""The MCP server's cost per call and at start-up, through a real `mcp` client over stdio.

    .venv/bin/python benchmarks/bench_mcp.py [--sizes 1000,20000] [--runs 10]

For generated KBs of each size (bench_context's: two repos, topic files, committed in git like a KB
clone), `homeostat mcp` is started as an MCP client starts it; the index is built beforehand, as a
session's first `context` leaves it. Prints, per size: start-up (spawn to the answered tool list,
median of 3, with `python -c "import mcp"` in the same run for scale) and the wall milliseconds of
each tool per call (median of --runs; `explain` and `report`, which read the KB itself, of fewer),
measured in the client, so it includes the JSON-RPC round trip. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "fixtures"))

import make_eval150 as gen  # noqa: E402
from bench_context import git, write_kb  # noqa: E402

HEAVY = ("explain", "report")


def calls(rule_id: str, touched: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("context", {"files": [touched]}),
        ("search", {"query": "retry timeout idempotency key"}),
        ("docs", {}),
        ("read", {"target": rule_id}),
        ("explain", {"id": rule_id}),
        ("report", {}),
    ]


def environment() -> dict[str, str]:
    # Installed code runs from bytecode; PYTHONDONTWRITEBYTECODE would time the compiler instead.
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HOMEOSTAT_") and k != "PYTHONDONTWRITEBYTECODE"
    }


def parameters(kb: Path, checkout: Path) -> StdioServerParameters:
    exe = str(Path(sys.executable).with_name("homeostat"))
    return StdioServerParameters(
        command=exe, args=["mcp", "--kb", str(kb)], cwd=str(checkout), env=environment()
    )


async def startup(kb: Path, checkout: Path) -> float:
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(parameters(kb, checkout), errlog=errlog)) as client:
            await client.list_tools()
            return (time.perf_counter() - started) * 1000


async def per_call(
    kb: Path, checkout: Path, plan: list[tuple[str, dict[str, Any]]], runs: int
) -> dict[str, float]:
    took: dict[str, list[float]] = {name: [] for name, _ in plan}
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(parameters(kb, checkout), errlog=errlog)) as client:
            await client.list_tools()
            for name, args in plan:  # once each before timing: the server's first call of a kind
                result = await client.call_tool(name, args)
                assert not result.is_error, (name, result.content)
            for name, args in plan:
                for _ in range(max(1, runs // 3) if name in HEAVY else runs):
                    started = time.perf_counter()
                    result = await client.call_tool(name, args)
                    took[name].append((time.perf_counter() - started) * 1000)
                    assert not result.is_error, (name, result.content)
    return {name: statistics.median(values) for name, values in took.items()}


def import_mcp_ms() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.server"], check=True, env=environment())
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,20000")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    exe = str(Path(sys.executable).with_name("homeostat"))
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; medians, wall ms in the client")
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            kb, checkout = Path(scratch) / "kb", Path(scratch) / "payments"
            comps = write_kb(kb, size)
            checkout.mkdir()
            git(checkout, "init", "--quiet")
            git(checkout, "remote", "add", "origin", "https://github.com/acme/payments.git")
            touched = next(c.path for c in comps if c.area == "payments/api")
            rule_id = f"{comps[0].slug}-{gen.CONCERNS[0][0]}"
            command = [exe, "context", "--kb", str(kb), "--checkout", str(checkout), "--files", touched]
            subprocess.run(command, check=True, capture_output=True, env=environment())  # builds the index
            starts = [anyio.run(startup, kb, checkout) for _ in range(3)]
            imports = statistics.median(import_mcp_ms() for _ in range(3))
            times = anyio.run(per_call, kb, checkout, calls(rule_id, touched), args.runs)
            print(
                f"{size} rules: start-up {statistics.median(starts):.0f} ms "
                f"(python -c 'import mcp.server': {imports:.0f} ms)"
            )
            print("  per call: " + ", ".join(f"{name} {ms:.0f}" for name, ms in times.items()), flush=True)


if __name__ == "__main__":
    main()
