"""Step 2 of seed and bootstrap: one model call per topic that needs one, merged into the KB's documents.

A topic whose inputs are unchanged is skipped (no call); the spending cap stops the calls before the
next one starts, and every topic not drafted yet is left for a rerun, which picks them up because
their documents still lack the inputs' hash. A model that fails or answers nothing usable leaves its
topic undrafted, named in the result, and the run goes on with the next. A repo's topics are asked
at once (`agents.concurrency` workers) and merged in their order.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial

from homeostat.core.asker import Asker, ModelCallError, SpendingCapError
from homeostat.core.bootstrap.drafting import SEED_SYSTEM, SeedAnswer, usable_sections
from homeostat.core.bootstrap.merge import Blocked, DocumentDraft, MergeReport, merge_validated
from homeostat.core.bootstrap.plan import RepoPlan, TopicPlan
from homeostat.core.config import Config
from homeostat.runs.bootstrap.plan import document_title
from homeostat.runs.model_pool import Pools


@dataclass
class RepoResult:
    plan: RepoPlan
    files: dict[str, str] = field(default_factory=dict)  # KB path → new text, changed ones only
    reports: dict[str, MergeReport] = field(default_factory=dict)
    drafted: list[str] = field(default_factory=list)  # topics
    skipped: list[str] = field(default_factory=list)  # topics unchanged since the last draft
    left: list[str] = field(default_factory=list)  # topics the spending cap left for a rerun
    failed: list[tuple[str, str]] = field(default_factory=list)  # (topic, why)
    blocked: list[Blocked] = field(default_factory=list)
    docs_imported: list[str] = field(default_factory=list)
    docs_skipped: int = 0
    cap_message: str = ""

    @property
    def disagreements(self) -> list[tuple[str, str]]:
        """(document, section id) where the source now says something else than a kept section."""
        return [(path, section) for path, report in self.reports.items() for section in report.disagreements]


def _merge(
    result: RepoResult, existing: Mapping[str, str], draft: DocumentDraft, config_text: str, today: dt.date
) -> bool:
    current = result.files.get(draft.path, existing.get(draft.path))
    text, report, blocked = merge_validated(current, draft, today, config_text)
    result.reports[draft.path] = report
    result.blocked += blocked
    if text is not None and text != existing.get(draft.path):
        result.files[draft.path] = text
        return True
    return False


def _draft_topic(
    name: str, topic: TopicPlan, asker: Asker, config: Config
) -> tuple[DocumentDraft | None, str]:
    return _topic_draft(name, topic, asker.ask(SEED_SYSTEM, topic.prompt, SeedAnswer), config)


def _topic_draft(
    name: str, topic: TopicPlan, answer: SeedAnswer | None, config: Config
) -> tuple[DocumentDraft | None, str]:
    sections, dropped = usable_sections(answer)
    if not sections:
        return None, "no usable answer" + (f" ({'; '.join(dropped)})" if dropped else "")
    area = config.area(topic.area)
    draft = DocumentDraft(
        path=topic.document,
        title=document_title(name, topic.topic),
        area=topic.area,
        owner=area.owner if area is not None else "",
        scope=topic.scope,
        source="bootstrap",
        sections=tuple(sections),
        source_hash=topic.source_hash,
    )
    return draft, ""


def draft_repo(
    plan: RepoPlan,
    existing: Mapping[str, str],
    config: Config,
    config_text: str,
    asker: Callable[[], Asker],
    today: dt.date,
    progress: Callable[[str], None] = lambda _: None,
    capped: bool = False,
) -> RepoResult:
    """Draft every topic that needs it (until the cap), then import the Markdown docs."""
    result = RepoResult(plan)
    asking: list[TopicPlan] = []
    for topic in plan.topics:
        if topic.skipped:
            result.skipped.append(topic.topic)
        elif topic.files and capped:
            result.left.append(topic.topic)
        elif topic.files:
            asking.append(topic)
    pool = Pools(config.agents).for_agent("bootstrap") if asking else None
    answers = (
        pool.run_each([partial(_draft_topic, plan.name, t, asker(), config) for t in asking]) if pool else []
    )
    # the topics are asked at once: one refused by the cap leaves only itself for the rerun, and an
    # answer already paid for (a later topic's call that fit the cap first) is kept, never thrown away
    for topic, answered in zip(asking, answers, strict=True):
        progress(topic.topic)
        try:
            draft, why = answered.get() or (None, "no usable answer")
        except SpendingCapError as exc:
            capped, result.cap_message = True, str(exc)
            result.left.append(topic.topic)
            continue
        except ModelCallError as exc:
            result.failed.append((topic.topic, str(exc)))
            continue
        if draft is None:
            result.failed.append((topic.topic, why))
            continue
        _merge(result, existing, draft, config_text, today)
        result.drafted.append(topic.topic)
    if pool is not None:
        pool.close()
    for doc in plan.docs:
        if doc.skipped:
            result.docs_skipped += 1
        elif _merge(result, existing, doc.draft, config_text, today):
            result.docs_imported.append(doc.path)
    return result
