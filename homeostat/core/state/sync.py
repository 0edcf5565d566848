"""What one `homeostat sync` decides, apart from doing it: who is syncing, which pending lessons the
daily run has decided, whether `candidates/<member>` needs a push, the one-time notice, and the
opt-in usage counts.

The laptop and CI meet only on git refs, so these rules are the whole contract between them:
`candidates/<member>` holds the base branch's tree plus `.homeostat/pending/<hash>.json` and
`.homeostat/heartbeat.json` (exactly what the daily run collects), and a lesson is cleared from the
clone once any decision on the state branch carries its content hash.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.config import Config, Member
from homeostat.core.events import Event
from homeostat.core.members import member_for
from homeostat.core.state.branch import DecisionRecord

CANDIDATES_PREFIX = "candidates/"
PENDING_PREFIX = ".homeostat/pending/"
HEARTBEAT_FILE = ".homeostat/heartbeat.json"
HEARTBEAT_MAX_AGE = dt.timedelta(hours=12)
# A member is syncing while their last heartbeat is this fresh (a live clone sends one every 12 hours)
SYNCING_HOURS = 48
SYNCING_WITHIN = dt.timedelta(hours=SYNCING_HOURS)
USAGE_DAYS = 7


def candidates_branch(member: str) -> str:
    return f"{CANDIDATES_PREFIX}{member}"


# --- who is syncing: the one definition the dashboard's pages and `homeostat metrics` share -------------


def is_syncing(heartbeat_at: dt.datetime | None, now: dt.datetime) -> bool:
    """A heartbeat within `SYNCING_WITHIN`. A member with none yet is not syncing, but not stopped
    either: nothing was set up on their machine yet (`counted_members` still counts them)."""
    return heartbeat_at is not None and now - heartbeat_at <= SYNCING_WITHIN


def counted_members(members: Iterable[str], heartbeats: Iterable[str]) -> list[str]:
    """Everyone whose syncing is counted: `team.members` in order, heartbeat or not, then any handle
    with a heartbeat that homeostat.yaml no longer lists."""
    handles = list(members)
    known = {handle.lower() for handle in handles}
    return handles + sorted(handle for handle in heartbeats if handle.lower() not in known)


def sync_member(config: Config, handle: str | None, email: str | None, name: str | None) -> Member | None:
    """$HOMEOSTAT_MEMBER (a handle) when set, else the member whose email, then handle or name, is the
    clone's git user. A set but unknown handle matches nobody: it is a mistake to report, not a guess."""
    return member_for(config.team.members, handle=handle, email=email, name=name)


# --- clearing what the daily run decided -----------------------------------------------------------


def decided_records(records: Iterable[DecisionRecord], keys: Iterable[str]) -> dict[str, DecisionRecord]:
    """The latest decision for each pending lesson's content hash that has one."""
    wanted = set(keys)
    latest: dict[str, DecisionRecord] = {}
    for record in records:
        if record.hash in wanted and (record.hash not in latest or record.at >= latest[record.hash].at):
            latest[record.hash] = record
    return latest


def _describe(record: DecisionRecord) -> str:
    where = f" ({record.pr.url})" if record.pr is not None else ""
    if record.outcome == "review":
        return f"“{record.title}”: waiting for a reviewer{where}"
    if record.outcome in ("declined", "duplicate"):
        why = f": {record.reason}" if record.reason else ""
        return f"“{record.title}”: {record.outcome}{why}"
    return f"“{record.title}”: {record.outcome}{where}"


def decision_notice(records: Sequence[DecisionRecord]) -> str:
    """One short paragraph for the next session: what became of the lessons this clone sent."""
    if not records:
        return ""
    lines = [f"Homeostat: the daily run decided {len(records)} of your pending lessons."]
    lines += [f"- {_describe(record)}" for record in sorted(records, key=lambda r: (r.at, r.hash))]
    return "\n".join(lines)


# --- whether to push -----------------------------------------------------------------------------


@dataclass(frozen=True)
class PushCheck:
    needed: bool
    reason: str


def push_check(
    ours: Mapping[str, bytes],
    theirs: Mapping[str, bytes] | None,
    heartbeat_at: dt.datetime | None,
    now: dt.datetime,
) -> PushCheck:
    """Push when the branch is missing, the pending set differs, or the heartbeat is 12 hours old.

    `ours` and `theirs` map pending paths to bytes (`theirs` None when the branch does not exist)."""
    if theirs is None:
        return PushCheck(True, "no candidates branch yet")
    if dict(ours) != dict(theirs):
        return PushCheck(True, "the pending lessons changed")
    if heartbeat_at is None:
        return PushCheck(True, "no heartbeat yet")
    if now - heartbeat_at >= HEARTBEAT_MAX_AGE:
        return PushCheck(True, "the heartbeat is 12 hours old")
    return PushCheck(False, "nothing changed")


def candidate_changes(
    base_paths: Iterable[str], pending: Mapping[str, bytes], heartbeat: bytes
) -> dict[str, bytes | None]:
    """The edit from the base branch's tree to the candidates tree: this clone's pending lessons and
    heartbeat, and nothing else under `.homeostat/` (a stray file committed to the base is dropped)."""
    changes: dict[str, bytes | None] = {
        path: None for path in base_paths if path.startswith(".homeostat/") and path not in pending
    }
    changes.update(pending)
    changes[HEARTBEAT_FILE] = heartbeat
    return changes


# --- opt-in usage counts -----------------------------------------------------------------------


def usage_counts(
    events: Iterable[Event], today: dt.date, days: int = USAGE_DAYS
) -> dict[dt.date, dict[str, int]]:
    """Per-day counts of the last `days` days (numbers only, never ids or text) for the heartbeat of a
    member who set `usage: true`: sessions served, prompt matches, MCP calls, turns, turns that looked
    something up, turns that credited a rule."""
    first = today - dt.timedelta(days=days - 1)
    counts: dict[dt.date, dict[str, int]] = {
        first + dt.timedelta(days=n): dict.fromkeys(USAGE_KEYS, 0) for n in range(days)
    }
    for event in events:
        day = counts.get(event.at.date())
        if day is None:
            continue
        for key in _usage_keys(event):
            day[key] += 1
    return counts


def served_rule_ids(events: Iterable[Event], since: dt.datetime) -> tuple[str, ...]:
    """The rule ids injected into or credited by this machine's sessions since `since`, sorted: with
    `usage: true` the heartbeat carries them, so the daily run can tell a rule re-taught after it was
    served from one that never reached the author. Ids only (document sections, `doc#id`, left out)."""
    ids: set[str] = set()
    for event in events:
        if event.at < since:
            continue
        field = "ids" if event.kind == "injection" else "credited" if event.kind == "turn-usage" else ""
        if field:
            ids.update(
                part for part in str(event.data.get(field) or "").split(",") if part and "#" not in part
            )
    return tuple(sorted(ids))


USAGE_KEYS = ("sessions", "promptMatches", "mcpCalls", "turns", "lookedUp", "credited")


def _usage_keys(event: Event) -> list[str]:
    data = event.data
    if event.kind == "injection":
        return ["sessions"] if data.get("source") == "session-start" else ["promptMatches"]
    if event.kind == "mcp-call":
        return ["mcpCalls"]
    if event.kind == "turn-usage":
        keys = ["turns"]
        if data.get("lookedUp"):
            keys.append("lookedUp")
        if int(data.get("credits") or 0) > 0:
            keys.append("credited")
        return keys
    return []
