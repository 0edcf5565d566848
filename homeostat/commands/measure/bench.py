"""`homeostat bench run|report`: does the KB make Claude Code's work better? Measured, plugin off vs on.

`run` sends the task file's tasks through headless `claude -p` with the plugin off and on and
records each graded run; `report` compares the two. The work is `homeostat.runs.bench`, the pure
parts `homeostat.core.bench`; docs/bench.md describes the task file and the results.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from homeostat.adapters.bench_store import BenchStore
from homeostat.cli_options import add_format_option, add_kb_option, at_least, emit_json
from homeostat.core.bench.grading import default_judge
from homeostat.core.bench.stats import DEFAULT_RESAMPLES, DEFAULT_SEED
from homeostat.core.bench.tasks import MAX_REPEATS, TASKS_FILE, TaskFileError, parse_tasks
from homeostat.errors import ConfigError, KBReadError
from homeostat.runs.bench.run import BenchOptions, RunSummary, check_places, plan_bench
from homeostat.runs.bench.summary import render_summary, summary_data
from homeostat.runs.bench.unit import Workspace
from homeostat.workspace import Workspace as CommandWorkspace

RESULTS_DIR = ".homeostat/bench"
DEFAULT_PLUGIN = "homeostat@homeostat"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "bench",
        help="measure the KB: the same tasks through headless Claude Code with the plugin off and on",
        description="Run a task file through headless Claude Code with the plugin off and on, and compare.",
    )
    actions = parser.add_subparsers(dest="action", metavar="<action>", required=True)
    _register_run(actions)
    _register_report(actions)


def _register_run(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`bench run`: the flags that decide what is run and what it may spend."""
    run = actions.add_parser(
        "run",
        help="run the tasks still to do, plugin off and on, within --budget",
        description=(
            "Run every task of the task file, each repeat, through `claude -p` with the plugin off and on,\n"
            "one call at a time, and append each graded run to <out>/off.jsonl or <out>/on.jsonl. Every\n"
            "call is checked against --budget with an estimate first; a budget that would be passed, a rate\n"
            "or usage limit, or an API error stops the run, and the same command run again goes on from\n"
            "what is recorded. Questions are scored 0-2 by a judge on another model; coding tasks run in a\n"
            "detached worktree of their base commit and are graded by hidden tests or by the judge."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_kb_option(run)
    run.add_argument("--tasks", metavar="FILE", help=f"the task file (default: <kb>/{TASKS_FILE})")
    _add_out_option(run)
    run.add_argument(
        "--checkout",
        action="append",
        default=[],
        metavar="REPO=DIR",
        help="the checkout of a repo the tasks name; repeat per repo (DIR alone when they name one)",
    )
    run.add_argument(
        "--budget", type=_dollars, metavar="USD", help="the most this run may spend, in US dollars (required)"
    )
    run.add_argument(
        "--repeats",
        type=at_least(1, MAX_REPEATS),
        metavar="N",
        help="runs of each task per condition (default: the task file's repeats, else 3)",
    )
    run.add_argument("--model", metavar="MODEL", help="the agent's model (default: Claude Code's own)")
    run.add_argument(
        "--judge-model",
        metavar="MODEL",
        help="the judge's model, another than the agent's (default: a Sonnet, or an Opus for a Sonnet agent)",
    )
    run.add_argument(
        "--plugin",
        default=DEFAULT_PLUGIN,
        metavar="ID",
        help=f"the plugin as installed (default {DEFAULT_PLUGIN})",
    )
    run.add_argument(
        "--dry-run", action="store_true", help="print what would run and its estimate; call nothing"
    )
    add_format_option(run)
    run.set_defaults(run=run_command)


def _register_report(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`bench report`: reads what `bench run` recorded; its flags only shape the statistics."""
    report = actions.add_parser(
        "report",
        help="compare the recorded runs: task means, a bootstrap interval, calls, tokens and cost",
        description=(
            "Compare plugin off and on from the results folder: each task's mean score, the mean over\n"
            "tasks with a seeded bootstrap interval (tasks resampled), the difference paired by task, and\n"
            "each condition's calls, tokens and cost beside the estimates. --format json gives aggregates\n"
            "only: never a prompt, an answer or a judge's reason."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_kb_option(report)
    _add_out_option(report)
    report.add_argument(
        "--seed",
        type=at_least(0),
        default=DEFAULT_SEED,
        metavar="N",
        help=f"bootstrap seed (default {DEFAULT_SEED})",
    )
    report.add_argument(
        "--resamples",
        type=at_least(100, 1_000_000),
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples (default {DEFAULT_RESAMPLES:,})",
    )
    add_format_option(report)
    report.set_defaults(run=report_command)


def _add_out_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", metavar="DIR", help=f"the results folder (default: <kb>/{RESULTS_DIR})")


def _dollars(value: str) -> float:
    try:
        amount = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an amount in US dollars") from None
    if not 0 < amount <= 10_000:
        raise argparse.ArgumentTypeError(f"{value} is out of range: give an amount above 0 and at most 10000")
    return amount


def _kb(workspace: CommandWorkspace) -> Path:
    root = workspace.root.resolve()
    if not (root / "homeostat.yaml").is_file():  # before anything is written into a folder that is no KB
        raise KBReadError(f"{root}: no homeostat.yaml here; run bench in a KB clone or pass --kb")
    return root


def _out(args: argparse.Namespace, root: Path) -> Path:
    return Path(args.out).resolve() if args.out else root / RESULTS_DIR


def run_command(args: argparse.Namespace, workspace: CommandWorkspace) -> int:
    root = _kb(workspace)
    path = Path(args.tasks) if args.tasks else root / TASKS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TaskFileError(
            f"{path}: cannot read the task file ({exc.strerror}); write tasks there or pass --tasks"
        ) from None
    tasks = parse_tasks(text, str(path))
    judge_model = args.judge_model or default_judge(args.model)
    if args.model and args.model == judge_model:
        raise ConfigError(
            f"--judge-model {judge_model} is the agent's --model: the judge must be another model"
        )
    options = BenchOptions(
        tasks=tasks,
        tasks_file=path.resolve(),
        kb=root,
        out=_out(args, root),
        repeats=args.repeats or tasks.repeats,
        budget=args.budget,
        model=args.model,
        judge_model=judge_model,
        checkouts=_checkouts(args.checkout, tasks.repos()),
        plugin=args.plugin,
    )
    store = BenchStore(options.out)
    space = check_places(options)  # every checkout, commit and hidden-test folder, before any call
    if args.dry_run:
        summary = RunSummary(options.out, plan_bench(options, store)[0], dry_run=True)
    else:
        summary = _run(options, store, space)
    shape = {"tasks": len(tasks.tasks), "repeats": options.repeats}
    if args.format == "json":
        emit_json(summary_data(summary, **shape))
    else:
        workspace.out.write(render_summary(summary, **shape))
    return 1 if summary.stopped is not None else 0


def _run(options: BenchOptions, store: BenchStore, space: Workspace) -> RunSummary:
    from homeostat.runs.bench.run import run_with_claude

    if options.budget is None:
        raise ConfigError(
            "bench run needs --budget USD, the most it may spend (--dry-run shows the estimate)"
        )
    command = claude_on_path()

    def progress(line: str) -> None:
        print(f"homeostat: {line}", file=sys.stderr, flush=True)

    return run_with_claude(options, store, space, command, dict(os.environ), progress)


def _checkouts(values: list[str], repos: list[str]) -> dict[str, Path]:
    """`--checkout REPO=DIR` per repo, or `--checkout DIR` when the tasks name one repo."""
    found: dict[str, Path] = {}
    for value in values:
        repo, sep, folder = value.partition("=")
        if not sep:
            if len(repos) != 1:
                named = ", ".join(repos) or "no repo"
                raise ConfigError(
                    f"--checkout {value}: the tasks name {named}; give it as --checkout REPO=DIR"
                )
            repo, folder = repos[0], value
        if repo in found:
            raise ConfigError(f"--checkout {repo}= is given twice: give each repo's checkout once")
        found[repo] = Path(os.path.expanduser(folder))
    return found


def report_command(args: argparse.Namespace, workspace: CommandWorkspace) -> int:
    from homeostat.core.bench.report import render, to_data
    from homeostat.runs.bench.report import bench_report

    root = _kb(workspace)
    report = bench_report(BenchStore(_out(args, root)), seed=args.seed, resamples=args.resamples)
    if args.format == "json":
        emit_json(to_data(report))
    else:
        workspace.out.write(render(report))
    return 0


def claude_on_path() -> str:
    found = shutil.which("claude")
    if found is None:
        raise ConfigError(
            "bench runs Claude Code headless, and `claude` is not on PATH: install Claude Code and log in "
            "(or set ANTHROPIC_API_KEY)"
        )
    return found
