"""Recover: finish or undo what a killed (or failed) run left, before this run decides anything.

From the dead run's journal, each PR it was about to push ends as one clean run would have left it:
a daily PR that merged gets its records (a flag it merged whose dispute PR it had not opened gets
one: `disputes_owed`); one still open is merged now (or, refused, counts as
review); a review or dispute PR that opened is adopted with its records; a branch pushed before its
PR opened is deleted, and its lessons, never recorded, are decided again by this run.

Then reconcile: an open Homeostat PR on this base that no record explains (an older version's
crash) is closed with a comment and its branch deleted; a `homeostat/daily-` or `homeostat/review-`
branch with no open PR is deleted once it is older than a claim lives. Each is reported.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from homeostat.core.hosts import PullInfo, same_commit
from homeostat.core.state.branch import Claim, DecisionRecord, JournalEntry, PullRef, StateSnapshot
from homeostat.runs.daily.claim import CLAIM_TTL
from homeostat.runs.daily.run_state import DAILY_PREFIX, REVIEW_PREFIX, DailyContext, Retirement
from homeostat.runs.publish import Change, Published


def recover(ctx: DailyContext, base: str, dead: Claim) -> tuple[dict[str, list[DecisionRecord]], list[str]]:
    """The records the dead run's journal settles, by member, and a line for each PR it touched."""
    records: dict[str, list[DecisionRecord]] = defaultdict(list)
    lines: list[str] = []
    ctx.fetch(base)
    for entry in dead.journal:
        for record in _finish(ctx, base, dead, entry, lines):
            records[record.member].append(record)
    return records, lines


def disputes_owed(state: StateSnapshot) -> list[Retirement]:
    """The rules a merged flag disputed that no dispute PR has followed since: a run stopped after
    its daily PR merged (once, or again while finishing the first), or a spending cap left the
    fix for a later run. A disputed rule reaches no agent until a reviewer settles its dispute PR,
    so this run opens it, as for a flag a reviewer merged (`open_dispute_prs`, which opens one only
    while the rule is still disputed on the base). Read from the recorded state, not a dead run's
    journal, so a second stop in a row forgets nothing; a dispute PR a reviewer just closed has its
    record, so it is never opened again. A review PR merged with no second person's reading disputed
    its rules the same way (`settle`): those are flagged again should the daily PR not have landed
    (`contest` leaves a rule already disputed as it is)."""
    flagged: dict[str, DecisionRecord] = {}
    last_dispute: dict[str, dt.datetime] = {}
    for record in state.live_records():  # oldest first
        if not record.rule_id:
            continue
        if record.outcome == "disputed":
            flagged[record.rule_id] = record
        elif record.kind == "dispute":
            last_dispute[record.rule_id] = record.at
    return [
        _owed(rule_id, record)
        for rule_id, record in flagged.items()
        if rule_id not in last_dispute or last_dispute[rule_id] < record.at
    ]


def _owed(rule_id: str, record: DecisionRecord) -> Retirement:
    """A flag's dispute PR, or, for a merge no second person read, its rule flagged again first."""
    if record.kind == "flag":
        return Retirement(rule_id, record.member, "flag merged with no dispute PR yet", action="dispute")
    return Retirement(rule_id, record.member, record.reason, action="contest")


def _finish(
    ctx: DailyContext, base: str, dead: Claim, entry: JournalEntry, lines: list[str]
) -> list[DecisionRecord]:
    publisher = ctx.publisher
    still_open = [p for p in publisher.open_pulls(entry.branch) if p.head_branch == entry.branch]
    if still_open and entry.kind == "daily":
        return _land_left(ctx, base, dead, entry, still_open[0], lines)
    if still_open:
        lines.append(f"adopted {entry.kind} PR #{still_open[0].number} left open by run {dead.run_id}")
        return _with_pr(entry, still_open[0])
    merged = publisher.merged_since(base, dead.base_tip, entry.title) if dead.base_tip else None
    if merged is not None and merged.head_branch == entry.branch:
        publisher.delete_branch(entry.branch)
        lines.append(f"recorded daily PR #{merged.number} that run {dead.run_id} merged")
        return _with_pr(entry, merged)
    if publisher.branches(entry.branch).get(entry.branch):
        publisher.delete_branch(entry.branch)
    lines.append(f"undid {entry.branch} that run {dead.run_id} pushed before opening its PR")
    return []


def _land_left(
    ctx: DailyContext, base: str, dead: Claim, entry: JournalEntry, pull: PullInfo, lines: list[str]
) -> list[DecisionRecord]:
    """Merge the daily PR the dead run opened, at the commit its journal names; a refusal turns its
    merged lessons into review. A PR whose branch moved since (anyone who can push to the KB repo can
    push to it) is closed unmerged and its lessons are decided again: a daily PR merges with no person
    reading it, so it merges only what a run decided."""
    if not pull.head_sha or not same_commit(pull.head_sha, entry.sha):
        ctx.publisher.close(
            pull,
            f"Closed by Homeostat: this branch moved after run {dead.run_id} pushed {entry.sha[:12]}, and a"
            " daily PR merges with no person reading it, so only what a run pushed is merged. Its lessons"
            " are decided again.",
        )
        lines.append(
            f"closed daily PR #{pull.number} that run {dead.run_id} left open: its branch moved after that"
            " run pushed it; its lessons are decided again"
        )
        return []
    change = Change(base, dead.base_tip, {}, entry.branch, entry.title, "")
    merged = ctx.publisher.land(
        Published(change, entry.sha, pull),
        f"{entry.title} (#{pull.number})",
        entry.merge_message,
    )
    if merged.merged:
        lines.append(f"merged daily PR #{pull.number} that run {dead.run_id} left open")
        return _with_pr(entry, pull)
    lines.append(
        f"daily PR #{pull.number} left by run {dead.run_id} was not merged ({merged.reason}); it stays open"
    )
    ref = _ref(pull)
    refused = [
        r.model_copy(
            update={
                "outcome": "review",
                "state": "in-review",
                "settled_at": None,
                "review_opened_at": r.at,
                "reason": f"the host refused the daily merge: {merged.reason}",
                "pr": ref,
            }
        )
        if r.outcome in ("merged", "updated", "disputed")
        else r
        for r in entry.records
    ]
    return refused + list(entry.settled)


def _with_pr(entry: JournalEntry, pull: PullInfo) -> list[DecisionRecord]:
    ref = _ref(pull)
    return [r.model_copy(update={"pr": ref}) for r in entry.records] + list(entry.settled)


def _ref(pull: PullInfo) -> PullRef:
    return PullRef(number=pull.number, url=pull.url, branch=pull.head_branch)


def reconcile(ctx: DailyContext, base: str, state: StateSnapshot) -> list[str]:
    """Close open Homeostat PRs no record explains; delete stale branches without a PR."""
    publisher = ctx.publisher
    explained = {r.pr.number for r in state.open_records() if r.pr is not None}
    ours = [
        p
        for p in publisher.open_pulls("homeostat/")
        if p.head_branch.startswith((DAILY_PREFIX, REVIEW_PREFIX)) and p.base_branch == base
    ]
    lines: list[str] = []
    for pull in ours:
        if pull.number not in explained:
            publisher.close(
                pull,
                "Closed by Homeostat: no decision record explains this PR, so its lessons are decided again.",
            )
            lines.append(f"closed PR #{pull.number} ({pull.head_branch}): no record explains it")
    keep = {p.head_branch for p in ours if p.number in explained}
    cutoff = ctx.now() - CLAIM_TTL
    for branch, sha in publisher.branches("homeostat/").items():
        if branch in keep or not branch.startswith((DAILY_PREFIX, REVIEW_PREFIX)):
            continue
        if _committed(ctx, sha) < cutoff:
            publisher.delete_branch(branch)
            lines.append(f"deleted {branch}: no open PR uses it")
    return lines


def _committed(ctx: DailyContext, sha: str) -> dt.datetime:
    """When a branch's commit was made; now (so never stale) when this clone lacks it."""
    done = ctx.git.run("log", "-1", "--format=%ct", sha, check=False)
    text = done.stdout.decode().strip()
    if done.returncode != 0 or not text.isdigit():
        return ctx.now()
    return dt.datetime.fromtimestamp(int(text), dt.UTC)
