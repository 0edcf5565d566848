"""`seed`: one repo's documents drafted from its code and written into the KB checkout; `bootstrap`
(the package's face) seeds every repo the same way and opens a PR per repo.

Plan (read, nothing sent), preview, ask before the first model call, draft, then write; `--dry-run`
stops after the preview. The one spending cap covers the whole run.
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
from homeostat.runs.bootstrap.draft import RepoResult, draft_repo
from homeostat.runs.bootstrap.plan import SeedTarget, plan_repo
from homeostat.runs.bootstrap.report import summary


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


def ask_first(deps: SeedDeps, plans: Sequence[RepoPlan]) -> bool:
    calls, cost = total(plans)
    if not calls:
        return True
    if deps.confirm(
        f"Send these files to {deps.model} in {calls} call(s), about {usd(cost)} (cap {usd(deps.cap.usd)})?"
    ):
        return True
    deps.out.write("not confirmed: nothing was sent, written or published\n")
    return False


def draft_all(
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
    if not ask_first(deps, [plan]):
        outcome.declined = True
        return outcome
    outcome.results = draft_all(deps, [plan], lambda _: kb_files)
    deps.out.write(summary(outcome.results, deps.cost()))
    return outcome
