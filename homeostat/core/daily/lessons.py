"""A lesson the daily run decides, whatever it came from: a pending lesson or a review thread.

Pending lessons (new, update, flag, doc) come from `candidates/<member>`; review lessons are drafted
from threads on that member's merged PRs. Both become a `Lesson` so scoring, consolidation, the judge
and the decision have one code path. `key` is the content hash the decision is recorded under, so a
lesson is decided once and never drafted twice.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace
from typing import Literal

from homeostat.core.daily.trust import ThreadTrust
from homeostat.core.hosts import FollowUp
from homeostat.core.pending import DocPatchRequest, LessonText, PendingLesson, text_of
from homeostat.core.text import content_hash

Origin = Literal["pending", "review"]
Kind = Literal["new", "update", "flag", "doc"]


@dataclass(frozen=True, kw_only=True)
class Lesson(LessonText):
    key: str  # content hash; the decision record's hash
    origin: Origin
    kind: Kind
    member: str  # whose daily PR it files under (the PR author for review lessons)
    originator: str  # who vouches for it: the reviewer for review lessons, else the author
    source: str  # pr-feedback | pr-feedback-no-change | manual | agent-handoff | deep-dive
    created: dt.datetime
    suggested_topic: str = ""  # a topic the drafter proposed that is not in the list
    url: str = ""
    target: str = ""  # rule id for update and flag
    reason: str = ""  # flag reason
    doc_patch: DocPatchRequest | None = None
    thread: str = ""  # the redacted review thread, for the judge
    trust: ThreadTrust | None = None  # a review thread's text by who wrote it, and edits after the commit
    repo: str = ""  # code repo name the lesson came from
    model_rating: float | None = None
    extra_urls: tuple[str, ...] = field(default_factory=tuple)
    opened: dt.datetime | None = None  # when a review lesson's PR was opened, where the host says
    paths: tuple[str, ...] = ()  # the file a review thread commented on
    follow_up: FollowUp | None = None  # a review lesson's change after its comment, authors as KB handles

    @property
    def text(self) -> str:
        return "\n".join(part for part in (self.title, self.rule, self.why, self.example) if part)

    @property
    def from_review(self) -> bool:
        return self.origin == "review"

    def with_changes(self, **changes: object) -> Lesson:
        return replace(self, **changes)  # type: ignore[arg-type]


def from_pending(pending: PendingLesson, member: str) -> Lesson:
    """A lesson from `candidates/<member>`; its key is the pending file's content hash."""
    title = pending.title if pending.kind == "new" or pending.title else _untitled(pending)
    return Lesson(
        key=pending.content_key(),
        origin="pending",
        kind=pending.kind,
        member=member,
        originator=pending.author,
        source=pending.source,
        created=pending.created,
        **(text_of(pending) | {"title": title}),
        url=pending.url,
        target=pending.target,
        reason=pending.reason,
        doc_patch=pending.doc_patch,
    )


def _untitled(pending: PendingLesson) -> str:
    if pending.kind == "flag":
        return f"Flag on {pending.target}"
    if pending.doc_patch is not None:
        return f"Update {pending.doc_patch.doc}#{pending.doc_patch.section}"
    return ""


def review_key(thread_url: str) -> str:
    """A review thread is decided once, whatever the model drafts from it on a rerun."""
    return content_hash("review-thread", thread_url)
