"""One task, one repeat, one condition: prepare the folder, let the agent work, grade, and clean up.

A coding task gets a detached worktree of its base commit; a question gets one too when it names a
repo (so the plugin sees the same checkout a developer would be in), else an empty folder. The folder
is removed whatever happens, and the record is returned only once the task is graded: a run stopped
part-way leaves nothing for this task, so a rerun does it again from the start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from homeostat.adapters.bench_workspace import Worktree, add_worktree, empty_folder, run_hidden_tests
from homeostat.core.bench.grading import correction_prompt, judge_change, judge_question, score_from_tests
from homeostat.core.bench.results import Call, Record
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


def run_unit(
    caller: Caller, space: Workspace, task: Task, repeat: int, condition: str, now: Callable[[], datetime]
) -> Record:
    place = space.root / f"{condition}-{task.id}-{repeat}"
    worktree: Worktree | None = None
    if task.repo is not None:
        commit = space.bases[(task.repo, task.base)]
        worktree = add_worktree(space.checkouts[task.repo], commit, place)
    else:
        empty_folder(place)
    try:
        turn, first = caller.agent(task, condition, place, task.prompt, "agent")
        calls: list[Call] = [first]
        answer = turn.result
        if task.tests is not None:
            passed_after, session = None, (turn.session_id, turn.totals)
            for round_ in range(task.corrections + 1):
                tests = run_hidden_tests(
                    place,
                    space.hidden.get(task.id),
                    task.tests.run,
                    space.root / f"{place.name}.copy",
                    timeout=task.tests.timeout,
                    env=space.env,
                )
                if tests.passed:
                    passed_after = round_
                    break
                if round_ == task.corrections:
                    break
                turn, call = caller.agent(
                    task, condition, place, correction_prompt(tests.output), "correction", session
                )
                calls.append(call)
                session, answer = (turn.session_id, turn.totals), turn.result
            return _record(
                task, repeat, calls, answer, now, grader="tests", score=score_from_tests(passed_after),
                passed_after=passed_after, reason=_test_reason(passed_after, task.corrections),
            )  # fmt: skip
        prompt = judge_question(task, answer) if worktree is None or task.kind == "question" else None
        if prompt is None:
            assert worktree is not None
            prompt = judge_change(task, worktree.diff())
        verdict, judged = caller.verdict(condition, prompt)
        calls += judged
        return _record(
            task, repeat, calls, answer, now, grader="judge",
            score=verdict.score if verdict else None,
            reason=verdict.reason if verdict else "the judge gave no usable verdict",
        )  # fmt: skip
    finally:
        if worktree is not None:
            worktree.remove()
        _remove(place)
        _remove(space.root / f"{place.name}.copy")


def _record(
    task: Task,
    repeat: int,
    calls: list[Call],
    answer: str,
    now: Callable[[], datetime],
    *,
    grader: str,
    score: int | None,
    reason: str,
    passed_after: int | None = None,
) -> Record:
    return Record(
        task=task.id,
        repeat=repeat,
        kind=task.kind,
        digest=task.digest(),
        grader="tests" if grader == "tests" else "judge",
        score=score,
        passed_after=passed_after,
        calls=tuple(calls),
        answer=answer[:MAX_ANSWER_CHARS],
        reason=reason,
        at=now().isoformat(timespec="seconds"),
    )


def _test_reason(passed_after: int | None, corrections: int) -> str:
    if passed_after == 0:
        return "the hidden tests passed at once"
    if passed_after is not None:
        return f"the hidden tests passed after {passed_after} correction(s)"
    return f"the hidden tests still failed after {corrections} correction(s)"


def _remove(path: Path) -> None:
    import shutil

    if path.exists():
        shutil.rmtree(path, ignore_errors=True)
