"""The review-drafting pipeline: `homeostat curate`, and the daily run's first step.

It reads the PRs merged in the KB's code repos within the window, keeps the review threads a team
member wrote that a commit followed (and that no rule or document section already cites), redacts each
thread, and asks the curator for one rule per thread and, where a document covers the commented file,
for at most one section patch. It only drafts: deciding, scoring and writing are the daily run's.

Host-neutral: it takes a `CodeHost`, so GitHub and Bitbucket share this code. While it reads the
host, each kept thread's calls (its draft, and its document check) go to the run's model pool; the
answers are applied in the order the threads were read, so the lessons, skips and counts are the
ones the calls one at a time would give. Each thread's first call sets aside what deciding its lesson
will cost (`homeostat.core.cost.spending.working_on`). The spending cap stops it where it stands (later
threads and PRs are not read), because the next run reads again from this run's window start; a
model call that fails past its retries loses nothing: its thread goes on the result's `retry` list
for the next run, and the run goes on. The caller decides whether a run whose every call failed is a
failed run (it is, for the daily run).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from pydantic import BaseModel

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import load_kb_ref
from homeostat.core.asker import Answered, Asker, ModelCallError, SpendingCapError
from homeostat.core.config import CORE_AREA, Config, Member
from homeostat.core.cost.spending import working_on
from homeostat.core.daily.curate import (
    DOC_PATCH_SYSTEM,
    DRAFT_SYSTEM,
    CoveringSection,
    DocPatchAnswer,
    DraftAnswer,
    SectionWords,
    area_for_path,
    cited_urls,
    covering_sections,
    doc_lesson,
    doc_patch_prompt,
    draft_prompt,
    lesson_from_draft,
    redacted_thread,
    render_thread,
    thread_skip_reason,
)
from homeostat.core.daily.lessons import Lesson, review_key
from homeostat.core.daily.trust import thread_trust
from homeostat.core.events import utcnow
from homeostat.core.hosts import (
    CodeHost,
    FollowUp,
    MergedPull,
    RepoRef,
    ReviewThread,
    UrlError,
    code_repos,
    parse_repo_url,
    readable_pulls,
)
from homeostat.core.kb import KB
from homeostat.core.state.checkpoints import RetryThread
from homeostat.runs.model_pool import ModelPool

T = TypeVar("T", bound=BaseModel)

REVIEW_BRANCH_PREFIX = "homeostat/review-"

_log = logging.getLogger("homeostat.curate")


@dataclass(frozen=True)
class Skip:
    """A PR or thread the run did not draft from, and why. Never its text: only where it is."""

    what: Literal["pull", "thread"]
    url: str
    reason: str
    member: str = ""  # the PR's author

    def to_data(self) -> dict[str, str]:
        return {"what": self.what, "url": self.url, "reason": self.reason, "member": self.member}


@dataclass
class CurateResult:
    """What one curate pass drafted, skipped and spent, and the window it read."""

    since: datetime
    until: datetime
    repos: tuple[RepoRef, ...] = ()
    lessons: list[Lesson] = field(default_factory=list)
    doc_lessons: list[Lesson] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    pulls_listed: int = 0
    pulls_read: int = 0
    threads_seen: int = 0
    threads_kept: int = 0
    threads_drafted: int = 0
    doc_checks: int = 0
    doc_checks_skipped: int = 0  # kept threads with covering sections past agents.curator.docPatchCalls
    model_calls: int = 0
    ok_calls: int = 0
    failed_calls: int = 0
    redactions: int = 0
    capped: bool = False
    cap_message: str = ""
    failures: list[str] = field(default_factory=list)  # one line per failed call, no thread text
    retry: list[RetryThread] = field(default_factory=list)  # threads whose draft failed past its retries
    drafted_urls: set[str] = field(default_factory=set)  # threads the drafter answered (whatever it said)

    @property
    def all_calls_failed(self) -> bool:
        """Every call failed: not "nothing to learn today", a failed run (PEERS.md, lesson 4)."""
        return self.failed_calls > 0 and self.ok_calls == 0

    def lessons_for(self, member: str) -> list[Lesson]:
        """A member's drafted rules and document patches, in the order they were drafted."""
        return [lesson for lesson in (*self.lessons, *self.doc_lessons) if lesson.member == member]

    def counts(self) -> dict[str, int]:
        return {
            "repos": len(self.repos),
            "pullsListed": self.pulls_listed,
            "pullsRead": self.pulls_read,
            "threadsSeen": self.threads_seen,
            "threadsKept": self.threads_kept,
            "threadsDrafted": self.threads_drafted,
            "docChecks": self.doc_checks,
            "docChecksSkipped": self.doc_checks_skipped,
            "modelCalls": self.model_calls,
            "okCalls": self.ok_calls,
            "failedCalls": self.failed_calls,
            "redactions": self.redactions,
        }

    def to_data(self) -> dict[str, Any]:
        """The JSON form `homeostat curate --json` prints (the redacted thread text is left out)."""
        return {
            "window": {"since": self.since.isoformat(), "until": self.until.isoformat()},
            "repos": [repo.web_url for repo in self.repos],
            "counts": self.counts(),
            "capped": self.capped,
            "capMessage": self.cap_message,
            "failures": list(self.failures),
            "lessons": [lesson_data(lesson) for lesson in self.lessons],
            "docLessons": [lesson_data(lesson) for lesson in self.doc_lessons],
            "skipped": [skip.to_data() for skip in self.skipped],
        }


def lesson_data(lesson: Lesson) -> dict[str, Any]:
    data: dict[str, Any] = {
        "key": lesson.key,
        "kind": lesson.kind,
        "member": lesson.member,
        "originator": lesson.originator,
        "source": lesson.source,
        "repo": lesson.repo,
        "area": lesson.area,
        "topic": lesson.topic,
        "suggestedTopic": lesson.suggested_topic,
        "scope": list(lesson.scope),
        "title": lesson.title,
        "rule": lesson.rule,
        "why": lesson.why,
        "example": lesson.example,
        "url": lesson.url,
        "created": lesson.created.isoformat(),
        "rating": lesson.model_rating,
    }
    if lesson.doc_patch is not None:
        data["docPatch"] = lesson.doc_patch.model_dump(mode="json", by_alias=True)
    return data


# --- which repos --------------------------------------------------------------------------------


def curated_repos(config: Config, kb_repo: RepoRef | None) -> list[RepoRef]:
    """The code repos to read: `repos[].url` (or `sources.repos`), never an excluded one or the KB repo."""
    if config.repos:
        urls = [repo.url for repo in config.repos if not repo.exclude]
        excluded = [*config.sources.exclude_repos, *(repo.url for repo in config.repos if repo.exclude)]
    else:
        urls, excluded = list(config.sources.repos), list(config.sources.exclude_repos)
    return code_repos(urls, excluded=excluded, kb_repo=kb_repo)


def kb_code_repos(config: Config) -> list[RepoRef]:
    """Every code repo the KB names, excluded ones too: where a review lesson's URL may point."""
    refs: list[RepoRef] = []
    for url in [repo.url for repo in config.repos] or list(config.sources.repos):
        try:
            refs.append(parse_repo_url(url))
        except UrlError:
            continue
    return refs


def repo_name(config: Config, repo: RepoRef) -> str:
    """The repo's folder name in the KB (what its areas are prefixed with), else its host name."""
    for candidate in config.repos:
        try:
            if parse_repo_url(candidate.url).same_repo(repo):
                return candidate.name
        except UrlError:
            continue
    return repo.name


def kb_repo_ref(config: Config, origin_url: str | None) -> RepoRef | None:
    """The KB repo (never read as a code repo): `sources.kbRepo`, else the checkout's origin."""
    for url in (config.sources.kb_repo, origin_url or ""):
        if not url:
            continue
        try:
            return parse_repo_url(url)
        except UrlError:
            continue
    return None


def review_branch_citations(git: Git, remote: str = "origin", prefix: str = REVIEW_BRANCH_PREFIX) -> set[str]:
    """Review-thread URLs cited on the open review branches, so a lesson waiting there is not drafted
    again. Fetches their objects only (no local ref changes)."""
    refs = git.ls_remote(remote, f"refs/heads/{prefix}*")
    if not refs:
        return set()
    git.fetch(remote, sorted(refs))
    urls: set[str] = set()
    for sha in sorted(set(refs.values())):
        urls |= cited_urls(load_kb_ref(git, sha))
    return urls


# --- the pipeline -------------------------------------------------------------------------------


# Calls a drafted lesson may still need once drafted: a consolidation and a judge call.
FOLLOW_UP_CALLS = 2


@dataclass
class _Thread:
    """A kept thread whose calls are in the pool: what applying their answers needs."""

    pull: MergedPull
    thread: ReviewThread
    text: str
    name: str
    member: Member
    sections: list[CoveringSection]
    answers: Future[tuple[Answered[DraftAnswer], Answered[DocPatchAnswer] | None]]


def run_curate(
    host: CodeHost,
    kb: KB,
    asker: Asker,
    *,
    extra_cited: Iterable[str] = (),
    kb_repo: RepoRef | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    doc_patch_calls: int | None = None,
    now: Callable[[], datetime] = utcnow,
    log: logging.Logger | None = None,
    pool: ModelPool | None = None,
    keep: Callable[[RepoRef], bool] | None = None,
) -> CurateResult:
    """Draft review lessons from the PRs merged in [since, until) (default: the last `lookbackHours`).

    `extra_cited` are review URLs cited in open review PRs (the base-branch KB's own are read from
    `kb`); `doc_patch_calls` overrides `agents.curator.docPatchCalls`. The asker carries the spending
    cap: when it refuses a call the run stops there and the result says `capped`. `pool` runs the
    calls (default: one at a time; the commands pass `agents.concurrency` workers). `keep` picks the
    repos to read (a shard's, homeostat.core.daily.shards); all of them by default.
    """
    config = kb.require_config()
    end = until or now()
    start = since or end - timedelta(hours=config.sources.lookback_hours)
    limit = config.agents.curator.doc_patch_calls if doc_patch_calls is None else doc_patch_calls
    cited = cited_urls(kb) | set(extra_cited)
    curation = _Curation(host, kb, config, asker, cited, limit, log or _log, pool or ModelPool(1))
    repos = [repo for repo in curated_repos(config, kb_repo) if keep is None or keep(repo)]
    return curation.run(repos, start, end)


class _Curation:
    def __init__(
        self,
        host: CodeHost,
        kb: KB,
        config: Config,
        asker: Asker,
        cited: set[str],
        doc_patch_calls: int,
        log: logging.Logger,
        pool: ModelPool,
    ) -> None:
        self.host = host
        self.kb = kb
        self.section_words = SectionWords()  # the KB's document sections, worded once a run
        self.config = config
        self.asker = asker
        self.cited = cited
        self.doc_patch_calls = doc_patch_calls
        self.log = log
        self.pool = pool
        self.result = CurateResult(since=datetime.min, until=datetime.min)
        self._order: list[Skip | _Thread] = []  # what the run read, in order; drafts apply in it
        self._capped = threading.Event()

    def run(self, repos: list[RepoRef], since: datetime, until: datetime) -> CurateResult:
        self.result = CurateResult(since=since, until=until, repos=tuple(repos))
        prefetch = getattr(self.host, "prefetch_merged", None)  # GitHub: the whole window over GraphQL
        if callable(prefetch):
            prefetch(repos, since, until)
        for repo in repos:
            if self._capped.is_set():
                break
            self._read_repo(repo, since, until)
        for item in self._order:
            if isinstance(item, Skip):
                self._record_skip(item)
            else:
                self._apply(item)
        if self.result.capped:
            self.log.warning("curate stopped drafting: %s", self.result.cap_message)
        return self.result

    # reading

    def _read_repo(self, repo: RepoRef, since: datetime, until: datetime) -> None:
        pulls = sorted(self.host.list_merged_pulls(repo, since, until), key=lambda pull: pull.merged_at)
        self.result.pulls_listed += len(pulls)
        self.log.info("curate: %s has %d PRs merged in the window", repo.full_name, len(pulls))
        name = repo_name(self.config, repo)
        for pull in pulls:
            if self._capped.is_set():
                return  # later PRs are read by the next run, from this run's window start
            reason = self._pull_skip_reason(pull)
            if reason is not None:
                self._skip("pull", pull.url, reason, pull.author)
                continue
            member = self.config.member(pull.author)
            assert member is not None  # _pull_skip_reason refused non-members
            self._read_pull(pull, name, member)
            self.pool.tick_if_due()

    def _pull_skip_reason(self, pull: MergedPull) -> str | None:
        sources = self.config.sources
        if not readable_pulls([pull], skip_marker=sources.skip_marker, opted_out=sources.opt_out):
            marker = sources.skip_marker.strip()
            if marker and (marker in pull.body or marker in pull.title):
                return f"marked {marker}"
            return f"{pull.author} opted out (sources.optOut)"
        if self.config.member(pull.author) is None:
            return f"{pull.author} is not a team member"
        return None

    def _read_pull(self, pull: MergedPull, name: str, member: Member) -> None:
        threads = self.host.review_threads(pull)
        self.result.pulls_read += 1
        for thread in threads:
            self.result.threads_seen += 1
            reason = thread_skip_reason(thread, self.config, self.cited)
            if reason is not None:
                self._skip("thread", thread.url, reason, member.handle)
                continue
            self.result.threads_kept += 1
            self._draft(pull, thread, name, member)

    def _skip(self, what: Literal["pull", "thread"], url: str, reason: str, member: str) -> None:
        self._order.append(Skip(what, url, reason, member))

    def _record_skip(self, skip: Skip) -> None:
        self.result.skipped.append(skip)
        self.log.info("curate: skip %s %s: %s", skip.what, skip.url, skip.reason)

    # drafting: asked in the pool, applied in order

    def _draft(self, pull: MergedPull, thread: ReviewThread, name: str, member: Member) -> None:
        pull, thread, found = redacted_thread(pull, thread)  # before any prompt is built
        self.result.redactions += found
        text = render_thread(pull, thread, self._is_member)
        default_area = area_for_path(self.config, name, thread.path)
        topics = self.config.topics_for(default_area) if default_area else ()
        prompt = draft_prompt(text, self._areas(name), topics, default_area)
        sections = covering_sections(self.kb, thread.path, text, words=self.section_words)
        doc_prompt = ""
        if sections and self.result.doc_checks >= self.doc_patch_calls:
            self.result.doc_checks_skipped += 1
        elif sections:
            self.result.doc_checks += 1
            doc_prompt = doc_patch_prompt(text, sections)
        key = review_key(thread.url)
        answers = self.pool.submit(lambda: self._ask_thread(key, prompt, doc_prompt))
        self._order.append(_Thread(pull, thread, text, name, member, sections if doc_prompt else [], answers))

    def _ask_thread(
        self, key: str, prompt: str, doc_prompt: str
    ) -> tuple[Answered[DraftAnswer], Answered[DocPatchAnswer] | None]:
        """A thread's calls, in a worker: its draft and (when the draft's call went through) its
        document check, charged to what the draft set aside for the lesson."""
        with working_on(key, FOLLOW_UP_CALLS + (1 if doc_prompt else 0)):
            draft = self._answered(DRAFT_SYSTEM, prompt, DraftAnswer)
            if draft.error is not None or not doc_prompt:
                return draft, None
            return draft, self._answered(DOC_PATCH_SYSTEM, doc_prompt, DocPatchAnswer)

    def _answered(self, system: str, user: str, schema: type[T]) -> Answered[T]:
        try:
            return Answered(self.asker.ask(system, user, schema))
        except SpendingCapError as exc:
            self._capped.set()
            return Answered(error=exc)
        except ModelCallError as exc:
            return Answered(error=exc)

    def _apply(self, item: _Thread) -> None:
        outcome = self.pool.outcome(item.answers)
        if outcome.error is not None:
            raise outcome.error  # a bug in the job itself, not a model's answer
        assert outcome.value is not None
        draft, doc = outcome.value
        member, thread = item.member, item.thread
        try:
            answer = self._count(draft)
        except SpendingCapError as exc:
            self._cap(exc)
            return
        except ModelCallError:
            self._record_skip(Skip("thread", thread.url, "the model call failed", member.handle))
            self.result.retry.append(
                RetryThread(url=thread.url, merged_at=item.pull.merged_at, reason=str(draft.error)[:300])
            )
            return
        self.result.drafted_urls.add(thread.url)
        lesson = self._lesson(answer, item.pull, thread, item.text, item.name, member)
        if lesson is not None:
            self.result.lessons.append(lesson)
            self.result.threads_drafted += 1
        else:
            self._record_skip(
                Skip("thread", thread.url, _no_lesson_reason(answer, thread.path), member.handle)
            )
        if doc is not None:
            self._doc_patch(item, doc, lesson)

    def _count(self, answered: Answered[T]) -> T | None:
        """A call's answer, counted; a failed call is counted and raised, the cap passes through."""
        if isinstance(answered.error, ModelCallError):
            self.result.model_calls += 1
            self.result.failed_calls += 1
            self.result.failures.append(str(answered.error))
            self.log.warning("curate: a model call failed: %s", answered.error)
        elif answered.error is None:
            self.result.model_calls += 1
            self.result.ok_calls += 1
        return answered.get()

    def _cap(self, exc: SpendingCapError) -> None:
        if not self.result.capped:
            self.result.capped = True
            self.result.cap_message = str(exc)

    def _lesson(
        self,
        answer: DraftAnswer | None,
        pull: MergedPull,
        thread: ReviewThread,
        text: str,
        name: str,
        member: Member,
    ) -> Lesson | None:
        """The drafted rule filed under the PR's author (as the KB spells the handle), or None."""
        if answer is None:
            return None
        drafted = lesson_from_draft(
            answer, config=self.config, pull=pull, thread=thread, thread_text=text, repo_name=name
        )
        if drafted is None:
            return None
        return drafted.with_changes(
            member=member.handle,
            originator=self._handle(thread.root.author),
            trust=thread_trust(pull.title, thread, self._is_member),
            follow_up=self._follow_up(thread.follow_up),
        )

    def _follow_up(self, follow_up: FollowUp | None) -> FollowUp | None:
        """The change after a comment with its authors spelled as KB handles, as `originator` is."""
        if follow_up is None:
            return None
        authors = tuple(self._handle(author) if author else "" for author in follow_up.authors)
        return replace(follow_up, authors=authors)

    def _doc_patch(self, item: _Thread, doc: Answered[DocPatchAnswer], lesson: Lesson | None) -> None:
        try:
            answer = self._count(doc)
        except SpendingCapError as exc:
            self._cap(exc)
            return
        except ModelCallError:
            return
        base = lesson or self._doc_base(item.pull, item.thread, item.text, item.name, item.member)
        drafted = doc_lesson(answer, base, item.sections)
        if drafted is not None:
            self.result.doc_lessons.append(self._in_document(drafted, item.sections))

    def _in_document(self, lesson: Lesson, sections: list[CoveringSection]) -> Lesson:
        """A document patch belongs to the document's area and scope, not the rule drafted beside it."""
        assert lesson.doc_patch is not None
        document = self.kb.document(lesson.doc_patch.doc)
        if document is None:
            return lesson
        return lesson.with_changes(
            area=document.meta.area,
            scope=document.meta.scope or lesson.scope,
            topic="",
            suggested_topic="",
            example="",
            model_rating=None,
        )

    def _doc_base(
        self, pull: MergedPull, thread: ReviewThread, text: str, name: str, member: Member
    ) -> Lesson:
        """What a document patch is filed as when the thread gave no rule."""
        return Lesson(
            key=review_key(thread.url),
            origin="review",
            kind="new",
            member=member.handle,
            originator=self._handle(thread.root.author),
            source="pr-feedback" if thread.followed_by_commit else "pr-feedback-no-change",
            created=thread.root.created_at,
            area=area_for_path(self.config, name, thread.path),
            url=thread.url,
            thread=text,
            trust=thread_trust(pull.title, thread, self._is_member),
            repo=name,
        )

    def _areas(self, name: str) -> list[str]:
        """The areas the drafter may choose from: the thread's repo's own, and core."""
        names = [area for area, _ in self.config.iter_areas()]
        if self.config.repos:
            names = [area for area in names if area.startswith(f"{name}/")]
        return [*names, CORE_AREA]

    def _is_member(self, author: str) -> bool:
        return self.config.member(author) is not None

    def _handle(self, author: str) -> str:
        member = self.config.member(author)
        return member.handle if member is not None else author


def _no_lesson_reason(answer: DraftAnswer | None, path: str) -> str:
    if answer is None:
        return "the model gave no usable answer"
    if not answer.keep:
        return "the model found nothing reusable in it"
    if not answer.title.strip() or not answer.rule.strip():
        return "the draft had no title or rule"
    return f"no area covers {path} and the draft named none"
