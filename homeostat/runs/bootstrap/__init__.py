"""`bootstrap`: what `seed` does for one repo (`runs.bootstrap.seed`), for every repo of homeostat.yaml,
with one PR per repo (`homeostat/bootstrap-<repo>`), built on the PR it opened before when that is
still open. It prints the preview first and asks before the first model call; `--dry-run` stops
after the preview. The one spending cap covers the whole run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from homeostat.console import Progress
from homeostat.core.bootstrap.plan import RepoPlan, preview
from homeostat.errors import ConfigError
from homeostat.runs.bootstrap.plan import SeedTarget, plan_repo
from homeostat.runs.bootstrap.report import pr_body, summary
from homeostat.runs.bootstrap.seed import Outcome, SeedDeps, ask_first, draft_all
from homeostat.runs.proposal import Proposal, open_proposal, publish_proposal
from homeostat.runs.publish import Publisher

BRANCH_PREFIX = "homeostat/bootstrap-"


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
    if not ask_first(deps, plans):
        outcome.declined = True
        return outcome
    outcome.results = draft_all(deps, plans, lambda plan: existing(plan.name))
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
