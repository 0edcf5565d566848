"""`homeostat bench run`: plan what is left to do, then run it one call at a time.

Runs are ordered repeat by repeat, task by task, and within a task plugin off then on, so a run that
stops part-way (budget, rate limit) has run both conditions about equally far and a comparison of
what is there is still fair. Everything already finished for the tasks as written is skipped, so the
same command, run again, goes on where the last one stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from homeostat.adapters.bench_store import BenchStore
from homeostat.adapters.bench_workspace import clear_work_root, code_checkout, commit_of, work_root
from homeostat.adapters.hosts.http_retry import RetryPolicy
from homeostat.adapters.models.claude_code import ClaudeCodeRuntime
from homeostat.adapters.models.claude_headless import HeadlessClaude
from homeostat.core.asker import usd
from homeostat.core.bench.cost import Estimator
from homeostat.core.bench.grading import JUDGE_SYSTEM
from homeostat.core.bench.results import CONDITIONS, Call, Record, finished
from homeostat.core.bench.tasks import Task, TaskFile
from homeostat.core.cost.tiktoken_count import count_tokens
from homeostat.core.events import utcnow
from homeostat.errors import ConfigError
from homeostat.runs.bench.calls import BenchStop, Caller, Ledger
from homeostat.runs.bench.unit import Workspace, run_unit

PlannedRun = tuple[int, Task, str]  # (repeat, task, condition)
WORK_NOTE = ".work-root"  # in the results folder: where the last run's worktrees were


@dataclass(frozen=True)
class BenchOptions:
    tasks: TaskFile
    tasks_file: Path
    kb: Path
    out: Path
    repeats: int
    budget: float | None
    model: str | None
    judge_model: str
    checkouts: Mapping[str, Path]
    plugin: str


@dataclass(frozen=True)
class Plan:
    total: int  # every (task, repeat, condition) the options ask for
    pending: tuple[PlannedRun, ...]
    estimate_usd: float  # the pending runs' agent and judge calls
    corrections_usd: float  # and every correction round, were each one needed


@dataclass
class RunSummary:
    out: Path
    plan: Plan
    dry_run: bool
    done: int = 0
    stopped: BenchStop | None = None
    calls: list[Call] = field(default_factory=list)

    @property
    def left(self) -> int:
        return len(self.plan.pending) - self.done


def check_places(options: BenchOptions) -> Workspace:
    """Every checkout, base commit and hidden-test folder the tasks name, checked before any call."""
    checkouts: dict[str, Path] = {}
    for repo in options.tasks.repos():
        given = options.checkouts.get(repo)
        if given is None:
            users = ", ".join(t.id for t in options.tasks.tasks if t.repo == repo)
            raise ConfigError(
                f"{options.tasks_file}: task {users} works in repo {repo}: pass --checkout {repo}=DIR"
            )
        checkouts[repo] = code_checkout(repo, given)
    bases = {
        (task.repo, task.base): commit_of(task.repo, checkouts[task.repo], task.base)
        for task in options.tasks.tasks
        if task.repo is not None
    }
    hidden: dict[str, Path] = {}
    for task in options.tasks.tasks:
        if task.tests is not None and task.tests.files is not None:
            folder = (options.tasks_file.parent / task.tests.files).resolve()
            if not folder.is_dir():
                raise ConfigError(
                    f"{options.tasks_file}: task {task.id}: tests.files {task.tests.files} is not a folder "
                    f"beside the task file ({folder})"
                )
            hidden[task.id] = folder
    return Workspace(work_root(options.out), checkouts, bases, hidden, {})


def make_plan(options: BenchOptions, records: Mapping[str, list[Record]], estimator: Estimator) -> Plan:
    digests = {task.id: task.digest() for task in options.tasks.tasks}
    done = {condition: finished(records.get(condition, ()), digests) for condition in CONDITIONS}
    every = [
        (repeat, task, condition)
        for repeat in range(1, options.repeats + 1)
        for task in options.tasks.tasks
        for condition in CONDITIONS
    ]
    pending = tuple(run for run in every if (run[1].id, run[0]) not in done[run[2]])
    estimate = corrections = 0.0
    for _repeat, task, condition in pending:
        agent = estimator.estimate(condition, "agent", count_tokens(task.prompt))
        estimate += agent
        if task.tests is None:
            estimate += estimator.estimate(
                condition, "judge", count_tokens(JUDGE_SYSTEM + task.prompt) + 1_000
            )
        else:
            corrections += task.corrections * estimator.estimate(condition, "correction", 500)
    return Plan(len(every), pending, estimate, corrections)


def plan_bench(options: BenchOptions, store: BenchStore) -> tuple[Plan, Estimator, dict[str, list[Record]]]:
    records = {condition: store.read(condition)[0] for condition in CONDITIONS}
    estimator = Estimator(options.model, options.judge_model)
    for condition in CONDITIONS:
        estimator.learn(condition, records[condition])
    return make_plan(options, records, estimator), estimator, records


def run_bench(
    options: BenchOptions,
    store: BenchStore,
    space: Workspace,
    make_caller: Callable[[Estimator, Ledger], Caller],
    env: Mapping[str, str],
    *,
    now: Callable[[], datetime],
    progress: Callable[[str], None],
) -> RunSummary:
    space = Workspace(space.root, space.checkouts, space.bases, space.hidden, env)
    with store.held():
        plan, estimator, _ = plan_bench(options, store)
        summary = RunSummary(options.out, plan, dry_run=False)
        ledger = Ledger(options.budget)
        caller = make_caller(estimator, ledger)
        clear_work_root(space.root, space.checkouts, options.out / WORK_NOTE)
        try:
            for repeat, task, condition in plan.pending:
                try:
                    record = run_unit(caller, space, task, repeat, condition, now)
                except BenchStop as stop:
                    summary.stopped = stop
                    break
                store.append(condition, record)
                summary.done += 1
                progress(_progress_line(summary, record, condition))
        finally:
            clear_work_root(space.root, space.checkouts, options.out / WORK_NOTE)
            summary.calls = list(ledger.calls)
    return summary


def _progress_line(summary: RunSummary, record: Record, condition: str) -> str:
    score = "no verdict" if record.score is None else f"{record.score}/2"
    cost = sum(call.cost_usd for call in record.calls)
    return (
        f"bench: {summary.done}/{len(summary.plan.pending)} {record.task} #{record.repeat} plugin {condition}: "
        f"{score} ({usd(cost)})"
    )


def run_with_claude(
    options: BenchOptions,
    store: BenchStore,
    space: Workspace,
    command: str,
    env: Mapping[str, str],
    progress: Callable[[str], None],
) -> RunSummary:
    """`run_bench` with the agent's turns and the judge's verdicts through the `claude` at `command`."""
    # One try for the judge: Claude Code retries inside a call already, and a limit that outlasts
    # its retries stops the run rather than waiting here.
    judge = ClaudeCodeRuntime(command, env=env, retry=RetryPolicy(attempts=1))

    def caller(estimator: Estimator, ledger: Ledger) -> Caller:
        return Caller(
            HeadlessClaude(command), judge, options.judge_model, options.model, options.plugin, options.kb,
            env, estimator, ledger,
        )  # fmt: skip

    return run_bench(options, store, space, caller, env, now=utcnow, progress=progress)
