"""A year of state: what a 10-PR daily run costs when `homeostat/state` holds a year of decisions.

    .venv/bin/python benchmarks/bench_state_year.py [--records 180000] [--members 1000] [--commits 50000]
                                                    [--pulls 10] [--runs 2] [--profile FOLDER]
                                                    [--trace FRAMES] [--fresh]

The state branch is generated in the layout before the archive (every record in
`decisions/<member>.json`), as a team of `--members` left it after a year at ~500 lessons a day:
`--records` decision records (~0.9 KB each; those of the last ten days one in five still in review),
a heartbeat per member, a daily run report per day and a deep-dive one per week, on a history of
`--commits` commits (claims, journals and records; the decision files are written whole by the last
one, so the history is light to build; a run reads the tip, and a CI clone of the branch is a local
fetch here). Then `--runs` daily runs over `--pulls` merged PRs (one review thread each), as
bench_daily.py runs them: in-process against the GitHub emulator and the model stub (answering at
once), each in a process of its own. For each: the run's own time (wall less the 1 s waits between host
writes; imports not counted), its CPU and git's, the peak RSS of its process, and the state branch's
files and bytes after it. The first run
of this version migrates the branch (its claim archives what aged out); the second is the steady
state. `--fresh` seeds nothing: the same runs on a KB with no state branch yet, the cost a year adds
is the difference. Run it on an older checkout (PYTHONPATH=<its root>) for the numbers before.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "benchmarks")]

from bench_daily import world  # noqa: E402
from hostkit import PullSpec, ThreadSpec  # noqa: E402
from pydantic_core import to_json  # noqa: E402

from homeostat.adapters.git.plumbing import Git  # noqa: E402

STATE_REF = "refs/heads/homeostat/state"

# The run, in a process of its own so its peak memory is its own: imports first (a process pays them
# once, whatever the state), then `homeostat daily` timed, its sleeps (PyGithub-style spacing of host
# writes) counted apart.
CHILD = """
import json, resource, sys, time
sys.path[:0] = [sys.argv[3], sys.argv[4]]
import homeostat.adapters.models.askers, homeostat.commands.ci.daily, homeostat.runs.curate
from bench_daily import GitCalls
from homeostat.cli import main
def peak_mb():  # VmHWM: this process's own peak (ru_maxrss keeps the parent's from before exec)
    line = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024
imported = peak_mb()
slept = [0.0]
real = time.sleep
def counted(seconds):
    slept[0] += seconds
    real(seconds)
time.sleep = counted
own0, kids0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
started = time.perf_counter()
profile = None
if sys.argv[5]:  # --profile: cProfile of the run (its imports not included)
    import cProfile
    profile = cProfile.Profile()
    profile.enable()
traced = None
if sys.argv[6]:  # --trace: Python's own allocations (tracemalloc), the largest sites at their peak
    import threading, tracemalloc
    tracemalloc.start(int(sys.argv[6]))
    traced = {"peak": 0, "snapshot": None, "done": threading.Event()}
    def sample():
        while not traced["done"].wait(0.05):
            current = tracemalloc.get_traced_memory()[0]
            if current > traced["peak"] * 1.02:
                traced["peak"], traced["snapshot"] = current, tracemalloc.take_snapshot()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
with GitCalls() as calls:
    code = main(["daily", "--kb", sys.argv[1]])
if traced is not None:
    traced["done"].set()
    sampler.join()
    top = traced["snapshot"].statistics("traceback")[:8] if traced["snapshot"] else []
    traced = {
        "peak_mb": tracemalloc.get_traced_memory()[1] / 1e6,
        "sampled_mb": traced["peak"] / 1e6,
        "top": ["%.1f MB %s" % (s.size / 1e6, " <- ".join(
            f"{'/'.join(f.filename.split('/')[-2:])}:{f.lineno}" for f in s.traceback
        )) for s in top],
    }
    tracemalloc.stop()
if profile is not None:
    profile.disable()
    profile.dump_stats(sys.argv[5])
wall = time.perf_counter() - started
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
json.dump({
    "code": code, "wall": wall, "slept": slept[0],
    "cpu": own.ru_utime + own.ru_stime - own0.ru_utime - own0.ru_stime,
    "git_cpu": kids.ru_utime + kids.ru_stime - kids0.ru_utime - kids0.ru_stime,
    "git": ", ".join(f"{name} {n}" for name, n in calls.by_name.most_common(6)) + f" ({calls.seconds:.1f} s)",
    "rss_mb": peak_mb(), "rss_imported_mb": imported, "traced": traced,
}, open(sys.argv[2], "w"))
"""


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def canonical(data: object) -> bytes:
    def ordered(value: object) -> object:
        if isinstance(value, dict):
            return {key: ordered(value[key]) for key in sorted(value)}
        if isinstance(value, list):
            return [ordered(item) for item in value]
        return value

    return to_json(ordered(data), indent=2) + b"\n"


REVIEW_PR = 1  # the open review PR every record still in review waits in (made in the KB repo)


def record(member: str, n: int, at: datetime, in_review: bool) -> dict[str, object]:
    number = REVIEW_PR if in_review else 1000 + n
    return {
        "area": "billing/api",
        "at": stamp(at),
        "breakdown": {"base": 50, "role": 6, "specific": 5, "vague title": -2},
        "confidence": 55 + n % 40,
        "hash": f"{abs(hash((member, n))) % 16**16:016x}",
        "kind": "review-thread" if n % 3 else "new",
        "member": member,
        "outcome": "review" if in_review else ("merged" if n % 4 else "declined"),
        "pr": {
            "branch": f"homeostat/daily-{member}-{at.date().isoformat()}",
            "number": number,
            "url": f"https://github.com/example/kb/pull/{number}",
        },
        "reason": "middle band: a person reviews it" if in_review else "at or above accept (70)",
        "reviewOpenedAt": stamp(at) if in_review else None,
        "ruleId": f"billing-api-errors-{member}-{n}",
        "settledAt": None if in_review else stamp(at),
        "source": {
            "type": "pr-feedback",
            "url": f"https://github.com/example/billing/pull/{n}#discussion_r{n}{member[-3:]}",
        },
        "state": "in-review" if in_review else "settled",
        "title": f"Rule {n} for {member}: prefer explicit timeouts on outbound HTTP calls",
    }


def run_report(day: datetime, kind: str) -> bytes:
    return canonical(
        {
            "cost": {"estimated": True, "usd": 3.5},
            "decided": {"merged": 300, "review": 150, "declined": 50},
            "durationSeconds": 900.0,
            "finishedAt": stamp(day + timedelta(minutes=15)),
            "health": {"rules.accepted": 5000, "documents": 40},
            "kind": kind,
            "notices": [],
            "runId": f"{day:%Y%m%dT%H%M%S}-{kind[:6]}",
            "startedAt": stamp(day),
            "version": 1,
        }
    )


def year_of_state(members: int, records: int, now: datetime) -> dict[str, bytes]:
    """The tip's files: every member's decisions over the last 365 days, heartbeats, run reports."""
    rng = random.Random(365)
    handles = [f"member{n:04d}" for n in range(members)]
    per_member: dict[str, list[dict[str, object]]] = {handle: [] for handle in handles}
    for n in range(records):
        member = handles[n % members]
        at = now - timedelta(days=2) - timedelta(seconds=rng.uniform(0, 363 * 86400))
        recent = now - at < timedelta(days=10)
        per_member[member].append(record(member, n, at, in_review=recent and n % 5 == 0))
    files: dict[str, bytes] = {}
    for member, mine in per_member.items():
        mine.sort(key=lambda r: (str(r["at"]), str(r["hash"])))
        files[f"decisions/{member}.json"] = canonical({"member": member, "records": mine, "version": 1})
        files[f"heartbeats/{member}.json"] = canonical(
            {
                "at": stamp(now - timedelta(hours=rng.uniform(1, 40))),
                "behind": 0,
                "homeostatVersion": "0.2.0",
                "member": member,
                "pending": 0,
                "version": 1,
            }
        )
    for day in range(1, 366):
        start = (now - timedelta(days=day)).replace(hour=6, minute=0, second=0, microsecond=0)
        files[f"runs/{start.date().isoformat()}.json"] = run_report(start, "daily")
        if day % 7 == 0:
            files[f"runs/{start.date().isoformat()}-2.json"] = run_report(
                start + timedelta(hours=1), "deep-dive"
            )
    return files


def claim(now: datetime, n: int) -> bytes:
    at = now - timedelta(days=366) + timedelta(seconds=n * 600)
    return canonical(
        {
            "baseTip": "",
            "claimedAt": stamp(at),
            "expiresAt": stamp(at + timedelta(hours=1)),
            "journal": [],
            "kind": "daily",
            "owner": {"host": "runner", "machine": "", "pid": 1, "processStart": 0},
            "releasedAt": stamp(at + timedelta(minutes=20)),
            "runId": f"run-{n:06d}",
            "version": 1,
        }
    )


def seed_state(bare: Path, files: dict[str, bytes], commits: int, now: datetime) -> None:
    """`commits` commits on the state branch through one git fast-import: claim writes, then the tip."""
    process = subprocess.Popen(
        ["git", "--git-dir", str(bare), "fast-import", "--quiet", "--force"], stdin=subprocess.PIPE
    )
    assert process.stdin is not None
    out = process.stdin
    when = int((now - timedelta(days=366)).timestamp())
    for n in range(1, commits + 1):
        last = n == commits
        message = b"homeostat daily record [skip ci]\n" if last else b"homeostat: claim [skip ci]\n"
        out.write(f"commit {STATE_REF}\nmark :{n}\n".encode())
        who = f"homeostat <bot@example.invalid> {when + n * 600} +0000\n".encode()
        out.write(b"author " + who + b"committer " + who + f"data {len(message)}\n".encode() + message)
        if n > 1:
            out.write(f"from :{n - 1}\n".encode())
        changed = dict(files) if last else {"claims/daily.json": claim(now, n)}
        if last:
            changed["claims/daily.json"] = claim(now, n)
        for path, data in changed.items():
            out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        out.write(b"\n")
    out.close()
    if process.wait() != 0:
        raise SystemExit("git fast-import failed")


def state_size(bare: Path) -> str:
    repo = Git(bare)
    if repo.run("rev-parse", "--verify", "--quiet", STATE_REF, check=False).returncode != 0:
        return "no state branch"
    listing = repo.run("ls-tree", "-r", "-l", STATE_REF).stdout.decode().splitlines()
    live = sum(int(line.split()[3]) for line in listing if not line.split("\t")[1].startswith("archive/"))
    archived = sum(int(line.split()[3]) for line in listing if line.split("\t")[1].startswith("archive/"))
    count = repo.run("rev-list", "--count", STATE_REF).stdout.decode().strip()
    return (
        f"{len(listing)} files, {live / 1e6:.1f} MB outside archive/, {archived / 1e6:.1f} MB in it, "
        f"{count} commits"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=180_000)
    parser.add_argument("--members", type=int, default=1000)
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--pulls", type=int, default=10)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="no state branch before the first run")
    parser.add_argument("--profile", metavar="FOLDER", help="write each run's cProfile stats there")
    parser.add_argument(
        "--trace",
        type=int,
        metavar="FRAMES",
        help="trace the last run's Python allocations (tracemalloc, FRAMES deep): peak, largest sites",
    )
    args = parser.parse_args()
    import homeostat

    print(f"homeostat from {Path(homeostat.__file__).parent}")
    with tempfile.TemporaryDirectory(prefix="bench-year-") as scratch:
        w, emulator, stub = world(Path(scratch))
        try:
            handles = [f"dev{n:02d}" for n in range(5)]
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
            w.harness.push_commit(w.kb_repo, "homeostat/review-team-waiting", {"WAITING.md": "x\n"})
            with emulator.lock:
                record_ = emulator.repo("example", "kb")
                pull = emulator.new_pull(
                    record_,
                    "homeostat/review-team-waiting",
                    "main",
                    "Review: waiting",
                    "",
                    "homeostat-bot",
                    datetime.now(UTC),
                )
                assert pull.number == REVIEW_PR
            now = datetime.now(UTC)
            started = time.perf_counter()
            if not args.fresh:
                files = year_of_state(args.members, args.records, now)
                seed_state(w.harness.bare_path(w.kb_repo), files, args.commits, now)
                del files
            print(
                f"seeded in {time.perf_counter() - started:.0f} s: {state_size(w.harness.bare_path(w.kb_repo))}"
            )
            for run in range(1, args.runs + 1):
                for n in range(args.pulls):
                    author, reviewer = handles[n % 5], handles[(n + 1) % 5]
                    w.merged_pull(
                        "billing",
                        PullSpec(
                            author=author,
                            title=f"Change {run}-{n}",
                            files={f"src/billing/api/mod_{run}_{n}.py": "x\n"},
                            merged_at=w.hours_ago(1 + n * 0.1),
                            threads=(
                                ThreadSpec(
                                    author=reviewer,
                                    body=f"Call validate_payload_{run}_{n}() before saving record {n}.",
                                    path=f"src/billing/api/mod_{run}_{n}.py",
                                    followed_by_commit=True,
                                ),
                            ),
                        ),
                    )
                w.env()
                checkout = w.checkout()
                report = Path(scratch) / f"run-{run}.json"
                done = subprocess.run(
                    [
                        sys.executable,
                        "-c",
                        CHILD,
                        str(checkout),
                        str(report),
                        str(ROOT / "tests"),
                        str(ROOT / "benchmarks"),
                        str(Path(args.profile).resolve() / f"run-{run}.prof") if args.profile else "",
                        str(args.trace or "") if run == args.runs else "",
                    ],
                    cwd=scratch,  # not this checkout: `-c` puts the working folder first on sys.path
                    capture_output=True,
                    text=True,
                )
                if done.returncode != 0 or not report.exists():
                    print(done.stdout[-2000:], done.stderr[-4000:])
                    raise SystemExit(f"run {run} failed")
                out = json.loads(report.read_text())
                print(
                    f"run {run}: exit {out['code']}, own time {out['wall'] - out['slept']:.1f} s (wall "
                    f"{out['wall']:.1f} s, {out['slept']:.1f} s waiting between host writes; CPU {out['cpu']:.1f} s, "
                    f"git's {out['git_cpu']:.1f} s; {out['git']}), peak RSS of the run's process "
                    f"{out['rss_mb']:.0f} MB (after its imports {out['rss_imported_mb']:.0f} MB)"
                )
                if out["traced"]:
                    traced = out["traced"]
                    print(
                        f"  Python's allocations (tracemalloc): peak {traced['peak_mb']:.1f} MB; at the "
                        f"largest sample ({traced['sampled_mb']:.1f} MB) the largest sites:"
                    )
                    print("".join(f"    {line}\n" for line in traced["top"]), end="")
                print(f"  state branch after it: {state_size(w.harness.bare_path(w.kb_repo))}")
        finally:
            stub.stop()
            emulator.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
