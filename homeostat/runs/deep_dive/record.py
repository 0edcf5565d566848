"""Record: the run report on the state branch (never force-pushed), and what the run says at the end.

The report's `pulls` names this week's deep-dive PR, so a rerun in the same week finds it; `capped`
(and `failed`) carry the window over, so the next deep dive checks what this one could not. The
same commit releases the run's claim.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping

from homeostat.core.hosts import PullInfo
from homeostat.core.state.branch import (
    Capped,
    Cost,
    Failed,
    Outcome,
    PullRef,
    RunReport,
    dump_state,
    run_path,
    state_branch,
)
from homeostat.runs.deep_dive.find import Loaded
from homeostat.runs.deep_dive.propose import summary_line
from homeostat.runs.deep_dive.run_state import DeepDiveContext, Found


def run_report(
    ctx: DeepDiveContext,
    loaded: Loaded,
    found: Found,
    started: dt.datetime,
    run_id: str,
    pull: PullInfo | None = None,
    failed: str = "",
) -> RunReport:
    finished = ctx.now()
    health = dict(Counter(f"rules.{r.meta.status}" for r in loaded.kb.rules))
    health["documents"] = len(loaded.kb.documents)
    decided: dict[Outcome, int] = {}
    if found.merges:
        decided["duplicate"] = len(found.merges)
    if found.stale or found.code.retired:  # stale, or the code the rule names is gone
        decided["retired"] = len(found.stale) + len(found.code.retired)
    stats = ctx.deps.stats
    return RunReport(
        run_id=run_id,
        kind="deep-dive",
        started_at=started,
        finished_at=finished,
        duration_seconds=max(0.0, (finished - started).total_seconds()),
        decided=decided,
        health=health,
        notices=tuple(found.notices),
        capped=Capped(since=loaded.since) if found.capped else None,
        failed=Failed(since=loaded.since, reason=failed) if failed else None,
        cost=Cost(usd=round(stats.cost_usd, 6), estimated=stats.estimated),
        pulls=(PullRef(number=pull.number, url=pull.url, branch=pull.head_branch),) if pull else (),
    )


def write(
    ctx: DeepDiveContext, loaded: Loaded, report: RunReport, memory: Mapping[str, bytes] | None = None
) -> None:
    """The run report and the run's memory of answers, in the one commit that also releases the
    run's claim."""
    files = {run_path(report): dump_state(report), **(memory or {})}
    if ctx.claim is not None:
        files.update(ctx.claim.released())
    ctx.publisher.record(
        files, branch=state_branch(loaded.base), message=f"homeostat deep dive {report.run_id} [skip ci]"
    )
    ctx.claim = None  # released: nothing is left for an error after this to hand on


def say(ctx: DeepDiveContext, found: Found, pull: PullInfo | None) -> None:
    """The run's last line: what it did, and the PR, or that there was nothing to do."""
    line = summary_line(found)
    if pull is not None:
        print(f"deep dive: {line}; PR {pull.url} (a person merges it)", file=ctx.out)
    elif ctx.dry:
        print(f"deep dive: {line}; dry run: nothing was written", file=ctx.out)
    elif found.changes:
        print(f"deep dive: {line}; no PR opened", file=ctx.out)
    else:
        print(f"deep dive: nothing to change in the KB ({line}); no PR opened", file=ctx.out)
