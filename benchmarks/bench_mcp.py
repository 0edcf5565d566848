"""The MCP server's cost per call and at start-up, through a real `mcp` client over stdio.

    .venv/bin/python benchmarks/bench_mcp.py [--sizes 1000,20000] [--runs 10] [--starts 5] [--against REF]

For generated KBs of each size (bench_context's: two repos, topic files, committed in git like a KB
clone), `homeostat mcp` is started as an MCP client starts it, in a checkout on a feature branch
with three commits and an edit (bench_context's, as a session hook finds it); the index is built beforehand, as a
session's first `context` leaves it. Prints, per size: start-up (spawn to the answered tool list,
median of --starts, alternating between versions, with `python -c "import mcp.server.mcpserver"` in
the same run for scale: the SDK's server, which the server no longer imports, cost about that) and the wall milliseconds of each tool per
call (median of --runs; `explain` and `report`, which read the KB itself, of fewer), measured in the
client, so it includes the JSON-RPC round trip.

`--against REF` also serves the same KB with this repository's code at REF (e.g. `main`, or the
commit before a change), taken out with `git archive` and run by the same interpreter: both servers
are open at once and their calls alternate, so a noisy machine slows both alike and the ratio holds.
Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "fixtures"))

import make_eval150 as gen  # noqa: E402
from bench_context import feature_branch, payments_setup  # noqa: E402

HEAVY = ("explain", "report")
Call = tuple[str, dict[str, Any]]


class Code:
    """One version of the server's code: this checkout's installed one, or REF's source on PYTHONPATH."""

    def __init__(self, name: str, source: Path | None = None) -> None:
        self.name = name
        self.source = source

    def command(self, *args: str) -> list[str]:
        if self.source is None:
            return [str(Path(sys.executable).with_name("homeostat")), *args]
        return [sys.executable, "-m", "homeostat", *args]

    def environment(self) -> dict[str, str]:
        # Installed code runs from bytecode; PYTHONDONTWRITEBYTECODE would time the compiler instead.
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("HOMEOSTAT_") and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")
        }
        if self.source is not None:
            env["PYTHONPATH"] = str(self.source)  # ahead of the editable install's finder
        return env

    def parameters(self, kb: Path, checkout: Path) -> StdioServerParameters:
        command = self.command("mcp", "--kb", str(kb))
        return StdioServerParameters(
            command=command[0],
            args=command[1:],
            cwd=str(checkout),
            env=self.environment(),
        )


def checkout_ref(ref: str, into: Path) -> Code:
    """REF's `homeostat/` package, written under `into` and compiled once (as an install would be)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", ref, "homeostat"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(into / "homeostat")], check=True)
    code = Code(ref, into)
    found = subprocess.run(
        [sys.executable, "-c", "import homeostat; print(homeostat.__file__)"],
        env=code.environment(),
        cwd="/",  # not a folder holding another homeostat/
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert found.startswith(str(into)), f"{ref}'s code is not the one imported ({found})"
    return code


def calls(rule_id: str, touched: str) -> list[Call]:
    return [
        ("context", {"files": [touched]}),
        ("search", {"query": "retry timeout idempotency key"}),
        ("docs", {}),
        ("read", {"target": rule_id}),
        ("explain", {"id": rule_id}),
        ("report", {}),
    ]


async def startup(code: Code, kb: Path, checkout: Path) -> float:
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with Client(stdio_client(code.parameters(kb, checkout), errlog=errlog)) as client:
            await client.list_tools()
            return (time.perf_counter() - started) * 1000


async def timed(client: Client, name: str, args: dict[str, Any]) -> float:
    started = time.perf_counter()
    result = await client.call_tool(name, args)
    took = (time.perf_counter() - started) * 1000
    assert not result.is_error, (name, result.content)
    return took


async def per_call(
    codes: list[Code], kb: Path, checkout: Path, plan: list[Call], runs: int
) -> list[dict[str, float]]:
    """Every version's server open at once; each tool's calls alternate between them."""
    took: list[dict[str, list[float]]] = [{name: [] for name, _ in plan} for _ in codes]
    with open(os.devnull, "w") as errlog:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    Client(stdio_client(code.parameters(kb, checkout), errlog=errlog))
                )
                for code in codes
            ]
            for client in clients:
                await client.list_tools()
                for (
                    name,
                    args,
                ) in plan:  # once each before timing: the server's first call of a kind
                    await timed(client, name, args)
            for name, args in plan:
                for _ in range(max(1, runs // 3) if name in HEAVY else runs):
                    for client, times in zip(clients, took, strict=True):
                        times[name].append(await timed(client, name, args))
    return [{name: statistics.median(values) for name, values in times.items()} for times in took]


def import_sdk_ms() -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import mcp.server.mcpserver"],
        check=True,
        env=Code("").environment(),
    )
    return (time.perf_counter() - started) * 1000


def measure(codes: list[Code], size: int, runs: int, starts_per_code: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        kb, checkout, comps, touched = payments_setup(Path(scratch), size)
        feature_branch(checkout, touched)  # `context` and `explain` read the branch and its commits
        rule_id = f"{comps[0].slug}-{gen.CONCERNS[0][0]}"
        for code in codes:  # each version builds its own index, as its first session would
            command = code.command(
                "context",
                "--kb",
                str(kb),
                "--checkout",
                str(checkout),
                "--files",
                touched,
            )
            subprocess.run(command, cwd=checkout, check=True, capture_output=True, env=code.environment())
        starts: list[list[float]] = [[] for _ in codes]
        for _ in range(starts_per_code):
            for code, times in zip(codes, starts, strict=True):
                times.append(anyio.run(startup, code, kb, checkout))
        sdk = statistics.median(import_sdk_ms() for _ in range(3))
        results = anyio.run(per_call, codes, kb, checkout, calls(rule_id, touched), runs)
        print(f"{size} rules (python -c 'import mcp.server.mcpserver': {sdk:.0f} ms)")
        for code, start, times in zip(codes, starts, results, strict=True):
            each = ", ".join(f"{name} {ms:.0f}" for name, ms in times.items())
            print(
                f"  {code.name:>12}: start-up {statistics.median(start):.0f} ms; per call: {each}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,20000")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--starts", type=int, default=5, help="start-ups timed per version")
    parser.add_argument("--against", metavar="REF", help="also time this repository's code at REF")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; medians, wall ms in the client")
    with tempfile.TemporaryDirectory() as scratch:
        codes = [Code("this checkout")]
        if args.against:
            codes.insert(0, checkout_ref(args.against, Path(scratch)))
        for size in (int(s) for s in args.sizes.split(",")):
            measure(codes, size, args.runs, args.starts)


if __name__ == "__main__":
    main()
