"""What `homeostat init` writes into a KB repo, as text; the command reads and writes the files.

Nothing here invents an identity, an endpoint or a model (PEERS.md, lesson 7): members, repos and the
host come from the person running init, and the model section is left for them to fill in. The CI
files are the templates under `workflows/` with two things filled in from homeostat.yaml (the base
branch and the schedules); the templates already pin this release, and the output is checked to pin
nothing else. Every output is a pure function of its inputs, so a second run writes the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, get_args

from homeostat.core.config import CORE_AREA, HANDLE, NAME, Config, Host, Role
from homeostat.core.format.write import scalar
from homeostat.core.hosts import HostKind, UrlError, parse_repo_url
from homeostat.core.schedule.host_schedules import CronError, cron_fields, scheduled_pipelines
from homeostat.core.setup.diff import unified_diff
from homeostat.core.setup.pins import find_pins
from homeostat.core.text import sha256
from homeostat.errors import ConfigError

GITIGNORE = ".gitignore"
IGNORED = ".homeostat/"
CORE_README = f"knowledge/{CORE_AREA}/README.md"
ROLES: tuple[str, ...] = get_args(Role)


@dataclass(frozen=True)
class InitAnswers:
    """What the person told init (flags or prompts); nothing here is a guess."""

    host: Host
    base_branch: str
    members: tuple[tuple[str, Role], ...] = ()
    repos: tuple[tuple[str, str], ...] = ()  # (name, url)
    schedules: tuple[tuple[str, str], ...] = ()  # (agents.schedules key, cron): `spread_schedules`


# --- parsing the flags -----------------------------------------------------------------------------


def parse_member(text: str) -> tuple[str, Role]:
    """`ana` or `ana:lead`: a code-host handle and, optionally, its role (default member)."""
    handle, _, role = text.strip().partition(":")
    handle = handle.strip().lstrip("@")
    if not HANDLE.match(handle):
        raise ConfigError(
            f"--member {text!r}: a handle is letters, digits, '.', '_' or '-' (e.g. ana or ana:lead)"
        )
    role = role.strip().lower() or "member"
    if role not in ROLES:
        raise ConfigError(f"--member {text!r}: the role must be one of {', '.join(ROLES)}")
    return handle, role  # type: ignore[return-value]


def parse_repo(text: str, host: Host) -> tuple[str, str]:
    """`ledger=https://github.com/acme/ledger`, or the URL alone (the name is then the repo's own)."""
    name, sep, url = text.strip().partition("=")
    if not sep:
        name, url = "", text.strip()
    try:
        ref = parse_repo_url(url.strip())
    except UrlError as exc:
        raise ConfigError(f"--repo {text!r}: {exc}") from None
    name = (name.strip() or ref.name).lower()
    if not NAME.match(name) or name == CORE_AREA:
        raise ConfigError(
            f"--repo {text!r}: the name {name!r} must be lower-case letters, digits, '.', '_' or '-', and not"
            " 'core' (give one: --repo NAME=URL)"
        )
    if ref.host is not HostKind(host):
        raise ConfigError(
            f"--repo {text!r} is on {ref.host.value} but the KB's host is {host}: one KB reads the code"
            " repos of one host"
        )
    return name, url.strip()


def check_answers(answers: InitAnswers) -> None:
    handles = [handle.lower() for handle, _ in answers.members]
    twice = sorted({h for h in handles if handles.count(h) > 1})
    if twice:
        raise ConfigError(f"--member {twice[0]} is given twice")
    names = [name for name, _ in answers.repos]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ConfigError(f"--repo {twice[0]} is given twice: give each repo its own name (NAME=URL)")


# --- when the scheduled jobs run ------------------------------------------------------------------

# Each scheduled job's agents.schedules key, hour (UTC) and days: the defaults' hours and days
_SCHEDULED = (("daily", 6, "* * *"), ("deepDive", 7, "* * 1"), ("digest", 8, "* * 1"))
_SPACING = 19  # minutes between the jobs' minutes (the three stay at least 18 apart)


def spread_schedules(kb_name: str) -> tuple[tuple[str, str], ...]:
    """A new KB's crons: the default hours, each at a minute taken from the KB's name. With the
    defaults every KB would start on the hour, the minute GitHub's scheduler is busiest (its runs start
    late, or are dropped); a minute from the name spreads KBs out and is the same on every init run
    for the same KB. Minutes 0, 15, 30 and 45, where people's own crons crowd, are never picked."""
    base = int(sha256(kb_name.encode("utf-8")).hexdigest()[:8], 16) % 58
    crons = []
    for index, (key, hour, days) in enumerate(_SCHEDULED):
        minute = 1 + (base + _SPACING * index) % 58
        minute += minute % 15 == 0
        crons.append((key, f"{minute} {hour} {days}"))
    return tuple(crons)


# --- homeostat.yaml -------------------------------------------------------------------------------

_CONFIG_HEAD = """\
# homeostat.yaml: the settings of this Homeostat knowledge base. Every key and its default is in
# docs/config.md in the Homeostat repository. `homeostat init` wrote this file; it is yours to edit
# (init does not overwrite it), and `homeostat validate` checks it on every pull request.

# The Homeostat version this KB runs. The CI files pin the same exact version, and the Claude Code
# plugin on developers' laptops runs the version they pin.
"""

_TEAM = """
# Everyone whose lessons and reviews count. role is junior, member, senior or lead: it weighs in the
# daily run's confidence, and seniors and leads own homeostat.yaml and knowledge/core/ (CODEOWNERS).
# Teams own areas; give each its code-host handle for CODEOWNERS and review requests.
team:
"""

_TEAMS_EXAMPLE = """\
  teams: []
  #   - name: payments
  #     handle: "@your-org/payments"
  # reviewers: [handle]   # asked to review the middle band (default: the area's owning team)
  # reviewersFrom: codeowners   # ask the KB members the code repos' own CODEOWNERS name first
"""

_SOURCES = """
# Where lessons come from: the review threads of merged pull requests in the code repos below.
# Comments on files matching excludePaths are never read, nor PRs holding the skip marker.
sources:
"""

_SOURCES_EXAMPLE = """\
  # excludePaths: ["**/generated/**", "**/*.lock"]
  # optOut: [handle]   # members whose pull requests are never read
"""

_REPOS = """
# The code repos this KB serves. Each repo's rules live in knowledge/<repo>/<area>/: list its areas
# (path globs in that repo, each owned by one team from team.teams) before the first daily run.
"""

_AREA_EXAMPLE = """\
    # areas:
    #   - name: api
    #     paths: ["src/api/**"]
    #     owner: payments
"""

_AGENTS = """
# The model the scheduled runs ask. Nothing is chosen for you here: pick a runtime (api, bedrock,
# vertex or claude-code) and a model, and store the runtime's credential as a CI secret; see
# docs/runtimes.md. A runtime other than api is an endpoint change that a member reviews
# (security.riskReviewedBy; `homeostat validate` prints the fingerprint).
# agents:
#   runtime: api
#   model: <model id>
#   maxCostUsd: 5.0
"""

_AGENTS_SCHEDULED = """
# The scheduled runs. schedules: when each fires (cron, UTC); init took the minutes from this KB's
# name, so that KBs do not all start on the hour, when GitHub's scheduler is busiest. After changing
# them, `homeostat init --force` writes them into the CI files.
# The model they ask is not chosen for you: pick a runtime (api, bedrock, vertex or claude-code) and a
# model, and store the runtime's credential as a CI secret; see docs/runtimes.md. A runtime other
# than api is an endpoint change that a member reviews (security.riskReviewedBy; `homeostat
# validate` prints the fingerprint).
agents:
"""

_AGENTS_CHOICES = """  # runtime: api
  # model: <model id>
  # maxCostUsd: 5.0
"""


def render_config(answers: InitAnswers, version: str) -> str:
    """The commented homeostat.yaml for these answers."""
    parts = [_CONFIG_HEAD, f"version: {version}\n", _TEAM]
    if answers.members:
        parts.append("  members:\n")
        for handle, role in answers.members:
            parts.append(f"    - handle: {scalar(handle)}\n      role: {role}\n")
    else:
        parts.append("  members: []   # - handle: <code-host username>\n  #   role: lead\n")
    parts += [_TEAMS_EXAMPLE, _SOURCES]
    parts.append(f"  host: {answers.host}\n  baseBranch: {scalar(answers.base_branch)}\n")
    parts += [_SOURCES_EXAMPLE, _REPOS]
    if answers.repos:
        parts.append("repos:\n")
        for name, url in answers.repos:
            parts.append(f"  - name: {scalar(name)}\n    url: {scalar(url)}\n    areas: []\n{_AREA_EXAMPLE}")
    else:
        parts.append(
            "repos: []\n  # - name: ledger\n  #   url: https://<host>/<owner>/ledger\n  #   areas: []\n"
        )
    if answers.schedules:
        parts += [_AGENTS_SCHEDULED, "  schedules:\n"]
        parts += [f"    {key}: {json.dumps(cron)}\n" for key, cron in answers.schedules]
        parts.append(_AGENTS_CHOICES)
    else:
        parts.append(_AGENTS)
    return "".join(parts)


_VERSION_LINE = re.compile(r"^(?P<key>version:[ \t]*)(?P<quote>[\"']?)[^\s#\"']+(?P=quote)", re.MULTILINE)


def pin_config_version(text: str, version: str) -> str:
    """The user's homeostat.yaml with only its top-level `version:` value set to `version`."""
    return _VERSION_LINE.sub(lambda m: f"{m.group('key')}{version}", text, count=1)


# --- the CI files ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class CiTemplate:
    """A template under `workflows/`, where init writes it, and the schedule its cron comes from."""

    source: str
    target: str
    schedule: str = ""  # a key of agents.schedules (daily, deepDive, digest)


CI_TEMPLATES: dict[Host, tuple[CiTemplate, ...]] = {
    "github": (
        CiTemplate("github/homeostat-validate.yml", ".github/workflows/homeostat-validate.yml"),
        CiTemplate("github/homeostat-daily.yml", ".github/workflows/homeostat-daily.yml", "daily"),
        CiTemplate("github/homeostat-deep-dive.yml", ".github/workflows/homeostat-deep-dive.yml", "deepDive"),
        CiTemplate("github/homeostat-digest.yml", ".github/workflows/homeostat-digest.yml", "digest"),
        CiTemplate("github/homeostat-review-merge.yml", ".github/workflows/homeostat-review-merge.yml"),
    ),
    "bitbucket": (CiTemplate("bitbucket/bitbucket-pipelines.yml", "bitbucket-pipelines.yml"),),
}

# `init --shards N` (N ≥ 2): the daily run as N draft jobs and one merge job (docs/daily.md#sharded-runs)
SHARDED_DAILY = CiTemplate(
    "github/homeostat-daily-sharded.yml", ".github/workflows/homeostat-daily.yml", "daily"
)
_MATRIX = re.compile(r"^(?P<key>\s*shard: )\[1, 2\]$", re.MULTILINE)
_SHARD_INPUT = re.compile(r"^(?P<key>\s*shard: \$\{\{ matrix\.shard \}\}/)2$", re.MULTILINE)
_MERGE_INPUT = re.compile(r'^(?P<key>\s*merge-shards: )"2"$', re.MULTILINE)
_SHARDS_IN = re.compile(r'merge-shards[ :]+"?(\d+)')
DAILY_FILE: dict[Host, str] = {"github": SHARDED_DAILY.target, "bitbucket": "bitbucket-pipelines.yml"}
_BITBUCKET_DAILY = """\
    homeostat-daily:
      - step:
          name: homeostat daily
          script:
            - homeostat daily
"""


def ci_templates(host: Host, shards: int = 1) -> tuple[CiTemplate, ...]:
    """What init writes for `host`: with `shards` ≥ 2 on GitHub, the sharded daily workflow."""
    if shards < 2 or host != "github":
        return CI_TEMPLATES[host]
    return tuple(SHARDED_DAILY if t.target == SHARDED_DAILY.target else t for t in CI_TEMPLATES[host])


def shards_in(text: str | None) -> int:
    """How many shards a daily workflow or bitbucket-pipelines.yml that init wrote runs (1: not sharded)."""
    match = _SHARDS_IN.search(text or "")
    return int(match.group(1)) if match else 1


def with_shards(template: CiTemplate, text: str, shards: int) -> str:
    """The rendered template with its daily run split in `shards` draft jobs and a merge job."""
    if shards < 2:
        return text
    if template is SHARDED_DAILY:
        text, matrices = _MATRIX.subn(
            lambda m: f"{m.group('key')}[{', '.join(map(str, range(1, shards + 1)))}]", text
        )
        text, inputs = _SHARD_INPUT.subn(lambda m: f"{m.group('key')}{shards}", text)
        text, merges = _MERGE_INPUT.subn(lambda m: f'{m.group("key")}"{shards}"', text)
        if (matrices, inputs, merges) != (1, 1, 1):
            raise ValueError(
                f"workflows/{template.source} must hold one matrix, one shard and one merge-shards line"
            )
        return text
    if template.target == "bitbucket-pipelines.yml":
        if text.count(_BITBUCKET_DAILY) != 1:
            raise ValueError(
                f"workflows/{template.source} must hold the homeostat-daily pipeline as init writes it"
            )
        return text.replace(_BITBUCKET_DAILY, _bitbucket_sharded(shards))
    return text


def _bitbucket_sharded(shards: int) -> str:
    """Parallel draft steps, then the merge step. A failed step would stop the pipeline before the
    merge, so a shard that fails says so and lets it go on: the merge step leaves its repos for the
    next run, and its notice names the shard."""
    steps = "".join(
        f"""\
            - step:
                name: homeostat draft shard {i}/{shards}
                script:
                  - 'homeostat curate --shard {i}/{shards} || echo "homeostat: shard {i}/{shards} did not finish; its repos wait for the next run"'
"""
        for i in range(1, shards + 1)
    )
    return f"""\
    # The daily run in {shards} shards (homeostat init --shards {shards}): each draft step drafts the
    # review threads of the code repos in its shard; the merge step decides them all.
    homeostat-daily:
      - parallel:
          fail-fast: false
          steps:
{steps}      - step:
          name: homeostat daily (merge {shards} shards)
          script:
            - homeostat daily --merge-shards {shards}
"""


_BRANCHES = re.compile(r"^(?P<key>\s*branches: )\[main\]\s*$", re.MULTILINE)
_CRON = re.compile(r"^(?P<key>\s*- cron: )\"[^\"]*\"\s*$", re.MULTILINE)

# How the GitHub templates pin Homeostat's own actions: an exact release tag, with zizmor's
# unpinned-uses finding ignored on the line and the reason on the line above; or a commit SHA with the
# version in a comment, as third-party actions are pinned.
PinForm = Literal["tag", "sha"]
ACTIONS_REPO = "homeostat/homeostat"
_TAG_REASON = re.compile(r"^[ \t]*# An exact release tag, never moved \(docs/actions\.md\).*\n", re.MULTILINE)
_OWN_USES = re.compile(
    r"^(?P<head>[ \t]*(?:-[ \t]+)?uses:[ \t]*homeostat/homeostat(?:/actions/[\w-]+)?@)v(?P<version>[\w.+-]+)"
    r"(?P<tail>[^\n]*)$",
    re.MULTILINE,
)

# --app: the workflows that open or merge PRs take a GitHub App installation token, whose events start
# workflows (a required check runs on its PRs) and which a ruleset can list as a bypass actor.
APP_TOKEN_ACTION = "actions/create-github-app-token@df432ceedc7162793a195dd1713ff69aefc7379e # v2.0.6"
APP_ID_VARIABLE = "HOMEOSTAT_APP_ID"
APP_KEY_SECRET = "HOMEOSTAT_APP_PRIVATE_KEY"
APP_TEMPLATES = frozenset(
    {
        "github/homeostat-daily.yml",
        "github/homeostat-daily-sharded.yml",
        "github/homeostat-deep-dive.yml",
        "github/homeostat-review-merge.yml",
    }
)
_CHECKOUT = re.compile(r"^(?P<indent>[ \t]*)# No credential is left in the checkout.*\n", re.MULTILINE)
_TOKEN_INPUT = re.compile(
    r"^(?:[ \t]*#.*\n)*?(?P<indent>[ \t]+)token: \$\{\{[^\n]*\}\}[ \t]*\n", re.MULTILINE
)
_PERMISSIONS = re.compile(r"^permissions:\n(?:[ \t]+\S.*\n)+", re.MULTILINE)


@dataclass(frozen=True)
class CiOptions:
    """How init writes the GitHub workflows: the app token or the workflow's own, the tag or the commit."""

    app: bool = False
    app_repos: tuple[str, ...] = ()  # the daily app token's repositories (the KB and code repos), by name
    action_commit: str = ""  # the commit of Homeostat's release tag, for the SHA form; "" writes the tag


def render_ci(
    template: CiTemplate, text: str, config: Config, version: str, options: CiOptions = CiOptions()
) -> str:
    """The template with the base branch and its schedule filled in, the token and the pin form as
    `options` say; it must pin `version` only."""
    branch = scalar(config.sources.base_branch, in_flow=True)
    rendered = _BRANCHES.sub(lambda m: f"{m.group('key')}[{branch}]", text)
    if options.app and template.source in APP_TEMPLATES:
        repos = options.app_repos if template.schedule == "daily" else ()
        rendered = with_app_token(template.source, rendered, repos)
    if options.action_commit:
        rendered = pinned_to_commit(rendered, options.action_commit, version)
    if template.schedule:
        cron = _cron(config, template.schedule)
        rendered, count = _CRON.subn(lambda m: f"{m.group('key')}{json.dumps(cron)}", rendered)
        if count != 1:
            raise ValueError(f"workflows/{template.source} must have exactly one `- cron:` line, not {count}")
    wrong = [pin for pin in find_pins({template.target: rendered}) if pin.floating or pin.version != version]
    if wrong:
        raise ValueError(f"workflows/{template.source}:{wrong[0].line} pins {wrong[0].ref}, not {version}")
    return rendered


def pinned_to_commit(text: str, commit: str, version: str) -> str:
    """Homeostat's actions pinned to `commit` with `# vVERSION` after it (what Renovate and the plugin
    read), in place of the tag and its zizmor note."""
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        raise ValueError(f"not a commit SHA: {commit!r}")
    text = _TAG_REASON.sub("", text)
    return _OWN_USES.sub(lambda m: f"{m.group('head')}{commit} # v{version}", text)


def with_app_token(source: str, text: str, repos: tuple[str, ...]) -> str:
    """The workflow with an app-token step before its checkout, the action's `token:` set to it, and
    the workflow's own token cut to reading the checkout. Without `repos` the token reaches this
    repository alone (the action's default); with them, those repositories of this repository's owner.
    A workflow whose jobs each say their permissions (`permissions: {}` at the top: the sharded daily
    run) gets a token in every job, with that job's own permissions."""
    if _NO_PERMISSIONS.search(text):
        return _with_app_token_per_job(source, text, repos)
    step = _app_token_step(repos, {"contents": "write", "pull-requests": "write"})
    rendered, count = _CHECKOUT.subn(lambda m: _indented(step, m.group("indent")) + m.group(0), text)
    rendered, tokens = _TOKEN_INPUT.subn(
        lambda m: f"{m.group('indent')}token: ${{{{ steps.app-token.outputs.token }}}}\n", rendered
    )
    permissions = (
        "permissions:\n  # The app token does the writing; the workflow's own token only checks the KB out.\n"
        "  contents: read\n"
    )
    rendered, blocks = _PERMISSIONS.subn(permissions, rendered)
    if (count, tokens, blocks) != (1, 1, 1):
        raise ValueError(
            f"workflows/{source} must have one checkout, one `token:` input and one permissions block"
            f" for --app, not {count}, {tokens} and {blocks}"
        )
    return rendered


_NO_PERMISSIONS = re.compile(r"^permissions: \{\}\n", re.MULTILINE)
_JOB = re.compile(r"^  [\w-]+:\n(?:(?:[ \t]*|    .*|  #.*)\n)*", re.MULTILINE)
_JOB_PERMISSIONS = re.compile(
    r"^(?:    #.*\n)*    permissions:\n(?P<body>(?:      [\w-]+: *(?:read|write)\n)+)", re.MULTILINE
)


def _with_app_token_per_job(source: str, text: str, repos: tuple[str, ...]) -> str:
    """`with_app_token` for a workflow whose every job holds its permissions block: each job's token
    gets the permissions its block gave the workflow's token (and reads pull requests: every job reads
    the code repos' reviews), and the block is cut to reading the checkout."""
    head, jobs = text.split("\njobs:\n", 1)
    found = [m.group(0) for m in _JOB.finditer(jobs)]
    if not found or "".join(found) != jobs:
        raise ValueError(f"workflows/{source}: its jobs must be two-space keys for --app")
    return head + "\njobs:\n" + "".join(_job_with_app_token(source, job, repos) for job in found)


def _job_with_app_token(source: str, job: str, repos: tuple[str, ...]) -> str:
    block = _JOB_PERMISSIONS.search(job)
    if block is None:
        raise ValueError(f"workflows/{source}: every job must say its permissions for --app")
    granted = dict(line.strip().split(": ") for line in block.group("body").splitlines())
    granted.setdefault("pull-requests", "read")
    step = _app_token_step(repos, granted)
    job = _JOB_PERMISSIONS.sub(
        "    # The app token does the writing; the workflow's own token only checks the KB out.\n"
        "    permissions:\n      contents: read\n",
        job,
    )
    job, count = _CHECKOUT.subn(lambda m: _indented(step, m.group("indent")) + m.group(0), job)
    job, tokens = _TOKEN_INPUT.subn(
        lambda m: f"{m.group('indent')}token: ${{{{ steps.app-token.outputs.token }}}}\n", job
    )
    if (count, tokens) != (1, 1):
        raise ValueError(
            f"workflows/{source} must have one checkout and one `token:` input in each job for --app,"
            f" not {count} and {tokens}"
        )
    return job


def _app_token_step(repos: tuple[str, ...], permissions: Mapping[str, str]) -> list[str]:
    """The app-token step's lines (a list item, unindented): the app's id and key, the repositories
    it reaches, and the permissions it asks for (`permission-<name>: <level>`)."""
    listed = [f"    repositories: {','.join(repos)}"] if repos else []
    return [
        '# A GitHub App installation token (docs/setup.md, "Auto-merge and branch protection"): the PRs',
        "# it opens start workflows, so required checks run, and the app can bypass the base branch's",
        "# ruleset. One token carries one set of permissions for every repository it reaches.",
        "- id: app-token",
        f"  uses: {APP_TOKEN_ACTION}",
        "  with:",
        f"    app-id: ${{{{ vars.{APP_ID_VARIABLE} }}}}",
        f"    private-key: ${{{{ secrets.{APP_KEY_SECRET} }}}}",
        *listed,
        *(f"    permission-{name}: {level}" for name, level in permissions.items()),
    ]


def _indented(lines: list[str], indent: str) -> str:
    return "".join(f"{indent}{line}\n" for line in lines)


def uses_app_token(text: str) -> bool:
    """Whether a workflow init wrote hands its action the app token (`--app`)."""
    return "steps.app-token.outputs.token" in text


def pinned_commits(files: Mapping[str, str]) -> dict[str, str]:
    """The commits the workflows pin Homeostat's actions to, by the version their comment names."""
    found: dict[str, str] = {}
    for pin in find_pins(files):
        at = pin.ref.rsplit("@", 1)[-1]
        if re.fullmatch(r"[0-9a-f]{40}", at) and pin.version:
            found.setdefault(pin.version, at)
    return found


def app_repos(config: Config, kb: tuple[str, str] | None) -> tuple[str, ...]:
    """The repositories the daily run's app token must reach, by name: the KB (`kb`: its owner and
    name) and the code repos it reads; none when it reads no other repository (the token then reaches
    the KB alone). One token reaches one owner's repositories, the KB's own."""
    kb_owner = kb[0] if kb is not None else None
    names: list[str] = []
    for repo in config.repos:
        try:
            ref = parse_repo_url(repo.url)
        except UrlError:
            continue
        owner = kb_owner or ref.owner
        if ref.owner.lower() != owner.lower():
            raise ConfigError(
                f"--app: the code repo {repo.name} is under {ref.owner}, not {owner}: an app token reaches one"
                " owner's repositories. Read it with a token in the secret HOMEOSTAT_GITHUB_TOKEN instead"
                " (init --no-app), or keep the KB and the code repos under one owner"
            )
        kb_owner = owner
        if ref.name.lower() not in {name.lower() for name in names}:
            names.append(ref.name)
    if not names:
        return ()
    if kb is None:
        raise ConfigError(
            "--app: the app token lists the KB repo by name beside the code repos, and this checkout does"
            " not say which repo it is: add the origin remote (or set sources.kbRepo), then rerun init"
        )
    return (kb[1], *(name for name in names if name.lower() != kb[1].lower()))


def _cron(config: Config, key: str) -> str:
    cron = {job.key: job.cron for job in scheduled_pipelines(config.agents.schedules)}[key]
    try:
        return " ".join(cron_fields(cron))
    except CronError as exc:
        raise ConfigError(f"homeostat.yaml: agents.schedules.{key}: {exc}") from None


# --- .gitignore and knowledge/core/ -----------------------------------------------------------------

_GITIGNORE_BLOCK = (
    "# Homeostat's per-clone state: pending lessons, the local event log, caches. Never committed.\n"
    f"{IGNORED}\n"
)

CORE_README_TEXT = """\
# core

Rules every session gets, whatever repo or files it works on: the team's shared conventions. A rule
here reaches every developer's agent, so seniors and leads own this folder (CODEOWNERS) and the
daily run holds it to a higher bar (scoring.confidence.coreAccept). Rules are added by pull request,
usually from `homeostat learn` or the daily run, never by editing this folder on the base branch.
"""


def ignores_state(text: str) -> bool:
    """Whether a .gitignore already ignores `.homeostat/` (as `.homeostat`, `/.homeostat/`, …)."""
    wanted = {".homeostat", ".homeostat/", "/.homeostat", "/.homeostat/", ".homeostat/*", "/.homeostat/*"}
    return any(line.strip() in wanted for line in text.splitlines())


def merged_gitignore(current: str | None) -> str:
    """The user's .gitignore with the Homeostat block appended when it does not ignore the state yet."""
    if current is not None and ignores_state(current):
        return current
    if not current:
        return _GITIGNORE_BLOCK
    return current + ("" if current.endswith("\n") else "\n") + "\n" + _GITIGNORE_BLOCK


# --- what happens to each file --------------------------------------------------------------------


class Outcome(StrEnum):
    CREATE = "wrote"
    SAME = "unchanged"
    UPDATE = "updated"  # merged into the user's file (the .gitignore)
    REPLACE = "overwrote"  # --force over a file that differed
    KEEP = "kept"  # differs, and without --force the user's version stays


@dataclass(frozen=True)
class FilePlan:
    path: str
    text: str  # what init would write
    current: str | None  # what is there now
    outcome: Outcome

    @property
    def writes(self) -> bool:
        return self.outcome in (Outcome.CREATE, Outcome.UPDATE, Outcome.REPLACE)

    def diff(self) -> str:
        return unified_diff(self.path, self.current, self.text)


def plan_file(
    path: str,
    wanted: str,
    current: str | None,
    *,
    force: bool,
    merged: bool = False,
    unfinished: bool = False,
) -> FilePlan:
    """`merged`: `wanted` already holds the user's content, so writing it loses nothing. `unfinished`:
    the current file is what an init that did not finish wrote, not the user's: it is written over
    as if missing."""
    if unfinished and current != wanted and not merged:
        current = None
    if current is None:
        outcome = Outcome.CREATE
    elif current == wanted:
        outcome = Outcome.SAME
    elif merged:
        outcome = Outcome.UPDATE
    else:
        outcome = Outcome.REPLACE if force else Outcome.KEEP
    return FilePlan(path, wanted, current, outcome)


def plan_files(
    wanted: Mapping[str, str],
    current: Mapping[str, str | None],
    *,
    force: bool,
    merged: frozenset[str],
    unfinished: frozenset[str] = frozenset(),
) -> list[FilePlan]:
    return [
        plan_file(
            path, text, current.get(path), force=force, merged=path in merged, unfinished=path in unfinished
        )
        for path, text in wanted.items()
    ]
