"""The daily run's cost: model calls and input tokens per drafted lesson, and wall time at scale.

    .venv/bin/python benchmarks/bench_daily.py [--pulls 200] [--members 20]

1. One merged PR with one review thread on a file that large documents cover (about 9,000 tokens of
   covering sections): how many model calls and input tokens the daily run spends on that lesson
   (target: at most 3 calls and under 4,000 input tokens; counted with cl100k at the model stub).
2. A daily run over `--pulls` merged PRs (one thread each) by `--members` members, against the GitHub
   emulator and the model stub (which answers at once, so model time is excluded): wall time.

Runs `homeostat daily` in-process against local servers on 127.0.0.1; prints numbers only.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from dailyworld import DailyWorld  # noqa: E402
from emulators.anthropic_stub import AnthropicStub  # noqa: E402
from emulators.github_server import GitHubEmulator, GitHubHarness  # noqa: E402
from hostkit import PullSpec, ThreadSpec  # noqa: E402

from homeostat.core.tokens import count_tokens  # noqa: E402


class Env:
    """monkeypatch's setenv, for running the world outside pytest."""

    def setenv(self, name: str, value: str) -> None:
        os.environ[name] = value


def world(folder: Path) -> tuple[DailyWorld, GitHubEmulator, AnthropicStub]:
    emulator = GitHubEmulator(folder / "github")
    emulator.start()
    stub = AnthropicStub().start()
    return DailyWorld(GitHubHarness(emulator), stub, folder, Env()), emulator, stub  # type: ignore[arg-type]


def big_document(area: str, sections: int = 6, words: int = 1500) -> str:
    filler = "handlers call the refund service and record every ledger entry with its currency code " * (
        words // 14
    )
    parts = [
        f"## Part {n} {{#part-{n}}}\n<!-- homeostat: source=bootstrap updated=2026-10-20 confidence=70 -->\n{filler}\n"
        for n in range(sections)
    ]
    return (
        f'---\ntitle: Refunds in depth\narea: {area}\nowner: payments\nscope: ["src/billing/api/**"]\n'
        f"updated: 2026-11-01\n---\n" + "\n".join(parts)
    )


def input_tokens(stub: AnthropicStub, since: int) -> tuple[int, int]:
    calls = stub.requests[since:]
    total = 0
    for request in calls:
        body: dict[str, Any] = request.json
        system = body.get("system", "")
        if isinstance(system, list):
            system = " ".join(str(part.get("text", "")) for part in system)
        messages = " ".join(str(m.get("content", "")) for m in body.get("messages", []))
        total += count_tokens(f"{system}\n{messages}")
    return len(calls), total


def per_lesson() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        w, emulator, stub = world(Path(scratch))
        try:
            doc = w.work / "knowledge/billing/api/docs/refunds.md"
            doc.write_text(big_document("billing/api"))
            os.system(f"cd {w.work} && git add -A && git commit -qm doc && git push -q origin HEAD:main")
            w.merged_pull(
                "billing",
                PullSpec(
                    author="bo",
                    title="Refunds",
                    files={"src/billing/api/refunds.py": "x\n"},
                    merged_at=w.hours_ago(2),
                    threads=(
                        ThreadSpec(
                            author="ana",
                            body="Close the ledger cursor in a finally block after reading refunds.",
                            path="src/billing/api/refunds.py",
                            followed_by_commit=True,
                        ),
                    ),
                ),
            )
            before = len(stub.requests)
            assert w.daily() == 0
            calls, tokens = input_tokens(stub, before)
            covering = sum(count_tokens(p) for p in doc.read_text().split("## ")[1:])
            print(
                f"per drafted lesson: {calls} model calls, {tokens} input tokens (covering sections: {covering} tokens)"
            )
        finally:
            stub.stop()
            emulator.stop()


def at_scale(pulls: int, members: int) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        w, emulator, stub = world(Path(scratch))
        try:
            handles = [f"dev{n:02d}" for n in range(members)]
            config = w.work / "homeostat.yaml"
            extra = "".join(f"    - {{handle: {h}, role: member, teams: [payments]}}\n" for h in handles)
            config.write_text(
                config.read_text().replace(
                    "  teams:\n    - name: payments", extra + "  teams:\n    - name: payments", 1
                )
            )
            os.system(f"cd {w.work} && git add -A && git commit -qm team && git push -q origin HEAD:main")
            for handle in handles:
                w.harness.add_member(handle, ("payments",))
            started = time.perf_counter()
            for n in range(pulls):
                author = handles[n % members]
                reviewer = handles[(n + 1) % members]
                w.merged_pull(
                    "billing",
                    PullSpec(
                        author=author,
                        title=f"Change {n}",
                        files={f"src/billing/api/mod_{n}.py": "x\n"},
                        merged_at=w.hours_ago(1 + n * 0.1),
                        threads=(
                            ThreadSpec(
                                author=reviewer,
                                body=f"Call validate_payload_{n}() before saving record {n}.",
                                path=f"src/billing/api/mod_{n}.py",
                                followed_by_commit=True,
                            ),
                        ),
                    ),
                )
            built = time.perf_counter() - started
            emulator_requests = len(w.harness.requests.entries)
            slept = [0.0]
            real_sleep = time.sleep

            def counted_sleep(seconds: float) -> None:  # PyGithub spaces writes 1 s apart, as GitHub asks
                slept[0] += seconds
                real_sleep(seconds)

            time.sleep = counted_sleep
            started = time.perf_counter()
            try:
                code = w.daily()
            finally:
                time.sleep = real_sleep
            wall = time.perf_counter() - started
            requests = len(w.harness.requests.entries) - emulator_requests
            print(
                f"daily over {pulls} merged PRs and {members} members: exit {code}, {wall:.1f} s wall, "
                f"{slept[0]:.1f} s of it waiting between host writes "
                f"({len(stub.requests)} model calls answered at once; {requests} host API requests; "
                f"building the PRs took {built:.1f} s, not counted)"
            )
        finally:
            stub.stop()
            emulator.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pulls", type=int, default=200)
    parser.add_argument("--members", type=int, default=20)
    args = parser.parse_args()
    per_lesson()
    at_scale(args.pulls, args.members)


if __name__ == "__main__":
    main()
