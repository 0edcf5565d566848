"""`seed` and `bootstrap`: plan (read, nothing sent), preview, ask, draft, then write or publish.

`run_seed` writes one repo's documents into the KB checkout; `run_bootstrap` does every repo of
homeostat.yaml and opens one PR per repo (`homeostat/bootstrap-<repo>`), built on the PR it opened
before when that is still open. Both print the preview first, and ask before the first model call;
`--dry-run` stops after the preview. The one spending cap covers the whole run.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from homeostat.console import Progress
from homeostat.core.asker import Asker, SpendingCap, usd
from homeostat.core.bootstrap.plan import RepoPlan, preview, total
from homeostat.core.config import Config
from homeostat.errors import ConfigError
from homeostat.runs.bootstrap.draft import RepoResult, draft_repo
from homeostat.runs.bootstrap.plan import SeedTarget, plan_repo
from homeostat.runs.bootstrap.report import pr_body, summary
from homeostat.runs.proposal import Proposal, open_proposal, publish_proposal
from homeostat.runs.publish import Publisher

BRANCH_PREFIX = "homeostat/bootstrap-"


@dataclass
class SeedDeps:
    config: Config
    config_text: str
    asker: Callable[[], Asker]  # built on first use: a dry run needs no key
    confirm: Callable[[str], bool]  # asks a person before the first call (the command knows how)
    out: TextIO
    today: dt.date
    model: str
    cap: SpendingCap
    err: TextIO | None = None
    cost: Callable[[], float] = lambda: 0.0  # what the run's calls cost so far


@dataclass
class Outcome:
    plans: list[RepoPlan] = field(default_factory=list)
    results: list[RepoResult] = field(default_factory=list)
    pulls: dict[str, str] = field(default_factory=dict)  # repo → PR url
    dry_run: bool = False
    declined: bool = False

    @property
    def exit_code(self) -> int:
        troubled = any(r.left or r.failed for r in self.results)
        return 1 if troubled or self.declined else 0


def _ask(deps: SeedDeps, plans: Sequence[RepoPlan]) -> bool:
    calls, cost = total(plans)
    if not calls:
        return True
    if deps.confirm(
        f"Send these files to {deps.model} in {calls} call(s), about {usd(cost)} (cap {usd(deps.cap.usd)})?"
    ):
        return True
    deps.out.write("not confirmed: nothing was sent, written or published\n")
    return False


def _draft_all(
    deps: SeedDeps, plans: Sequence[RepoPlan], existing: Callable[[RepoPlan], Mapping[str, str]]
) -> list[RepoResult]:
    results: list[RepoResult] = []
    capped = False
    for plan in plans:
        with Progress(
            f"drafting {plan.name}", total=len(plan.calls), delay=0.0, every=0.0, stream=deps.err
        ) as bar:
            done = [0]

            def step(topic: str, bar: Progress = bar, done: list[int] = done) -> None:
                bar.update(done[0], what=topic)
                done[0] += 1

            result = draft_repo(
                plan, existing(plan), deps.config, deps.config_text, deps.asker, deps.today, step, capped
            )
        capped = capped or bool(result.cap_message)
        results.append(result)
    return results


def run_seed(deps: SeedDeps, target: SeedTarget, kb_files: Mapping[str, str], *, dry_run: bool) -> Outcome:
    """Seed one repo into the KB checkout's files; returns what to write (`Outcome.results[0].files`)."""
    plan = plan_repo(deps.config, target, kb_files, deps.model)
    outcome = Outcome([plan], dry_run=dry_run)
    deps.out.write(preview([plan], deps.model, deps.cap.usd, deps.cap.source))
    if dry_run:
        return outcome
    if not _ask(deps, [plan]):
        outcome.declined = True
        return outcome
    outcome.results = _draft_all(deps, [plan], lambda _: kb_files)
    deps.out.write(summary(outcome.results, deps.cost()))
    return outcome


def branch_for(repo: str) -> str:
    return f"{BRANCH_PREFIX}{repo}"


def run_bootstrap(
    deps: SeedDeps,
    targets: Sequence[SeedTarget],
    kb_files: Mapping[str, str],
    publisher: Publisher | None,
    *,
    dry_run: bool,
) -> Outcome:
    """Every target seeded and its Markdown docs imported, one PR per repo (none in a dry run)."""
    proposals: dict[str, Proposal] = {}
    if not dry_run:
        if publisher is None:
            raise ConfigError(
                "bootstrap publishes a PR per repo: it needs the KB's git checkout and code host"
            )
        base = deps.config.sources.base_branch
        proposals = {t.name: open_proposal(publisher, base, branch_for(t.name)) for t in targets}

    def existing(name: str) -> Mapping[str, str]:
        proposal = proposals.get(name)
        return proposal.files if proposal is not None else kb_files

    plans: list[RepoPlan] = []
    for target in targets:
        with Progress(f"reading {target.name}", stream=deps.err) as bar:
            bar.update(0, what=str(target.checkout))
            plans.append(plan_repo(deps.config, target, existing(target.name), deps.model))
    outcome = Outcome(plans, dry_run=dry_run)
    deps.out.write(preview(plans, deps.model, deps.cap.usd, deps.cap.source))
    if dry_run:
        return outcome
    if not _ask(deps, plans):
        outcome.declined = True
        return outcome
    outcome.results = _draft_all(deps, plans, lambda plan: existing(plan.name))
    assert publisher is not None
    for result in outcome.results:
        proposal = proposals[result.plan.name]
        pull = publish_proposal(
            publisher,
            proposal,
            result.files,
            title=f"Bootstrap {result.plan.name}: documents drafted from the code and docs",
            body=pr_body(result, deps.today, deps.model),
            config=deps.config,
            areas=sorted({t.area for t in result.plan.topics}),
        )
        if pull is not None:
            outcome.pulls[result.plan.name] = pull.url
    deps.out.write(summary(outcome.results, deps.cost(), outcome.pulls))
    return outcome
