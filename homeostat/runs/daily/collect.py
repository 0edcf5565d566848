"""Collect: the KB as the base branch holds it, the state branch, and every lesson to decide.

Lessons come from each member's `candidates/<member>` branch (pending lessons, and the heartbeat
their sync pushed) and from review threads on their merged PRs (drafted by homeostat.runs.curate).
Anything already decided (by content hash on the state branch) is skipped; rules waiting in open
review PRs are collected too, so a lesson that repeats or updates one waits with it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from pydantic import ValidationError

from homeostat.adapters.kb_files import load_kb_dir
from homeostat.adapters.state.pending_store import list_pending
from homeostat.adapters.state.state_store import read_state
from homeostat.core.asker import SpendingCapError
from homeostat.core.config import Config
from homeostat.core.daily.consolidate import Candidate, candidate_from_rule
from homeostat.core.daily.curate import cited_urls
from homeostat.core.daily.lessons import Lesson, from_pending
from homeostat.core.daily.shards import finished_since, shard_index, shard_status
from homeostat.core.hosts import RepoRef
from homeostat.core.kb import KB
from homeostat.core.pending import PENDING_DIR, PendingLesson
from homeostat.core.state.branch import Claim, Heartbeat, StateSnapshot, state_branch
from homeostat.errors import HomeostatError, HostError
from homeostat.runs.daily.run_state import (
    CANDIDATES_PREFIX,
    HEARTBEAT_FILE,
    REVIEW_PREFIX,
    CurateOutcome,
    DailyContext,
    RunState,
)


class StepFailed(HomeostatError):
    """A step cannot go on (the host did not answer clearly); the run fails with this reason."""


@dataclass(frozen=True)
class Loaded:
    """What the run starts from: the KB at the base branch's tip and the state branch."""

    kb: KB
    config: Config
    base: str
    snapshot: StateSnapshot


@dataclass(frozen=True)
class Collected:
    lessons: list[Lesson]  # pending lessons first, then those drafted from reviews
    waiting: list[Candidate]  # rules added or changed in open review PRs


def load(ctx: DailyContext, state: StateSnapshot | None = None) -> Loaded:
    """The KB at the base branch's tip and the state the run decides against (`state` when the claim
    step already read it; with --offline: the clone's working tree, and no state)."""
    if ctx.options.offline:
        assert ctx.deps.checkout is not None
        kb = load_kb_dir(ctx.deps.checkout)  # the working tree, git or not
        config = kb.require_config()
        return Loaded(kb, config, config.sources.base_branch, StateSnapshot())
    base = base_branch(ctx)
    ctx.fetch(base)
    kb = ctx.kb_at(ctx.base_tip(base))
    snapshot = state if state is not None else read_state(ctx.git, ctx.deps.remote, state_branch(base))
    return Loaded(kb, kb.require_config(), base, snapshot)


def base_branch(ctx: DailyContext) -> str:
    """The checkout's own homeostat.yaml names the base branch (`sources.baseBranch`) to fetch."""
    head = ctx.git.rev_parse("HEAD")
    if head is None:
        raise HomeostatError("the KB checkout has no commits")
    return ctx.kb_at(head).require_config().sources.base_branch


def window_start(
    ctx: DailyContext,
    config: Config,
    snapshot: StateSnapshot,
    now: dt.datetime,
    *,
    previous: Claim | None = None,
    retry_since: dt.datetime | None = None,
) -> dt.datetime:
    """Where the review window opens: --since, else the lookback, reaching back over a capped or
    failed last run (or one that left a failed shard's repos unread), over the window of a run that
    died before it recorded anything (its claim, `previous`, kept it), and to the oldest thread
    waiting to be drafted again, so no thread ages out unread."""
    start = review_window(
        config, snapshot, now, since=ctx.options.since, previous=previous, retry_since=retry_since
    )
    if ctx.options.merge_shards and ctx.options.since is None:  # as far back as the shards read
        start = min(
            [start, *finished_since(snapshot.other, ctx.options.merge_shards, last_finished(snapshot))]
        )
    return start


def review_window(
    config: Config,
    snapshot: StateSnapshot,
    now: dt.datetime,
    *,
    since: dt.datetime | None = None,
    previous: Claim | None = None,
    retry_since: dt.datetime | None = None,
) -> dt.datetime:
    """`window_start` from its parts: a drafting shard opens the window its merge job will."""
    if since is not None:
        return since
    default = now - dt.timedelta(hours=config.sources.lookback_hours)
    last = snapshot.last_run("daily")
    carried: list[dt.datetime | None] = [retry_since]
    if last is not None:
        carried += [last.capped.since if last.capped else None, last.failed.since if last.failed else None]
        carried.append(last.unread.since if last.unread else None)
    if previous is not None and not any(r.run_id == previous.run_id for r in snapshot.runs.values()):
        carried.append(previous.since)
    return min([default, *(moment for moment in carried if moment is not None)])


def collect(ctx: DailyContext, kb: KB, config: Config, run: RunState) -> Collected:
    """Every lesson not yet decided, and the rules waiting in review; heartbeats go on `run`."""
    decided_keys = run.state.decided_hashes()
    pending, run.heartbeats = collect_pending(ctx, config, decided_keys)
    waiting, waiting_cited = waiting_lessons(ctx, kb)
    reviews = drafted_reviews(ctx, kb, run, waiting_cited | decided_urls(run.state, run.since))
    return Collected(pending + [lesson for lesson in reviews if lesson.key not in decided_keys], waiting)


def drafted_reviews(ctx: DailyContext, kb: KB, run: RunState, cited: frozenset[str]) -> list[Lesson]:
    """Lessons drafted from review threads in the window; none with --no-reviews or --offline."""
    if ctx.options.no_reviews or ctx.options.offline or ctx.deps.curate is None:
        return []
    keep = merged_shards(ctx, run) if ctx.options.merge_shards else None
    try:
        outcome = ctx.deps.curate(
            kb=kb,
            since=run.since,
            until=run.started,
            extra_cited=cited,
            asker=ctx.ask("curator"),
            pool=ctx.pool("curator"),
            keep=keep,
        )
    except SpendingCapError as exc:
        outcome = CurateOutcome(capped=True)
        run.notice("spending-cap", f"spending cap reached while drafting: {exc}", ctx.out)
    except HostError as exc:
        raise StepFailed(f"the code host did not answer clearly: {exc}") from exc
    if ctx.checkpoint is not None:
        ctx.checkpoint.failed += outcome.retry
        ctx.checkpoint.done |= outcome.drafted
    if outcome.capped:
        run.capped = True
        run.notice(
            "spending-cap", "spending cap reached while drafting; later threads are read next run", ctx.out
        )
    return list(outcome.lessons)


def merged_shards(ctx: DailyContext, run: RunState) -> Callable[[RepoRef], bool]:
    """The merge job of a sharded run reads the repos of the shards that finished since the last
    finished daily run (so a merge job run again after it failed still uses them), and recalls their
    drafts from their checkpoints instead of paying again; a failed or missing shard's repos are left
    for the next run, which reads this window again (`unread` on the report)."""
    count = ctx.options.merge_shards or 1
    status = shard_status(run.state.other, count, last_finished(run.state))
    failed = [shard for shard, why in status.items() if why]
    for shard in failed:
        run.notice(
            "shard-failed",
            f"shard {shard} {status[shard]}: its repos are read again next run, from this run's window start",
            ctx.out,
        )
    if failed:
        run.unread = "shard " + ", ".join(str(shard) for shard in failed) + " did not finish"
    return lambda repo: shard_index(repo, count) not in {shard.index for shard in failed}


def last_finished(snapshot: StateSnapshot) -> dt.datetime | None:
    """When the last daily run that finished its work started (`StateSnapshot.last_finished_run`)."""
    finished = snapshot.last_finished_run()
    return finished.started_at if finished is not None else None


def collect_pending(
    ctx: DailyContext, config: Config, decided: AbstractSet[str]
) -> tuple[list[Lesson], list[Heartbeat]]:
    """Each member's undecided pending lessons and heartbeat, from their candidates branch."""
    if ctx.options.offline:
        checkout = ctx.deps.checkout
        mine = [
            from_pending(pending, pending.author)
            for _, pending in (list_pending(checkout) if checkout else [])
            if pending.content_key() not in decided
        ]
        return mine, []
    git, remote = ctx.git, ctx.deps.remote
    refs = git.run(
        "for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/{CANDIDATES_PREFIX}"
    ).stdout.decode()
    lessons: list[Lesson] = []
    heartbeats: list[Heartbeat] = []
    for ref in sorted(line for line in refs.splitlines() if line):
        member = ref.rsplit("/", 1)[-1]
        if config.member(member) is None:
            print(
                f"notice: {CANDIDATES_PREFIX}{member}: {member} is not in team.members; skipped", file=ctx.out
            )
            continue
        _read_candidates(ctx, ref, member, decided, lessons, heartbeats)
    return lessons, heartbeats


def _read_candidates(
    ctx: DailyContext,
    ref: str,
    member: str,
    decided: AbstractSet[str],
    lessons: list[Lesson],
    heartbeats: list[Heartbeat],
) -> None:
    for name, data in sorted(ctx.git.read_files(ref, ".homeostat").items()):
        path = f".homeostat/{name}"
        if path == HEARTBEAT_FILE:
            try:
                heartbeats.append(Heartbeat.model_validate_json(data))
            except ValidationError:
                print(f"notice: {ref}:{path} is not a heartbeat; ignored", file=ctx.out)
            continue
        if not path.startswith(PENDING_DIR + "/") or not path.endswith(".json"):
            continue
        try:
            pending = PendingLesson.from_json(data.decode("utf-8"))
        except (ValueError, ValidationError) as exc:
            print(
                f"notice: {ref}:{path} is not a pending lesson ({str(exc).splitlines()[0]}); skipped",
                file=ctx.out,
            )
            continue
        if pending.content_key() not in decided:
            lessons.append(from_pending(pending, member))


def waiting_lessons(ctx: DailyContext, kb: KB) -> tuple[list[Candidate], frozenset[str]]:
    """Rules added or changed in open review PRs: lessons may update or repeat them, and their URLs are cited."""
    if ctx.options.offline:
        return [], frozenset()
    git, remote = ctx.git, ctx.deps.remote
    refs = git.run(
        "for-each-ref", "--format=%(refname)", f"refs/remotes/{remote}/{REVIEW_PREFIX}"
    ).stdout.decode()
    known = {rule.id: rule for rule in kb.rules}
    waiting: list[Candidate] = []
    cited: set[str] = set()
    for ref in (line for line in refs.splitlines() if line):
        try:
            branch_kb = ctx.kb_at(ref)
        except HomeostatError:
            continue
        for rule in branch_kb.rules:
            base_rule = known.get(rule.id)
            if base_rule is not None and base_rule.rule == rule.rule and base_rule.title == rule.title:
                continue
            waiting.append(replace(candidate_from_rule(rule), waiting=True))
        cited |= cited_urls(branch_kb)
    return waiting, frozenset(cited)


def decided_urls(snapshot: StateSnapshot, since: dt.datetime) -> frozenset[str]:
    """Review threads already decided (whatever the outcome) are never drafted again. A thread in
    the window from `since` was decided after its PR merged, so after `since`: the archive is read
    only for a window that reaches back past it (a backfill)."""
    return frozenset(
        r.source.url
        for r in snapshot.records_since(since)
        if r.kind in ("review-thread", "doc") and r.source.url
    )
