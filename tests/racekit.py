"""Races and crashes of `homeostat daily`, as real processes over the emulators and real git.

    world = fresh_world(folder, "github")      # its own emulator and model stub; `close()` stops them
    seed(world)                                # one lesson to merge for bo, two to review (bo, cy)
    runs = [spawn_daily(world) for _ in range(3)]
    outcome = end_state(world)                 # PRs, rules on main, records, branches, empty commits

`spawn_daily(world, kill_at="after-merge")` runs it under tests/killpoint.py, which SIGKILLs the
process at that step boundary. Used by tests/runs/daily/test_daily_races.py and benchmarks/bench_daily_races.py.
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dailyworld import DailyWorld
from emulators.anthropic_stub import AnthropicStub
from emulators.bitbucket_server import BitbucketEmulator, BitbucketHarness
from emulators.github_server import GitHubEmulator, GitHubHarness
from hostkit import PullSpec, ThreadSpec

ROOT = Path(__file__).resolve().parents[1]
KILLPOINT = Path(__file__).with_name("killpoint.py")
KILL_POINTS = (
    "after-claim",
    "after-journal",
    "after-push",
    "after-open",
    "after-merge",
    "after-daily",
    "after-review-push",
    "after-reviews",
    "before-state",
    "during-state",
)
BITBUCKET_KILL_POINTS = ("during-merge", "after-merge", "after-reviews")


class Env:
    """monkeypatch's setenv on os.environ, for worlds built outside a test's monkeypatch."""

    def setenv(self, name: str, value: str) -> None:
        os.environ[name] = value


@dataclass
class World:
    daily: DailyWorld
    close: Callable[[], None]


def fresh_world(folder: Path, host: str = "github", env: Any = None) -> World:
    """A KB repo and code repos on a new emulator of `host`, and a model stub, under `folder`.

    `env` is a test's monkeypatch (so the credentials it sets are undone after the test)."""
    folder.mkdir(parents=True, exist_ok=True)
    stub = AnthropicStub().start()
    if host == "bitbucket":
        bitbucket = BitbucketEmulator(folder / "bitbucket")
        bitbucket.serve()
        harness: Any = BitbucketHarness(bitbucket, bitbucket.root)
        stop: Callable[[], None] = bitbucket.shutdown
    else:
        github = GitHubEmulator(folder / "github")
        github.start()
        harness, stop = GitHubHarness(github), github.stop
    world = DailyWorld(harness, stub, folder, env or Env())

    def close() -> None:
        stop()
        stub.stop()

    return World(world, close)


def seed(world: DailyWorld) -> None:
    """A confident review lesson for bo (his daily PR), a middle-band one for bo and a pending one
    for cy (their review PRs)."""
    for title, author, body, path in (
        (
            "Refunds",
            "ana",
            "Raise RefundDeclined from billing.errors instead of returning None.",
            "refunds.py",
        ),
        ("Refund limits", "dee", "Check refund limits with RefundPolicy.allows before posting.", "limits.py"),
    ):
        world.merged_pull(
            "billing",
            PullSpec(
                author="bo",
                title=title,
                files={f"src/billing/api/{path}": "x = 1\n"},
                merged_at=world.hours_ago(3),
                threads=(ThreadSpec(author, body, f"src/billing/api/{path}", followed_by_commit=True),),
            ),
        )
    world.pending(
        "cy",
        title="Name custom hooks with a use prefix",
        rule="Name custom hooks in `web/components/` `useThing`.",
        why="Lint finds them.",
        area="storefront/ui",
    )


def daily_env(world: DailyWorld) -> dict[str, str]:
    world.env()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).strip(os.pathsep)
    return env


def spawn_daily(world: DailyWorld, kill_at: str = "") -> subprocess.Popen[str]:
    """`homeostat daily` on a fresh CI checkout, as its own process (killed at `kill_at`, if given)."""
    checkout = world.checkout()
    args = [str(KILLPOINT), kill_at] if kill_at else ["-m", "homeostat"]
    return subprocess.Popen(
        [sys.executable, *args, "daily", "--kb", str(checkout)],
        env=daily_env(world),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def concurrent_round(
    folder: Path, host: str, runs: int, env: Any = None
) -> tuple[EndState, list[int], list[str]]:
    """`runs` processes of `homeostat daily` started together over one seeded world."""
    world = fresh_world(folder, host, env)
    try:
        seed(world.daily)
        processes = [spawn_daily(world.daily) for _ in range(runs)]
        outputs = [process.communicate(timeout=600)[0] for process in processes]
        return end_state(world.daily), [p.returncode for p in processes], outputs
    finally:
        world.close()


def killed_then_rerun(folder: Path, host: str, point: str, env: Any = None) -> tuple[EndState, int, int]:
    """A run SIGKILLed at `point`, then one clean rerun; the end state and both exit codes."""
    world = fresh_world(folder, host, env)
    try:
        seed(world.daily)
        killed = spawn_daily(world.daily, kill_at=point)
        killed.communicate(timeout=600)
        rerun = world.daily.daily()
        return end_state(world.daily), killed.returncode, rerun
    finally:
        world.close()


@dataclass(frozen=True)
class EndState:
    pulls: tuple[tuple[str, str], ...]  # (head branch without its date, state), sorted
    main: dict[str, str]  # knowledge/ files on main
    records: tuple[tuple[str, str, str, str], ...]  # (title, outcome, state, PR branch without date)
    branches: tuple[str, ...]  # Homeostat's PR branches left on the KB repo
    empty_commits: int  # commits on main that change nothing
    claim_held: bool  # a claim not released
    journal: int = 0
    counts: Counter[str] = field(default_factory=Counter)


def _unported(text: str) -> str:
    """Each world's emulator listens on its own port, and review-thread URLs carry it."""
    return re.sub(r"http://127\.0\.0\.1:\d+", "http://emulator", text)


def _day_blind(text: str) -> str:
    """A run stamps rules with its UTC day, and the module's clean run may have run before midnight while
    the run compared with it runs after: these tests look for duplicates and losses, not for the day."""
    return re.sub(r"\b\d{4}-\d{2}-\d{2}\b", "<day>", text)


def _undated(branch: str) -> str:
    return re.sub(r"-\d{4}-\d{2}-\d{2}(-\d+)?$", "", branch)


def end_state(world: DailyWorld) -> EndState:
    bare = world.bare()
    state = world.state()
    records = tuple(
        sorted(
            (r.title, r.outcome, r.state, _undated(r.pr.branch) if r.pr else "")
            for r in state.records()
            if r.kind != "dispute"
        )
    )
    refs = bare.run("for-each-ref", "--format=%(refname:short)", "refs/heads/homeostat/").stdout.decode()
    branches = tuple(sorted(_undated(b) for b in refs.split() if not b.startswith("homeostat/state")))
    log = bare.run("log", "--format=%T %P", "main").stdout.decode().split("\n")
    trees = {}
    for line in bare.run("log", "--format=%H %T", "main").stdout.decode().splitlines():
        sha, tree = line.split()
        trees[sha] = tree
    empty = 0
    for line in (entry for entry in log if entry.strip()):
        tree, *parents = line.split()
        if parents and trees.get(parents[0]) == tree:
            empty += 1
    claim = state.claims.get("daily")
    main = {p: _day_blind(_unported(t)) for p, t in world.main_files().items() if p.startswith("knowledge/")}
    return EndState(
        pulls=_pulls(world),
        main=main,
        records=records,
        branches=branches,
        empty_commits=empty,
        claim_held=claim is not None and claim.released_at is None,
        journal=len(claim.journal) if claim else 0,
        counts=Counter(outcome for _, outcome, _, _ in records),
    )


def _pulls(world: DailyWorld) -> tuple[tuple[str, str], ...]:
    harness = world.harness
    found: list[tuple[str, str]] = []
    if world.host == "bitbucket":
        repo = harness.emulator.repo("example", "kb")
        with harness.emulator.lock:
            for pull in repo.pulls.values():
                state = {"OPEN": "open", "MERGED": "merged"}.get(pull.state, "closed")
                found.append((_undated(pull.source), state))
    else:
        for pull in world.pulls().values():
            state = "merged" if pull.merged_at else pull.state
            found.append((_undated(pull.head_ref), state))
    return tuple(sorted(found))


def _main_diff(main: dict[str, str], clean: dict[str, str]) -> str:
    """Which files differ and how (the clean run's lines first), to tell a real loss from noise."""
    out: list[str] = []
    for path in sorted(set(main) | set(clean)):
        if main.get(path) != clean.get(path):
            lines = difflib.unified_diff(
                clean.get(path, "").splitlines(), main.get(path, "").splitlines(), lineterm=""
            )
            out.append(f"{path}: " + " | ".join(list(lines)[2:12]))
    return "; ".join(out)


def problems(state: EndState, clean: EndState) -> list[str]:
    """How `state` differs from one clean run's: duplicates, lost records, orphans, empty commits."""
    found: list[str] = []
    if state.pulls != clean.pulls:
        found.append(f"PRs {state.pulls} != {clean.pulls}")
    if state.main != clean.main:
        found.append(f"rules on main differ from one clean run's: {_main_diff(state.main, clean.main)}")
    if state.records != clean.records:
        found.append(f"records {state.records} != {clean.records}")
    if state.branches != clean.branches:
        found.append(f"branches {state.branches} != {clean.branches}")
    if state.empty_commits:
        found.append(f"{state.empty_commits} empty commit(s) on main")
    if state.claim_held or state.journal:
        found.append("a claim was left held")
    return found
