"""What every step of the daily run shares: its inputs, what it decides, and what it accumulates (what
it has alike with the deep dive, its clock, claim and counted model calls, is homeostat.runs.run_context)."""

from __future__ import annotations

import datetime as dt
import io
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol, TextIO, TypeVar

from pydantic import BaseModel

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import KbTrees
from homeostat.core.asker import Asker
from homeostat.core.config import Config
from homeostat.core.daily.confidence import Confidence
from homeostat.core.daily.consolidate import Consolidation
from homeostat.core.daily.judge import Verdict
from homeostat.core.daily.lessons import Lesson
from homeostat.core.hosts import PullInfo, RepoRef
from homeostat.core.kb import KB
from homeostat.core.notify import Notifier
from homeostat.core.safety.secrets import redacted
from homeostat.core.state.branch import (
    DecisionRecord,
    Heartbeat,
    Notice,
    NoticeKind,
    Outcome,
    PullRef,
    RepeatRecord,
    RunReport,
    StateSnapshot,
)
from homeostat.core.state.checkpoints import RetryThread
from homeostat.core.validate.files import FileErrors
from homeostat.errors import HomeostatError
from homeostat.runs.merge_gate import CheckWait
from homeostat.runs.model_pool import ModelPool, Pools
from homeostat.runs.publish import Publisher
from homeostat.runs.run_context import RunContext, RunDeps, add_notice, fetch_branches, new_run_id

if TYPE_CHECKING:
    from homeostat.core.state.branch import JournalEntry
    from homeostat.runs.daily.checkpoint import Checkpoint

T = TypeVar("T", bound=BaseModel)

HEARTBEAT_FILE = ".homeostat/heartbeat.json"
CANDIDATES_PREFIX = "candidates/"
REVIEW_PREFIX = "homeostat/review-"
DAILY_PREFIX = "homeostat/daily-"
DISPUTE_PREFIX = "homeostat/review-dispute-"


# --- inputs ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DailyOptions:
    dry_run: bool = False
    since: dt.datetime | None = None
    max_cost: float | None = None
    no_reviews: bool = False
    show_prompts: bool = False
    offline: bool = False  # no host and no model: this clone's pending lessons only
    merge_shards: int | None = None  # the merge job of N drafting shards (homeostat.runs.shards)


@dataclass(frozen=True)
class CurateOutcome:
    """What the review-drafting step hands back (see homeostat.runs.curate)."""

    lessons: tuple[Lesson, ...] = ()
    capped: bool = False
    cited: frozenset[str] = frozenset()
    retry: tuple[RetryThread, ...] = ()  # threads whose draft failed past its retries
    drafted: frozenset[str] = frozenset()  # threads the drafter answered


class CurateStep(Protocol):
    def __call__(
        self,
        *,
        kb: KB,
        since: dt.datetime,
        until: dt.datetime,
        extra_cited: frozenset[str],
        asker: Asker,
        pool: ModelPool,
        keep: Callable[[RepoRef], bool] | None = None,
    ) -> CurateOutcome: ...


@dataclass
class DailyDeps(RunDeps):
    """A daily run's dependencies (with --offline, no git, host or KB repo)."""

    curate: CurateStep | None = None
    notifier: Notifier | None = None
    notifier_missing: str = ""  # why no notifier: a Slack variable that is not set
    checkout: Path | None = None  # for --offline: the clone whose .homeostat/pending is read
    kb: KB | None = None  # the checkout's KB as the command read it (the run reuses it for HEAD)
    check_wait: CheckWait | None = None  # how a refused daily merge waits for its checks (merge_gate)


# --- the run's output and its offline model ------------------------------------------------------


class RedactingOut(io.TextIOBase):
    """The run's output stream: whatever a step prints about a lesson passes redaction first."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(redacted(text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()


class NoModel:
    """The offline runtime: no usable answer, so every agent falls back or fails closed."""

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        return None


# --- what the run decides -------------------------------------------------------------------------


@dataclass
class Decided:
    lesson: Lesson
    confidence: Confidence
    verdict: str  # merge | review | decline | duplicate
    reason: str
    target: str = ""  # rule id an update, duplicate or flag is about
    update: Consolidation | None = None
    judge: Verdict | None = None
    rule_id: str = ""
    pr: PullRef | None = None
    undecided: bool = False
    waiting_key: str = ""

    @property
    def is_update(self) -> bool:
        return self.update is not None and self.update.action == "update"

    @property
    def outcome(self) -> Outcome:
        if self.verdict == "decline":
            return "declined"
        if self.verdict == "duplicate":
            return "duplicate"
        if self.verdict == "review":
            return "review"
        if self.lesson.kind == "flag":
            return "disputed"
        if self.update is not None and self.update.action == "update":
            return "updated"
        return "merged"


@dataclass
class Retirement:
    """A change the settled PRs ask of the KB, landed through the member's daily PR: a closed
    dispute retires its rule; a reviewer's merge records who approved the rules it held. A merged
    flag (`dispute`) changes nothing more (its PR disputed the rule): its dispute PR opens. A merge
    no second person read (`contest`) flags its rule with `reason`, and its dispute PR opens."""

    rule_id: str
    member: str
    reason: str
    record: DecisionRecord | None = None
    action: Literal["retire", "approve", "dispute", "contest"] = "retire"
    by: str = ""


@dataclass
class RunState:
    """Everything one run accumulates; written out once at the end."""

    started: dt.datetime
    since: dt.datetime
    base: str
    state: StateSnapshot
    notices: list[Notice] = field(default_factory=list)
    records: dict[str, list[DecisionRecord]] = field(default_factory=lambda: defaultdict(list))
    repeats: dict[str, list[RepeatRecord]] = field(default_factory=lambda: defaultdict(list))
    heartbeats: list[Heartbeat] = field(default_factory=list)
    capped: bool = False
    run_id: str = ""
    unread: str = ""  # why some code repos were left unread (a failed shard): the next run reads them

    def __post_init__(self) -> None:
        self.run_id = self.run_id or new_run_id(self.started)

    def notice(self, kind: NoticeKind, message: str, out: TextIO) -> None:
        add_notice(self.notices, kind, message, out)


@dataclass(frozen=True)
class DailyResult:
    exit_code: int
    decided: tuple[Decided, ...]
    prs: tuple[PullInfo, ...]
    report: RunReport | None


# --- the run's own handles ------------------------------------------------------------------------


class DailyContext(RunContext[DailyDeps, DailyOptions]):
    """One daily run's dependencies and options, as every step reads them."""

    def __init__(self, deps: DailyDeps, options: DailyOptions) -> None:
        super().__init__(deps, options)
        self.out: TextIO = RedactingOut(deps.out)  # type: ignore[assignment]
        self._publisher: Publisher | None = None
        self._trees: KbTrees | None = None
        self._file_errors: dict[dt.date, FileErrors] = {}
        self.checkpoint: Checkpoint | None = None  # the answers it paid for, once the state is read

    @property
    def git(self) -> Git:
        if self.deps.git is None:
            raise HomeostatError(
                "this step needs the KB repo's git checkout (it does not run with --offline)"
            )
        return self.deps.git

    @property
    def publisher(self) -> Publisher:
        if self._publisher is None:
            self._publisher = Publisher(
                self.git,
                self.deps.host,
                self.deps.kb_repo,
                remote=self.deps.remote,
                out=self.out,
                check_wait=self.deps.check_wait,
            )
        return self._publisher

    @property
    def opened(self) -> list[PullInfo]:
        return self._publisher.opened if self._publisher is not None else []

    def kb_at(self, treeish: str) -> KB:
        """The KB at a commit of the KB repo; each tree is parsed once a run, and one that differs from
        a tree already read (a merged daily PR, a review branch) only where it differs."""
        if self._trees is None:
            self._trees = KbTrees(self.git)
            if self.deps.kb is not None:
                self._trees.seed(self.deps.kb)
        return self._trees.at(treeish)

    def made(self, commit: str, kb: KB) -> None:
        """The run made `commit` holding `kb` (a daily PR's branch): reading it costs nothing."""
        if self._trees is not None:
            self._trees.know(commit, kb)

    def file_errors(self) -> FileErrors:
        """What validate finds in files the run edits, kept per section for the run (for today)."""
        today = self.today()
        return self._file_errors.setdefault(today, FileErrors(today))

    def ask(self, agent: str) -> Asker:
        """The agent's asker (see RunContext.ask); offline, a model that never answers."""
        if self.options.offline:
            return NoModel()
        return super().ask(agent)

    def use_pools(self, config: Config, tick: Callable[[], None] | None) -> None:
        """From here on, model calls go through pools sized by `agents.concurrency`, ticking `tick`
        while the run waits for answers."""
        self.pools = Pools(config.agents, tick=tick)

    def fetch(self, base: str) -> None:
        """The base branch, every member's candidates branch and Homeostat's PR branches."""
        fetch_branches(self.git, self.deps.remote, base, [CANDIDATES_PREFIX, REVIEW_PREFIX, DAILY_PREFIX])

    def fetch_base(self, base: str) -> None:
        """The base branch alone: after a daily PR merged, only its new tip is read."""
        remote = self.deps.remote
        self.git.fetch(remote, [f"+refs/heads/{base}:refs/remotes/{remote}/{base}"])

    def base_tip(self, base: str) -> str:
        return self.publisher.base_tip(base)

    def write_ahead(self, entry: JournalEntry, base_tip: str) -> None:
        """Journal a PR about to be pushed (see homeostat.runs.daily.claim)."""
        if self.claim is not None:
            self.claim.write_ahead(entry, base_tip)
