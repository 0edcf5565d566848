"""What the Claude Code plugin adds to a session, in the real Claude Code (tests/claudekit.py).

    .venv/bin/python benchmarks/bench_plugin.py [--runs 5] [--starts 10] [--against REF]

`claude -p hello --output-format json` against the Anthropic stub in a storefront checkout of the
example KB, without the plugin and with it (`--plugin-dir plugin`; Homeostat found through
HOMEOSTAT_BIN, the KB through HOMEOSTAT_DIR), runs alternating, after one warm-up run of each; prints
the medians of --runs and their difference, the plugin's cost per session (issue 28's target: under
0.5 s warm). Claude Code waits for the plugin's MCP server before the first turn and runs the
SessionStart and UserPromptSubmit hooks, so the difference is mostly those three processes.

Then the MCP server alone, as .mcp.json starts it (the launcher, the checkout, the KB in
CLAUDE_PLUGIN_OPTION_KB_DIR): spawn to the `initialize` reply and to the `tools/list` reply, warm,
median of --starts (target: `initialize` under 300 ms).

Homeostat runs as an installed package does (bench_hooks' interpreter: this one's packages without
the editable install's import finder, the source on PYTHONPATH). `--against REF` also times this
repository's plugin and package at REF (e.g. the commit before a change), taken out with `git
archive`, alternating with this checkout's. Nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

from bench_hooks import plain_python  # noqa: E402
from claudekit import ClaudeCode, EgressSink, Script, npm_tools  # noqa: E402
from emulators.anthropic_stub import AnthropicStub  # noqa: E402

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "b", "version": "1"},
    },
}


class Version:
    """A plugin and the Homeostat it runs: this checkout's, or REF's source under a folder."""

    def __init__(self, name: str, plugin: Path, program: Path) -> None:
        self.name = name
        self.plugin = plugin
        self.program = program


def installed(name: str, source: Path, python: str, scratch: Path) -> Version:
    """The plugin and package under `source`, Homeostat run as an installed package runs."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(source / "homeostat")], check=True)
    program = scratch / f"run-homeostat-{len(list(scratch.glob('run-homeostat-*')))}"
    program.write_text(
        f'#!/bin/sh\nPYTHONPATH="{source}" exec "{python}" -c '
        "'from homeostat.cli import main_entry; main_entry()' \"$@\"\n"
    )
    program.chmod(0o755)
    return Version(name, source / "plugin", program)


def version_at(ref: str, into: Path, python: str) -> Version:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", ref, "homeostat", "plugin", ".claude-plugin"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return installed(ref, into, python, into.parent)


def setup(scratch: Path) -> tuple[Path, Path]:
    kb = scratch / "kb"
    shutil.copytree(REPO / "examples" / "kb", kb, ignore=shutil.ignore_patterns(".homeostat"))
    shop = scratch / "shop"
    (shop / "web").mkdir(parents=True)
    (shop / "web" / "Card.tsx").write_text("export const Card = () => null;\n")
    for args in (
        ["init", "-q"],
        ["remote", "add", "origin", "git@github.com:example/storefront.git"],
        ["-c", "user.name=Cy Moreau", "-c", "user.email=cy@example.com", "add", "-A"],
        ["-c", "user.name=Cy Moreau", "-c", "user.email=cy@example.com", "commit", "-qm", "start"],
    ):
        subprocess.run(["git", *args], cwd=shop, check=True, capture_output=True)
    return kb, shop


def session_seconds(claude: ClaudeCode, shop: Path, kb: Path, version: Version | None) -> float:
    args = ["-p", "hello", "--output-format", "json"]
    env = {}
    if version is not None:
        args += ["--plugin-dir", str(version.plugin)]
        env = {"HOMEOSTAT_BIN": str(version.program), "HOMEOSTAT_DIR": str(kb)}
    started = time.perf_counter()
    done = claude.run(*args, cwd=shop, env=env)
    took = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    return took


def mcp_start(shop: Path, kb: Path, version: Version) -> tuple[float, float]:
    """Milliseconds from spawn to the initialize reply and to the tools/list reply."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": os.environ.get("HOME", "/tmp"),
        "CLAUDE_PLUGIN_OPTION_KB_DIR": str(kb),
        "CLAUDE_PLUGIN_DATA": str(shop.parent / "plugin-data"),
        "HOMEOSTAT_BIN": str(version.program),
    }
    started = time.perf_counter()
    server = subprocess.Popen(
        [str(version.plugin / "bin" / "homeostat"), "mcp", "--checkout", str(shop)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        cwd=shop,
    )
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    server.stdin.flush()
    assert b'"result"' in server.stdout.readline()
    initialized = time.perf_counter()
    server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\n')
    server.stdin.flush()
    assert b'"tools"' in server.stdout.readline()
    listed = time.perf_counter()
    server.stdin.close()
    server.wait()
    return (initialized - started) * 1000, (listed - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="claude -p runs per arm")
    parser.add_argument("--starts", type=int, default=10, help="MCP server starts per version")
    parser.add_argument("--against", metavar="REF", help="also time the plugin and package at REF")
    args = parser.parse_args()
    tools = npm_tools()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        kb, shop = setup(scratch)
        python = plain_python(scratch)
        versions = [installed("this checkout", REPO, python, scratch)]
        if args.against:
            versions.insert(0, version_at(args.against, scratch / "ref", python))
        stub = AnthropicStub().start().converse(Script([], done="Hello."))
        sink = EgressSink().start()
        (scratch / "home").mkdir()
        claude = ClaudeCode(tools, scratch / "home", stub, sink)
        arms: list[Version | None] = [None, *versions]
        times: list[list[float]] = [[] for _ in arms]
        try:
            for arm in arms:  # warm: Claude Code's first start, the corpus index, the settings cache
                session_seconds(claude, shop, kb, arm)
            for _ in range(args.runs):
                for arm, took in zip(arms, times, strict=True):
                    took.append(session_seconds(claude, shop, kb, arm))
        finally:
            stub.stop()
            sink.stop()
        print(
            f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; claude -p hello, median of {args.runs}"
        )
        base = statistics.median(times[0])
        print(f"  without the plugin: {base:.2f} s")
        for version, took in zip(versions, times[1:], strict=True):
            median = statistics.median(took)
            print(f"  with the plugin ({version.name}): {median:.2f} s, +{median - base:.2f} s per session")
        print(f"MCP server start-up through the launcher, warm, median of {args.starts}")
        for version in versions:
            mcp_start(shop, kb, version)  # warm
        starts: list[list[tuple[float, float]]] = [[] for _ in versions]
        for _ in range(args.starts):
            for version, done in zip(versions, starts, strict=True):
                done.append(mcp_start(shop, kb, version))
        for version, done in zip(versions, starts, strict=True):
            initialize = statistics.median(ms for ms, _ in done)
            listed = statistics.median(ms for _, ms in done)
            print(f"  {version.name:>14}: initialize {initialize:.0f} ms, tools/list {listed:.0f} ms")


if __name__ == "__main__":
    main()
