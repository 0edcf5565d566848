"""How many of one member's flags the daily runs of one day merge unread (`scoring.autoMerge.flags`).

A flag is the one lesson that merges with no person in the default posture: it adds no words, but
its rule becomes `disputed` and reaches no agent until a reviewer settles the dispute PR. One
member's agent under a prompt injection could run `learn --flag` on every rule and take the whole
KB out of every agent's context in one run. So the runs of a UTC day merge at most `flags` of each
member's flags; the member's further flags go to their review PR like any other lesson, and their
rules stay served.

`decide` (core.daily.decide) sees one lesson, so the count is kept here, over the run's decisions in
the order the run reads its lessons (stable), so the same lessons always merge: the member's flags
that would merge do until they have disputed `flags` rules, and the rest wait. A flag already sent to
a person (a rule the subject gate names) or declined (a risky reason) does not use up the count.

The team's flags together are bounded the same way (`scoring.autoMerge.teamFlags`, rules a day): a
member's `candidates/<member>` branch is named for them, but anyone who can push to the KB repo can
write to it, so the per-member count alone lets one account spend every member's cap. Rules a flag
disputed count once for the team whoever flagged them.

A run counts the flags merged unread earlier that UTC day (a second run started by hand shares the
day's cap) and those after the last finished daily run ended: a run that takes over a killed one
finishes its journal first (runs.daily.recover), so the flags the killed run merged are on the state
branch and count against this run's cap as if one run had decided them all. A sharded day is one
run here too: draft jobs decide nothing, and the merge job decides every shard's lessons at once.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from homeostat.core.config import Config
from homeostat.core.daily.decide import Decision
from homeostat.core.daily.lessons import Lesson
from homeostat.core.state.branch import StateSnapshot


def cap_flags(
    decided: Sequence[tuple[Lesson, Decision]],
    merged_before: Mapping[str, AbstractSet[str]],
    config: Config,
    disputed: AbstractSet[str] = frozenset(),
) -> list[Decision]:
    """Each lesson's decision, in order, with a member's flags past `scoring.autoMerge.flags` rules
    sent to review. `merged_before` holds the rules each member's flags already disputed (the day's
    and a killed run's, see `flags_merged_before`), by lower-cased handle. What is counted is rules, as
    what the cap guards is rules taken out of agents' context: a second flag on a rule the member's
    first one disputes takes nothing more out and merges with it, and so does a flag on a rule already
    `disputed` (served to no agent)."""
    auto = config.scoring.auto_merge
    cap, team_cap = auto.flags, auto.team_flags
    wanted: dict[str, set[str]] = defaultdict(set)
    for member, rules in merged_before.items():
        wanted[member] |= rules
    for lesson, decision in decided:
        if _merges(lesson, decision) and lesson.target not in disputed:
            wanted[lesson.member.lower()].add(lesson.target)
    taken = {member: set(rules) for member, rules in merged_before.items()}
    team = set().union(*taken.values())
    team_wanted = set().union(*wanted.values())
    capped: list[Decision] = []
    for lesson, decision in decided:
        mine = taken.setdefault(lesson.member.lower(), set())
        if _merges(lesson, decision) and lesson.target not in mine and lesson.target not in disputed:
            if len(mine) >= cap:
                decision = Decision(
                    "review", flag_cap_reason(lesson, len(wanted[lesson.member.lower()]), cap)
                )
            elif lesson.target not in team and len(team) >= team_cap:
                decision = Decision("review", team_cap_reason(lesson, len(team_wanted), team_cap))
            else:
                mine.add(lesson.target)
                team.add(lesson.target)
        capped.append(decision)
    return capped


def _merges(lesson: Lesson, decision: Decision) -> bool:
    return lesson.kind == "flag" and decision.verdict == "merge"


def flag_cap_reason(lesson: Lesson, flagged: int, cap: int) -> str:
    """Why a flag past the cap waits for a person: how many rules the member flagged that day."""
    return _past_cap(lesson, "flags", cap, f"{lesson.member} flagged {flagged} rules today (UTC)")


def team_cap_reason(lesson: Lesson, flagged: int, cap: int) -> str:
    """Why a flag past the team's cap waits for a person: how many rules the team's flags named that day."""
    return _past_cap(lesson, "teamFlags", cap, f"the team's flags named {flagged} rules today (UTC)")


def _past_cap(lesson: Lesson, setting: str, cap: int, counted: str) -> str:
    if cap == 0:
        return (
            f"scoring.autoMerge.{setting} is 0: a flag takes {lesson.target} out of every agent's context"
            " only after a person reads it"
        )
    return (
        f"{counted}: more than scoring.autoMerge.{setting} ({cap}) take rules out of every agent's context"
        " only after a person reads them"
    )


def flags_merged_before(snapshot: StateSnapshot, started: dt.datetime) -> dict[str, set[str]]:
    """The rules each member's flags (by lower-cased handle) disputed unread before this run that count
    against its cap: those of the run's UTC day (a run started by hand after the scheduled one, or
    a hundred of them, shares that day's cap: an agent holding its developer's token can dispatch
    runs), and those after the last finished daily run ended (a killed run whose journal this run
    finished, even one from before midnight). A flag a reviewer merged (it was in review) was read by a
    person and does not count."""
    finished = snapshot.last_finished_run()
    ended = finished.finished_at if finished is not None else None
    day = started.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    merged: dict[str, set[str]] = defaultdict(set)
    for record in snapshot.live_records():
        if (
            record.kind == "flag"
            and record.outcome == "disputed"
            and record.review_opened_at is None
            and record.rule_id
            and (ended is None or record.at > ended or record.at >= day)
        ):
            merged[record.member.lower()].add(record.rule_id)
    return dict(merged)
