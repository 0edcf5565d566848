"""--dry-run and --offline: the decisions table and every PR body the run would open, each with the
files it would change, built on scratch copies of the KB. Nothing is pushed, opened or recorded."""

from __future__ import annotations

from homeostat.core.daily.apply import KbEdit
from homeostat.core.daily.bodies import render
from homeostat.core.kb import KB
from homeostat.runs.daily.land import apply_landing, daily_body
from homeostat.runs.daily.record import outcome_counts
from homeostat.runs.daily.review import apply_review, review_body
from homeostat.runs.daily.run_state import DailyContext, Decided, Retirement, RunState


def print_dry_run(
    ctx: DailyContext, kb: KB, decided: list[Decided], retirements: list[Retirement], run: RunState
) -> None:
    bodies: list[str] = []
    for member in sorted({d.lesson.member for d in decided}):
        bodies += _member_bodies(ctx, kb, member, decided, retirements, run)
    print("Decisions (dry run: nothing is written):", file=ctx.out)
    ctx.out.write(render("decisions.txt.j2", decisions=decided))
    for text in bodies:
        print(text, file=ctx.out)
    print(f"daily (dry run): {outcome_counts(decided)}", file=ctx.out)


def _member_bodies(
    ctx: DailyContext,
    kb: KB,
    member: str,
    decided: list[Decided],
    retirements: list[Retirement],
    run: RunState,
) -> list[str]:
    day = ctx.today()
    mine = [d for d in decided if d.lesson.member == member]
    landing = [d for d in mine if d.verdict == "merge"]
    edit = KbEdit.of(kb, day)
    apply_landing(edit, kb, [d for d in mine if d.verdict in ("merge", "duplicate")])
    daily_files = sorted(edit.diff(kb.files))
    review_edit = KbEdit.of(kb, day)
    apply_review(review_edit, [d for d in mine if d.verdict == "review"])
    review_files = sorted(review_edit.diff(kb.files))
    bodies: list[str] = []
    if landing or any(d.verdict == "duplicate" for d in mine):
        mine_retired = [r for r in retirements if r.member == member]
        text = daily_body(
            member,
            day,
            run.base,
            landed=landing,
            reconfirmed=[d for d in mine if d.verdict == "duplicate"],
            retired=[r for r in mine_retired if r.action == "retire"],
            approved=[r for r in mine_retired if r.action == "approve"],
            contested=[r for r in mine_retired if r.action == "contest"],
            decisions=mine,
        )
        bodies.append(f"\n--- daily PR for {member}, changing:\n{_listing(daily_files)}\n{text}")
    review = [d for d in mine if d.verdict == "review"]
    if review:
        text = review_body(member, day, review, [])
        bodies.append(f"\n--- review PR for {member}, changing:\n{_listing(review_files)}\n{text}")
    return bodies


def _listing(paths: list[str]) -> str:
    return "".join(f"  {path}\n" for path in paths)
