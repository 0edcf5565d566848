"""What every step of the deep dive shares: its inputs, what it finds, and its handles."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO, TypeVar

from pydantic import BaseModel

from homeostat.adapters.git.plumbing import Git
from homeostat.core.asker import Asker, RunStats
from homeostat.core.config import Config
from homeostat.core.daily.retract import ForAPerson, Rewrite
from homeostat.core.deep_dive.code_names import CodeFindings
from homeostat.core.deep_dive.contradictions import Contradiction
from homeostat.core.deep_dive.upkeep import CoverageNote
from homeostat.core.hosts import CodeHost, PullInfo, RepoRef
from homeostat.core.measure.repeats import RuleRepeats
from homeostat.core.schema import Rule
from homeostat.core.state.branch import Notice, NoticeKind, RunReport
from homeostat.runs.daily.claim import ClaimedAsker
from homeostat.runs.daily.run_state import CallTally, CountingAsker
from homeostat.runs.model_pool import ModelPool, Pools, pool_of, pooled
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
    # rules reviewers re-taught since the last deep dive (core.measure.repeats): served ones want a rewrite,
    # never-served ones are selection misses; listed in the PR body, changed by nobody but a person
    retaught: list[RuleRepeats] = field(default_factory=list)
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
        self.pools: Pools | None = None  # set once the run has read its settings

    def now(self) -> dt.datetime:
        return self.deps.now()

    def today(self) -> dt.date:
        """The run's date: the UTC date it started, so a run that crosses midnight stamps and judges
        everything by one date."""
        return (self.started or self.now()).date()

    def ask(self, agent: str) -> Asker:
        asker = ClaimedAsker(
            CountingAsker(self.deps.asker_for(agent), self.tally), lambda: self.claim, self._wake
        )
        return pooled(asker, self.pools, agent)

    def _wake(self) -> None:
        if self.pools is not None:
            self.pools.wake()

    def pool(self, agent: str) -> ModelPool:
        """The run's pool for `agent`'s runtime (one worker before the settings are read, and for
        --show-prompts, whose prompts print one after the other)."""
        return pool_of(self.pools, agent)

    def use_pools(self, config: Config) -> None:
        """Model calls go through pools sized by `agents.concurrency`; the claim is renewed while the
        run waits for their answers."""
        if not self.options.show_prompts:
            self.pools = Pools(config.agents, tick=self._renew)

    def _renew(self) -> None:
        if self.claim is not None:
            self.claim.renew_if_due()

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
