"""`doctor --security`: the four questions of a security review, answered from the live setup.

What is read, what leaves the network, who can change the rules, and how far one bad rule or one
leaked token reaches: the design's review package asks them of every team, and the answers differ
per team (which repos, which runtime, whether the base branch is protected). Each answer is built
from the same facts and findings as the plain doctor run, so the two can never disagree.
"""

from __future__ import annotations

from homeostat.core.config import CORE_AREA, AgentsConfig, Config
from homeostat.core.doctor.checks import Finding, Setup, count_of
from homeostat.core.setup.codeowners import seniors

QUESTIONS: tuple[tuple[str, str], ...] = (
    ("read", "What is read"),
    ("leaves", "What leaves the network"),
    ("change", "Who can change the rules"),
    ("blast", "The blast radius"),
)
_AGENTS = ("curator", "consolidator", "judge", "deep_dive", "retractor", "bootstrap")


def security_review(setup: Setup, config: Config, findings: list[Finding]) -> dict[str, list[str]]:
    by_check = {finding.check: finding for finding in findings}
    return {
        "read": what_is_read(setup, config),
        "leaves": what_leaves(setup, config),
        "change": who_can_change(setup, config, by_check),
        "blast": blast_radius(setup, config),
    }


def _names(items: list[str] | tuple[str, ...], none: str = "none") -> str:
    return ", ".join(items) if items else none


def read_repos(config: Config) -> list[str]:
    """The code repos whose reviews are read: listed, not marked exclude, not in excludeRepos."""
    excluded = {item.rstrip("/").lower() for item in config.sources.exclude_repos}
    listed = [(repo.name, repo.url) for repo in config.repos if not repo.exclude]
    listed += [(url.rstrip("/").rsplit("/", 1)[-1], url) for url in config.sources.repos]
    return [
        name
        for name, url in listed
        if name.lower() not in excluded and url.rstrip("/").lower() not in excluded
    ]


def what_is_read(setup: Setup, config: Config) -> list[str]:
    sources = config.sources
    repos = read_repos(config)
    never = [f"the KB repo itself ({setup.host.repo or 'its origin'})"]
    never += [f"excluded repos ({_names(sources.exclude_repos)})", f"PRs holding {sources.skip_marker!r}"]
    never += [f"PRs by opted-out members ({_names(sources.opt_out)})"]
    never += [f"comments on files matching {_names(sources.exclude_paths)}"]
    writes = "on" if config.security.mcp_writes else "off"
    return [
        f"Review threads of merged pull requests (comment text, PR title, file path and line) in"
        f" {count_of(len(repos), 'code repo')}: {_names(repos)}; each daily run reads the PRs merged in the last {sources.lookback_hours} hours.",
        f"Never read: {'; '.join(never)}.",
        f"Lessons developers write (homeostat learn; MCP learn and flag, which are {writes}), pushed from their"
        " clones to the KB repo's candidates/<member> branches.",
        "Source code: no scheduled job reads it; only the review comments and what they point at.",
    ]


def _runtime_destination(agents: AgentsConfig) -> str:
    if agents.runtime == "api":
        return (
            f"the Anthropic API at {agents.endpoint}"
            if agents.endpoint
            else "the Anthropic API (api.anthropic.com)"
        )
    if agents.runtime == "bedrock":
        return f"Amazon Bedrock in {agents.region or 'the region AWS_REGION names'}"
    if agents.runtime == "vertex":
        project = agents.project or "the project ANTHROPIC_VERTEX_PROJECT_ID names"
        return f"Google Vertex AI ({project}, {agents.region or 'the region CLOUD_ML_REGION names'})"
    return "Anthropic, through the claude CLI and its login"


def what_leaves(setup: Setup, config: Config) -> list[str]:
    agents = config.agents
    overrides = [
        f"{name.replace('_', '-')} uses {getattr(agents, name).runtime}"
        for name in _AGENTS
        if getattr(agents, name).runtime not in (None, agents.runtime)
    ]
    chosen = "chosen in homeostat.yaml" if "model" in setup.chosen else "not chosen: the default"
    variable = config.notifications.slack_webhook_env
    slack = "set" if variable in setup.env_set else "not set"
    team_only = [name for name, area in config.iter_areas() if area.team_only]
    public = [repo.name for repo in config.repos if repo.public]
    lines = [
        f"Review threads and lessons, secrets redacted first, to {_runtime_destination(agents)}, model"
        f" {agents.model} ({chosen}){'; ' + '; '.join(overrides) if overrides else ''}. Model calls are"
        " logged by size, never content; --show-prompts prints every prompt and sends nothing.",
        f"The review queue and the weekly digest, to the Slack webhook in ${variable} ({slack} here).",
        "Rules and documents, to developers' coding sessions (session hooks, MCP) and to the rule files"
        f" exported into code repos; team-only areas ({_names(team_only)}) reach only their team and are never"
        f" exported; public code repos ({_names(public)}) take exports only with --allow-public.",
        "The local event log (.homeostat/events.db): never; it stays on each machine"
        f"{'' if setup.state_ignored else ', but .homeostat/ is NOT git-ignored here'}.",
        "Host tokens and model credentials stay in CI secrets: never in files, prompts or logs.",
    ]
    return lines


def who_can_change(setup: Setup, config: Config, by_check: dict[str, Finding]) -> list[str]:
    top = seniors(config)
    auto = config.scoring.auto_merge.areas
    reach = setup.host.reach
    token = "The CI token: not checked."
    if reach is not None:
        power = (
            "is an admin of" if reach.can_admin else "can write to" if reach.can_write else "can only read"
        )
        token = (
            f"The CI token ({setup.host.token_variable}) {power} {setup.host.repo}: it pushes the run's"
            " branches and merges its pull requests."
        )
    lines = [
        f"Whoever can merge into {config.sources.base_branch}: {_finding(by_check, 'branch-protection')}",
        f"CODEOWNERS: {_finding(by_check, 'codeowners')}; homeostat.yaml, knowledge/{CORE_AREA}/ and the CI files"
        f" belong to the seniors and leads ({_names(top, 'none listed')}).",
        f"The daily run merges confident lessons with no person in: {_names(auto)}"
        + ("" if auto else " (every change waits for a person)")
        + f". The bar is scoring.confidence.accept ({config.scoring.confidence.accept}), core"
        f" {config.scoring.confidence.core_accept}.",
        f"What reads a lesson before such a merge: {_finding(by_check, 'unread-merges')}",
        token,
        f"The daily run's own merges: {_finding(by_check, 'auto-merge')} (a token on a bypass list skips"
        " the approvals and checks people's PRs need; whoever can change the workflows holds it).",
        f"Agents through MCP: {'may write lessons and flags' if config.security.mcp_writes else 'cannot write'}"
        f" (security.mcpWrites), at most {config.security.mcp_write_limit} a session.",
        f"{count_of(len(config.team.members), 'member')} teach lessons and review; {len(top)} of them are seniors"
        " or leads.",
    ]
    return lines


def _finding(by_check: dict[str, Finding], check: str) -> str:
    finding = by_check.get(check)
    return f"{finding.message} [{finding.status}]" if finding is not None else "not checked"


def blast_radius(setup: Setup, config: Config) -> list[str]:
    team_only = [name for name, area in config.iter_areas() if area.team_only]
    reach = setup.host.reach
    lines = [
        f"One merged rule reaches every coding session whose files match its scope; the {setup.core_rules}"
        f" rules in knowledge/{CORE_AREA}/ reach every session. The KB holds {setup.rules} rules, read by"
        f" {len(config.team.members)} members' agents.",
        f"Team-only areas reach only their team's sessions: {_names(team_only)}.",
        f"The KB repo is {setup.host.visibility or 'of unknown visibility (not checked)'}"
        + (": anyone can read every rule and document." if setup.host.visibility == "public" else "."),
        f"Exports write rules into the code repos ({len(config.repos)}, {sum(r.public for r in config.repos)} public).",
    ]
    if reach is not None:
        scope = (
            "; its classic repo scope reaches every repository its user can" if "repo" in reach.scopes else ""
        )
        power = (
            "change the repository's settings and protection"
            if reach.can_admin
            else "push branches and merge"
        )
        lines.append(f"A leaked CI token could {power} in {setup.host.repo}{scope}.")
    return lines
