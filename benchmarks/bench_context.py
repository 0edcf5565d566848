"""What a session hook pays for `homeostat context`, and what the rendered view saves.

    .venv/bin/python benchmarks/bench_context.py [--sizes 150,1000,5000] [--runs 15]

For generated KBs of each size (two repos, topic files, committed in git like a real KB clone):
  - cold: the whole process when the corpus cache must be built (median of 3, cache deleted each time);
  - warm: the whole process with the cache in place (median of --runs), the hook's usual case;
  - hook: the same without --files, in a checkout on a feature branch with commits and an edited
    file, so the two git commands that find the changes (and the branch and commit subjects for the
    task signal) run too;
  - the warm run's parts, in process: the stat check that stands in for the git key when nothing
    changed, the git key itself (two git commands; paid only after an edit), loading the corpus,
    selecting and rendering, and handing the injection event to its detached recorder;
  - tokens of the rendered rules against the stored files for the same rules (the design: 2.9x).
Prints numbers only; nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import itertools
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures"))

import make_eval150 as gen  # noqa: E402

from homeostat.adapters.forked.write_behind import wait_for_writer  # noqa: E402

ADJECTIVES = """amber brisk cobalt dusky early fabled gilded hollow ivory jagged keen lunar misty noble
opal prime quiet rapid silver tidal umber vivid woven xenial yonder zesty arctic bold coral dune ember
frost granite harbor indigo jade kelp lotus maple nectar""".split()
NOUNS = """ledger basket voucher courier tariff parcel beacon quota sensor ticket budget mandate refund
coupon invoice batch gateway router bundle cursor channel digest engine filter garden harvest index
journal kiosk lantern market needle orbit pilot quarry relay signal tunnel vault widget yard zone""".split()
AREAS = {
    "payments": [("api", "src/payments/api"), ("workers", "src/payments/workers"), ("db", "src/payments/db")],
    "storefront": [("ui", "web/components"), ("checkout", "web/checkout"), ("client", "web/client")],
}


# Past the 1,980 adjective-noun pairs (9,900 rules), each further round of pairs takes one of these.
ROUNDS = ["", "north", "south", "east", "west", "upper", "lower", "inner", "outer"]


def components(count: int) -> list[gen.Component]:
    names = ((adj, noun, extra) for extra in ROUNDS for adj, noun in itertools.product(ADJECTIVES, NOUNS))
    areas = [(repo, area, folder) for repo, items in AREAS.items() for area, folder in items]
    out = []
    for i, (adj, noun, extra) in zip(range(count), names, strict=False):
        repo, area, folder = areas[i % len(areas)]
        words = " ".join(w for w in (adj, noun, extra) if w)
        ext = "py" if repo == "payments" else "ts"
        out.append(gen._c(f"{repo}/{area}", words, f"{folder}/{words.replace(' ', '_')}.{ext}"))
    if len(out) < count:
        raise SystemExit(f"the generator names at most {len(out) * 5} rules")
    return out


def write_kb(root: Path, rules: int) -> list[gen.Component]:
    """`rules` rules: five per component from the fixture's twelve concerns, plus its 15 core rules."""
    comps = components((rules - len(gen.CORE_RULES)) // 5)
    files: dict[str, str] = {"homeostat.yaml": gen.config_text()}
    by_file: dict[str, list[tuple[str, str]]] = {}
    n = 0
    for i, comp in enumerate(comps):
        for j in range(5):
            n += 1
            _, topic, kind, title, rule, why = gen.CONCERNS[(i * 5 + j) % len(gen.CONCERNS)]
            rule_id = f"{comp.slug}-{gen.CONCERNS[(i * 5 + j) % len(gen.CONCERNS)][0]}"
            repo = comp.area.split("/")[0]
            scope = [comp.path] if j % 2 == 0 else [f"{comp.folder}/**"]
            fields = gen._fields(scope, kind, n, repo, "ana" if repo == "payments" else "cy")
            if repo == "payments":
                text = "\n".join(
                    [
                        f"## {gen.fill(title, comp)} {{#{rule_id}}}",
                        "<!-- homeostat",
                        *fields,
                        "-->",
                        "### Rule",
                        gen.fill(rule, comp),
                        "",
                        "### Why",
                        gen.fill(why, comp),
                        "",
                    ]
                )
                by_file.setdefault(f"knowledge/{comp.area}/{topic}.md", []).append((rule_id, text))
            else:
                front = [
                    "---",
                    f"id: {rule_id}",
                    f"title: {gen.fill(title, comp)}",
                    f"area: {comp.area}",
                    *fields,
                    "---",
                ]
                files[f"knowledge/{comp.area}/{rule_id}.md"] = "\n".join(
                    [*front, "## Rule", gen.fill(rule, comp), "", "## Why", gen.fill(why, comp), ""]
                )
    for path, sections in by_file.items():
        area, topic = path.removeprefix("knowledge/").rsplit("/", 1)
        files[path] = f"---\narea: {area}\ntopic: {topic.removesuffix('.md')}\n---\n" + "\n".join(
            text for _, text in sorted(sections)
        )
    for k, (rule_id, title, kind, scope, rule, why) in enumerate(gen.CORE_RULES, start=90000):
        fields = gen._fields(scope, kind, k, "payments", "bo", kind != "decision")
        front = ["---", f"id: {rule_id}", f"title: {title}", "area: core", *fields, "---"]
        files[f"knowledge/core/{rule_id}.md"] = "\n".join([*front, "## Rule", rule, "", "## Why", why, ""])
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git(root, "init", "--quiet")
    git(root, "add", ".")
    git(
        root,
        "-c",
        "user.name=bench",
        "-c",
        "user.email=bench@example.invalid",
        "commit",
        "--quiet",
        "-m",
        "kb",
    )
    return comps


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def payments_setup(scratch: Path, rules: int) -> tuple[Path, Path, list[gen.Component], str]:
    """A KB of `rules` rules in `scratch/kb`, an empty `payments` checkout beside it (origin
    acme/payments) and the payments/api file its session touches: where every context, cold-rebuild,
    hook and MCP benchmark runs."""
    kb, checkout = scratch / "kb", scratch / "payments"
    comps = write_kb(kb, rules)
    checkout.mkdir()
    git(checkout, "init", "--quiet")
    git(checkout, "remote", "add", "origin", "https://github.com/acme/payments.git")
    return kb, checkout, comps, next(c.path for c in comps if c.area == "payments/api")


def feature_branch(checkout: Path, touched: str) -> None:
    """Three commits on a feature branch and an uncommitted edit, as a session hook finds them."""
    who = ("-c", "user.name=bench", "-c", "user.email=bench@example.invalid")
    git(checkout, "switch", "--quiet", "-c", "feature/PAY-12-refund-retries")
    path = checkout / touched
    path.parent.mkdir(parents=True, exist_ok=True)
    for n, subject in enumerate(("Add the refund client", "Retry refunds with backoff", "Log refund ids")):
        path.write_text(f"step = {n}\n", encoding="utf-8")
        git(checkout, "add", ".")
        git(checkout, *who, "commit", "--quiet", "-m", subject, "-m", "Details in the ticket.")
    path.write_text("step = 3\n", encoding="utf-8")


CPU: list[float] = []


def timed(command: list[str], env: dict[str, str]) -> float:
    """Wall milliseconds of one whole process; its CPU milliseconds (user + system) go to CPU."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True, env=env)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    return wall


def parts(kb: Path, checkout: Path, touched: str) -> dict[str, float]:
    """The warm run's stages in this process (imports already paid)."""
    import marshal

    from homeostat.adapters.cache.corpus_cache import INDEX_DIR, corpus_key, stat_signature
    from homeostat.adapters.state.event_recorder import log_events
    from homeostat.core.render.view import build_view
    from homeostat.core.selection.corpus import Corpus
    from homeostat.runs.session import open_session

    index = next(p for p in (kb / INDEX_DIR).glob("corpus-*.marshal") if p.name.count(".") == 1)  # the whole
    out: dict[str, list[float]] = {"stat": [], "git key": [], "load": [], "select+render": [], "event": []}
    for _ in range(7):
        t0 = time.perf_counter()
        stat_signature(kb)
        t1 = time.perf_counter()
        corpus_key(kb)
        t2 = time.perf_counter()
        Corpus.from_data(marshal.loads(index.read_bytes()))
        t3 = time.perf_counter()
        session = open_session(str(kb), checkout)
        t4 = time.perf_counter()
        view = build_view(session.corpus, [touched], session.audience, session.counter())
        t5 = time.perf_counter()
        log_events(kb, [("injection", {"source": "bench", "rules": len(view.placed)})])
        t6 = time.perf_counter()
        for name, took in zip(out, (t1 - t0, t2 - t1, t3 - t2, t5 - t4, t6 - t5), strict=True):
            out[name].append(took * 1000)
    return {k: statistics.median(v) for k, v in out.items()}


def token_ratio(kb: Path) -> tuple[int, int]:
    """Tokens of every rule's rendered form against its stored text (frontmatter or section comment)."""
    from homeostat.adapters.kb_files import load_kb_dir
    from homeostat.core.cost.tiktoken_count import count_tokens
    from homeostat.core.render.rule import rule_view

    loaded = load_kb_dir(kb)
    stored: list[str] = []
    for rule in loaded.rules:
        text = loaded.files[rule.file]
        if not rule.in_topic_file:
            stored.append(text)
            continue
        lines = text.splitlines(keepends=True)
        start = rule.line - 1
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        stored.append("".join(lines[start:end]))
    rendered = sum(count_tokens(rule_view(r)) for r in loaded.rules)
    return rendered, sum(count_tokens(text) for text in stored)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="benchmark homeostat context")
    parser.add_argument("--sizes", default="150,1000,5000")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    exe = str(Path(sys.executable).with_name("homeostat"))
    # An installed package runs from compiled bytecode; a shell with PYTHONDONTWRITEBYTECODE would
    # recompile every module on every run and measure the compiler instead.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("HOMEOSTAT_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import homeostat.commands.agent.context, homeostat.adapters.state.event_log, "
            "homeostat.adapters.kb_files, homeostat.core.cost.tiktoken_count",
        ],
        env=env,
        check=True,
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; medians; wall ms (cpu ms)")
    print(
        f"{'rules':>6} {'cold ms':>12} {'warm ms':>12} {'hook ms':>12} {'stat':>6} {'gitkey':>6} {'load':>6} {'render':>7} {'event':>6} "
        f"{'view tok':>9} {'tokens rendered/stored':>24}"
    )
    results: list[tuple[int, float, float, float]] = []
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as scratch:
            kb, checkout, comps, touched = payments_setup(Path(scratch), size)
            feature_branch(checkout, touched)
            command = [exe, "context", "--kb", str(kb), "--checkout", str(checkout), "--files", touched]
            cold = []
            CPU.clear()
            for _ in range(3):
                shutil.rmtree(kb / ".homeostat", ignore_errors=True)
                cold.append(timed(command, env))
                wait_for_writer(str(kb / ".homeostat/index"))  # written behind the answer: next is cold
            cold_cpu = statistics.median(CPU)
            python = [sys.executable, "-c", "pass"]
            CPU.clear()
            warm, hook, starts = [], [], []
            for _ in range(args.runs):  # in turn with `python -c pass`, so the ratios see one load
                warm.append(timed(command, env))
                hook.append(timed(command[: command.index("--files")], env))
                starts.append(timed(python, env))
            warm_cpu, hook_cpu = statistics.median(CPU[0::3]), statistics.median(CPU[1::3])
            stages = parts(kb, checkout, touched)
            out = subprocess.run(
                [*command, "--format", "json"], check=True, capture_output=True, env=env
            ).stdout
            import json

            view_tokens = json.loads(out)["tokens"]
            rendered, stored = token_ratio(kb)
            cold_text = f"{statistics.median(cold):.0f} ({cold_cpu:.0f})"
            warm_text = f"{statistics.median(warm):.0f} ({warm_cpu:.0f})"
            hook_text = f"{statistics.median(hook):.0f} ({hook_cpu:.0f})"
            results.append(
                (size, statistics.median(warm), statistics.median(hook), statistics.median(starts))
            )
            print(
                f"{size:>6} {cold_text:>12} {warm_text:>12} {hook_text:>12} {stages['stat']:>6.1f} {stages['git key']:>6.1f} "
                f"{stages['load']:>6.1f} {stages['select+render']:>7.1f} {stages['event']:>6.1f} {view_tokens:>9} "
                f"{rendered:>9} / {stored:<8} {stored / rendered:.2f}x"
            )
    for label, code in (
        ("python start", "pass"),
        ("+ context's imports", "import homeostat.commands.agent.context"),
        (
            "+ the event log's imports",
            "import homeostat.commands.agent.context, homeostat.adapters.state.event_log",
        ),
    ):
        CPU.clear()
        wall = statistics.median(timed([sys.executable, "-c", code], env) for _ in range(7))
        print(f"{label}: {wall:.0f} ms ({statistics.median(CPU):.0f} cpu)")
    for size, warm_ms, hook_ms, start in results:
        print(
            f"{size} rules: warm {warm_ms / start:.2f}x, hook {hook_ms / start:.2f}x `python -c pass` "
            f"({start:.0f} ms, run in turn with them)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
