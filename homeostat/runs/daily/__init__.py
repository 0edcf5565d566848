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

A run whose model calls all failed is not an empty run: it exits non-zero, records no decisions,
opens no PR, and the next run reads its review window again. An unclear answer from the host is
never read as "closed" or "declined".
"""

from __future__ import annotations

from homeostat.core.config import Config
from homeostat.core.daily.consolidate import Candidate
from homeostat.core.daily.lessons import Lesson
from homeostat.core.kb import KB, load_kb
from homeostat.core.state import RunReport
from homeostat.errors import HomeostatError
from homeostat.runs.daily import collect, decide, dry_run, land, record, review, settle
from homeostat.runs.daily.context import (
    CurateOutcome,
    DailyContext,
    DailyDeps,
    DailyOptions,
    DailyResult,
    Decided,
    Retirement,
    RunState,
)


class DailyRun:
    def __init__(self, deps: DailyDeps, options: DailyOptions) -> None:
        self.ctx = DailyContext(deps, options)

    def run(self) -> DailyResult:
        ctx = self.ctx
        started = ctx.now()
        loaded = collect.load(ctx)
        kb, config = loaded.kb, loaded.config
        since = collect.window_start(ctx, config, loaded.snapshot, started)
        run = RunState(started=started, since=since, base=loaded.base, state=loaded.snapshot)
        retirements = settle.settle(ctx, config, loaded.snapshot, run)
        try:
            found = collect.collect(ctx, kb, config, run)
        except collect.StepFailed as exc:
            return self._fail(run, config, str(exc))
        if ctx.tally.all_failed:
            return self._fail(run, config, "every model call failed: " + "; ".join(ctx.tally.error_messages))
        decided = self._decide_all(kb, config, found.lessons, found.waiting, run)
        if ctx.tally.all_failed:
            return self._fail(run, config, "every model call failed: " + "; ".join(ctx.tally.error_messages))
        live = [d for d in decided if not d.undecided]
        if ctx.dry:
            dry_run.print_dry_run(ctx, kb, live, retirements, run)
            return DailyResult(0, tuple(decided), (), None)
        live = self._publish(kb, config, live, retirements, run)
        report = self._record(config, live, run)
        record.summary(ctx, live)
        return DailyResult(0, tuple(decided), tuple(ctx.opened), report)

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
        base_sha = land.open_daily_prs(ctx, config, base, base_sha, live, retirements, run)
        retracted, listed = review.retractions(ctx, kb, config, retirements, run)
        live += retracted
        review.open_review_prs(ctx, config, base, base_sha, live, listed)
        review.open_dispute_prs(ctx, config, base, live, run)
        return live

    def _record(self, config: Config, live: list[Decided], run: RunState) -> RunReport:
        record.record_decisions(self.ctx, live, run)
        record.notify(self.ctx, config, run)
        report = record.run_report(self.ctx, live, run, failed=None)
        record.write_run_state(self.ctx, run, report)
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
        run.heartbeats = []
        try:
            record.write_run_state(ctx, run, report)
        except HomeostatError as exc:
            print(f"homeostat: could not record the failed run: {exc}", file=ctx.out)
        return DailyResult(1, (), (), report)


def run_daily(deps: DailyDeps, options: DailyOptions) -> DailyResult:
    return DailyRun(deps, options).run()


__all__ = ["CurateOutcome", "DailyDeps", "DailyOptions", "DailyResult", "Decided", "run_daily", "load_kb"]
