"""Config cross-checks: every name the KB uses (areas, members, teams, owners, topics) must exist."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from homeostat.core.config import DEFAULT_SLACK_WEBHOOK_ENV, Config
from homeostat.core.findings import Finding, error
from homeostat.core.format.yamltext import YamlDoc, line_of
from homeostat.core.hosts import UrlError, parse_repo_url
from homeostat.core.kb import CONFIG_FILE, DOCS_DIR, KB
from homeostat.core.text import is_valid_id, slugify

if TYPE_CHECKING:
    from homeostat.core.format.parse import TopicFile
    from homeostat.core.schema import Document, Rule

CHECK = "config"


def _line(doc: YamlDoc | None, path: tuple[str | int, ...]) -> int:
    return line_of(doc, path, 1) if doc is not None else 1


def _duplicates(values: Iterable[str]) -> list[str]:
    return [value for value, n in Counter(values).items() if n > 1]


def check_config(config: Config, doc: YamlDoc | None) -> list[Finding]:
    found = _team_findings(config, doc) + _repo_list_findings(config, doc)
    for name in _duplicates(area.name for area in config.areas):
        found.append(_at(doc, ("areas",), f"area {name!r} is listed twice"))
    for a_index, area in enumerate(config.areas):
        found += _area_findings(config, doc, ("areas", a_index), area.name, area.owner)
        if area.topics is not None:
            found += _topic_findings(doc, ("areas", a_index, "topics"), area.topics)
    found += _topic_findings(doc, ("topics",), config.topics)
    for index, url in enumerate(config.sources.repos):
        try:
            parse_repo_url(url)
        except UrlError as exc:
            found.append(_at(doc, ("sources", "repos", index), str(exc)))
    areas = set(config.area_names())
    for index, name in enumerate(config.scoring.auto_merge.areas):
        if name not in areas:
            found.append(
                _at(
                    doc,
                    ("scoring", "autoMerge", "areas", index),
                    f"autoMerge names unknown area {name!r}; known: {', '.join(sorted(areas))}",
                )
            )
    review = config.security.risk_reviewed_by
    if review is not None and config.member(review.by) is None:
        found.append(
            _at(
                doc,
                ("security", "riskReviewedBy", "by"),
                f"riskReviewedBy names {review.by!r}, who is not a team member",
            )
        )
    return found


def _at(doc: YamlDoc | None, path: tuple[str | int, ...], message: str) -> Finding:
    """An error in homeostat.yaml at the line of `path`, so the reader lands on the setting to fix."""
    return error(CHECK, CONFIG_FILE, _line(doc, path), message)


def _team_findings(config: Config, doc: YamlDoc | None) -> list[Finding]:
    """The team section: members and teams listed once, members in known teams, and reviewers and
    opted-out people who are members (a stranger's handle would be asked to review or left out)."""
    found: list[Finding] = []
    for handle in _duplicates(m.handle.lower() for m in config.team.members):
        found.append(_at(doc, ("team", "members"), f"member {handle!r} is listed twice"))
    team_names = [t.name for t in config.team.teams]
    for name in _duplicates(team_names):
        found.append(_at(doc, ("team", "teams"), f"team {name!r} is listed twice"))
    known_teams = set(team_names)
    for index, member in enumerate(config.team.members):
        for team in member.teams:
            if team not in known_teams:
                found.append(
                    _at(
                        doc,
                        ("team", "members", index, "teams"),
                        f"member {member.handle!r} is in unknown team {team!r}; add it to team.teams",
                    )
                )
    for index, handle in enumerate(config.team.reviewers):
        if config.member(handle) is None:
            found.append(
                _at(
                    doc,
                    ("team", "reviewers", index),
                    f"reviewer {handle!r} is not a team member; add them to team.members",
                )
            )
    for index, handle in enumerate(config.sources.opt_out):
        if config.member(handle) is None:
            found.append(
                _at(doc, ("sources", "optOut", index), f"optOut names {handle!r}, who is not a team member")
            )
    return found


def _repo_list_findings(config: Config, doc: YamlDoc | None) -> list[Finding]:
    """The repos section: each repo once with a URL we can parse, and its areas and topics checked as
    the top-level ones are."""
    found: list[Finding] = []
    for name in _duplicates(repo.name for repo in config.repos):
        found.append(_at(doc, ("repos",), f"repo {name!r} is listed twice"))
    for r_index, repo in enumerate(config.repos):
        try:
            parse_repo_url(repo.url)
        except UrlError as exc:
            found.append(_at(doc, ("repos", r_index, "url"), str(exc)))
        for name in _duplicates(area.name for area in repo.areas):
            found.append(_at(doc, ("repos", r_index, "areas"), f"area {repo.name}/{name} is listed twice"))
        for a_index, area in enumerate(repo.areas):
            found += _area_findings(
                config, doc, ("repos", r_index, "areas", a_index), f"{repo.name}/{area.name}", area.owner
            )
        found += _topic_findings(doc, ("repos", r_index, "topics"), repo.topics)
        for a_index, area in enumerate(repo.areas):
            if area.topics is not None:
                found += _topic_findings(doc, ("repos", r_index, "areas", a_index, "topics"), area.topics)
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
    names = _Names(config)
    found: list[Finding] = []
    for rule in kb.rules:
        found += _rule_name_findings(rule, names)
    for topic_file in kb.topic_files:
        found += _topic_file_findings(topic_file, names)
    for document in kb.documents:
        found += _document_name_findings(document, names)
    return found


class _Names:
    """The config's names as `check_names` asks for them. Each lookup is a scan of the config's lists,
    and a KB names the same few members, teams and areas throughout, so each answer is kept."""

    def __init__(self, config: Config) -> None:
        self.areas = set(config.area_names())
        self.member = lru_cache(maxsize=None)(config.member)
        self.team_named = lru_cache(maxsize=None)(config.team_named)
        self.topics_for = lru_cache(maxsize=None)(config.topics_for)


def _area_finding(names: _Names, area: str, file: str, line: int, what: str) -> list[Finding]:
    """An area the config does not list: the rule or document is served to no one who should see it."""
    if area in names.areas:
        return []
    return [error(CHECK, file, line, f"unknown area {area!r}; add it to homeostat.yaml or move the {what}")]


def _rule_name_findings(rule: Rule, names: _Names) -> list[Finding]:
    """A rule's area, the people it names (approvers, flaggers, author, risk reviewer), its owning
    team and its topic, each checked against the config."""
    meta = rule.meta
    found = _area_finding(names, meta.area, rule.file, rule.line, "rule")
    people = [("approvedBy", h) for h in meta.approved_by] + [("flags.by", f.by) for f in meta.flags]
    if meta.source.author:
        people.append(("source.author", meta.source.author))
    if meta.risk_reviewer:
        people.append(("riskReviewedBy", meta.risk_reviewer))
    for key, handle in people:
        if names.member(handle) is None:
            found.append(
                error(
                    CHECK,
                    rule.file,
                    rule.line,
                    f"{key} names unknown member {handle!r} (rule {meta.id}); add them to team.members",
                )
            )
    if meta.owner and names.team_named(meta.owner) is None:
        found.append(
            error(CHECK, rule.file, rule.line, f"owner {meta.owner!r} is not a team (rule {meta.id})")
        )
    if meta.topic is not None and meta.area in names.areas and meta.topic not in names.topics_for(meta.area):
        if not rule.in_topic_file:  # a topic file's own topic is reported once, for the file
            found.append(
                error(
                    "topic-file",
                    rule.file,
                    rule.line,
                    f"topic {meta.topic!r} is not in the topic list of {meta.area}",
                )
            )
    return found


def _topic_file_findings(topic_file: TopicFile, names: _Names) -> list[Finding]:
    """A topic file whose topic its area does not list, with the topics it does list."""
    if topic_file.area not in names.areas or topic_file.topic in names.topics_for(topic_file.area):
        return []
    listed = ", ".join(names.topics_for(topic_file.area)) or "none"
    return [
        error(
            "topic-file",
            topic_file.file,
            1,
            f"topic {topic_file.topic!r} is not in the topic list of {topic_file.area} (listed: {listed}); add it to homeostat.yaml",
        )
    ]


def _document_name_findings(document: Document, names: _Names) -> list[Finding]:
    """A document's area, owning team and risk reviewer, each checked against the config."""
    doc_meta = document.meta
    found = _area_finding(names, doc_meta.area, document.file, 1, "document")
    if doc_meta.owner and names.team_named(doc_meta.owner) is None:
        found.append(error(CHECK, document.file, 1, f"owner {doc_meta.owner!r} is not a team in team.teams"))
    if doc_meta.risk_reviewer and names.member(doc_meta.risk_reviewer) is None:
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
