"""Notifications: the `Notifier` interface and the Slack messages the runs post, built without a model.

The morning message is the review queue: lessons that went to review PRs in this run, with their links,
and lessons that have waited more than `notifications.reviewOverdueDays`, repeated with how long they
have waited, so a queue nobody reads does not go quiet. `team.reviewers` are named in it when set.
Building is pure (values in, text out); posting is the adapter's (`homeostat.adapters.slack`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from homeostat.core.state.branch import DecisionRecord
from homeostat.errors import HomeostatError

MAX_LINES = 40  # per list; Slack shows long messages folded, and a wall of links is not read


class NotifyError(HomeostatError):
    """A notification could not be delivered; the message names the variable holding the webhook."""


@dataclass(frozen=True)
class SlackMessage:
    """One incoming-webhook post: mrkdwn text (also what the notification shows), and optionally
    Block Kit blocks, which Slack shows instead of the text (the text stays the fallback)."""

    text: str
    blocks: tuple[Mapping[str, object], ...] = ()

    def payload(self) -> dict[str, object]:
        data: dict[str, object] = {"text": self.text, "unfurl_links": False, "unfurl_media": False}
        if self.blocks:
            data["blocks"] = [dict(block) for block in self.blocks]
        return data


class Notifier(Protocol):
    """Where run notices go. Raises `NotifyError` when the post cannot be delivered."""

    def post(self, message: SlackMessage) -> None: ...


@dataclass(frozen=True)
class QueueItem:
    """One lesson waiting in a review PR."""

    title: str
    member: str  # whose review PR it waits in
    pr_url: str
    opened_at: datetime
    pr_number: int = 0
    kind: str = "new"  # new, update, flag, review-thread, dispute
    area: str = ""


def queue_items(records: Iterable[DecisionRecord]) -> list[QueueItem]:
    """The lessons still in review, from the state branch's decision records, each as every surface
    shows a lesson (`core.served`): its title on one line without Homeostat's comments, its member
    and area held to their grammar."""
    from homeostat.core.served import served_line, served_value

    items = []
    for record in records:
        if record.state != "in-review" or record.pr is None:
            continue
        items.append(
            QueueItem(
                title=served_line(record.title),
                member=served_value("handle", record.member),
                pr_url=record.pr.url,
                opened_at=record.review_opened_at or record.at,
                pr_number=record.pr.number,
                kind=record.kind,
                area=served_value("name", record.area or ""),
            )
        )
    return items


def review_queue_message(
    items: Sequence[QueueItem],
    *,
    now: datetime,
    opened_since: datetime,
    overdue_days: int,
    reviewers: Sequence[str] = (),
    kb_name: str = "",
) -> SlackMessage | None:
    """The morning post, or None when nothing is new and nothing is overdue (no post is better than
    a daily copy of yesterday's).

    New: opened at or after `opened_since` (this run's start), grouped by review PR. Overdue: waiting
    more than `overdue_days`, longest first, each with how long it has waited.
    """
    fresh = [item for item in items if item.opened_at >= opened_since]
    overdue = sorted(
        (
            item
            for item in items
            if item.opened_at < opened_since and now - item.opened_at > timedelta(days=overdue_days)
        ),
        key=lambda item: item.opened_at,
    )
    if not fresh and not overdue:
        return None
    lines = [_header(items, kb_name)]
    if reviewers:
        lines.append("Reviewers: " + ", ".join(f"@{escape(handle)}" for handle in reviewers))
    if fresh:
        lines += ["", "*New in review*", *_limited(_fresh_lines(fresh))]
    if overdue:
        lines += ["", f"*Waiting more than {_days(overdue_days)}*", *_limited(_overdue_lines(overdue, now))]
    return SlackMessage("\n".join(lines))


def _header(items: Sequence[QueueItem], kb_name: str) -> str:
    pulls = len({item.pr_url for item in items})
    where = f" ({escape(kb_name)})" if kb_name else ""
    lessons = "lesson waits" if len(items) == 1 else "lessons wait"
    return f"*Homeostat review queue*{where}: {len(items)} {lessons} in {pulls} review PR{'s' * (pulls != 1)}"


def _fresh_lines(items: Sequence[QueueItem]) -> list[str]:
    lines: list[str] = []
    by_pull: dict[str, list[QueueItem]] = {}
    for item in items:
        by_pull.setdefault(item.pr_url, []).append(item)
    for url, group in by_pull.items():
        lines.append(f"• {link(url, _pull_label(group[0]))} for {escape(group[0].member)}")
        lines += [f"    – {_lesson_label(item)}" for item in group]
    return lines


def _overdue_lines(items: Sequence[QueueItem], now: datetime) -> list[str]:
    return [
        f"• {_lesson_label(item)}, waiting {_days((now - item.opened_at).days)} in "
        f"{link(item.pr_url, _pull_label(item))}"
        for item in items
    ]


def _limited(lines: list[str]) -> list[str]:
    if len(lines) <= MAX_LINES:
        return lines
    return [*lines[:MAX_LINES], f"…and {len(lines) - MAX_LINES} more lines in the review PRs"]


def _pull_label(item: QueueItem) -> str:
    return f"review PR #{item.pr_number}" if item.pr_number else "review PR"


def _lesson_label(item: QueueItem) -> str:
    what = {"update": "update: ", "flag": "flag: ", "dispute": "dispute: "}.get(item.kind, "")
    area = f" ({escape(item.area)})" if item.area else ""
    return f"{what}{escape(item.title)}{area}"


def _days(days: int) -> str:
    return "1 day" if days == 1 else f"{days} days"


def escape(text: str) -> str:
    """Slack mrkdwn control characters; everything else (any script) passes as it is."""
    return " ".join(text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").split())


def link(url: str, label: str) -> str:
    return f"<{escape(url)}|{escape(label)}>"
