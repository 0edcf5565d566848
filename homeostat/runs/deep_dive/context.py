"""What every step of the deep dive shares: its inputs, what it finds, and its handles."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO, TypeVar

from pydantic import BaseModel

from homeostat.adapters.git import Git
from homeostat.core.asker import Asker, RunStats
from homeostat.core.daily.retract import ForAPerson, Rewrite
from homeostat.core.deep_dive.code_names import CodeFindings
from homeostat.core.deep_dive.contradictions import Contradiction
from homeostat.core.deep_dive.upkeep import CoverageNote
from homeostat.core.hosts import CodeHost, PullInfo, RepoRef
from homeostat.core.model import Rule
from homeostat.core.state import Notice, NoticeKind, RunReport
from homeostat.runs.daily.context import CallTally, CountingAsker
from homeostat.runs.publish import Publisher

if TYPE_CHECKING:
    from homeostat.runs.daily.claim import RunClaim

T = TypeVar("T", bound=BaseModel)
BRANCH_PREFIX = "homeostat/deep-dive-"


@dataclass(frozen=True)
class DeepDiveOptions:
    dry_run: bool = False
    max_cost: float | None = None
    show_prompts: bool = False


@dataclass
class DeepDiveDeps:
    git: Git  # the KB checkout; its `remote` is the KB repo
    host: CodeHost | None
    kb_repo: RepoRef | None
    asker_for: Callable[[str], Asker]
    stats: RunStats
    out: TextIO
    now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)
    remote: str = "origin"


@dataclass(frozen=True)
class Merge:
    keep: Rule
    drop: Rule
    reason: str


@dataclass
class Found:
    """Everything the deep dive found in one KB; what it changes is a function of this alone."""

    merges: list[Merge] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    stale: list[Rule] = field(default_factory=list)
    rewrites: list[Rewrite] = field(default_factory=list)
    listed: list[ForAPerson] = field(default_factory=list)  # citations left for a person
    notes: list[CoverageNote] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # checks the spending cap left, by name
    unanswered: list[str] = field(default_factory=list)  # checks with no usable answer, by name
    capped: bool = False
    notices: list[Notice] = field(default_factory=list)
    code: CodeFindings = field(default_factory=CodeFindings)  # agents.deepDive.checkCode (code_check.py)

    @property
    def changes(self) -> int:
        changed = len(self.merges) + len(self.contradictions) + len(self.stale) + len(self.rewrites)
        return changed + len(self.code.retired)

    def counts(self) -> dict[str, int]:
        return {
            "merged": len(self.merges),
            "contradictions": len(self.contradictions),
            "retired": len(self.stale),
            "retracted": len(self.rewrites),
            "listed": len(self.listed),
            "notes": len(self.notes),
            "skipped": len(self.skipped),
            "codeRetired": len(self.code.retired),
        }


@dataclass(frozen=True)
class DeepDiveResult:
    exit_code: int
    found: Found | None
    pull: PullInfo | None
    report: RunReport | None
    dry_run: bool = False
    failed: str = ""
    week_done: str = ""  # this week's PR, merged or closed already: the run did nothing
    stood_aside: str = ""  # the run id of another deep dive still running: this one did nothing


class DeepDiveContext:
    """One run's dependencies and options, as every step reads them."""

    def __init__(self, deps: DeepDiveDeps, options: DeepDiveOptions) -> None:
        self.deps = deps
        self.options = options
        self.dry = options.dry_run or options.show_prompts
        self.tally = CallTally()
        self.out = deps.out
        self.git = deps.git
        self.publisher = Publisher(deps.git, deps.host, deps.kb_repo, remote=deps.remote, out=deps.out)
        self.claim: RunClaim | None = None  # None for a dry run, which writes nothing
        self.started: dt.datetime | None = None  # set when the run starts

    def now(self) -> dt.datetime:
        return self.deps.now()

    def today(self) -> dt.date:
        """The run's date: the UTC date it started, so a run that crosses midnight stamps and judges
        everything by one date."""
        return (self.started or self.now()).date()

    def ask(self, agent: str) -> Asker:
        return _KeepingClaim(CountingAsker(self.deps.asker_for(agent), self.tally), self)

    def notice(self, found: Found, kind: NoticeKind, message: str) -> None:
        if not any(n.kind == kind and n.message == message for n in found.notices):
            found.notices.append(Notice(kind=kind, message=message))
        print(f"notice: {message}", file=self.out)

    def fetch(self, base: str) -> None:
        """The base branch and the deep dive's own branches."""
        remote = self.deps.remote
        self.git.fetch(
            remote,
            [
                f"+refs/heads/{base}:refs/remotes/{remote}/{base}",
                f"+refs/heads/{BRANCH_PREFIX}*:refs/remotes/{remote}/{BRANCH_PREFIX}*",
            ],
        )


class _KeepingClaim:
    """Renews the run's claim before a call when it is due, so a long deep dive never outlives it; a
    claim another run took over raises `ClaimLost`, which stops the run before it publishes."""

    def __init__(self, inner: Asker, ctx: DeepDiveContext) -> None:
        self.inner = inner
        self.ctx = ctx

    def ask(self, system: str, user: str, schema: type[T]) -> T | None:
        if self.ctx.claim is not None:
            self.ctx.claim.renew_if_due()
        return self.inner.ask(system, user, schema)
