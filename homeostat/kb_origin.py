"""The KB checkout's origin as the CI commands use it: git authenticated to it, and its code host.

`daily`, `deep-dive`, `review-merge`, `digest`, `bootstrap`, `up` and the dashboard's settings writer
all work on the KB repo's refs with the run's own host token; they share these steps from here, and
`bootstrap`, `import` and `calibrate` publish their PRs through `publisher_for`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from homeostat.adapters.git.plumbing import Git
from homeostat.core.config import Config
from homeostat.core.hosts import CodeHost, RepoRef
from homeostat.core.type_hints import TYPE_CHECKING
from homeostat.errors import ConfigError, GitError

if TYPE_CHECKING:
    from homeostat.runs.publish import Publisher


def origin_git(root: Path, config: Config, env: Mapping[str, str]) -> Git:
    """The KB checkout, with git authenticated to its origin by the run's own host token."""
    from homeostat.adapters.git.auth import origin_auth_env

    try:
        git = Git(root)
        head = git.rev_parse("HEAD")
    except GitError:
        head = None
    if head is None:
        raise ConfigError(
            f"{root}: not a git checkout of the KB repo; the daily run works on the KB repo's refs"
        )
    git.env.update(origin_auth_env(config.sources.host, git.remote_url("origin"), env))
    return git


def origin_host(config: Config, git: Git, env: Mapping[str, str]) -> tuple[CodeHost, RepoRef]:
    """The code host from the environment's credentials, and which of its repos the KB is."""
    from homeostat.adapters.hosts.registry import host_from_env
    from homeostat.runs.curate import kb_repo_ref

    kb_repo = kb_repo_ref(config, git.remote_url("origin"))
    if kb_repo is None:
        raise ConfigError(
            "cannot tell which repo the KB is: set sources.kbRepo in homeostat.yaml or give the checkout an origin remote"
        )
    checkout = git.git_dir.parent if git.git_dir.name == ".git" else None  # its `.homeostat/` cache
    return host_from_env(config.sources.host, env, cache_root=checkout), kb_repo


def publisher_for(root: Path, config: Config) -> Publisher:
    """The KB checkout's git (authenticated to origin) and its code host, as the daily run uses them."""
    import sys

    from homeostat.runs.publish import Publisher

    git = origin_git(root, config, os.environ)
    host, kb_repo = origin_host(config, git, os.environ)
    return Publisher(git, host, kb_repo, remote="origin", out=sys.stderr)
