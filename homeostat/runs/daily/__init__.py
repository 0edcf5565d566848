"""`homeostat daily`: the one scheduled job. Decide every member's lessons and land them by PR.

The run is five steps, each a module here:

- settle (`settle.py`): review PRs from earlier runs that a person merged or closed;
- collect (`collect.py`): the KB and state, pending lessons from `candidates/<member>` and lessons
  drafted from reviews on the members' merged PRs, skipping anything already decided;
- decide (`decide.py`): consolidate, score, validate and judge each lesson;
- publish (`land.py`, `review.py`, through `homeostat.runs.publish`): one daily PR per member,
  squash-merged; then one review PR per member for the middle band and one dispute PR per disputed
  rule;
- record (`record.py`): decisions, heartbeats and the run report on the state branch, never
  force-pushed, and the review queue to Slack.

Around them, overlaps and crashes (`claim.py`, `recover.py`): a run first claims the base's
lessons on the state branch (a run that finds another live claim stands aside, exit 0), finishes
what a dead run's journal left, and writes ahead each PR before pushing it; its last state write
releases the claim.

A run whose model calls all failed is not an empty run: it exits non-zero, records no decisions,
opens no PR, and the next run reads its review window again. An unclear answer from the host is
never read as "closed" or "declined".

Model calls go through the run's pools (homeostat.runs.model_pool), several at once, their answers
applied in order. While it waits for them the run renews its claim and writes its checkpoints
(`checkpoint.py`): every answer it paid for, so a run stopped anywhere (a signal, the job's timeout,
an error past its retries) records a failed run report with its window and leaves its answers and
its retry list for the next run, which decides every lesson without paying for them again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TypeVar

from homeostat.adapters.state.run_claim import ClaimLost, Held, Taken
from homeostat.adapters.state.state_store import read_state
from homeostat.core.config import Config
from homeostat.core.daily.consolidate import Candidate
from homeostat.core.daily.lessons import Lesson
from homeostat.core.kb import KB, load_kb
from homeostat.core.state.branch import Claim, Notice, RunReport, StateSnapshot, state_branch
from homeostat.errors import HomeostatError
from homeostat.runs.daily import collect, decide, dry_run, land, record, recover, review, settle
from homeostat.runs.daily.checkpoint import Checkpoint
from homeostat.runs.daily.claim import RunClaim, owner_line
from homeostat.runs.daily.run_state import (
    CurateOutcome,
    DailyContext,
    DailyDeps,
    DailyOptions,
    DailyResult,
    Decided,
    Retirement,
    RunState,
)
from homeostat.runs.run_context import new_run_id

T = TypeVar("T")


class DailyRun:
    def __init__(self, deps: DailyDeps, options: DailyOptions) -> None:
        self.ctx = DailyContext(deps, options)
        self._previous: Claim | None = None  # the claim this run took over
        self._run_state: RunState | None = None  # once the run knows its window

    def run(self) -> DailyResult:
        ctx = self.ctx
        started = ctx.started = ctx.now()
        run_id = new_run_id(started)
        early: list[Notice] = []
        state: StateSnapshot | None = None
        if not (ctx.dry or ctx.options.offline):
            base = collect.base_branch(ctx)
            claim = RunClaim(ctx, base, run_id)
            taken = claim.take()
            if isinstance(taken, Held):
                return self._stand_aside(base, started, run_id, taken.claim)
            ctx.hold_claim(claim)  # a wait on the host (its next hour, a declared limit) renews it
            self._previous = taken.previous
            state, early = self._guarded(lambda: self._recover(base, taken))
        try:
            return self._guarded(lambda: self._run(started, run_id, state, early))
        finally:
            ctx.close()

    def _guarded(self, step: Callable[[], T]) -> T:
        """A run that stops on an error (or a signal) releases its claim and keeps its journal for the
        next run, in one write with a failed run report and its checkpoints, so the next run reads
        its window again and recalls every answer it paid for."""
        try:
            return step()
        except BaseException as exc:
            self.ctx.deps.stats.ledger.halt()  # no new call starts while the run records where it stopped
            if self.ctx.pools is not None:
                self.ctx.pools.close()
            if self.ctx.claim is not None:
                self.ctx.claim.abandon(None if isinstance(exc, ClaimLost) else self._failure_files(exc))
            raise

    def _failure_files(self, exc: BaseException) -> dict[str, bytes] | None:
        """The failed run's report and checkpoints, or None before the run knew its window."""
        ctx, run = self.ctx, self._run_state
        if run is None or ctx.checkpoint is None:
            return None
        if isinstance(exc, KeyboardInterrupt):
            reason = "interrupted (a signal, or the job's time limit) before it finished"
        else:
            reason = " ".join(str(exc).split())[:400] or type(exc).__name__
        print(f"homeostat: daily run stopped: {reason}; the next run reads this window again", file=ctx.out)
        report = record.failed_report(ctx, run, reason)
        return {**ctx.checkpoint.files(), **record.report_file(report)}

    def _recover(self, base: str, taken: Taken) -> tuple[StateSnapshot, list[Notice]]:
        """Finish a dead run's journal, then reconcile what no record explains; the state to start from."""
        ctx, state, notices = self.ctx, taken.state, []
        if taken.previous is not None and taken.previous.journal and ctx.claim is not None:
            records, lines = recover.recover(ctx, base, taken.previous)
            ctx.claim.settle_journal(record.decision_files(records))
            state = read_state(ctx.git, ctx.deps.remote, state_branch(base))
            notices += [Notice(kind="recovered", message=line) for line in lines]
        notices += [Notice(kind="reconciled", message=line) for line in recover.reconcile(ctx, base, state)]
        for notice in notices:
            print(f"notice: {notice.message}", file=ctx.out)
        return state, notices

    def _stand_aside(self, base: str, started: dt.datetime, run_id: str, owner: Claim) -> DailyResult:
        """Another live run owns the lessons: say so, record this run, decide nothing."""
        ctx = self.ctx
        line = (
            "another run owns these lessons: they are decided by an overlapping run, "
            f"{owner_line(owner)}; this run leaves them to it"
        )
        print(f"homeostat: {line}", file=ctx.out)
        ctx.fetch(base)
        run = RunState(started=started, since=started, base=base, state=StateSnapshot(), run_id=run_id)
        run.notices.append(Notice(kind="overlap", message=line))
        report = record.run_report(ctx, [], run, failed=None)
        record.write_run_state(ctx, run, report)
        return DailyResult(0, (), (), report)

    def _run(
        self, started: dt.datetime, run_id: str, state: StateSnapshot | None, early: list[Notice]
    ) -> DailyResult:
        ctx = self.ctx
        loaded = collect.load(ctx, state)
        kb, config = loaded.kb, loaded.config
        checkpoint = ctx.checkpoint = Checkpoint(loaded.snapshot.other, run_id, ctx.deps.stats.seal)
        if not ctx.options.show_prompts:
            ctx.deps.stats.memory = checkpoint.memory
            ctx.use_pools(config, tick=self._tick)
        since = collect.window_start(
            ctx,
            config,
            loaded.snapshot,
            started,
            previous=self._previous,
            retry_since=checkpoint.oldest_retry(),
        )
        run = RunState(started=started, since=since, base=loaded.base, state=loaded.snapshot, run_id=run_id)
        run.notices += early
        self._run_state = run
        if ctx.claim is not None:
            ctx.claim.note_window(since)
        retirements = settle.settle(ctx, config, loaded.snapshot, run)
        try:
            found = collect.collect(ctx, kb, config, run)
        except collect.StepFailed as exc:
            return self._fail(run, config, str(exc))
        if ctx.tally.all_failed:
            return self._fail(run, config, "every model call failed: " + "; ".join(ctx.tally.error_messages))
        self.ctx.renew_claim()
        decided = self._decide_all(kb, config, found.lessons, found.waiting, run)
        ctx.deps.stats.ledger.release_all()  # what undecided lessons set aside goes back to the run
        if ctx.tally.all_failed:
            return self._fail(run, config, "every model call failed: " + "; ".join(ctx.tally.error_messages))
        live = [d for d in decided if not d.undecided]
        if ctx.dry:
            dry_run.print_dry_run(ctx, kb, live, retirements, run)
            return DailyResult(0, tuple(decided), (), None)
        self.ctx.renew_claim()
        live = self._publish(kb, config, live, retirements, run)
        report = self._record(kb, config, live, run)
        record.summary(ctx, live)
        return DailyResult(0, tuple(decided), tuple(ctx.opened), report)

    def _tick(self) -> None:
        """While the run waits for answers: write the answers paid for since the last write (which
        renews the claim), or renew the claim when it is due."""
        ctx = self.ctx
        if ctx.claim is None or ctx.checkpoint is None:
            return
        if ctx.checkpoint.due():
            ctx.claim.hold(ctx.checkpoint.files())
            ctx.checkpoint.written()
        else:
            ctx.claim.renew_if_due()

    def _decide_all(
        self, kb: KB, config: Config, lessons: list[Lesson], waiting: list[Candidate], run: RunState
    ) -> list[Decided]:
        return decide.decide_all(self.ctx, kb, config, lessons, waiting, run)

    def _publish(
        self, kb: KB, config: Config, live: list[Decided], retirements: list[Retirement], run: RunState
    ) -> list[Decided]:
        """Daily PRs first (each merged), then review and dispute PRs level with the new base."""
        ctx, base = self.ctx, run.base
        live, base_sha = land.drop_overlap(ctx, base, live, run)
        # flags a reviewer merged, merges no second person read, and those settled earlier whose
        # dispute PR never opened; the daily PR flags the rules of the unread merges first
        asked = retirements + recover.disputes_owed(run.state)
        confirmed = [r for r in asked if r.action in ("dispute", "contest")]
        changes = [r for r in asked if r.action != "dispute"]
        base_sha = land.open_daily_prs(ctx, config, base, base_sha, live, changes, run)
        retracted, listed = review.retractions(ctx, kb, config, changes, run)
        live += retracted
        review.open_review_prs(ctx, config, base, base_sha, live, listed)
        review.open_dispute_prs(ctx, config, base, live, run, confirmed)
        return live

    def _record(self, kb: KB, config: Config, live: list[Decided], run: RunState) -> RunReport:
        record.record_decisions(self.ctx, live, run)
        record.record_repeats(self.ctx, kb, live, run)
        checkpoints = record.final_checkpoints(self.ctx, run)
        record.notify(self.ctx, config, run)
        report = record.run_report(self.ctx, live, run, failed=None)
        record.write_run_state(self.ctx, run, report, checkpoints)
        return report

    def _fail(self, run: RunState, config: Config, reason: str) -> DailyResult:
        ctx = self.ctx
        print(f"homeostat: daily run failed: {reason}", file=ctx.out)
        print(
            "homeostat: no decisions were recorded and no PR was opened; the next run reads this window again",
            file=ctx.out,
        )
        run.notice("model-failure", reason[:500], ctx.out)
        if ctx.dry or ctx.options.offline:
            return DailyResult(1, (), (), None)
        report = record.run_report(ctx, [], run, failed=reason[:500])
        run.records.clear()
        run.repeats.clear()
        run.heartbeats = []
        try:
            record.write_run_state(ctx, run, report, ctx.checkpoint.files() if ctx.checkpoint else {})
        except HomeostatError as exc:
            print(f"homeostat: could not record the failed run: {exc}", file=ctx.out)
        return DailyResult(1, (), (), report)


def run_daily(deps: DailyDeps, options: DailyOptions) -> DailyResult:
    return DailyRun(deps, options).run()


__all__ = ["CurateOutcome", "DailyDeps", "DailyOptions", "DailyResult", "Decided", "run_daily", "load_kb"]
