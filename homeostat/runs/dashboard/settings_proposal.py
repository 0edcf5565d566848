"""A settings form becomes a pull request on the KB repo, never a write to homeostat.yaml here.

The form is read back into a whole config (pydantic checks it), the changed keys are written into
the file's text in place, the whole KB is validated with the new file, and only then is a branch
`homeostat/settings-<section>-<date>` pushed and its PR opened through the Publisher, the way every
run changes the KB. With no host token in the environment the diff is shown instead, for a person
to commit. The branch prefix is our own: the daily run's reconcile step closes `homeostat/daily-`
and `homeostat/review-` branches that no record explains, and must never take these.
"""

from __future__ import annotations

import datetime as dt
import difflib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.kb_files import read_tree
from homeostat.adapters.plain_files import read_kb_text
from homeostat.core.config import Config
from homeostat.core.dashboard.settings import FormError, read_form
from homeostat.core.kb import CONFIG_FILE, load_kb
from homeostat.core.setup.config_edit import Path as KeyPath
from homeostat.core.setup.config_edit import apply_changes, config_changes, flow
from homeostat.core.validate import validate_kb
from homeostat.errors import AuthError, ConfigError, HomeostatError

BRANCH_PREFIX = "homeostat/settings-"
FINDINGS_SHOWN = 8


@dataclass(frozen=True)
class Proposal:
    error: str = ""
    findings: tuple[str, ...] = ()
    diff: str = ""
    pr_url: str = ""
    branch: str = ""
    message: str = ""
    changed: tuple[str, ...] = field(default_factory=tuple)


def _dotted(path: KeyPath) -> str:
    return ".".join(str(part) for part in path)


def _validate(root: Path, text: str, today: dt.date) -> list[str]:
    files = read_tree(root)
    files[CONFIG_FILE] = text
    result = validate_kb(load_kb(files, root=str(root)), today)
    return [f"{f.file}:{f.line}: {f.message}" for f in result.errors]


def _diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{CONFIG_FILE}", f"b/{CONFIG_FILE}"
    )
    return "".join(lines)


def _body(section: str, changes: Sequence[tuple[KeyPath, Any]], diff: str) -> str:
    keys = "\n".join(f"- `{_dotted(path)}`: `{flow(value)}`" for path, value in changes)
    return (
        f"Settings proposed from the Homeostat dashboard (section `{section}`).\n\n{keys}\n\n"
        "The whole KB validated with this change before the branch was pushed.\n\n"
        f"```diff\n{diff}```\n"
    )


def propose(
    root: Path, section: str, posted: Mapping[str, Sequence[str]], env: Mapping[str, str], today: dt.date
) -> Proposal:
    """Validate the change and open its PR (or give the diff with no host); nothing is written locally."""
    text = read_kb_text(root / CONFIG_FILE, CONFIG_FILE)
    from homeostat.runs.sync import read_config

    current = read_config(root)
    try:
        new = read_form(current, section, posted)
    except FormError as exc:
        return Proposal(error=str(exc))
    changes = config_changes(current, new)
    if not changes:
        return Proposal(message="Nothing changed: the form holds the settings already in homeostat.yaml.")
    try:
        new_text = apply_changes(text, changes, new)
    except HomeostatError as exc:
        return Proposal(error=str(exc))
    problems = _validate(root, new_text, today)
    changed = tuple(_dotted(path) for path, _ in changes)
    if problems:
        return Proposal(
            error="the KB does not validate with this change", findings=tuple(problems[:FINDINGS_SHOWN])
        )
    diff = _diff(text, new_text)
    missing = _no_host(new, env)
    if missing:
        sys.stdout.write(diff)
        return Proposal(diff=diff, changed=changed, message=missing)
    try:
        return _open_pull(root, current, section, changes, text, new_text, diff, env, today)
    except HomeostatError as exc:
        return Proposal(error=f"the PR could not be opened: {exc}", diff=diff, changed=changed)


def _no_host(config: Config, env: Mapping[str, str]) -> str:
    """Why there is no code host to open the PR on ('' when there is one): then the diff is the answer."""
    from homeostat.adapters.hosts.registry import host_from_env

    try:
        host_from_env(config.sources.host, env)
        return ""
    except (ConfigError, AuthError) as exc:
        return (
            f"No code host is configured here ({exc}), so nothing was pushed: here is the change to commit."
        )


def _open_pull(
    root: Path,
    config: Config,
    section: str,
    changes: Sequence[tuple[KeyPath, Any]],
    text: str,
    new_text: str,
    diff: str,
    env: Mapping[str, str],
    today: dt.date,
) -> Proposal:
    from homeostat.kb_origin import origin_git, origin_host
    from homeostat.runs.publish import Change, Publisher

    git: Git = origin_git(root, config, env)
    host, kb_repo = origin_host(config, git, env)
    base = config.sources.base_branch
    git.fetch("origin", [f"+refs/heads/{base}:refs/remotes/origin/{base}"])
    publisher = Publisher(git, host, kb_repo, remote="origin", out=sys.stderr)
    base_sha = publisher.base_tip(base)
    if (git.read_file(base_sha, CONFIG_FILE) or b"").decode("utf-8", "replace") != text:
        return Proposal(
            error=f"this clone's {CONFIG_FILE} is not the one on origin/{base}; run homeostat sync (or git pull) "
            "and reload the page, so the PR changes only what you changed"
        )
    branch = publisher.branch_name(BRANCH_PREFIX, section, today.isoformat())
    title = f"homeostat: settings: {section}"
    change = Change(base, base_sha, {CONFIG_FILE: new_text}, branch, title, _body(section, changes, diff))
    published = publisher.open(change)
    return Proposal(
        diff=diff, pr_url=published.pull.url, branch=branch, changed=tuple(_dotted(p) for p, _ in changes)
    )
