"""What each dashboard page shows, computed from one `Inputs` bundle: the clone's copy of the state
branch, this machine's event log, the KB as checked out, and `up`'s schedule locks.

Everything here is pure and is what the tests check; `html` only lays it out. The Performance page
is `homeostat.core.measure.metrics.compute_metrics`, the code `homeostat metrics` prints, so the two agree.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.events import Event
from homeostat.core.kb import KB
from homeostat.core.measure.metrics import Metrics, compute_metrics
from homeostat.core.schedule.cron import parse_cron
from homeostat.core.schedule.host_schedules import CronError
from homeostat.core.schedule.up import ScheduleLock
from homeostat.core.schema import Rule
from homeostat.core.served import served_doc_meta, served_line, served_value
from homeostat.core.state.branch import RunReport, StateSnapshot
from homeostat.core.state.sync import SYNCING_HOURS, counted_members, is_syncing

GRACE = dt.timedelta(hours=1)  # a job counts as late this long after a slot it has not run for
WINDOW_DAYS = 30
EVENTS_SHOWN = 300


@dataclass(frozen=True)
class Inputs:
    now: dt.datetime
    config: Config
    kb: KB | None
    snapshot: StateSnapshot
    events: Sequence[Event] = ()
    locks: Mapping[str, ScheduleLock] = field(default_factory=dict)
    branch: str = "homeostat/state"
    accepted: frozenset[str] | None = None  # the rules sessions are served, as `homeostat metrics` reads them
    # when homeostat.yaml was first committed: no job can be late for a slot before it (None: not yet)
    set_up: dt.datetime | None = None


def _age(now: dt.datetime, then: dt.datetime | None) -> str:
    if then is None:
        return "never"
    seconds = max(0, int((now - then).total_seconds()))
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} days ago"


def _when(moment: dt.datetime | None) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if moment else ""


# --- overview: is each agent alive ---------------------------------------------------------------


@dataclass(frozen=True)
class Liveness:
    job: str
    last: str
    age: str
    outcome: str
    ok: bool
    late: bool
    schedule: str
    up: str  # what `up`'s lock says, when a box runs the schedule
    due: str = ""  # a job that never ran and is not late: when its first run is due


def _late(cron_text: str, now: dt.datetime, last: dt.datetime | None, set_up: dt.datetime | None) -> bool:
    """A slot of the job's schedule passed (plus `GRACE`) with no run since: since the last run, or
    for a job that never ran, since the KB was set up (a KB not committed yet cannot have run)."""
    since = last or set_up
    if since is None:
        return False
    try:
        expected = parse_cron(cron_text).latest_slot(now - GRACE, max(since, now - dt.timedelta(days=32)))
    except CronError:
        return False
    return expected is not None


def next_run(cron_text: str, now: dt.datetime) -> str:
    """When the schedule next fires, as the pages write a time ('' for a cron that cannot be read)."""
    try:
        return _when(parse_cron(cron_text).next_slot(now))
    except CronError:
        return ""


def _liveness_row(
    inputs: Inputs, job: str, cron: str, at: dt.datetime | None, outcome: str, ok: bool
) -> Liveness:
    now = inputs.now
    late = _late(cron, now, at, inputs.set_up)
    due = next_run(cron, now) if at is None and not late else ""
    lock = _lock_line(inputs.locks.get(job), now)
    return Liveness(job, _when(at), _age(now, at), outcome, ok, late, cron, lock, due)


def _run_outcome(report: RunReport | None) -> tuple[str, bool]:
    if report is None:
        return "no run recorded", False
    if report.failed is not None:
        return f"failed: {report.failed.reason}", False
    decided = (
        ", ".join(f"{n} {outcome}" for outcome, n in sorted(report.decided.items())) or "nothing decided"
    )
    capped = "; stopped at the spending cap" if report.capped else ""
    return f"ok: {decided}{capped}", True


def _lock_line(lock: ScheduleLock | None, now: dt.datetime) -> str:
    if lock is None:
        return ""
    who = f"{lock.owner.host} (pid {lock.owner.pid})"
    if lock.finished_at is None:
        state = "running" if lock.held(now) else "died unfinished"
        return f"slot {_when(lock.slot)} {state} on {who}"
    return f"slot {_when(lock.slot)} ran on {who}, exit {lock.exit_code}"


def digests(snapshot: StateSnapshot) -> Mapping[str, Any]:
    """The digest records (`digests/<date>.json`) where this Homeostat's state model has them."""
    found: Mapping[str, Any] = getattr(snapshot, "digests", {}) or {}
    return found


def liveness(inputs: Inputs) -> list[Liveness]:
    snap, schedules = inputs.snapshot, inputs.config.agents.schedules
    rows = []
    for job, cron in (("daily", schedules.daily), ("deep-dive", schedules.deep_dive)):
        report = snap.last_run(job)  # type: ignore[arg-type]
        outcome, ok = _run_outcome(report)
        rows.append(_liveness_row(inputs, job, cron, report.started_at if report else None, outcome, ok))
    records = sorted(digests(snap).values(), key=lambda record: record.until)
    last = records[-1] if records else None
    outcome = "no digest recorded" if last is None else ("posted to Slack" if last.posted else "not posted")
    at = last.until if last else None
    rows.append(_liveness_row(inputs, "digest", schedules.digest, at, outcome, bool(last and last.posted)))
    return rows


def first_look(inputs: Inputs) -> dict[str, str] | None:
    """For a KB where no job has run yet, and none was due: when the first daily run is, instead of
    alarms (a daily run that missed its slot is flagged late in the table instead)."""
    if inputs.snapshot.runs or digests(inputs.snapshot):
        return None
    cron = inputs.config.agents.schedules.daily
    if _late(cron, inputs.now, None, inputs.set_up):
        return None
    return {"daily": next_run(cron, inputs.now), "cron": cron}


def overview(inputs: Inputs) -> dict[str, Any]:
    kb = inputs.kb
    statuses = Counter(rule.meta.status for rule in kb.rules) if kb else Counter()
    sync = sync_health(inputs)
    return {
        "liveness": liveness(inputs),
        "statuses": sorted(statuses.items()),
        "rules": sum(statuses.values()),
        "documents": len(kb.documents) if kb else 0,
        "in_review": len(review_queue(inputs)),
        "overdue": sum(item.overdue for item in review_queue(inputs)),
        "not_syncing": [row.member for row in sync if row.stopped],
        "no_heartbeat": [row.member for row in sync if not row.last],
        "syncing_hours": SYNCING_HOURS,
        "first_look": first_look(inputs),
        "state_commit": inputs.snapshot.commit or "",
        "branch": inputs.branch,
    }


# --- automation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueueItem:
    member: str
    title: str
    kind: str
    confidence: int
    pr: str
    pr_number: int | None
    opened: str
    age_days: int
    overdue: bool


@dataclass(frozen=True)
class SyncRow:
    member: str
    last: str
    age: str
    behind: str
    pending: str
    version: str
    version_differs: bool
    syncing: bool  # core.state.sync.is_syncing, as `homeostat metrics` counts it

    @property
    def stopped(self) -> bool:
        """It synced once and has not for `SYNCING_HOURS`: worth a flag, unlike no heartbeat yet."""
        return bool(self.last) and not self.syncing


def review_queue(inputs: Inputs) -> list[QueueItem]:
    limit = dt.timedelta(days=inputs.config.notifications.review_overdue_days)
    items = []
    for record in inputs.snapshot.open_records():
        if record.state != "in-review":
            continue
        opened = record.review_opened_at or record.at
        waited = inputs.now - opened
        items.append(
            QueueItem(
                member=served_value("handle", record.member),
                title=served_line(record.title),
                kind=record.kind,
                confidence=record.confidence,
                pr=record.pr.url if record.pr else "",
                pr_number=record.pr.number if record.pr else None,
                opened=_when(opened),
                age_days=max(0, waited.days),
                overdue=waited > limit,
            )
        )
    return sorted(items, key=lambda item: (-item.age_days, item.member, item.title))


def sync_health(inputs: Inputs) -> list[SyncRow]:
    beats = {handle.lower(): beat for handle, beat in inputs.snapshot.heartbeats.items()}
    members = counted_members((m.handle for m in inputs.config.team.members), inputs.snapshot.heartbeats)
    rows = []
    for handle in members:
        beat = beats.get(handle.lower())
        at = beat.at if beat else None
        rows.append(
            SyncRow(
                member=handle,
                last=_when(at),
                age=_age(inputs.now, at),
                behind="" if beat is None or beat.behind is None else str(beat.behind),
                pending="" if beat is None else str(beat.pending),
                version=beat.homeostat_version if beat else "",
                version_differs=bool(beat and beat.homeostat_version != inputs.config.version),
                syncing=is_syncing(at, inputs.now),
            )
        )
    return rows


def run_rows(inputs: Inputs) -> list[RunReport]:
    return sorted(inputs.snapshot.runs.values(), key=lambda report: report.started_at, reverse=True)


def automation(inputs: Inputs) -> dict[str, Any]:
    return {
        "runs": run_rows(inputs),
        "queue": review_queue(inputs),
        "overdue_days": inputs.config.notifications.review_overdue_days,
        "sync": sync_health(inputs),
    }


# --- performance ---------------------------------------------------------------------------------


def performance(inputs: Inputs, days: int = WINDOW_DAYS) -> Metrics:
    """`homeostat metrics`' own computation over the same inputs."""
    members = [m.handle for m in inputs.config.team.members]
    return compute_metrics(inputs.snapshot, inputs.events, inputs.now, days, inputs.accepted, members)


# --- entries -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntryRow:
    id: str
    title: str
    area: str
    topic: str
    status: str
    kind: str
    score: str
    flags: int


def _matching(rules: Iterable[Rule], words: Sequence[str], area: str, status: str, kind: str) -> list[Rule]:
    """The rules every given filter matches (an empty one matches all), sorted by area and id."""
    return sorted(
        (
            r
            for r in rules
            if (not area or r.area == area)
            and (not status or r.meta.status == status)
            and (not kind or (r.meta.kind or "") == kind)
            and _matches(r, words)
        ),
        key=lambda r: (r.area, r.id),
    )


def _entry_row(r: Rule) -> EntryRow:
    """A rule's row in the list, its texts as `core.served` shows them: a rule's fields are written
    by whoever taught it, and the page must not render them raw."""
    return EntryRow(
        r.id,
        served_line(r.title),
        served_value("name", r.area),
        served_value("name", r.meta.topic or ""),
        r.meta.status,
        r.meta.kind or "",
        "" if r.meta.score is None else str(r.meta.score),
        len(r.meta.open_flags),
    )


def _matches(rule: Rule, words: Sequence[str]) -> bool:
    text = f"{rule.id}\n{rule.title}\n{rule.rule}\n{rule.why}".lower()
    return all(word in text for word in words)


PER_PAGE = 100
PAGE_SIZES = (50, 100, 200, 500)


def _number(text: str, default: int, low: int, high: int) -> int:
    """A page or page size from the query string: a number, held to [low, high]; else `default`."""
    return max(low, min(high, int(text))) if text.strip().isdigit() and len(text) < 10 else default


@dataclass(frozen=True)
class PageLink:
    label: str
    href: str  # "" for the page shown and for a gap
    current: bool = False


def _pager(filters: Mapping[str, str], page: int, pages: int, per: int) -> list[PageLink]:
    """First, previous, the pages around this one (gaps marked …), next and last."""

    def href(number: int) -> str:
        query = {k: v for k, v in filters.items() if v}
        if per != PER_PAGE:
            query["per"] = str(per)
        if number > 1:
            query["page"] = str(number)
        return "/entries" + (f"?{urlencode(query)}" if query else "")

    if pages <= 1:
        return []
    links = [
        PageLink("« first", href(1) if page > 1 else ""),
        PageLink("‹ previous", href(page - 1) if page > 1 else ""),
    ]
    shown = sorted({1, pages, *range(max(1, page - 2), min(pages, page + 2) + 1)})
    for before, number in zip([0, *shown], shown, strict=False):
        if number - before > 1:
            links.append(PageLink("…", ""))
        links.append(PageLink(str(number), "" if number == page else href(number), number == page))
    links += [
        PageLink("next ›", href(page + 1) if page < pages else ""),
        PageLink("last »", href(pages) if page < pages else ""),
    ]
    return links


def entries(
    inputs: Inputs,
    query: str = "",
    area: str = "",
    status: str = "",
    kind: str = "",
    page: str = "",
    per: str = "",
) -> dict[str, Any]:
    """The rules matching the filters, sorted by area and id, one page of them at a time (a KB of
    5,000 rules is no 1 MB page); `page` and `per` come from the query string as they are."""
    rules = inputs.kb.rules if inputs.kb else ()
    matched = _matching(rules, query.lower().split(), area, status, kind)
    size = _number(per, PER_PAGE, 10, max(PAGE_SIZES))
    pages = max(1, -(-len(matched) // size))
    number = _number(page, 1, 1, pages)
    first = (number - 1) * size
    shown = [_entry_row(r) for r in matched[first : first + size]]
    filters = {"q": query, "area": area, "status": status, "kind": kind}
    return {
        "rows": shown,
        "matched": len(matched),
        "first": first + 1 if shown else 0,
        "last": first + len(shown),
        "page": number,
        "pages": pages,
        "per": size,
        "sizes": sorted({*PAGE_SIZES, size}),
        "pager": _pager(filters, number, pages, size),
        "total": len(rules),
        "areas": sorted({r.area for r in rules} | set(inputs.config.area_names())),
        "statuses": sorted({r.meta.status for r in rules}),
        "kinds": sorted({r.meta.kind for r in rules if r.meta.kind}),
        "query": query,
        "area": area,
        "status": status,
        "kind": kind,
        "filtered": any(filters.values()),
        "readable": inputs.kb is not None,
    }


# --- members -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MemberRow:
    handle: str
    name: str
    role: str
    teams: str
    rules: int
    decided: str
    sync: SyncRow | None


def members(inputs: Inputs) -> list[MemberRow]:
    rules = inputs.kb.rules if inputs.kb else ()
    by_author = Counter(r.meta.source.author.lower() for r in rules if r.meta.source.author)
    outcomes: dict[str, Counter[str]] = defaultdict(Counter)
    for record in inputs.snapshot.records():
        outcomes[record.member.lower()][record.outcome] += 1
    sync = {row.member.lower(): row for row in sync_health(inputs)}
    return [
        MemberRow(
            m.handle,
            m.name,
            m.role,
            ", ".join(m.teams),
            by_author.get(m.handle.lower(), 0),
            ", ".join(f"{n} {o}" for o, n in sorted(outcomes[m.handle.lower()].items())),
            sync.get(m.handle.lower()),
        )
        for m in inputs.config.team.members
    ]


# --- coverage ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CoverageRow:
    area: str
    owner: str
    rules: int
    documents: int
    uncovered_paths: tuple[str, ...]


def _stem(glob: str) -> str:
    """The literal part of a glob before its first wildcard (`src/billing/` of `src/billing/**`)."""
    cut = min((i for i, ch in enumerate(glob) if ch in "*?[{"), default=len(glob))
    return glob[:cut]


def _names_path(scopes: Iterable[str], path: str) -> bool:
    stem = _stem(path)
    return any(_stem(scope).startswith(stem) or stem.startswith(_stem(scope)) for scope in scopes)


def coverage(inputs: Inputs) -> list[CoverageRow]:
    kb = inputs.kb
    rules = [r for r in (kb.rules if kb else ()) if r.meta.status != "retired"]
    documents = kb.documents if kb else ()
    rows = []
    for name, area in [*inputs.config.iter_areas(), (CORE_AREA, None)]:
        mine = [r for r in rules if r.area == name]
        scopes = [scope for r in mine for scope in r.meta.scope]
        uncovered = tuple(p for p in (area.paths if area else ()) if not _names_path(scopes, p))
        rows.append(
            CoverageRow(
                area=name,
                owner=area.owner if area else "",
                rules=len(mine),
                documents=sum(d.meta.area == name for d in documents),
                uncovered_paths=uncovered,
            )
        )
    return rows


# --- impact and documents: what sessions used ----------------------------------------------------


def _ids(value: object) -> list[str]:
    return [part for part in str(value or "").split(",") if part]


@dataclass(frozen=True)
class ImpactRow:
    id: str
    title: str
    served: int
    credited: int


def impact(inputs: Inputs) -> dict[str, Any]:
    served: Counter[str] = Counter()
    credited: Counter[str] = Counter()
    turns = 0
    for event in inputs.events:
        if event.kind == "injection":
            served.update(_ids(event.data.get("ids")))
        elif event.kind == "turn-usage":
            turns += 1
            credited.update(_ids(event.data.get("credited")))
    titles = {r.id: served_line(r.title) for r in inputs.kb.rules} if inputs.kb else {}
    rows = [
        ImpactRow(rule_id, titles.get(rule_id, ""), served[rule_id], credited[rule_id])
        for rule_id in set(served) | set(credited)
    ]
    rows.sort(key=lambda row: (-row.credited, -row.served, row.id))
    return {
        "rows": rows,
        "turns": turns,
        "chart": [(r.id, float(r.credited)) for r in rows[:12] if r.credited],
    }


@dataclass(frozen=True)
class SectionRow:
    key: str
    heading: str
    updated: str
    age_days: int | None
    uses: int
    decayed: bool


@dataclass(frozen=True)
class DocumentRow:
    doc_id: str
    title: str
    area: str
    sections: tuple[SectionRow, ...]


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None


def documents(inputs: Inputs) -> list[DocumentRow]:
    uses: Counter[str] = Counter()
    for event in inputs.events:
        if event.kind in ("doc-read", "doc-injection"):
            uses.update(_ids(event.data.get("ids")))
    stale = inputs.config.scoring.stale_after_days
    today = inputs.now.date()
    rows = []
    for doc in inputs.kb.documents if inputs.kb else ():
        sections = []
        for section in doc.sections:
            key = f"{doc.doc_id}#{section.id}"
            updated = (_date(section.provenance.updated) if section.provenance else None) or doc.meta.updated
            age = (today - updated).days
            used = uses[key] + uses[doc.doc_id]
            sections.append(
                SectionRow(key, served_line(section.heading), updated.isoformat(), age, used, age > stale)
            )
        meta = served_doc_meta(doc.meta)
        rows.append(DocumentRow(doc.doc_id, meta.title, meta.area, tuple(sections)))
    return rows


# --- desire paths and events ---------------------------------------------------------------------


@dataclass(frozen=True)
class DesirePath:
    asked: str
    tool: str
    count: int
    last: str


def desire_paths(inputs: Inputs) -> list[DesirePath]:
    counts: Counter[tuple[str, str]] = Counter()
    last: dict[tuple[str, str], dt.datetime] = {}
    for event in inputs.events:
        if event.kind == "desire-path":
            key = (str(event.data.get("asked", "")), str(event.data.get("tool", "")))
            counts[key] += 1
            last[key] = max(last.get(key, event.at), event.at)
    return [
        DesirePath(asked, tool, n, _when(last[(asked, tool)]))
        for (asked, tool), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def events(inputs: Inputs, kind: str = "") -> dict[str, Any]:
    counts = Counter(event.kind for event in inputs.events)
    shown = [e for e in inputs.events if not kind or e.kind == kind][-EVENTS_SHOWN:]
    return {
        "counts": sorted(counts.items()),
        "chart": [(k, float(n)) for k, n in counts.most_common(12)],
        "rows": list(reversed(shown)),
        "kind": kind,
        "total": len(inputs.events),
    }
