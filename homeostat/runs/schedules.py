"""`init --create-schedules`: Bitbucket's daily and weekly schedules, created through its API.

Bitbucket has no scheduler inside the repository, so a Bitbucket KB's custom pipelines run only on
schedules kept in Bitbucket. This creates one per scheduled job (`agents.schedules`) on the base
branch. It is safe to rerun: a schedule already there at the same time is left alone, and one at
another time (someone changed it in Bitbucket) is kept unless `--force`, which deletes it before
creating the new one, so an interrupted run never leaves a pipeline scheduled twice.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from homeostat.adapters.git import work_tree
from homeostat.adapters.hosts.bitbucket import bitbucket_host_from_env
from homeostat.adapters.hosts.bitbucket_schedules import PipelineSchedules
from homeostat.core.config import Config
from homeostat.core.hosts import HostKind, RepoRef
from homeostat.core.schedule.host_schedules import (
    CronError,
    PipelineSchedule,
    ScheduleOutcome,
    SchedulePlan,
    plan_schedules,
    wanted_schedules,
)
from homeostat.errors import ConfigError


def create_schedules(
    root: Path, config: Config, *, force: bool, env: Mapping[str, str] | None = None
) -> list[dict[str, str]]:
    """Create the missing schedules; one row per scheduled job saying what happened to it."""
    repo = _bitbucket_repo(root, config)
    try:
        wanted = wanted_schedules(config.agents.schedules, config.sources.base_branch)
    except CronError as exc:
        raise ConfigError(f"homeostat.yaml: {exc}") from None
    api = PipelineSchedules(bitbucket_host_from_env(os.environ if env is None else env))
    plans = plan_schedules(wanted, api.list(repo), force=force)
    for plan in plans:
        _apply(api, repo, plan)
    return [_row(plan) for plan in plans]


def _bitbucket_repo(root: Path, config: Config) -> RepoRef:
    from homeostat.runs.curate import kb_repo_ref

    if config.sources.host != "bitbucket":
        raise ConfigError(
            "--create-schedules is for a Bitbucket KB: on GitHub the schedules are the `schedule:` triggers"
            " in the workflow files init writes"
        )
    repo = kb_repo_ref(config, work_tree.origin_url(root))
    if repo is None or repo.host is not HostKind.BITBUCKET:
        raise ConfigError(
            "cannot tell which Bitbucket repository the KB is: set sources.kbRepo in homeostat.yaml"
            " (https://bitbucket.org/<workspace>/<repo>) or give the checkout an origin remote"
        )
    return repo


def _apply(api: PipelineSchedules, repo: RepoRef, plan: SchedulePlan) -> None:
    if plan.outcome is ScheduleOutcome.REPLACE:
        for old in plan.existing:
            api.delete(repo, old.uuid)
    if plan.outcome in (ScheduleOutcome.CREATE, ScheduleOutcome.REPLACE):
        api.create(repo, plan.wanted)


def _row(plan: SchedulePlan) -> dict[str, str]:
    wanted: PipelineSchedule = plan.wanted
    row = {
        "pipeline": wanted.pipeline,
        "branch": wanted.branch,
        "cron": wanted.cron,
        "outcome": plan.outcome.value,
    }
    if plan.outcome is ScheduleOutcome.KEEP:
        row["existing"] = ", ".join(e.cron for e in plan.existing)
    return row
