"""What every step of the deep dive shares: its inputs, what it finds, and its handles (those it has
alike with the daily run, its clock, claim and counted model calls, are homeostat.runs.run_context)."""

from __future__ import annotations

from dataclasses import dataclass, field

from homeostat.adapters.git.plumbing import Git
from homeostat.core.config import Config
from homeostat.core.daily.retract import ForAPerson, Rewrite
from homeostat.core.deep_dive.code_names import CodeFindings
from homeostat.core.deep_dive.contradictions import Contradiction
from homeostat.core.deep_dive.upkeep import CoverageNote
from homeostat.core.hosts import PullInfo
from homeostat.core.measure.repeats import RuleRepeats
from homeostat.core.schema import Rule
from homeostat.core.state.branch import Notice, NoticeKind, RunReport
from homeostat.runs.model_pool import Pools
from homeostat.runs.publish import Publisher
from homeostat.runs.run_context import RunContext, RunDeps, add_notice, fetch_branches

BRANCH_PREFIX = "homeostat/deep-dive-"


@dataclass(frozen=True)
class DeepDiveOptions:
    dry_run: bool = False
    max_cost: float | None = None
    show_prompts: bool = False


@dataclass
class DeepDiveDeps(RunDeps):
    git: Git  # the deep dive always has the KB checkout


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


class DeepDiveContext(RunContext[DeepDiveDeps, DeepDiveOptions]):
    """One deep dive's dependencies and options, as every step reads them."""

    def __init__(self, deps: DeepDiveDeps, options: DeepDiveOptions) -> None:
        super().__init__(deps, options)
        self.out = deps.out
        self.git = deps.git
        self.publisher = Publisher(deps.git, deps.host, deps.kb_repo, remote=deps.remote, out=deps.out)

    def use_pools(self, config: Config) -> None:
        """Model calls go through pools sized by `agents.concurrency`; the claim is renewed while the
        run waits for their answers."""
        if not self.options.show_prompts:
            self.pools = Pools(config.agents, tick=self.renew_claim)

    def notice(self, found: Found, kind: NoticeKind, message: str) -> None:
        add_notice(found.notices, kind, message, self.out)

    def fetch(self, base: str) -> None:
        """The base branch and the deep dive's own branches."""
        fetch_branches(self.git, self.deps.remote, base, [BRANCH_PREFIX])
