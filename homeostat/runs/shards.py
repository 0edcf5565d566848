"""A shard of a sharded daily run: `homeostat curate --shard i/N` in one job of a CI matrix.

When one job cannot draft a day's review threads in time, N jobs each draft the threads of the code
repos that hash to their shard (homeostat.core.daily.shards), and one merge job (`homeostat daily
--merge-shards N`) holds the daily claim and decides everything with the KB-wide view. A shard
decides nothing and opens nothing: it opens the same review window the merge job will (the lookback,
widened over a capped, failed or partly unread last run and the retry list), drafts its repos'
threads, and writes every answer it paid for to its own slot on the state branch,
`checkpoints/daily/shard-<i>-of-<N>.json`, with a mark saying whether it finished. The merge job
reads the host again (cheap) and recalls each draft from the slot instead of asking (nothing is paid
twice), so its decisions, PR bodies and records are the bytes one unsharded run makes.

A shard that stops part way (an error, a signal, every call failing, the spending cap) writes its
answers with an unfinished mark, and exits non-zero; the merge job leaves that shard's repos for the
next run, which reads their window again, and decides the other shards' lessons meanwhile.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import read_state, write_state
from homeostat.core.asker import Asker, RunStats
from homeostat.core.config import Config
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
from homeostat.runs.curate import CurateResult, review_branch_citations, run_curate
from homeostat.runs.daily.collect import decided_urls, review_window
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
) -> ShardRun:
    """Draft `shard`'s repos over the merge job's window and write its slot (unless not `write`).

    Whatever stops it (an exception, SIGINT or SIGTERM as KeyboardInterrupt) first writes what it
    paid for, marked unfinished, then goes on up."""
    config = kb.require_config()
    branch = state_branch(config.sources.base_branch)
    state = read_state(git, remote, branch)
    memory = AnswerMemory(a for file in read_checkpoints(state.other, "daily") for a in file.answers)
    run = ShardRun(shard, _window(config, state, now, since), now)
    run.slot = checkpoint_path("daily", shard.slot)
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
    except BaseException as exc:
        stats.ledger.halt()  # no new call starts while the shard writes what it paid for
        pool.close()  # and what is queued is never sent
        if write:
            reason = " ".join(str(exc).split())[:300] or type(exc).__name__
            if isinstance(exc, KeyboardInterrupt):
                reason = "interrupted (a signal, or the job's time limit)"
            _write(git, remote, branch, run, memory, finished=False, reason=reason)
        raise
    finally:
        stats.memory = None
    if write:
        reason = unfinished_reason(run.result)
        _write(git, remote, branch, run, memory, finished=not reason, reason=reason)
    return run


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
