"""`homeostat doctor`'s legwork: gather the live facts `homeostat.core.doctor.checks` judges.

Read-only from start to end: the KB and its CI files from the checkout, git's view of the work tree,
the names (never the values) of the variables that are set, a read-only look at the event log, and
three questions to the code host (what the token may do, how the base branch is protected, whether
the repo is public). A question the host will not answer becomes that fact's error, so one refusal
does not hide the other checks.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from homeostat.adapters.git import work_tree
from homeostat.adapters.git.plumbing import redact
from homeostat.adapters.kb_files import read_tree
from homeostat.adapters.runner import ci_files
from homeostat.adapters.state.event_log import RETENTION_DAYS, events_path, log_exists, log_summary
from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.auto_merge import daily_token
from homeostat.core.doctor.checks import EventLogFacts, HostFacts, Setup
from homeostat.core.hosts import CodeHost, RepoRef
from homeostat.core.kb import CONFIG_FILE, load_kb
from homeostat.core.setup.scaffold import IGNORED, ignores_state
from homeostat.errors import HomeostatError

T = TypeVar("T")
CODEOWNERS_FILES = (".github/CODEOWNERS", ".bitbucket/CODEOWNERS")
_CHOSEN_KEYS = ("runtime", "model")


def gather(root: Path, env: Mapping[str, str], version: str) -> Setup:
    config, error, chosen, rules, core = _kb(root)
    origin = work_tree.origin_url(root) or ""
    files = _files(root)
    checkout = work_tree.top_level(root) is not None
    return Setup(
        version=version,
        config=config,
        config_error=error,
        chosen=chosen,
        git_checkout=checkout,
        origin=redact(origin),
        files=files,
        state_ignored=_state_ignored(root, checkout),
        env_set=frozenset(name for name, value in env.items() if value.strip()),
        claude_cli=shutil.which("claude", path=env.get("PATH")) is not None,
        events=_events(root),
        host=_host_facts(config, origin, env, files) if config is not None else HostFacts(),
        rules=rules,
        core_rules=core,
    )


def _kb(root: Path) -> tuple[Config | None, str, frozenset[str], int, int]:
    """The config (or why there is none), the agents keys it sets itself, and the rule counts."""
    try:
        kb = load_kb(read_tree(root), root=str(root))
    except HomeostatError as exc:
        return None, str(exc), frozenset(), 0, 0
    if kb.config is None:
        first = next((f for f in kb.problems if f.file == CONFIG_FILE), None)
        return (
            None,
            f"{first.file}:{first.line}: {first.message}" if first else "homeostat.yaml is invalid",
            frozenset(),
            0,
            0,
        )
    data = kb.config_doc.data if kb.config_doc is not None else {}
    agents = data.get("agents") if isinstance(data, dict) else None
    chosen = frozenset(key for key in _CHOSEN_KEYS if isinstance(agents, dict) and agents.get(key))
    core = sum(1 for rule in kb.rules if rule.meta.area == CORE_AREA)
    return kb.config, "", chosen, len(kb.rules), core


def _files(root: Path) -> dict[str, str]:
    """The CI files (as the plugin reads them for its pin) and CODEOWNERS, as in the checkout."""
    found = ci_files(root)
    for name in CODEOWNERS_FILES:
        path = root / name
        if path.is_file():
            found[name] = path.read_text(encoding="utf-8", errors="replace")
    return found


def _state_ignored(root: Path, checkout: bool) -> bool:
    if checkout:
        return work_tree.is_ignored(root, f"{IGNORED}events.db")
    gitignore = root / ".gitignore"
    return gitignore.is_file() and ignores_state(gitignore.read_text(encoding="utf-8", errors="replace"))


def _events(root: Path) -> EventLogFacts:
    path = events_path(root)
    count, oldest, size = log_summary(path)
    age = (datetime.now(UTC) - oldest).total_seconds() / 86400 if oldest is not None else None
    return EventLogFacts(log_exists(path), RETENTION_DAYS, count, age, size)


# --- the code host --------------------------------------------------------------------------------


def _host_facts(config: Config, origin: str, env: Mapping[str, str], files: Mapping[str, str]) -> HostFacts:
    from homeostat.adapters.hosts.registry import host_from_env
    from homeostat.runs.curate import kb_repo_ref

    repo = kb_repo_ref(config, origin)
    if repo is None:
        return HostFacts(unavailable="cannot tell which repo the KB is")
    try:
        host = host_from_env(config.sources.host, env)
    except HomeostatError as exc:
        return HostFacts(repo=repo.full_name, unavailable=str(exc))
    reach, reach_error = _ask(lambda: host.token_reach(repo))
    protection, protection_error = _ask(lambda: host.branch_protection(repo, config.sources.base_branch))
    visibility, visibility_error = _ask(lambda: host.repo_visibility(repo))
    rules, rules_error = _ask(lambda: host.merge_rules(repo, config.sources.base_branch))
    app_id, app_id_error = _app_id(host, repo, files, config, env)
    return HostFacts(
        repo=repo.full_name,
        token_variable=token_variable(config.sources.host, env),
        protection=protection,
        protection_error=protection_error,
        reach=reach,
        reach_error=reach_error,
        visibility=visibility or "",
        visibility_error=visibility_error,
        merge_rules=rules,
        merge_rules_error=rules_error,
        app_id=app_id,
        app_id_error=app_id_error,
    )


def _app_id(
    host: CodeHost, repo: RepoRef, files: Mapping[str, str], config: Config, env: Mapping[str, str]
) -> tuple[int | None, str]:
    """The id of the app the daily workflow takes its token from: the variable its `app-id:` names,
    from this environment when set there, else from the repository's Actions variables."""
    from homeostat.adapters.hosts.github import GitHubHost

    token = daily_token(files, config.sources.host)
    if token.kind != "app" or token.app_id is not None or not token.app_variable:
        return None, ""
    name = token.app_variable
    value = env.get(name, "").strip()
    if not value and isinstance(host, GitHubHost):
        found, error = _ask(lambda: host.repo_variable(repo, name))
        if error:
            return None, f"the variable {name} could not be read: {error}"
        value = (found or "").strip()
    if not value:
        return None, f"the variable {name} is not set"
    if not value.isdigit():
        return None, f"the variable {name} is not an app id: {value[:40]!r}"
    return int(value), ""


def _ask(question: Callable[[], T]) -> tuple[T | None, str]:
    try:
        return question(), ""
    except HomeostatError as exc:
        return None, str(exc)


def token_variable(host: str, env: Mapping[str, str]) -> str:
    """The variable the host adapter takes its token from, as `*_host_from_env` chooses it."""
    if host == "github":
        from homeostat.adapters.hosts.github import TOKEN_VARIABLES

        return next((name for name in TOKEN_VARIABLES if env.get(name, "").strip()), "")
    from homeostat.adapters.hosts.bitbucket import ACCESS_TOKEN_VARIABLE, API_TOKEN_VARIABLE

    return next(
        (name for name in (ACCESS_TOKEN_VARIABLE, API_TOKEN_VARIABLE) if env.get(name, "").strip()), ""
    )
