"""One task, one repeat, one condition: prepare the folder, let the agent work, grade, and clean up.

A coding task gets a detached worktree of its base commit; a question gets one too when it names a
repo (so the plugin sees the same checkout a developer would be in), else an empty folder. The folder
is removed whatever happens, and the record is returned only once the task is graded: a run stopped
part-way leaves nothing for this task, so a rerun does it again from the start.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from homeostat.adapters.bench_workspace import Worktree, add_worktree, empty_folder, run_hidden_tests
from homeostat.adapters.models.claude_headless import Turn
from homeostat.core.bench.grading import correction_prompt, judge_change, judge_question, score_from_tests
from homeostat.core.bench.results import Call, Grader, Record
from homeostat.core.bench.tasks import Task
from homeostat.runs.bench.calls import Caller

MAX_ANSWER_CHARS = 4_000


@dataclass(frozen=True)
class Workspace:
    """Where the run's tasks work: the temporary root, each repo's checkout and base commits."""

    root: Path
    checkouts: Mapping[str, Path]
    bases: Mapping[tuple[str, str | None], str]  # (repo, base as written) -> commit
    hidden: Mapping[str, Path]  # task id -> its hidden test files
    env: Mapping[str, str]


@dataclass(frozen=True)
class Graded:
    grader: Grader
    score: int | None
    reason: str
    answer: str
    calls: tuple[Call, ...]
    passed_after: int | None = None


def run_unit(
    caller: Caller, space: Workspace, task: Task, repeat: int, condition: str, now: Callable[[], datetime]
) -> Record:
    place = space.root / f"{condition}-{task.id}-{repeat}"
    worktree: Worktree | None = None
    if task.repo is not None:
        worktree = add_worktree(space.checkouts[task.repo], space.bases[(task.repo, task.base)], place)
    else:
        empty_folder(place)
    try:
        turn, call = caller.agent(task, condition, place, task.prompt, "agent")
        if task.tests is not None:
            graded = _by_tests(caller, space, task, condition, place, turn, call)
        else:
            diff = worktree.diff() if worktree is not None and task.kind == "code" else None
            graded = _by_judge(caller, task, condition, turn.result, diff, call)
    finally:
        if worktree is not None:
            worktree.remove()
        _remove(place)
        _remove(_copy_of(space, place))
    return Record(
        task=task.id,
        repeat=repeat,
        kind=task.kind,
        digest=task.digest(),
        grader=graded.grader,
        score=graded.score,
        passed_after=graded.passed_after,
        calls=graded.calls,
        answer=graded.answer[:MAX_ANSWER_CHARS],
        reason=graded.reason,
        at=now().isoformat(timespec="seconds"),
    )


def _by_tests(
    caller: Caller, space: Workspace, task: Task, condition: str, place: Path, turn: Turn, first: Call
) -> Graded:
    """Hidden tests after the agent's turn, and after each correction they call for."""
    assert task.tests is not None
    calls, passed_after = [first], None
    for round_ in range(task.corrections + 1):
        tests = run_hidden_tests(
            place, space.hidden.get(task.id), task.tests.run, _copy_of(space, place),
            timeout=task.tests.timeout, env=space.env,
        )  # fmt: skip
        if tests.passed:
            passed_after = round_
            break
        if round_ == task.corrections:
            break
        session = (turn.session_id, turn.totals)
        turn, call = caller.agent(
            task, condition, place, correction_prompt(tests.output), "correction", session
        )
        calls.append(call)
    reason = _test_reason(passed_after, task.corrections)
    return Graded("tests", score_from_tests(passed_after), reason, turn.result, tuple(calls), passed_after)


def _by_judge(
    caller: Caller, task: Task, condition: str, answer: str, diff: str | None, first: Call
) -> Graded:
    """The judge's verdict on a question's answer, or on a coding task's change (`diff`)."""
    prompt = judge_question(task, answer) if diff is None else judge_change(task, diff)
    verdict, judged = caller.verdict(condition, prompt)
    if verdict is None:
        return Graded("judge", None, "the judge gave no usable verdict", answer, (first, *judged))
    return Graded("judge", verdict.score, verdict.reason, answer, (first, *judged))


def _copy_of(space: Workspace, place: Path) -> Path:
    return space.root / f"{place.name}.copy"


def _test_reason(passed_after: int | None, corrections: int) -> str:
    if passed_after == 0:
        return "the hidden tests passed at once"
    if passed_after is not None:
        return f"the hidden tests passed after {passed_after} correction(s)"
    return f"the hidden tests still failed after {corrections} correction(s)"


def _remove(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
