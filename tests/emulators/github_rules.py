"""GitHub's rules for merging, as the emulator enforces them: who starts workflows, what a required
check or approval blocks, and who bypasses what.

The facts modelled (GitHub docs, ECOSYSTEM.md "GitHub: tokens, workflows and limits"):

- An event caused by the workflow's `GITHUB_TOKEN` (opening a PR, pushing to its branch) starts no
  workflow; a GitHub App installation token or a person's token does. A head commit whose message
  holds `[skip ci]` (or `[ci skip]`, `[no ci]`, `[skip actions]`, `[actions skip]`) starts none either.
- A workflow runs on `pull_request` (opened, synchronize, reopened) when its `on:` names the event and
  its `branches:` filter (if any) matches the base; each job reports a check run named after the job
  (its `name:`, else its id). That check's name is what a protection rule requires.
- Classic branch protection requires approvals and status checks; `bypass_pull_request_allowances`
  lets the listed apps merge without the approvals (checks still apply); an admin merges past it all
  unless `enforce_admins` is on.
- A ruleset (enforcement `active`) adds a `pull_request` rule (approvals) and a
  `required_status_checks` rule; an app on its `bypass_actors` list skips every rule of that ruleset.
  The Actions integration cannot be a bypass actor.
- Nobody approves their own pull request; the latest review of each user counts. With classic
  protection's `dismiss_stale_reviews` (a ruleset's `dismiss_stale_reviews_on_push`) on, a push
  dismisses the approvals given before it.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import Any

import yaml

ACTIONS_LOGIN = "github-actions[bot]"
ACTIONS_APP_ID = 15368  # the GitHub Actions integration
SKIP_MARKERS = ("[skip ci]", "[ci skip]", "[no ci]", "[skip actions]", "[actions skip]")


@dataclass
class Protection:
    """Classic branch protection on one branch."""

    checks: tuple[str, ...] = ()
    approvals: int = 1
    enforce_admins: bool = True
    bypass_apps: tuple[int, ...] = ()  # required_pull_request_reviews.bypass_pull_request_allowances.apps
    dismiss_stale: bool = False  # dismiss_stale_reviews: a push takes the approvals given before it away


@dataclass
class Ruleset:
    """A repository ruleset targeting branches."""

    id: int
    name: str
    include: tuple[str, ...] = ("~DEFAULT_BRANCH",)  # ref_name conditions
    approvals: int | None = None  # a pull_request rule when set
    checks: tuple[str, ...] = ()  # a required_status_checks rule when not empty
    bypass_apps: tuple[int, ...] = ()
    enforcement: str = "active"
    dismiss_stale: bool = False  # the pull_request rule's dismiss_stale_reviews_on_push
    block_force_push: bool = False  # a non_fast_forward rule

    def targets(self, branch: str, default_branch: str) -> bool:
        for pattern in self.include:
            if pattern == "~ALL" or (pattern == "~DEFAULT_BRANCH" and branch == default_branch):
                return True
            if fnmatch.fnmatchcase(f"refs/heads/{branch}", pattern):
                return True
        return False

    def rules(self) -> list[dict[str, Any]]:
        rules: list[dict[str, Any]] = []
        if self.approvals is not None:
            rules.append(
                {
                    "type": "pull_request",
                    "parameters": {
                        "required_approving_review_count": self.approvals,
                        "dismiss_stale_reviews_on_push": self.dismiss_stale,
                        "require_code_owner_review": False,
                        "require_last_push_approval": False,
                        "required_review_thread_resolution": False,
                    },
                }
            )
        if self.block_force_push:
            rules.append({"type": "non_fast_forward"})
        if self.checks:
            rules.append(
                {
                    "type": "required_status_checks",
                    "parameters": {
                        "required_status_checks": [{"context": name} for name in self.checks],
                        "strict_required_status_checks_policy": False,
                    },
                }
            )
        return rules


@dataclass
class WorkflowRun:
    """One workflow the emulator ran on a pull request event, for tests to look at."""

    workflow: str
    event: str  # opened | synchronize
    sha: str
    actor: str
    jobs: tuple[str, ...]


@dataclass
class Suppressed:
    """An event that started no workflow, and why."""

    event: str
    sha: str
    actor: str
    reason: str


@dataclass
class CheckLog:
    """Check runs and commit statuses by commit, and every workflow started or not."""

    runs: dict[str, dict[str, str]] = field(default_factory=dict)  # sha -> name -> conclusion
    statuses: dict[str, dict[str, str]] = field(default_factory=dict)  # sha -> context -> state
    workflow_runs: list[WorkflowRun] = field(default_factory=list)
    suppressed: list[Suppressed] = field(default_factory=list)

    def state(self, sha: str, name: str) -> str:
        """success, pending (nothing reported yet counts as expected) or failure."""
        conclusion = self.runs.get(sha, {}).get(name)
        if conclusion is None:
            status = self.statuses.get(sha, {}).get(name)
            if status is None or status == "pending":
                return "pending"
            return "success" if status == "success" else "failure"
        if conclusion in ("success", "neutral", "skipped"):
            return "success"
        return "pending" if conclusion == "in_progress" else "failure"


def skipped(message: str) -> bool:
    lowered = message.lower()
    return any(marker in lowered for marker in SKIP_MARKERS)


def pull_request_jobs(text: str, base: str) -> tuple[str, ...] | None:
    """The check names a workflow reports on a pull request into `base`, or None when it does not run."""
    try:
        spec = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if not isinstance(spec, dict):
        return None
    trigger = spec.get("on", spec.get(True))  # YAML 1.1 reads a bare `on` as true
    if not _runs_on_pull_request(trigger, base):
        return None
    jobs = spec.get("jobs") if isinstance(spec.get("jobs"), dict) else {}
    names = []
    for job_id, job in jobs.items():
        name = job.get("name") if isinstance(job, dict) else None
        names.append(name if isinstance(name, str) and "${{" not in name else str(job_id))
    return tuple(names)


def _runs_on_pull_request(trigger: object, base: str) -> bool:
    if trigger == "pull_request":
        return True
    if isinstance(trigger, list):
        return "pull_request" in trigger
    if not isinstance(trigger, dict) or "pull_request" not in trigger:
        return False
    spec = trigger["pull_request"] or {}
    types = spec.get("types") or ["opened", "synchronize", "reopened"]
    if not {"opened", "synchronize"} & set(types):
        return False
    branches = spec.get("branches")
    if branches is None:
        return True
    return any(fnmatch.fnmatchcase(base, str(pattern)) for pattern in branches)


def approvals(reviews: list[tuple[str, str]], author: str, writers: set[str]) -> int:
    """Approvals that count: each user's latest review, by someone with write access, not the author."""
    latest: dict[str, str] = {}
    for login, state in reviews:
        latest[login] = state
    return sum(
        1 for login, state in latest.items() if state == "APPROVED" and login != author and login in writers
    )


def status_blockers(log: CheckLog, sha: str, checks: tuple[str, ...]) -> list[str]:
    blockers = []
    for name in checks:
        state = log.state(sha, name)
        if state == "pending":
            blockers.append(f'Required status check "{name}" is expected.')
        elif state == "failure":
            blockers.append(f'Required status check "{name}" is failing.')
    return blockers


def approval_blocker(needed: int, have: int) -> list[str]:
    if have >= needed:
        return []
    return [
        f"At least {needed} approving review{'s are' if needed != 1 else ' is'} required by reviewers with write access."
    ]
