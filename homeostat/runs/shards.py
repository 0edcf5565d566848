"""A shard of a sharded daily run: `homeostat curate --shard i/N` in one job of a CI matrix.

When one job cannot draft a day's review threads in time, N jobs each draft the threads of the code
repos that hash to their shard (homeostat.core.daily.shards), and one merge job (`homeostat daily
--merge-shards N`) holds the daily claim and decides everything with the KB-wide view. A shard
decides nothing and opens nothing: it opens the same review window the merge job will (the lookback,
widened over a capped, failed or partly unread last run and the retry list), drafts its repos'
threads, judges ahead the drafts the merge job will judge as they are (`judge_ahead`), and writes
every answer it paid for to its own slot on the state branch,
`checkpoints/daily/shard-<i>-of-<N>.json`, with a mark saying whether it finished. The merge job
reads the host again (cheap) and recalls each draft and verdict from the slot instead of asking
(nothing is paid twice), so its decisions, PR bodies and records are the bytes one unsharded run makes.

A shard that stops part way (an error, a signal, every call failing, the spending cap) writes its
answers with an unfinished mark, and exits non-zero; the merge job leaves that shard's repos for the
next run, which reads their window again, and decides the other shards' lessons meanwhile.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import read_state, write_state
from homeostat.core.asker import Answered, Asker, RunStats
from homeostat.core.config import Config
from homeostat.core.daily.consolidate import OverlapIndex, candidate_from_rule, merge_candidates
from homeostat.core.daily.decide import Checks
from homeostat.core.daily.judge import Verdict
from homeostat.core.daily.lessons import Lesson
from homeostat.core.daily.shards import Shard
from homeostat.core.hosts import CodeHost, RepoRef
from homeostat.core.kb import KB
from homeostat.core.state.branch import StateSnapshot, state_branch
from homeostat.core.state.checkpoints import (
    AnswerMemory,
    CheckpointFile,
    ShardMark,
    checkpoint_bytes,
    checkpoint_path,
    read_checkpoints,
)
from homeostat.core.validate.files import FileErrors
from homeostat.runs.curate import CurateResult, review_branch_citations, run_curate
from homeostat.runs.daily.collect import decided_urls, review_window
from homeostat.runs.daily.decide import Draft, judgements, score_all
from homeostat.runs.model_pool import ModelPool


@dataclass
class ShardRun:
    """One shard's drafting: what it read, and its slot once written."""

    shard: Shard
    since: dt.datetime
    until: dt.datetime
    result: CurateResult | None = None
    slot: str = ""
    written: bool = False
    judged: int = 0  # drafts the shard judged ahead for the merge job


def draft_shard(
    *,
    shard: Shard,
    git: Git,
    host: CodeHost,
    kb: KB,
    asker: Asker,
    stats: RunStats,
    pool: ModelPool,
    kb_repo: RepoRef | None,
    now: dt.datetime,
    since: dt.datetime | None = None,
    remote: str = "origin",
    write: bool = True,
    judge: Asker | None = None,
    judge_pool: ModelPool | None = None,
) -> ShardRun:
    """Draft `shard`'s repos over the merge job's window, judge ahead with `judge` (when given) and
    write its slot (unless not `write`).

    Whatever stops it (an exception, SIGINT or SIGTERM as KeyboardInterrupt) first writes what it
    paid for, marked unfinished, then goes on up."""
    branch, state, memory, run = _begin(kb, shard, git, remote, now, since, stats.seal)
    stats.memory = memory
    try:
        cited = decided_urls(state, run.since) | review_branch_citations(git, remote)
        run.result = run_curate(
            host,
            kb,
            asker,
            extra_cited=cited,
            kb_repo=kb_repo,
            since=run.since,
            until=run.until,
            pool=pool,
            keep=shard.holds,
        )
        if judge is not None:
            run.judged = judge_ahead(
                kb,
                run.result,
                judge,
                judge_pool or pool,
                shards=shard.count,
                today=now.date(),
                backfill=since is not None,
            )
    except BaseException as exc:
        _halt(stats, pool, judge_pool)
        if write:
            _write(git, remote, branch, run, memory, finished=False, reason=_stop_reason(exc))
        raise
    finally:
        stats.memory = None
    if write:
        reason = unfinished_reason(run.result)
        _write(git, remote, branch, run, memory, finished=not reason, reason=reason)
    return run


def _begin(
    kb: KB,
    shard: Shard,
    git: Git,
    remote: str,
    now: dt.datetime,
    since: dt.datetime | None,
    seal: bytes | None,
) -> tuple[str, StateSnapshot, AnswerMemory, ShardRun]:
    """The state branch, what it holds, the answers earlier draft jobs paid for (those sealed with
    `seal`), and this job's run."""
    config = kb.require_config()
    branch = state_branch(config.sources.base_branch)
    state = read_state(git, remote, branch)
    answers = (a for file in read_checkpoints(state.other, "daily") for a in file.answers)
    memory = AnswerMemory(answers, seal=seal)
    run = ShardRun(shard, _window(config, state, now, since), now)
    run.slot = checkpoint_path("daily", shard.slot)
    return branch, state, memory, run


def _halt(stats: RunStats, pool: ModelPool, judge_pool: ModelPool | None) -> None:
    """No new call starts while the shard writes what it paid for, and what is queued is never sent."""
    stats.ledger.halt()
    pool.close()
    if judge_pool is not None:
        judge_pool.close()


def _stop_reason(exc: BaseException) -> str:
    """Why a draft job stopped, for its slot: the error's one line, or the signal."""
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (a signal, or the job's time limit)"
    return " ".join(str(exc).split())[:300] or type(exc).__name__


JUDGE_AHEAD = 2  # a draft job judges up to this many times its even share of `judgeCalls`


@dataclass
class _Scoring:
    """What scoring reads of a run, for a draft job (homeostat.runs.daily.decide.Scoring)."""

    day: dt.date
    errors: FileErrors | None = field(default=None, repr=False)

    def today(self) -> dt.date:
        return self.day

    def file_errors(self) -> FileErrors:
        if self.errors is None:
            self.errors = FileErrors(self.day)
        return self.errors


def judge_ahead(
    kb: KB,
    result: CurateResult,
    asker: Asker,
    pool: ModelPool,
    *,
    shards: int,
    today: dt.date,
    backfill: bool = False,
) -> int:
    """Ask the judge now about the drafts the merge job will judge as they are, so it recalls the
    verdicts instead of waiting for them after every shard is done; the drafts judged.

    The judge reads only the draft and its thread, which the shard has. What it cannot know stays
    with the merge job: a lesson the KB's rules may absorb (consolidation can rewrite it, so it is
    left alone here) and what only the whole run shows (another shard's lesson repeating this one
    raises its confidence; a rule waiting in review). Where the merge job's question differs, it
    asks it itself, so its decisions are one run's whatever the shard did.

    `judgeCalls` caps the merge job's judge calls in the run's order, and a shard's lessons keep
    that order among themselves, so the merge job's judged drafts are a first part of each shard's.
    A shard judges its first `JUDGE_AHEAD` × judgeCalls / N confident drafts (a pass is one call,
    most drafts pass), all of them for a --since backfill, whose cap the merge job raises to cover
    them."""
    config = kb.require_config()
    cap = config.agents.curator.judge_calls
    lessons: list[Lesson] = list(result.lessons)
    if cap == 0 or not lessons:
        return 0
    index = OverlapIndex(
        [candidate_from_rule(r) for r in kb.rules if r.meta.status == "accepted" and r.meta.adopted]
    )
    drafts = [
        Draft(lesson, Checks(), None, "")
        for lesson in lessons
        if lesson.kind == "new" and not merge_candidates(lesson, index)
    ]
    confident = [s for s in score_all(_Scoring(today), kb, config, lessons, drafts) if s.decision.needs_judge]
    share = len(confident) if backfill else min(cap, -(-JUDGE_AHEAD * cap // shards))
    outcomes = judgements(pool, kb, confident[:share], asker, _Every())
    return sum(1 for outcome in outcomes.values() if outcome is not None and outcome.error is None)


class _Every:
    """A draft job's judges all start at once (the pool's size at a time): the cap that makes the
    merge job wait for each verdict before the next (core.daily.judge.JudgeBudget) is the merge
    job's, and a draft job's part of it is counted in drafts."""

    def decide(self, item: int, running: Sequence[int]) -> Literal["start"]:
        return "start"

    def finished(self, item: int, outcome: Answered[Verdict]) -> None:
        return None


def unfinished_reason(result: CurateResult) -> str:
    """Why a shard's drafting does not count as done ("" when it does)."""
    if result.all_calls_failed:
        return f"every model call failed ({result.failed_calls})"
    if result.capped:
        return f"spending cap: {result.cap_message}"
    return ""


def _window(config: Config, state: StateSnapshot, now: dt.datetime, since: dt.datetime | None) -> dt.datetime:
    """The window the merge job will open (homeostat.runs.daily.collect.window_start)."""
    files = read_checkpoints(state.other, "daily")
    retry_since = min((t.merged_at for file in files for t in file.retry), default=None)
    claim = state.claims.get("daily")
    previous = (
        claim
        if claim is not None and not any(r.run_id == claim.run_id for r in state.runs.values())
        else None
    )
    return review_window(config, state, now, since=since, previous=previous, retry_since=retry_since)


def _write(
    git: Git,
    remote: str,
    branch: str,
    run: ShardRun,
    memory: AnswerMemory,
    *,
    finished: bool,
    reason: str,
) -> None:
    """The shard's slot: the answers it recalled or paid for, its retry list and its mark."""
    result = run.result
    mark = ShardMark(shard=str(run.shard), since=run.since, until=run.until, finished=finished, reason=reason)
    file = CheckpointFile(
        kind="daily",
        slot=run.shard.slot,
        run_id=f"shard {run.shard}",
        answers=tuple(memory.used()),
        retry=tuple(result.retry) if result is not None else (),
        shard=mark,
    )
    write_state(
        git,
        {run.slot: checkpoint_bytes(file)},
        remote=remote,
        branch=branch,
        message=f"homeostat: shard {run.shard} drafts [skip ci]",
    )
    run.written = True
