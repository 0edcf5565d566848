"""Config cross-checks: every name the KB uses (areas, members, teams, owners, topics) must exist."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

from homeostat.core.config import DEFAULT_SLACK_WEBHOOK_ENV, Config
from homeostat.core.findings import Finding, error
from homeostat.core.format.yamltext import YamlDoc, line_of
from homeostat.core.hosts import UrlError, parse_repo_url
from homeostat.core.kb import CONFIG_FILE, DOCS_DIR, KB
from homeostat.core.text import is_valid_id, slugify

CHECK = "config"


def _line(doc: YamlDoc | None, path: tuple[str | int, ...]) -> int:
    return line_of(doc, path, 1) if doc is not None else 1


def _duplicates(values: Iterable[str]) -> list[str]:
    return [value for value, n in Counter(values).items() if n > 1]


def check_config(config: Config, doc: YamlDoc | None) -> list[Finding]:
    found: list[Finding] = []

    def add(path: tuple[str | int, ...], message: str) -> None:
        found.append(error(CHECK, CONFIG_FILE, _line(doc, path), message))

    handles = [m.handle.lower() for m in config.team.members]
    for handle in _duplicates(handles):
        add(("team", "members"), f"member {handle!r} is listed twice")
    team_names = [t.name for t in config.team.teams]
    for name in _duplicates(team_names):
        add(("team", "teams"), f"team {name!r} is listed twice")
    known_teams = set(team_names)
    for index, member in enumerate(config.team.members):
        for team in member.teams:
            if team not in known_teams:
                add(
                    ("team", "members", index, "teams"),
                    f"member {member.handle!r} is in unknown team {team!r}; add it to team.teams",
                )
    for index, handle in enumerate(config.team.reviewers):
        if config.member(handle) is None:
            add(
                ("team", "reviewers", index),
                f"reviewer {handle!r} is not a team member; add them to team.members",
            )
    for index, handle in enumerate(config.sources.opt_out):
        if config.member(handle) is None:
            add(("sources", "optOut", index), f"optOut names {handle!r}, who is not a team member")
    for name in _duplicates(repo.name for repo in config.repos):
        add(("repos",), f"repo {name!r} is listed twice")
    for r_index, repo in enumerate(config.repos):
        try:
            parse_repo_url(repo.url)
        except UrlError as exc:
            add(("repos", r_index, "url"), str(exc))
        for name in _duplicates(area.name for area in repo.areas):
            add(("repos", r_index, "areas"), f"area {repo.name}/{name} is listed twice")
        for a_index, area in enumerate(repo.areas):
            found += _area_findings(
                config, doc, ("repos", r_index, "areas", a_index), f"{repo.name}/{area.name}", area.owner
            )
        found += _topic_findings(doc, ("repos", r_index, "topics"), repo.topics)
        for a_index, area in enumerate(repo.areas):
            if area.topics is not None:
                found += _topic_findings(doc, ("repos", r_index, "areas", a_index, "topics"), area.topics)
    for name in _duplicates(area.name for area in config.areas):
        add(("areas",), f"area {name!r} is listed twice")
    for a_index, area in enumerate(config.areas):
        found += _area_findings(config, doc, ("areas", a_index), area.name, area.owner)
        if area.topics is not None:
            found += _topic_findings(doc, ("areas", a_index, "topics"), area.topics)
    found += _topic_findings(doc, ("topics",), config.topics)
    for index, url in enumerate(config.sources.repos):
        try:
            parse_repo_url(url)
        except UrlError as exc:
            add(("sources", "repos", index), str(exc))
    areas = set(config.area_names())
    for index, name in enumerate(config.scoring.auto_merge.areas):
        if name not in areas:
            add(
                ("scoring", "autoMerge", "areas", index),
                f"autoMerge names unknown area {name!r}; known: {', '.join(sorted(areas))}",
            )
    review = config.security.risk_reviewed_by
    if review is not None and config.member(review.by) is None:
        add(
            ("security", "riskReviewedBy", "by"),
            f"riskReviewedBy names {review.by!r}, who is not a team member",
        )
    return found


def _area_findings(
    config: Config, doc: YamlDoc | None, path: tuple[str | int, ...], name: str, owner: str
) -> list[Finding]:
    line = _line(doc, path)
    if "/" in name and name.rsplit("/", 1)[-1] == DOCS_DIR:
        return [
            error(
                CHECK,
                CONFIG_FILE,
                _line(doc, (*path, "name")),
                f"area {name!r}: the name {DOCS_DIR!r} is taken, knowledge/<repo>/{DOCS_DIR}/ holds the repo's "
                "documents and its rules would be read as documents; rename the area (e.g. 'documentation')",
            )
        ]
    if not owner:
        return [
            error(
                CHECK,
                CONFIG_FILE,
                line,
                f"area {name!r} has no owner; set owner to the one team that owns it",
            )
        ]
    if config.team_named(owner) is None:
        return [
            error(
                CHECK,
                CONFIG_FILE,
                _line(doc, (*path, "owner")),
                f"area {name!r} is owned by unknown team {owner!r}; add it to team.teams",
            )
        ]
    return []


def _topic_findings(
    doc: YamlDoc | None, path: tuple[str | int, ...], topics: tuple[str, ...]
) -> list[Finding]:
    found: list[Finding] = []
    for index, topic in enumerate(topics):
        if not is_valid_id(topic):
            found.append(
                error(
                    CHECK,
                    CONFIG_FILE,
                    _line(doc, (*path, index)),
                    f"topic {topic!r} cannot be a file name; use {slugify(topic, prefix='topic')!r}",
                )
            )
    for topic in _duplicates(topics):
        found.append(error(CHECK, CONFIG_FILE, _line(doc, path), f"topic {topic!r} is listed twice"))
    return found


def check_names(kb: KB, config: Config) -> list[Finding]:
    """Rules and documents name areas, members and teams the config knows."""
    found: list[Finding] = []
    areas = set(config.area_names())
    # each a scan of the config's lists; a KB names the same few members, teams and areas throughout
    member, team_named = lru_cache(maxsize=None)(config.member), lru_cache(maxsize=None)(config.team_named)
    topics_for = lru_cache(maxsize=None)(config.topics_for)
    for rule in kb.rules:
        meta = rule.meta
        if meta.area not in areas:
            found.append(
                error(
                    CHECK,
                    rule.file,
                    rule.line,
                    f"unknown area {meta.area!r}; add it to homeostat.yaml or move the rule",
                )
            )
        people = [("approvedBy", h) for h in meta.approved_by] + [("flags.by", f.by) for f in meta.flags]
        if meta.source.author:
            people.append(("source.author", meta.source.author))
        if meta.risk_reviewer:
            people.append(("riskReviewedBy", meta.risk_reviewer))
        for key, handle in people:
            if member(handle) is None:
                found.append(
                    error(
                        CHECK,
                        rule.file,
                        rule.line,
                        f"{key} names unknown member {handle!r} (rule {meta.id}); add them to team.members",
                    )
                )
        if meta.owner and team_named(meta.owner) is None:
            found.append(
                error(CHECK, rule.file, rule.line, f"owner {meta.owner!r} is not a team (rule {meta.id})")
            )
        if meta.topic is not None and meta.area in areas and meta.topic not in topics_for(meta.area):
            if not rule.in_topic_file:
                found.append(
                    error(
                        "topic-file",
                        rule.file,
                        rule.line,
                        f"topic {meta.topic!r} is not in the topic list of {meta.area}",
                    )
                )
    for topic_file in kb.topic_files:
        if topic_file.area in areas and topic_file.topic not in topics_for(topic_file.area):
            listed = ", ".join(topics_for(topic_file.area)) or "none"
            found.append(
                error(
                    "topic-file",
                    topic_file.file,
                    1,
                    f"topic {topic_file.topic!r} is not in the topic list of {topic_file.area} (listed: {listed}); add it to homeostat.yaml",
                )
            )
    for document in kb.documents:
        doc_meta = document.meta
        if doc_meta.area not in areas:
            found.append(
                error(
                    CHECK,
                    document.file,
                    1,
                    f"unknown area {doc_meta.area!r}; add it to homeostat.yaml or move the document",
                )
            )
        if doc_meta.owner and team_named(doc_meta.owner) is None:
            found.append(
                error(CHECK, document.file, 1, f"owner {doc_meta.owner!r} is not a team in team.teams")
            )
        if doc_meta.risk_reviewer and member(doc_meta.risk_reviewer) is None:
            found.append(
                error(
                    CHECK,
                    document.file,
                    1,
                    f"riskReviewedBy names unknown member {doc_meta.risk_reviewer!r}",
                )
            )
    return found


# --- endpoints: credentials follow them, so a change needs a person (PEERS.md, lesson 8) -----------


def endpoint_settings(config: Config) -> dict[str, str]:
    """The settings that decide where model, webhook and token traffic goes, with non-default values."""
    agents = config.agents
    values = {
        "agents.runtime": "" if agents.runtime == "api" else agents.runtime,
        "agents.endpoint": agents.endpoint,
        "agents.region": agents.region,
        "agents.project": agents.project,
        "notifications.slackWebhookEnv": ""
        if config.notifications.slack_webhook_env == DEFAULT_SLACK_WEBHOOK_ENV
        else config.notifications.slack_webhook_env,
    }
    for name in ("curator", "consolidator", "judge", "deep_dive", "retractor", "bootstrap"):
        runtime = getattr(agents, name).runtime
        if runtime is not None:
            camel = "deepDive" if name == "deep_dive" else name
            values[f"agents.{camel}.runtime"] = runtime
    return {key: value for key, value in values.items() if value}


def endpoint_fingerprint(settings: dict[str, str]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:12]


def check_endpoints(config: Config, doc: YamlDoc | None) -> list[Finding]:
    settings = endpoint_settings(config)
    if not settings:
        return []
    fingerprint = endpoint_fingerprint(settings)
    review = config.security.risk_reviewed_by
    if review is not None and review.fingerprint == fingerprint and config.member(review.by) is not None:
        return []
    key = next(iter(settings))
    path = tuple(key.split("."))
    changed = ", ".join(f"{k}={v}" for k, v in settings.items())
    stale = " (the reviewed settings have changed since)" if review is not None else ""
    return [
        error(
            "risky",
            CONFIG_FILE,
            _line(doc, path),
            f"model endpoint, runtime or webhook settings are not the defaults ({changed}){stale}; credentials follow "
            f"them, so a member must review this and set security.riskReviewedBy: {{by: <handle>, fingerprint: {fingerprint}}}",
        )
    ]
