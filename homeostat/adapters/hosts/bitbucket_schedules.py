"""Bitbucket Pipelines schedules over the REST API: the only scheduler a Bitbucket KB has.

A Bitbucket repository cannot schedule its own pipelines from `bitbucket-pipelines.yml`; a schedule
is a setting of the repository, created with `POST /2.0/repositories/{workspace}/{repo}/
pipelines_config/schedules/` (a custom-pipeline selector, a branch and a seven-field cron). This
module reads, creates and deletes them through the same authenticated client, retries and error text
as `homeostat.adapters.hosts.bitbucket`. A create that may have landed before a failure is looked for
before it is sent again, so a retried `init --create-schedules` never leaves two schedules.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from homeostat.adapters.hosts.bitbucket import BitbucketApi, BitbucketHost, TransientHostError
from homeostat.core.hosts import RepoRef
from homeostat.core.schedule.host_schedules import PipelineSchedule
from homeostat.errors import HostError

READ_SCOPE = "pipeline (read), and pipeline:write to create schedules"
WRITE_SCOPE = "pipeline:write"


def _dig(data: object, *keys: str) -> Any:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def parse_schedule(data: dict[str, Any]) -> PipelineSchedule:
    return PipelineSchedule(
        pipeline=str(_dig(data, "target", "selector", "pattern") or ""),
        branch=str(_dig(data, "target", "ref_name") or ""),
        cron=str(data.get("cron_pattern") or ""),
        uuid=str(data.get("uuid") or ""),
        enabled=bool(data.get("enabled", True)),
    )


def schedule_body(schedule: PipelineSchedule) -> dict[str, Any]:
    return {
        "type": "pipeline_schedule",
        "enabled": True,
        "cron_pattern": schedule.cron,
        "target": {
            "type": "pipeline_ref_target",
            "ref_type": "branch",
            "ref_name": schedule.branch,
            "selector": {"type": "custom", "pattern": schedule.pipeline},
        },
    }


class PipelineSchedules:
    """The schedules of one repository's pipelines."""

    def __init__(self, host: BitbucketHost) -> None:
        self.api: BitbucketApi = host.api

    @staticmethod
    def _path(repo: RepoRef) -> str:
        return f"repositories/{quote(repo.owner, safe='')}/{quote(repo.name, safe='')}/pipelines_config/schedules/"

    def list(self, repo: RepoRef) -> list[PipelineSchedule]:
        return [
            parse_schedule(data)
            for data in self.api.pages(self._path(repo), {"pagelen": 100}, need=READ_SCOPE)
        ]

    def create(self, repo: RepoRef, schedule: PipelineSchedule) -> PipelineSchedule:
        """POST once; on an unclear answer, look for the schedule before posting again."""
        path = self._path(repo)
        body = schedule_body(schedule)
        try:
            response = self.api.call(
                "POST", path, body=body, need=WRITE_SCOPE, retry_5xx=False, accept=(400,)
            )
        except TransientHostError:
            landed = self._find(repo, schedule)
            if landed is not None:
                return landed
            response = self.api.call("POST", path, body=body, need=WRITE_SCOPE, accept=(400,))
        if response.status_code == 400:
            raise HostError(
                f"Bitbucket refused the schedule for {schedule.pipeline} on {schedule.branch} in"
                f" {repo.full_name}: {self.api.error_text(response)} (the branch must hold a"
                f" bitbucket-pipelines.yml with the custom pipeline {schedule.pipeline}, and Pipelines must"
                " be enabled: push the file, then rerun)"
            )
        return parse_schedule(self.api.json(response, "POST", path))

    def delete(self, repo: RepoRef, uuid: str) -> None:
        """Deleting a schedule that is already gone is not an error."""
        self.api.call("DELETE", self._path(repo) + quote(uuid, safe=""), need=WRITE_SCOPE, accept=(404,))

    def _find(self, repo: RepoRef, schedule: PipelineSchedule) -> PipelineSchedule | None:
        wanted = (schedule.pipeline, schedule.branch, schedule.cron.split())
        return next(
            (
                found
                for found in self.list(repo)
                if (found.pipeline, found.branch, found.cron.split()) == wanted
            ),
            None,
        )
