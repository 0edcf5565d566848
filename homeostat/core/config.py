"""The `homeostat.yaml` schema.

Every key the design names lives here with its default, so `docs/config.md` and the models cannot
drift apart (a test walks these models and fails on any key missing from the doc). Keys are camelCase
on disk, as in the design; attributes are snake_case. Unknown keys are errors, because a mistyped key
silently falling back to a default is how a KB ends up forever empty (PEERS.md, lesson 7).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from homeostat.core.languages import EXTENSION, LANGUAGE_NAME, language_table
from homeostat.core.safety.language import known_language
from homeostat.core.safety.subject_words import SUBJECTS
from homeostat.core.safety.topic_words import TOPICS

Role = Literal["junior", "member", "senior", "lead"]
Runtime = Literal["api", "bedrock", "vertex", "claude-code"]
Host = Literal["github", "bitbucket"]
Effort = Literal["low", "medium", "high"]

HANDLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
NAME = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
CORE_AREA = "core"

DEFAULT_MODEL = "claude-opus-5-5"
DEFAULT_SLACK_WEBHOOK_ENV = "HOMEOSTAT_SLACK_WEBHOOK"


class Model(BaseModel):
    """Base for every config section: camelCase aliases, unknown keys forbidden, immutable."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, frozen=True)


class Member(Model):
    handle: str = Field(description="The member's code-host username; used in approvedBy, owners, reviewers.")
    name: str = Field(default="", description="Display name.")
    role: Role = Field(default="member", description="junior, member, senior or lead; counts in confidence.")
    teams: tuple[str, ...] = Field(
        default=(), description="Names of the teams (from team.teams) they belong to."
    )
    email: str = Field(default="", description="Account email, used to match Bitbucket authors.")
    usage: bool = Field(
        default=False,
        description="Opt in to per-day usage counts and the ids of the rules served in the sync heartbeat.",
    )

    @field_validator("handle")
    @classmethod
    def _handle(cls, value: str) -> str:
        if not HANDLE.match(value):
            raise ValueError("a handle is letters, digits, '.', '_' or '-'")
        return value


class Team(Model):
    name: str = Field(description="Team name used by members' teams and areas' owner.")
    handle: str = Field(
        default="", description="Code-host team handle (@org/team) for CODEOWNERS and review requests."
    )


class TeamConfig(Model):
    members: tuple[Member, ...] = Field(default=(), description="Everyone whose lessons and reviews count.")
    teams: tuple[Team, ...] = Field(default=(), description="Teams that own areas.")
    reviewers: tuple[str, ...] = Field(
        default=(), description="Member handles asked to review the middle band; else area owners."
    )
    reviewers_from: Literal["config", "codeowners"] = Field(
        default="config",
        description="codeowners: request review PRs' reviewers from the code repos' CODEOWNERS (KB members only).",
    )


class Area(Model):
    name: str = Field(description="Area name; inside a repo it is addressed as <repo>/<name>.")
    paths: tuple[str, ...] = Field(description="Path globs in the code repo that the area covers.")
    # required (design: one owning team per area), but read as "" when missing, so that validate names
    # the area and its line rather than the whole config failing to load for every session
    owner: str = Field(
        default="",
        description="The owning team, one per area (a team.teams name); validate refuses an area without one.",
        json_schema_extra={"checked": "required"},
    )
    team_only: bool = Field(
        default=False, description="Served only to the owning team's sessions; never exported."
    )
    topics: tuple[str, ...] | None = Field(
        default=None, description="Topic list for this area's topic files; defaults to the repo's list."
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.match(value) or value == CORE_AREA:
            raise ValueError("an area name is lower-case letters, digits, '.', '_' or '-', and not 'core'")
        return value

    @field_validator("paths")
    @classmethod
    def _paths(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("an area needs at least one path glob")
        return value


class Repo(Model):
    name: str = Field(description="Folder name under knowledge/ and the repo part of area names.")
    url: str = Field(
        description="The code repo's web URL (https://github.com/org/repo or bitbucket.org/ws/repo)."
    )
    areas: tuple[Area, ...] = Field(description="The repo's areas.")
    topics: tuple[str, ...] = Field(
        default=(), description="Topic files rules are grouped into (empty: one file per rule)."
    )
    exclude: bool = Field(default=False, description="Keep the repo's knowledge but never read its PRs.")
    public: bool = Field(
        default=False, description="The code repo is public: export into it needs --allow-public."
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.match(value) or value == CORE_AREA:
            raise ValueError("a repo name is lower-case letters, digits, '.', '_' or '-', and not 'core'")
        return value


class SourcesConfig(Model):
    host: Host = Field(default="github", description="Code host: github or bitbucket.")
    base_branch: str = Field(default="main", description="The KB branch daily PRs target.")
    lookback_hours: int = Field(default=26, ge=1, description="Window of merged PRs the daily run reads.")
    skip_marker: str = Field(
        default="homeostat:skip", description="PRs whose body contains it are never read."
    )
    exclude_paths: tuple[str, ...] = Field(default=(), description="Globs of commented files never read.")
    exclude_repos: tuple[str, ...] = Field(default=(), description="Code repo URLs or names never read.")
    opt_out: tuple[str, ...] = Field(default=(), description="Member handles whose PRs are never read.")
    repos: tuple[str, ...] = Field(default=(), description="Code repo URLs for a KB without repo folders.")
    kb_repo: str = Field(
        default="", description="The KB repo's URL; never read as a code repo (default: origin)."
    )


class Weights(Model):
    pr_feedback: int = Field(default=3, description="Review feedback followed by a code change.")
    manual: int = Field(default=2, description="Written by hand.")
    senior_author: int = Field(default=1, description="Author is a senior or lead.")
    conflict: int = Field(default=-2, description="Per declared conflict.")
    open_flag: int = Field(default=-2, description="Per open flag.")


class AutoMerge(Model):
    areas: tuple[str, ...] = Field(
        default=(), description="Areas whose confident lessons merge with no person."
    )
    subjects: tuple[str, ...] = Field(
        default=(),
        description="Subjects and topics of the subject gate a team accepts unread (all gated by default).",
    )
    languages: tuple[str, ...] = Field(
        default=(),
        description="Languages a lesson may be written in and merge unread, besides the KB's usual one and English.",
    )
    enactment: Literal["code", "author", "signed"] = Field(
        default="code",
        description="What the change after a review comment must show before its lesson merges unread: "
        "code (someone other than the commenter wrote it, using the rule's code terms), author (someone "
        "other than the commenter wrote it) or signed (as code, and every commit carries a signature the "
        "host verified; Bitbucket does not say, so there every review lesson goes to a person).",
    )
    pending: Literal["review", "judged"] = Field(
        default="review",
        description="Whether a confident lesson taught on a developer's machine (learn, a handoff note, an "
        "import) may merge with no person: review (never: no second person has read it, and an agent "
        "under a prompt injection can run `homeostat learn` as its developer) or judged (after the "
        "judge's safety trap passes; agents.curator.judgeCalls 0 or no usable answer sends it to a person).",
    )
    flags: int = Field(
        default=3,
        ge=0,
        description="How many of one member's flags the daily runs of one day (UTC) may merge at once (each "
        "takes a rule out of every agent's context until a reviewer settles it); the member's further flags "
        "that day go to their review PR. 0 sends every flag to a person.",
    )
    team_flags: int = Field(
        default=3,
        ge=0,
        description="How many rules the whole team's flags may take out of every agent's context unread in "
        "the daily runs of one day (UTC), whoever flagged them: a member's candidates branch is named for "
        "them but anyone who can push to the KB repo can write to it, so the per-member `flags` alone "
        "does not bound one account. Further flags that day go to their member's review PR. 0 sends every "
        "flag to a person.",
    )

    @field_validator("subjects")
    @classmethod
    def _known_subjects(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        known = (*SUBJECTS, *TOPICS)
        unknown = [name for name in value if name not in known]
        if unknown:
            raise ValueError(f"unknown subject {unknown[0]!r}: one of {', '.join(known)}")
        return value

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [name for name in value if not known_language(name)]
        if unknown:
            raise ValueError(
                f"unknown language {unknown[0]!r}: a code such as fr or de, or a script such as cyrillic "
                "or han (docs/daily.md#the-language-gate)"
            )
        return value


class ConfidenceBonus(Model):
    owner: int = Field(default=8, description="The originator's team owns the lesson's area.")
    specific: int = Field(default=6, description="The lesson names paths, code or identifiers.")
    clear_title: int = Field(default=4, description="A clear, specific title.")
    repeated: int = Field(default=6, description="Per other member who taught the same lesson in the run.")
    repeated_max: int = Field(default=12, description="Cap on the repeated bonus.")
    model_rating: int = Field(default=0, description="Points for a model rating of 1.0 (0 turns it off).")


class ConfidencePenalty(Model):
    judge: int = Field(default=30, description="A judge failure kept on a majority.")
    flag: int = Field(default=20, description="Per open flag on the lesson or its rule.")
    conflict: int = Field(default=20, description="Per conflicting rule.")
    vague_title: int = Field(default=10, description="A vague title (too short or generic).")


def _default_base() -> dict[str, int]:
    return {
        "pr-feedback": 50,
        "manual": 45,
        "deep-dive": 40,
        "agent-handoff": 25,
        "pr-feedback-no-change": 20,
        "claude-memory": 25,
        "coderabbit": 25,
    }


def _default_role() -> dict[str, int]:
    return {"junior": 0, "member": 6, "senior": 14, "lead": 20}


class Confidence(Model):
    accept: int = Field(default=70, ge=0, le=100, description="Merge at this confidence or more.")
    core_accept: int = Field(default=80, ge=0, le=100, description="Merge threshold for core or a ** scope.")
    decline: int = Field(default=35, ge=0, le=100, description="Decline below this confidence.")
    base: dict[str, int] = Field(default_factory=_default_base, description="Base points by source.")
    role: dict[str, int] = Field(
        default_factory=_default_role, description="Points by the originator's role."
    )
    bonus: ConfidenceBonus = Field(default_factory=ConfidenceBonus, description="Bonuses.")
    penalty: ConfidencePenalty = Field(default_factory=ConfidencePenalty, description="Penalties.")

    @field_validator("base")
    @classmethod
    def _base(cls, value: dict[str, int]) -> dict[str, int]:
        allowed = set(_default_base())
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise ValueError(f"unknown source {unknown[0]!r}; expected one of {', '.join(sorted(allowed))}")
        return {**_default_base(), **value}

    @field_validator("role")
    @classmethod
    def _role(cls, value: dict[str, int]) -> dict[str, int]:
        allowed = set(_default_role())
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise ValueError(f"unknown role {unknown[0]!r}; expected one of {', '.join(sorted(allowed))}")
        return {**_default_role(), **value}

    @model_validator(mode="after")
    def _order(self) -> Confidence:
        if self.decline > self.accept:
            raise ValueError("decline must not be above accept")
        return self


class ScoringConfig(Model):
    weights: Weights = Field(default_factory=Weights, description="Rule score weights.")
    stale_after_days: int = Field(
        default=180, ge=1, description="Deep dive retires rules unconfirmed this long."
    )
    review_cadence: int | None = Field(default=None, description="Reserved; defined but not used yet.")
    auto_merge: AutoMerge = Field(default_factory=AutoMerge, description="Auto-merge gates.")
    confidence: Confidence = Field(default_factory=Confidence, description="Daily-run confidence weights.")


class AgentSettings(Model):
    """Per-agent override of the runtime and model; unset fields fall back to `agents`."""

    runtime: Runtime | None = Field(default=None, description="Runtime for this agent.")
    model: str | None = Field(default=None, description="Model for this agent.")
    effort: Effort | None = Field(default=None, description="Effort for this agent.")


class CuratorSettings(AgentSettings):
    judge_model: str | None = Field(
        default=None, description="Judge model; default one tier cheaper than the drafter, never dearer."
    )
    judge_calls: int = Field(default=100, ge=0, description="Judge calls per run (0 turns the judge off).")
    consolidate_calls: int = Field(default=30, ge=0, description="Consolidator calls per run.")
    doc_patch_calls: int = Field(
        default=20, ge=0, description="Threads checked for a document patch per run."
    )
    retract_calls: int = Field(default=10, ge=0, description="Retraction calls per run.")


class DeepDiveSettings(AgentSettings):
    retract_calls: int = Field(default=10, ge=0, description="Retraction calls per deep dive.")
    check_code: bool = Field(
        default=False,
        description="Check the paths and identifiers rules name against the code repos (CI only).",
    )
    code_searches: int = Field(
        default=100, ge=0, description="Code-search requests per deep dive for the code check."
    )


class Concurrency(Model):
    """Model calls a run keeps in flight at once, per runtime (each is a worker; results are applied in
    their original order, so a run decides the same whatever the number)."""

    # 16 on the api runtime, which paces itself by Anthropic's rate-limit headers: 500 lessons a day
    # at 8 s a call are ~580 calls, 580 × 8 s / 8 workers = 9.7 min of model time alone (docs/daily.md).
    api: int = Field(default=16, ge=1, le=64, description="Calls in flight at once on the api runtime.")
    bedrock: int = Field(default=8, ge=1, le=64, description="Calls in flight at once on bedrock.")
    vertex: int = Field(default=8, ge=1, le=64, description="Calls in flight at once on vertex.")
    claude_code: int = Field(
        default=4, ge=1, le=64, description="claude -p processes at once on the claude-code runtime."
    )

    def of(self, runtime: Runtime) -> int:
        return int(getattr(self, runtime.replace("-", "_")))


class Schedules(Model):
    daily: str = Field(default="0 6 * * *", description="Cron for the daily run (UTC).")
    deep_dive: str = Field(default="0 7 * * 1", description="Cron for the weekly deep dive.")
    digest: str = Field(default="0 8 * * 1", description="Cron for the weekly digest.")


class AgentsConfig(Model):
    runtime: Runtime = Field(default="api", description="Model runtime: api, bedrock, vertex or claude-code.")
    model: str = Field(default=DEFAULT_MODEL, description="Default model for every agent.")
    effort: Effort = Field(default="medium", description="Default effort.")
    endpoint: str = Field(
        default="", description="Model endpoint base URL (api runtime); empty uses the SDK default."
    )
    region: str = Field(default="", description="Cloud region for bedrock or vertex.")
    project: str = Field(default="", description="Google Cloud project for vertex.")
    timeout_seconds: int = Field(default=300, ge=1, description="Per-call timeout.")
    max_cost_usd: float = Field(default=5.0, ge=0, description="Spending cap per run, in US dollars.")
    concurrency: Concurrency = Field(
        default_factory=Concurrency, description="Model calls in flight at once, per runtime."
    )
    curator: CuratorSettings = Field(
        default_factory=CuratorSettings, description="The daily run's drafter and caps."
    )
    consolidator: AgentSettings = Field(default_factory=AgentSettings, description="Update-before-add agent.")
    judge: AgentSettings = Field(default_factory=AgentSettings, description="Judge runtime override.")
    deep_dive: DeepDiveSettings = Field(
        default_factory=DeepDiveSettings, description="Weekly deep dive agent and its caps."
    )
    retractor: AgentSettings = Field(default_factory=AgentSettings, description="Retraction agent.")
    bootstrap: AgentSettings = Field(default_factory=AgentSettings, description="Bootstrap and seed agent.")
    schedules: Schedules = Field(default_factory=Schedules, description="Cron schedules.")


class ClaudeExportBudget(Model):
    lines: int | None = Field(
        default=200, ge=1, description="Lines of Claude rules without paths (Claude Code: under 200 lines)."
    )
    chars: int | None = Field(default=None, ge=100, description="Characters of those rules; null: no cap.")


class CopilotExportBudget(Model):
    lines: int | None = Field(
        default=None, ge=1, description="Lines of Copilot's always-on text; null: no cap."
    )
    chars: int | None = Field(
        default=4000, ge=100, description="Characters of it (Copilot code review reads the first 4,000)."
    )


class AgentsExportBudget(Model):
    lines: int | None = Field(default=200, ge=1, description="Lines of the AGENTS.md block.")
    chars: int | None = Field(
        default=32768, ge=100, description="Characters of it (Codex stops reading AGENTS.md at 32 KiB)."
    )


class ExportBudgets(Model):
    """What `homeostat export` may put in the files an agent reads on every request."""

    claude: ClaudeExportBudget = Field(
        default_factory=ClaudeExportBudget, description="Claude rules without `paths` (always loaded)."
    )
    copilot: CopilotExportBudget = Field(
        default_factory=CopilotExportBudget,
        description='The copilot-instructions.md block and the `applyTo: "**"` files.',
    )
    agents: AgentsExportBudget = Field(default_factory=AgentsExportBudget, description="The AGENTS.md block.")


class DistributionConfig(Model):
    token_budget: int = Field(default=2000, ge=100, description="Tokens for the session-start view.")
    doc_token_budget: int = Field(
        default=1000, ge=0, description="Tokens for document sections in that view."
    )
    max_chars: int = Field(default=10000, ge=500, description="Character cap on the whole view.")
    rule_share: float = Field(default=0.8, gt=0, le=1, description="Share of the budget rules may take.")
    exports: ExportBudgets = Field(
        default_factory=ExportBudgets, description="Budgets of the always-on exported files."
    )


class NotificationsConfig(Model):
    slack_webhook_env: str = Field(
        default=DEFAULT_SLACK_WEBHOOK_ENV, description="Environment variable holding the Slack webhook URL."
    )
    review_overdue_days: int = Field(default=2, ge=0, description="Lessons waiting longer are repeated.")


class RiskReview(Model):
    by: str = Field(description="Member who reviewed the endpoint settings.")
    fingerprint: str = Field(description="Fingerprint of the reviewed settings, as validate prints it.")


class SecurityConfig(Model):
    mcp_writes: bool = Field(default=False, description="Allow learn and flag through MCP.")
    mcp_write_limit: int = Field(default=5, ge=0, description="MCP writes per session.")
    allowed_domains: tuple[str, ...] = Field(default=(), description="Domains rules and documents may name.")
    risk_reviewed_by: RiskReview | None = Field(
        default=None, description="Who reviewed a changed model endpoint, runtime or webhook variable."
    )


class EvalConfig(Model):
    """Floors `validate` holds `eval/selection.yaml` to (when the KB has one); none by default."""

    min_hit_at1: float | None = Field(default=None, ge=0, le=1, description="Least Hit@1 over the cases.")
    min_hit_at3: float | None = Field(default=None, ge=0, le=1, description="Least Hit@3 over the cases.")
    min_hit_at5: float | None = Field(default=None, ge=0, le=1, description="Least Hit@5 over the cases.")
    min_mrr: float | None = Field(default=None, ge=0, le=1, description="Least mean reciprocal rank.")
    min_served: float | None = Field(
        default=None, ge=0, le=1, description="Least share of expected rules served within the budget."
    )

    def floors(self) -> dict[str, float]:
        """Metric name (as `homeostat eval --min` takes it) → floor, for the floors that are set."""
        named = {
            "hit@1": self.min_hit_at1,
            "hit@3": self.min_hit_at3,
            "hit@5": self.min_hit_at5,
            "mrr": self.min_mrr,
            "served": self.min_served,
        }
        return {name: value for name, value in named.items() if value is not None}


class HandoffConfig(Model):
    min_edits: int = Field(default=5, ge=0, description="Edits in a session before a handoff note is asked.")


class Config(Model):
    version: str = Field(default="0.2.0", description="Homeostat version the KB pins.")
    team: TeamConfig = Field(default_factory=TeamConfig, description="Members, teams and reviewers.")
    sources: SourcesConfig = Field(default_factory=SourcesConfig, description="Where lessons are read from.")
    repos: tuple[Repo, ...] = Field(default=(), description="Code repos with their areas and topics.")
    areas: tuple[Area, ...] = Field(default=(), description="Areas of a KB without repo folders.")
    topics: tuple[str, ...] = Field(default=(), description="Topics of a KB without repo folders.")
    scoring: ScoringConfig = Field(default_factory=ScoringConfig, description="Scores and gates.")
    agents: AgentsConfig = Field(default_factory=AgentsConfig, description="Model runtimes and caps.")
    distribution: DistributionConfig = Field(default_factory=DistributionConfig, description="Budgets.")
    notifications: NotificationsConfig = Field(default_factory=NotificationsConfig, description="Slack.")
    security: SecurityConfig = Field(default_factory=SecurityConfig, description="Security switches.")
    handoff: HandoffConfig = Field(default_factory=HandoffConfig, description="Handoff notes.")
    eval: EvalConfig = Field(
        default_factory=EvalConfig,
        description="Selection floors validate checks eval/selection.yaml against.",
    )
    languages: dict[str, tuple[str, ...]] = Field(
        default_factory=dict,
        description="Languages for lang: scopes, name to file extensions, added to the built-in table.",
    )

    @field_validator("languages")
    @classmethod
    def _languages(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for name, extensions in value.items():
            if not LANGUAGE_NAME.match(name):
                raise ValueError(
                    f"language {name!r}: a name is lower-case letters, digits, '+', '#', '.', '_' or '-'"
                )
            if not extensions:
                raise ValueError(f"language {name!r} needs at least one file extension")
            bad = [e for e in extensions if not EXTENSION.match(e.removeprefix("."))]
            if bad:
                raise ValueError(
                    f"language {name!r}: {bad[0]!r} is not a file extension (letters, digits, '.', '_', '+' or '-', like py)"
                )
        return value

    @model_validator(mode="after")
    def _repos_or_areas(self) -> Config:
        if self.repos and self.areas:
            raise ValueError("use either repos (each with its areas) or top-level areas, not both")
        return self

    # Lookups the rest of the core needs, kept here so every caller agrees on area names.

    def area_names(self) -> list[str]:
        """Every area's full name (`<repo>/<area>`, or `<area>` without repo folders), plus core."""
        return [name for name, _ in self.iter_areas()] + [CORE_AREA]

    def iter_areas(self) -> list[tuple[str, Area]]:
        if self.repos:
            return [(f"{repo.name}/{area.name}", area) for repo in self.repos for area in repo.areas]
        return [(area.name, area) for area in self.areas]

    def area(self, name: str) -> Area | None:
        return dict(self.iter_areas()).get(name)

    def repo_of_area(self, name: str) -> Repo | None:
        if "/" not in name:
            return None
        repo_name = name.split("/", 1)[0]
        return next((repo for repo in self.repos if repo.name == repo_name), None)

    def topics_for(self, area_name: str) -> tuple[str, ...]:
        area = self.area(area_name)
        if area is not None and area.topics is not None:
            return area.topics
        repo = self.repo_of_area(area_name)
        if repo is not None:
            return repo.topics
        return self.topics

    def language_table(self) -> dict[str, tuple[str, ...]]:
        """The extensions each `lang:` name stands for: the built-in table with `languages` added."""
        return language_table(self.languages)

    def member(self, handle: str) -> Member | None:
        lowered = handle.lower()
        return next((m for m in self.team.members if m.handle.lower() == lowered), None)

    def team_named(self, name: str) -> Team | None:
        return next((t for t in self.team.teams if t.name == name), None)
