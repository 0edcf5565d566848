"""The commit a release tag of Homeostat's actions names, read from the server with `git ls-remote`.

`homeostat init --pin-actions sha` writes `uses: homeostat/homeostat/actions/daily@<commit> # v0.2.0`,
as third-party actions are pinned; the commit comes from the tag on the server the actions live on
(`GITHUB_SERVER_URL`, else github.com), asked once, anonymously (the repository is public). An
annotated tag is peeled to its commit. Nothing is cached: a rerun of init reuses the commit the
workflows already pin for this version, and asks again only for another one.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping

from homeostat.errors import ConfigError

DEFAULT_SERVER = "https://github.com"
SERVER_VARIABLE = "GITHUB_SERVER_URL"
_LINE = re.compile(r"^(?P<sha>[0-9a-f]{40})\t(?P<ref>\S+)$")


def release_commit(repo: str, tag: str, env: Mapping[str, str] | None = None, timeout: float = 60) -> str:
    """The commit `tag` names in `repo` (owner/name) on the actions' server."""
    env = os.environ if env is None else env
    server = (env.get(SERVER_VARIABLE, "").strip() or DEFAULT_SERVER).rstrip("/")
    url = f"{server}/{repo}"
    quiet = {**env, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
    command = ["git", "ls-remote", url, f"refs/tags/{tag}", f"refs/tags/{tag}^{{}}"]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, env=quiet, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ConfigError(_unreachable(url, tag, type(exc).__name__)) from None
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no answer"])[0]
        raise ConfigError(_unreachable(url, tag, first[:200]))
    refs = {m["ref"]: m["sha"] for m in map(_LINE.match, done.stdout.splitlines()) if m}
    commit = refs.get(f"refs/tags/{tag}^{{}}") or refs.get(f"refs/tags/{tag}")
    if commit is None:
        raise ConfigError(f"{url} has no tag {tag}: is this Homeostat release published? (--pin-actions tag)")
    return commit


def _unreachable(url: str, tag: str, why: str) -> str:
    return (
        f"--pin-actions sha: could not read the tag {tag} of {url} ({why}); rerun where the network"
        " reaches it, or write the tag with --pin-actions tag"
    )
