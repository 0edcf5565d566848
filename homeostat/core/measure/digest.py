"""The weekly digest: what changed in the KB and what waits for a person, without a model.

Everything comes from two KB snapshots (the base branch where the window started and now), the
state branch's decision records and, where this machine has one, the event log's desire paths:

- new rules, reconfirmed rules, rejected decisions (`adopted: false`) and retired rules;
- document sections added or changed;
- the review queue (lessons in review PRs), those waiting longer than
  `notifications.reviewOverdueDays` marked overdue;
- rules with open flags, and disputed rules;
- guessed MCP tool names (desire paths) and the tool each resolved to;
- lessons re-taught: review lessons that repeated or refined a rule already in force (`core.measure.repeats`),
  each with whether the rule had been served to the PR's author.

`build_digest` gathers them; `digest_message` renders Slack Block Kit within Slack's limits (see
`homeostat.core.render.slack_blocks`) with a plain `text` fallback; `digest_markdown` the CI job summary. A
window with nothing in it is one line.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from homeostat.core.kb import KB
from homeostat.core.notify import SlackMessage, escape, link, queue_items
from homeostat.core.render import slack_blocks as blocks
from homeostat.core.render.findings import escape_data
from homeostat.core.schema import Document, Rule
from homeostat.core.served import served_line, served_value
from homeostat.core.state.branch import DecisionRecord, Notice, RepeatRecord

LIST_LIMIT = 10  # entries a Slack section shows before "…and N more"
SUMMARY_LIMIT = 100  # entries the job summary shows
NEWS = ("new-rules", "reconfirmed", "rejected-decisions", "retired", "updated-sections")


@dataclass(frozen=True)
class Entry:
    label: str
    detail: str = ""
    url: str = ""
    overdue: bool = False


@dataclass(frozen=True)
class Category:
    key: str  # also the count's name in outputs and the state record
    title: str
    entries: tuple[Entry, ...]
    more_url: str = ""

    @property
    def counted(self) -> str:
        """`3 new rules`, `1 in review`: the count as the fallback text says it."""
        one, many = _NOUNS[self.key]
        return f"{len(self.entries)} {one if len(self.entries) == 1 else many}"


_NOUNS = {
    "new-rules": ("new rule", "new rules"),
    "reconfirmed": ("reconfirmed", "reconfirmed"),
    "rejected-decisions": ("rejected decision", "rejected decisions"),
    "retired": ("retired", "retired"),
    "updated-sections": ("updated section", "updated sections"),
    "review-queue": ("in review", "in review"),
    "open-flags": ("flagged or disputed", "flagged or disputed"),
    "desire-paths": ("guessed tool name", "guessed tool names"),
    "re-taught": ("lesson re-taught", "lessons re-taught"),
}
_SERVED = {True: "served to the author first: rewrite it", False: "never served to the author", None: ""}


@dataclass(frozen=True)
class Links:
    """Where entries and "…and N more" point; empty when the KB repo's web address is unknown."""

    file: Callable[[str], str] = lambda path: ""
    rules: str = ""  # the knowledge folder on the base branch
    reviews: str = ""  # the open pull requests


@dataclass(frozen=True)
class Digest:
    kb_name: str
    since: dt.datetime
    until: dt.datetime
    categories: tuple[Category, ...]

    def category(self, key: str) -> Category:
        return next(c for c in self.categories if c.key == key)

    @property
    def counts(self) -> dict[str, int]:
        counts = {c.key: len(c.entries) for c in self.categories}
        counts["overdue"] = sum(1 for e in self.category("review-queue").entries if e.overdue)
        return counts

    @property
    def nothing_new(self) -> bool:
        return not any(self.category(key).entries for key in NEWS)

    @property
    def empty(self) -> bool:
        return not any(c.entries for c in self.categories)


# --- building -------------------------------------------------------------------------------------


def build_digest(
    *,
    kb_name: str,
    then: KB | None,
    now: KB,
    records: Iterable[DecisionRecord],
    desire_paths: Iterable[tuple[str, str]],
    since: dt.datetime,
    until: dt.datetime,
    overdue_days: int,
    links: Links | None = None,
    repeats: Iterable[RepeatRecord] = (),
) -> Digest:
    """`then` is the KB where the window starts (None: the KB did not exist yet), `now` where it ends."""
    links = links or Links()
    before = {rule.id: rule for rule in then.rules} if then is not None else {}
    rules = _rule_changes(before, now.rules, links)
    categories = (
        Category("new-rules", "New rules", rules["new"], links.rules),
        Category("reconfirmed", "Reconfirmed", rules["reconfirmed"], links.rules),
        Category("rejected-decisions", "Rejected decisions", rules["rejected"], links.rules),
        Category("retired", "Retired", rules["retired"], links.rules),
        Category("updated-sections", "Updated document sections", _sections(then, now, links), links.rules),
        Category("review-queue", "Review queue", _queue(records, until, overdue_days), links.reviews),
        Category("open-flags", "Open flags and disputes", _flagged(now.rules, links), links.rules),
        Category("desire-paths", "Guessed tool names (desire paths)", _desire(desire_paths)),
        Category(
            "re-taught", "Lessons re-taught (the KB had the rule)", _retaught(repeats, now, since, until)
        ),
    )
    return Digest(kb_name, since, until, categories)


def _rule_changes(
    before: dict[str, Rule], rules: Sequence[Rule], links: Links
) -> dict[str, tuple[Entry, ...]]:
    found: dict[str, list[Entry]] = {"new": [], "reconfirmed": [], "rejected": [], "retired": []}
    for rule in sorted(rules, key=lambda r: (r.area, r.title.lower(), r.id)):
        old = before.get(rule.id)
        entry = Entry(
            served_line(rule.title), f"{served_value('name', rule.area)} · {rule.id}", links.file(rule.file)
        )
        if rule.meta.status == "retired":
            if old is not None and old.meta.status != "retired":
                found["retired"].append(entry)
        elif old is None:
            found["rejected" if rule.meta.is_rejected_decision else "new"].append(entry)
        elif rule.meta.last_confirmed > old.meta.last_confirmed:
            found["reconfirmed"].append(entry)
    return {key: tuple(entries) for key, entries in found.items()}


def _sections(then: KB | None, now: KB, links: Links) -> tuple[Entry, ...]:
    before: dict[tuple[str, str], str] = {}
    for document in then.documents if then is not None else ():
        before.update(_section_texts(document))
    entries = []
    for document in sorted(now.documents, key=lambda d: d.doc_id):
        for (doc_id, section_id), text in _section_texts(document).items():
            old = before.get((doc_id, section_id))
            if old == text:
                continue
            heading = served_line(next(s.heading for s in document.sections if s.id == section_id))
            what = "new" if old is None else "updated"
            title = served_line(document.meta.title)
            entries.append(Entry(f"{title}: {heading}", what, links.file(document.file)))
    return tuple(entries)


def _section_texts(document: Document) -> dict[tuple[str, str], str]:
    return {(document.doc_id, s.id): f"{s.heading}\n{s.body}" for s in document.sections}


def _queue(records: Iterable[DecisionRecord], now: dt.datetime, overdue_days: int) -> tuple[Entry, ...]:
    items = sorted(queue_items(records), key=lambda item: item.opened_at)
    entries = []
    for item in items:
        waited = now - item.opened_at
        overdue = waited > dt.timedelta(days=overdue_days)
        days = waited.days
        waiting = f"{days} day{'s' * (days != 1)}" if days else "under a day"
        detail = f"{served_value('handle', item.member)}, waiting {waiting}"
        kind = {"update": "update: ", "flag": "flag: ", "dispute": "dispute: "}.get(item.kind, "")
        entries.append(Entry(f"{kind}{served_line(item.title)}", detail, item.pr_url, overdue))
    return tuple(entries)


def _flagged(rules: Sequence[Rule], links: Links) -> tuple[Entry, ...]:
    entries = []
    for rule in sorted(rules, key=lambda r: r.id):
        flags = rule.meta.open_flags
        if rule.meta.status == "retired" or not (flags or rule.meta.status == "disputed"):
            continue
        detail = "disputed" if rule.meta.status == "disputed" else ""
        if flags:
            counted = f"{len(flags)} open flag{'s' * (len(flags) != 1)}: {served_line(flags[-1].reason)}"
            detail = f"{detail}, {counted}" if detail else counted
        entries.append(Entry(served_line(rule.title), f"{rule.id} · {detail}", links.file(rule.file)))
    return tuple(entries)


def _retaught(
    repeats: Iterable[RepeatRecord], kb: KB, since: dt.datetime, until: dt.datetime
) -> tuple[Entry, ...]:
    """One entry per re-teaching review lesson in the window, grouped by rule, linking the thread."""
    recent = sorted((r for r in repeats if since <= r.at < until), key=lambda r: (r.rule_id, r.at))
    entries = []
    for record in recent:
        rule = kb.rule(record.rule_id)
        detail = " · ".join(p for p in (record.rule_id, record.area, _SERVED[record.served]) if p)
        entries.append(Entry(rule.title if rule is not None else record.rule_id, detail, record.url or ""))
    return tuple(entries)


def _desire(paths: Iterable[tuple[str, str]]) -> tuple[Entry, ...]:
    counted = Counter(paths)
    ordered = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
    return tuple(
        Entry(
            served_line(asked),
            f"{'→ ' + served_line(tool) if tool else 'no such tool'}, {n} time{'s' * (n != 1)}",
        )
        for (asked, tool), n in ordered
    )


# --- rendering ------------------------------------------------------------------------------------


def _window(digest: Digest) -> str:
    return f"{digest.since.date().isoformat()} to {digest.until.date().isoformat()}"


def _line(entry: Entry) -> str:
    label = link(entry.url, entry.label) if entry.url else f"*{escape(entry.label)}*"
    mark = " :warning: *overdue*" if entry.overdue else ""
    detail = f" · {escape(entry.detail)}" if entry.detail else ""
    return f"• {label}{detail}{mark}"


def summary_line(digest: Digest) -> str:
    """The fallback text: one line of counts, or that nothing happened."""
    where = f" for {digest.kb_name}" if digest.kb_name else ""
    if digest.empty:
        return f"Homeostat digest{where}: nothing new from {_window(digest)}."
    parts = [c.counted for c in digest.categories if c.entries]
    overdue = digest.counts["overdue"]
    if overdue:
        parts = [f"{p} ({overdue} overdue)" if p.endswith(" in review") else p for p in parts]
    return f"Homeostat digest{where}, {_window(digest)}: " + ", ".join(parts) + "."


def digest_message(digest: Digest) -> SlackMessage:
    """Block Kit within Slack's limits, with the one-line summary as the `text` fallback."""
    text = blocks.cut(summary_line(digest), blocks.MAX_FALLBACK_TEXT)
    if digest.empty:
        return SlackMessage(text, (blocks.section(escape(text)),))
    where = f": {digest.kb_name}" if digest.kb_name else ""
    made = [blocks.header(f"Homeostat digest{where}"), blocks.context(escape(f"From {_window(digest)}"))]
    if digest.nothing_new:
        made.append(blocks.section(escape(f"Nothing new in the KB from {_window(digest)}.")))
    for category in digest.categories:
        if not category.entries:
            continue
        title = f"*{escape(category.title)}* ({len(category.entries)})"
        if category.key == "review-queue" and digest.counts["overdue"]:
            title += f", {digest.counts['overdue']} overdue"
        made.append(
            blocks.list_section(
                title, [_line(e) for e in category.entries], more_url=category.more_url, limit=LIST_LIMIT
            )
        )
    return SlackMessage(text, tuple(blocks.fit(made)))


def digest_markdown(digest: Digest, notices: Sequence[Notice] = ()) -> str:
    """The job summary: the same lists, in Markdown, longer before they are cut."""
    lines = [f"## Homeostat digest{': ' + digest.kb_name if digest.kb_name else ''}", ""]
    lines.append(summary_line(digest))
    lines += [f"\n> **Notice:** {_md(n.message)}" for n in notices]
    for category in digest.categories:
        if not category.entries:
            continue
        lines += ["", f"### {category.title} ({len(category.entries)})", ""]
        for entry in category.entries[:SUMMARY_LIMIT]:
            label = f"[{_md(entry.label)}]({entry.url})" if entry.url else _md(entry.label)
            detail = f" · {_md(entry.detail)}" if entry.detail else ""
            lines.append(f"- {label}{detail}{' **overdue**' if entry.overdue else ''}")
        if len(category.entries) > SUMMARY_LIMIT:
            lines.append(f"- …and {len(category.entries) - SUMMARY_LIMIT} more")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return " ".join(text.replace("|", "\\|").replace("[", "\\[").replace("]", "\\]").split())


# --- CI -------------------------------------------------------------------------------------------


def ci_outputs(digest: Digest, *, posted: bool) -> dict[str, str]:
    """Each count as a step output (zeros included, so `outputs.overdue > 0` always works)."""
    values = {key: str(count) for key, count in digest.counts.items()}
    values["posted"] = "true" if posted else "false"
    return values


def workflow_commands(notices: Sequence[Notice]) -> str:
    """One `::notice` per notice (an unset Slack variable: nothing was posted)."""
    return "".join(f"::notice title=homeostat digest::{escape_data(n.message)}\n" for n in notices)
