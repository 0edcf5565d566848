"""`homeostat deep-dive`: the weekly upkeep of the KB, proposed in one PR that a person merges.

One deep dive at a time: a run first takes the base's deep-dive claim on the state branch (see
`homeostat.runs.daily.claim`); one that finds another live deep dive's claim stands aside with one
line and exits 0. The run is four steps, each a module here:

- find (`find.py`): the KB at the base's tip and the state branch; near-duplicates merged into the
  higher-scoring rule (pairs from the consolidation's overlap index and its fact guards, confirmed
  by the model); contradictions between the week's new rules and the rules they overlap; rules
  unconfirmed for `scoring.staleAfterDays` retired, and the sections citing them retracted
  (`homeostat.core.daily.retract`, shared with the daily run); document coverage notes;
- propose (`propose.py`): this week's one PR, found or opened by its head branch, never merged;
- record (`record.py`): the run report on the state branch, with the PR and any cap.

`--dry-run` (and `--show-prompts`) writes nothing. A run whose model calls all failed opens no PR
and exits non-zero; a KB with nothing to change opens no PR and says so.
"""

from __future__ import annotations

import datetime as dt

from homeostat.adapters.state.run_claim import Held
from homeostat.core.state.checkpoints import AnswerMemory
from homeostat.errors import HomeostatError
from homeostat.runs.daily.claim import RunClaim, owner_line
from homeostat.runs.deep_dive import code_check, find, memory, propose, record
from homeostat.runs.deep_dive.run_state import (
    DeepDiveContext,
    DeepDiveDeps,
    DeepDiveOptions,
    DeepDiveResult,
    Found,
)
from homeostat.runs.run_context import new_run_id


class DeepDiveRun:
    def __init__(self, deps: DeepDiveDeps, options: DeepDiveOptions) -> None:
        self.ctx = DeepDiveContext(deps, options)
        self._memory = AnswerMemory(seal=deps.stats.seal)

    def run(self) -> DeepDiveResult:
        """Claim the base's deep dive (one at a time), then run it; a run that stops on an error
        releases its claim."""
        ctx = self.ctx
        started = ctx.started = ctx.now()
        run_id = new_run_id(started)
        base = find.base_branch(ctx)
        if not ctx.dry:
            claim = RunClaim(ctx, base, run_id, kind="deep-dive")
            taken = claim.take()
            if isinstance(taken, Held):
                print(
                    f"homeostat: another deep dive is running: {owner_line(taken.claim)}; "
                    "this run leaves this week's PR to it",
                    file=ctx.out,
                )
                return DeepDiveResult(0, None, None, None, stood_aside=taken.claim.run_id)
            ctx.hold_claim(claim)  # a wait on the host (its next hour, a declared limit) renews it
        try:
            return self._run(base, started, run_id)
        except BaseException:
            if ctx.claim is not None:
                ctx.claim.abandon()
            raise
        finally:
            ctx.close()

    def _run(self, base: str, started: dt.datetime, run_id: str) -> DeepDiveResult:
        ctx = self.ctx
        loaded = find.load(ctx, base, started)
        self._memory = memory.recall(ctx, loaded.snapshot)
        ctx.use_pools(loaded.config)
        week = propose.this_week(ctx, loaded)
        if week.done is not None:
            print(
                f"deep dive: this week's PR #{week.done.number} is {week.done.state.value} ({week.done.url}); "
                "the next deep dive runs next week, so this run opens nothing",
                file=ctx.out,
            )
            if ctx.claim is not None:
                ctx.claim.release()
            return DeepDiveResult(0, None, None, None, week_done=week.done.url)
        found = find.find(ctx, loaded)
        code_check.check_code(ctx, loaded, found)  # agents.deepDive.checkCode: names still in the code?
        if ctx.tally.all_failed:
            return self._fail(loaded, found, started, run_id)
        changed = propose.changes(ctx, loaded, found)
        text = propose.pr_body(loaded, found)
        if ctx.dry:
            if not ctx.options.show_prompts:  # unsent prompts have no answers to show
                print(text, file=ctx.out)
            record.say(ctx, found, None)
            return DeepDiveResult(0, found, None, None, dry_run=True)
        if ctx.claim is not None:
            ctx.claim.hold()  # another deep dive that took over publishes instead
        pull = propose.publish(ctx, loaded, week, changed, text, found)
        report = record.run_report(ctx, loaded, found, started, run_id, pull)
        record.write(
            ctx, loaded, report, memory.memory_files(self._memory, run_id, complete=not found.capped)
        )
        record.say(ctx, found, pull)
        return DeepDiveResult(0, found, pull, report)

    def _fail(self, loaded: find.Loaded, found: Found, started: dt.datetime, run_id: str) -> DeepDiveResult:
        ctx = self.ctx
        reason = "every model call failed: " + "; ".join(ctx.tally.error_messages)
        print(f"homeostat: deep dive failed: {reason}", file=ctx.out)
        print("homeostat: no PR was opened; the next deep dive checks this week's rules again", file=ctx.out)
        ctx.notice(found, "model-failure", reason[:500])
        if ctx.dry:
            return DeepDiveResult(1, found, None, None, dry_run=True, failed=reason)
        report = record.run_report(
            ctx, loaded, Found(notices=found.notices), started, run_id, failed=reason[:500]
        )
        try:
            record.write(ctx, loaded, report, memory.memory_files(self._memory, run_id, complete=False))
        except HomeostatError as exc:
            print(f"homeostat: could not record the failed run: {exc}", file=ctx.out)
        return DeepDiveResult(1, found, None, report, failed=reason)


def run_deep_dive(deps: DeepDiveDeps, options: DeepDiveOptions) -> DeepDiveResult:
    return DeepDiveRun(deps, options).run()


__all__ = ["DeepDiveDeps", "DeepDiveOptions", "DeepDiveResult", "run_deep_dive"]
