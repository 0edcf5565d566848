"""Propose: one deep-dive PR a week, which a person merges; never a second one for the same week.

The head branch is `homeostat/deep-dive-<ISO week>`. A rerun in the same week rebuilds the PR still
open there on the current base (a leased push over its branch); once this week's PR is merged or
closed, as the state branch records it, the week is done and a rerun opens nothing. An open
deep-dive PR from an earlier week is closed as superseded when this week's opens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from homeostat.core.daily.apply import ApplyError, KbEdit
from homeostat.core.daily.retract import ForAPerson
from homeostat.core.hosts import PullInfo, PullState
from homeostat.core.state.branch import state_branch
from homeostat.core.validate import new_errors
from homeostat.errors import HomeostatError, HostError
from homeostat.runs.deep_dive.find import Loaded
from homeostat.runs.deep_dive.run_state import BRANCH_PREFIX, DeepDiveContext, Found
from homeostat.runs.publish import Change, body

T = TypeVar("T")
BODY_ITEMS = 50  # per list: a KB with thousands of stale rules still fits a PR body


@dataclass(frozen=True)
class Week:
    branch: str
    title: str
    open: PullInfo | None  # this week's PR, still open: a rerun rebuilds it
    done: PullInfo | None  # this week's PR, merged or closed: a rerun opens nothing


def this_week(ctx: DeepDiveContext, loaded: Loaded) -> Week:
    branch = f"{BRANCH_PREFIX}{loaded.week}"
    title = f"Homeostat deep dive: {loaded.week}"
    if ctx.dry:
        return Week(branch, title, None, None)
    recorded = [
        pull
        for report in loaded.snapshot.runs.values()
        if report.kind == "deep-dive"
        for pull in report.pulls
        if pull.branch == branch
    ]
    host, repo = ctx.publisher.host
    for ref in sorted(recorded, key=lambda p: p.number, reverse=True)[:1]:
        pull = host.get_pull(repo, ref.number)
        if pull.state is not PullState.OPEN:
            return Week(branch, title, None, pull)
    mine = [p for p in ctx.publisher.open_pulls(BRANCH_PREFIX) if p.head_branch == branch]
    return Week(branch, title, mine[0] if mine else None, None)


def changes(ctx: DeepDiveContext, loaded: Loaded, found: Found) -> dict[str, str]:
    """The KB files the PR changes; a change that cannot apply is listed for a person instead."""
    edit = KbEdit.of(loaded.kb, ctx.today())
    for merge in found.merges:
        edit.absorb(merge.keep.id, edit.rule(merge.drop.id))
        edit.retire(merge.drop.id)
    for rule in found.stale:
        edit.retire(rule.id)
    for rule_id, _evidence in found.code.retired:
        edit.retire(rule_id)
    for c in found.contradictions:
        edit.declare_contradiction(c.rule.id, c.other)
    if found.contradictions:
        edit.recache(c.other for c in found.contradictions)
    for rewrite in list(found.rewrites):
        try:
            edit.apply_patch(rewrite.path, rewrite.patch)
        except ApplyError as exc:
            found.rewrites.remove(rewrite)
            citation = rewrite.citation
            found.listed.append(ForAPerson(citation.doc_id, citation.section_id, rewrite.rule_id, str(exc)))
    changed = edit.diff(loaded.kb.files)
    broken = new_errors(loaded.kb.files, changed, edit.today) if changed else []
    if broken:
        first = broken[0]
        raise HomeostatError(
            f"the deep dive's change does not validate ({first.file}:{first.line}: {first.message}); "
            "nothing was opened: run homeostat validate on the KB and fix it first"
        )
    return changed


@dataclass(frozen=True)
class Limited:
    items: Sequence[Any]
    more: int


def _limited(items: Sequence[T]) -> Limited:
    return Limited(items[:BODY_ITEMS], max(0, len(items) - BODY_ITEMS))


def summary_line(found: Found) -> str:
    parts = [
        (len(found.merges), "near-duplicate merged", "near-duplicates merged"),
        (len(found.contradictions), "contradiction declared", "contradictions declared"),
        (len(found.stale), "stale rule retired", "stale rules retired"),
        (len(found.code.retired), "rule retired as its code is gone", "rules retired as their code is gone"),
        (len(found.rewrites), "section retracted", "sections retracted"),
        (len(found.listed), "citation for a person", "citations for a person"),
        (len(found.notes), "document note", "document notes"),
        (sum(r.verdict == "rewrite" for r in found.retaught), "rule to rewrite", "rules to rewrite"),
        (sum(r.verdict == "selection" for r in found.retaught), "selection miss", "selection misses"),
        (len(found.skipped), "check skipped by the spending cap", "checks skipped by the spending cap"),
    ]
    said = [f"{n} {one if n == 1 else many}" for n, one, many in parts if n]
    return ", ".join(said) or "nothing to do"


def pr_body(loaded: Loaded, found: Found) -> str:
    return body(
        "deep_dive_pr.md.j2",
        week=loaded.week,
        summary=summary_line(found),
        merges=_limited(found.merges),
        contradictions=_limited(found.contradictions),
        stale=_limited(found.stale),
        stale_days=loaded.config.scoring.stale_after_days,
        rewrites=_limited(found.rewrites),
        listed=_limited(found.listed),
        skipped=_limited(found.skipped),
        unanswered=_limited(found.unanswered),
        notes=_limited(found.notes),
        rewrite=_limited([r for r in found.retaught if r.verdict == "rewrite"]),
        missed=_limited([r for r in found.retaught if r.verdict == "selection"]),
        code=found.code,
        code_retired=_limited(found.code.retired),
        code_sections=_limited(found.code.sections),
        code_undecided=_limited(found.code.undecided),
        state_branch=state_branch(loaded.base),
    )


def publish(
    ctx: DeepDiveContext, loaded: Loaded, week: Week, changed: dict[str, str], text: str, found: Found
) -> PullInfo | None:
    """Open (or rebuild) this week's PR; with nothing to change, close a stale open one instead."""
    if not changed:
        if week.open is not None and not found.capped:
            ctx.publisher.close(week.open, "Nothing to do any more: the base branch already holds this.")
        return None
    change = Change(loaded.base, loaded.base_sha, changed, week.branch, week.title, text)
    try:
        published = ctx.publisher.open(change, replace=True)
    except HostError as exc:
        raise HostError(
            f"could not open the deep-dive PR from {week.branch}: {exc}; rerunning the deep dive opens it"
        ) from exc
    areas = {m.keep.area for m in found.merges} | {r.area for r in found.stale}
    areas |= {r.area for r in loaded.kb.rules if r.id in {rule_id for rule_id, _ in found.code.retired}}
    areas |= {c.rule.area for c in found.contradictions}
    ctx.publisher.request_reviewers(published.pull, loaded.config, areas, "")
    _close_earlier_weeks(ctx, published.pull)
    return published.pull


def _close_earlier_weeks(ctx: DeepDiveContext, current: PullInfo) -> None:
    for pull in ctx.publisher.open_pulls(BRANCH_PREFIX):
        if pull.number != current.number and pull.head_branch < current.head_branch:
            ctx.publisher.close(
                pull, f"Superseded by #{current.number}, this week's deep dive on the current base."
            )
