"""The daily run's cost: model calls and input tokens per drafted lesson, and wall time at scale.

    .venv/bin/python benchmarks/bench_daily.py [--pulls 200] [--members 20] [--rules 0]
    .venv/bin/python benchmarks/bench_daily.py --sizes      # issue 18's grid (takes minutes)
    .venv/bin/python benchmarks/bench_daily.py --pulls 10 --members 5 --rules 2000 --profile daily.prof

1. One merged PR with one review thread on a file that large documents cover (about 9,000 tokens of
   covering sections): how many model calls and input tokens the daily run spends on that lesson
   (target: at most 3 calls and under 4,000 input tokens; counted with cl100k at the model stub).
2. A daily run over `--pulls` merged PRs (one thread each) by `--members` members, against the GitHub
   emulator and the model stub (which answers at once, so model time is excluded): wall time, and
   the run's own time (wall less the 1 s PyGithub waits between host writes), with its CPU (this
   process's and git's), its git commands and their wall time, and how long the run's thread waited
   for a free core (on a shared machine, most of what own time holds beyond CPU); the first imports
   are timed apart (a process pays them once, whatever the KB). `--rules N` first
   grows the example KB to N rules (half in the billing repo's topic files, where the lessons land,
   half one file per rule; one document per 50 rules) and opens one review PR per 1,000 rules, as
   a KB that size has waiting.
3. Repeat lessons: with `--reteach K`, every K-th PR's thread re-teaches a rule the example KB already
   has (the consolidator answers "duplicate"), and every other member shares usage, half of them
   served that rule: the run's repeat-lesson count, split by served, never served and unknown, is
   printed (it is printed, 0, without the flag too).
4. `--sizes`: 10 PRs x 5 members at 2,000, 5,000 and 10,000 rules, then 40 PRs x 20 members at
   10,000 (target: the run's own time under 30 s at 10,000 rules, growing no faster than the KB).

Runs `homeostat daily` in-process against local servers on 127.0.0.1; prints numbers only.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_validate import sentence  # noqa: E402
from dailyworld import DailyWorld  # noqa: E402
from emulators.anthropic_stub import AnthropicStub  # noqa: E402
from emulators.github_server import GitHubEmulator, GitHubHarness  # noqa: E402
from hostkit import PullSpec, ThreadSpec  # noqa: E402

from homeostat.adapters.git.plumbing import Git  # noqa: E402
from homeostat.core.cost.tiktoken_count import count_tokens  # noqa: E402


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


TOPIC_AREAS = [
    ("billing/api", "errors"),
    ("billing/api", "money"),
    ("billing/db", "errors"),
    ("billing/db", "money"),
]
FILE_AREAS = ["storefront/ui", "core"]


def _meta(rule_id: str, area: str, n: int) -> str:
    scope = "**/*.py" if area == "core" else f"src/{area}/**"
    return (
        f'scope: ["{scope}"]\nstatus: accepted\nkind: convention\napprovedBy: [ana]\n'
        f"source:\n  type: pr-feedback\n  url: https://github.com/example/billing/pull/{n}#discussion_r{n}\n"
        f"  author: ana\n  changedCode: true\ncreated: 2026-09-01\nlastConfirmed: 2026-11-01\n"
    )


def grow_kb(work: Path, rules: int) -> dict[str, str]:
    """Add `rules` generated rules and one document per 50 to the example KB in `work`; id to path."""
    rng = random.Random(20261201)
    topics: dict[tuple[str, str], list[str]] = {}
    ids: dict[str, str] = {}
    for n in range(rules):
        body = f"### Rule\n{sentence(rng, 30)}.\n\n### Why\n{sentence(rng, 40)}.\n"
        if n % 2 == 0:
            area, topic = TOPIC_AREAS[(n // 2) % len(TOPIC_AREAS)]
            rule_id = f"{area.replace('/', '-')}-{topic}-gen-{n:05d}"
            section = f"## {sentence(rng, 6)} {n} {{#{rule_id}}}\n<!-- homeostat\n{_meta(rule_id, area, n)}-->\n{body}"
            topics.setdefault((area, topic), []).append(section)
            ids[rule_id] = f"knowledge/{area}/{topic}.md"
        else:
            area = FILE_AREAS[(n // 2) % len(FILE_AREAS)]
            rule_id = f"{area.replace('/', '-')}-gen-{n:05d}"
            folder = work / "knowledge" / area
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{rule_id}.md").write_text(
                f"---\nid: {rule_id}\ntitle: {sentence(rng, 6)} {n}\narea: {area}\n{_meta(rule_id, area, n)}---\n"
                + body.replace("### ", "## ")
            )
            ids[rule_id] = f"knowledge/{area}/{rule_id}.md"
    for (area, topic), sections in topics.items():
        path = work / "knowledge" / area / f"{topic}.md"
        current = path.read_text() if path.exists() else f"---\narea: {area}\ntopic: {topic}\n---\n"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(current.rstrip("\n") + "\n\n" + "\n".join(sections))
    order = list(ids)
    for n in range(rules // 50):
        area = ("billing/api", "storefront/ui")[n % 2]
        cited = order[(n * 37) % len(order)]
        parts = "\n".join(
            f"## {sentence(rng, 4)} {k} {{#part-{k}}}\n"
            f"<!-- homeostat: source=curator url=https://github.com/example/billing/pull/{n}#discussion_r{n}{k} "
            f"updated=2026-11-02 -->\n{sentence(rng, 120)} (see rule ({cited})).\n"
            for k in range(6)
        )
        folder = work / "knowledge" / area / "docs"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"gen-{n:04d}.md").write_text(
            f'---\ntitle: Document {n}\narea: {area}\nowner: payments\nscope: ["src/**"]\n'
            f"updated: 2026-11-01\n---\n{parts}"
        )
    return ids


def open_review_branches(w: DailyWorld, ids: dict[str, str], count: int, members: list[str]) -> None:
    """`count` review branches from an earlier run, each changing three rules, no PR yet recorded."""
    rng = random.Random(7)
    bare = w.bare()
    main = bare.rev_parse("refs/heads/main")
    assert main is not None
    files = w.main_files()
    for n in range(count):
        changed: dict[str, bytes] = {}
        for rule_id in rng.sample(sorted(ids), 3):
            path = ids[rule_id]
            text = changed.get(path, files[path].encode()).decode()
            marker = "### Rule\n" if f"{{#{rule_id}}}" in text else "## Rule\n"
            at = text.index(marker, text.index(rule_id)) + len(marker)
            changed[path] = (text[:at] + f"Always {sentence(rng, 8).lower()}. " + text[at:]).encode()
        sha = bare.commit_files(main, changed, f"review {n}")
        bare.run("update-ref", f"refs/heads/homeostat/review-{members[n % len(members)]}-2026-11-30-{n}", sha)


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


RETAUGHT = "billing-api-error-status-table"
RETEACH = "Map domain errors with STATUS_BY_ERROR; never pick a status in handler {n}."


def share_usage(w: DailyWorld, handles: list[str]) -> None:
    """Every other member shares usage; of those, every second one was served the re-taught rule."""
    from homeostat.core.state.branch import Heartbeat, dump_state

    bare = w.bare()
    for n, handle in enumerate(handles):
        if n % 2:
            continue
        served = (RETAUGHT,) if n % 4 == 0 else ("log-with-fields",)
        beat = Heartbeat(
            member=handle, at=w.now, homeostat_version="0.2.0", pending=0, usage={}, served=served
        )
        base = bare.rev_parse("refs/heads/main")
        sha = bare.commit_files(base, {".homeostat/heartbeat.json": dump_state(beat)}, "heartbeat")
        bare.run("update-ref", f"refs/heads/candidates/{handle}", sha)


def repeat_counts(w: DailyWorld) -> str:
    state = w.state()
    repeats = state.repeat_records()
    reviewed = sum(1 for r in state.records() if r.kind == "review-thread")
    split = Counter({True: "served", False: "never served", None: "unknown"}[r.served] for r in repeats)
    rules = Counter(r.rule_id for r in repeats)
    return (
        f"repeat lessons: {len(repeats)} of {reviewed} review lessons re-taught a rule in force "
        f"({split['served']} served, {split['never served']} never served, {split['unknown']} unknown); "
        f"rules: {', '.join(f'{rule} {n}x' for rule, n in rules.most_common()) or 'none'}"
    )


def at_scale(pulls: int, members: int, rules: int = 0, profile: str = "", reteach: int = 0) -> float:
    """One daily run; its own time (wall less the waits between host writes), in seconds."""
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
            if rules:
                ids = grow_kb(w.work, rules)
                fix = [str(Path(sys.executable).parent / "homeostat"), "validate", str(w.work), "--fix"]
                subprocess.run(fix, capture_output=True, check=False)  # cached score and tokens
                shutil.rmtree(w.work / ".homeostat", ignore_errors=True)
            os.system(f"cd {w.work} && git add -A && git commit -qm team && git push -q origin HEAD:main")
            if rules:
                open_review_branches(w, ids, max(1, rules // 1000), handles)
            for handle in handles:
                w.harness.add_member(handle, ("payments",))
            if reteach:
                share_usage(w, handles)
                w.script.duplicates["never pick a status in handler"] = RETAUGHT
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
                                body=RETEACH.format(n=n)
                                if reteach and n % reteach == 0
                                else f"Call validate_payload_{n}() before saving record {n}.",
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
            imported = warm_imports()
            calls = GitCalls()
            started, cpu_started, queued = time.perf_counter(), cpu_seconds(), run_queue_seconds()
            profiler = cProfile.Profile() if profile else None
            try:
                if profiler is not None:
                    profiler.enable()
                with calls:
                    code = w.daily()
            finally:
                if profiler is not None:
                    profiler.disable()
                    profiler.dump_stats(profile)
                time.sleep = real_sleep
            wall, (cpu, children) = time.perf_counter() - started, cpu_since(cpu_started)
            queued = run_queue_seconds() - queued
            requests = len(w.harness.requests.entries) - emulator_requests
            kb = f" at {rules} generated rules (+ the example KB)" if rules else ""
            print(
                f"daily over {pulls} merged PRs and {members} members{kb}: exit {code}, {wall:.1f} s wall, "
                f"{slept[0]:.1f} s of it waiting between host writes, own time {wall - slept[0]:.1f} s "
                f"(CPU {cpu + children:.1f} s: {cpu:.1f} s this process with the emulators' threads, "
                f"{children:.1f} s git's; {calls.count} git commands taking {calls.seconds:.1f} s of the wall; "
                f"the run's thread waited {queued:.1f} s for a free core; "
                f"{len(stub.requests)} model calls answered at once; {requests} host API requests; "
                f"not counted: building the PRs {built:.1f} s, first imports {imported:.1f} s)"
            )
            if calls.count:
                print("  git commands:", ", ".join(f"{name} {n}" for name, n in calls.by_name.most_common()))
            print(" ", repeat_counts(w))
            return wall - slept[0]
        finally:
            stub.stop()
            emulator.stop()


def cpu_seconds() -> tuple[float, float]:
    """This process's CPU (the run, and the emulators' threads) and its finished children's (git):
    on a shared machine, what other work skews least."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def cpu_since(start: tuple[float, float]) -> tuple[float, float]:
    now = cpu_seconds()
    return now[0] - start[0], now[1] - start[1]


def run_queue_seconds() -> float:
    """How long this thread has waited for a core (Linux schedstat; 0 elsewhere): on a shared
    machine, the part of the wall time that is other people's work."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def warm_imports() -> float:
    """Import what a daily run imports before timing it: a process pays that once (seconds on a
    cold, contended disk), whatever the KB, so it is shown apart from the run's own time."""
    started = time.perf_counter()
    import homeostat.adapters.models.askers  # noqa: F401
    import homeostat.commands.ci.daily  # noqa: F401
    import homeostat.runs.curate  # noqa: F401

    return time.perf_counter() - started


class GitCalls:
    """Counts the run's git commands (through homeostat.adapters.git.plumbing.Git.run) and their wall time."""

    def __init__(self) -> None:
        self.by_name: Counter[str] = Counter()
        self.seconds = 0.0
        self._real = Git.run

    @property
    def count(self) -> int:
        return sum(self.by_name.values())

    def __enter__(self) -> GitCalls:
        real, calls = self._real, self

        def run(git: Git, *args: str, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return real(git, *args, **kwargs)
            finally:
                calls.by_name[args[0] if args else "?"] += 1
                calls.seconds += time.perf_counter() - started

        Git.run = run  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Git.run = self._real  # type: ignore[method-assign]


def sizes() -> None:
    """Issue 18's grid; the ratios of own time to KB size say whether growth is linear."""
    rows = [(10, 5, 0), (10, 5, 2000), (10, 5, 5000), (10, 5, 10000), (40, 20, 10000)]
    own = [(pulls, members, rules, at_scale(pulls, members, rules)) for pulls, members, rules in rows]
    print("\nPRs x members   rules   own time   ms per 1,000 rules (over the example KB's run)")
    small = own[0][3]
    for pulls, members, rules, seconds in own:
        per = f"{(seconds - small) * 1e6 / rules:.0f}" if rules and pulls == 10 else "-"
        print(f"{pulls:>3} x {members:<9} {rules:>7}   {seconds:6.1f} s   {per}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pulls", type=int, default=200)
    parser.add_argument("--members", type=int, default=20)
    parser.add_argument("--rules", type=int, default=0, help="grow the example KB to this many more rules")
    parser.add_argument("--sizes", action="store_true", help="issue 18's grid of PRs, members and KB sizes")
    parser.add_argument(
        "--reteach", type=int, default=0, metavar="K", help="every K-th PR re-teaches a rule the KB has"
    )
    parser.add_argument("--profile", default="", help="write the daily run's cProfile stats to this file")
    args = parser.parse_args()
    if args.sizes:
        sizes()
        return
    if not args.profile:
        per_lesson()
    at_scale(args.pulls, args.members, args.rules, args.profile, args.reteach)


if __name__ == "__main__":
    main()
