"""What `homeostat bench run` says when it is done or stopped: text for a person, JSON aggregates."""

from __future__ import annotations

from homeostat.core.asker import usd
from homeostat.runs.bench.run import RunSummary

_AGAIN = {
    "budget": "run the same command again with a larger --budget to go on",
    "rate-limit": "run the same command again once the limit has reset to go on",
    "api-error": "run the same command again to go on",
    "failed": "run the same command again to go on once the cause is fixed",
}


def render_summary(summary: RunSummary, *, tasks: int, repeats: int) -> str:
    plan = summary.plan
    already = plan.total - len(plan.pending)
    lines = [
        f"{plan.total} runs: {tasks} task(s) x {repeats} repeat(s) x plugin off and on; "
        f"{already} already done, {len(plan.pending)} to run.",
        f"Estimated {usd(plan.estimate_usd)} for the agent and judge calls"
        + (
            f" (up to {usd(plan.estimate_usd + plan.corrections_usd)} if every correction round runs)."
            if plan.corrections_usd
            else "."
        ),
    ]
    if summary.dry_run:
        lines.append("Nothing was run (--dry-run).")
        return "\n".join(lines) + "\n"
    calls = summary.calls
    lines.append(
        f"Ran {summary.done}: {len(calls)} calls, tokens {sum(c.input_tokens for c in calls):,} in, "
        f"{sum(c.output_tokens for c in calls):,} out, {sum(c.cache_creation_tokens for c in calls):,} cache write, "
        f"{sum(c.cache_read_tokens for c in calls):,} cache read; {usd(sum(c.cost_usd for c in calls))} actual vs "
        f"{usd(sum(c.estimate_usd for c in calls))} estimated."
    )
    if summary.stopped is not None:
        lines.append(
            f"Stopped: {summary.stopped.message}. {already + summary.done} of {plan.total} runs are recorded in "
            f"{summary.out}; {_AGAIN[summary.stopped.reason]}."
        )
    lines.append(f"`homeostat bench report --out {summary.out}` compares the two conditions.")
    return "\n".join(lines) + "\n"


def summary_data(summary: RunSummary, *, tasks: int, repeats: int) -> dict[str, object]:
    """Aggregates only: counts, tokens and dollars, never a prompt or an answer."""
    plan, calls = summary.plan, summary.calls
    stopped = summary.stopped
    return {
        "dryRun": summary.dry_run,
        "out": str(summary.out),
        "tasks": tasks,
        "repeats": repeats,
        "planned": plan.total,
        "alreadyDone": plan.total - len(plan.pending),
        "pending": len(plan.pending),
        "done": summary.done,
        "left": summary.left,
        "stopped": {"reason": stopped.reason, "message": stopped.message} if stopped else None,
        "estimateUsd": round(plan.estimate_usd, 6),
        "correctionsUsd": round(plan.corrections_usd, 6),
        "calls": len(calls),
        "inputTokens": sum(c.input_tokens for c in calls),
        "outputTokens": sum(c.output_tokens for c in calls),
        "cacheCreationTokens": sum(c.cache_creation_tokens for c in calls),
        "cacheReadTokens": sum(c.cache_read_tokens for c in calls),
        "costUsd": round(sum(c.cost_usd for c in calls), 6),
        "callsEstimateUsd": round(sum(c.estimate_usd for c in calls), 6),
    }
