"""A KB checkout as `actions/checkout` leaves it on a GitHub runner, in each of its credential layouts.

    runner_checkout(repo_url, dest, runner_temp, token=t, server=url, layout="v7")

- "v7" (v6 and later, with its default persist-credentials): the token is only in
  `$RUNNER_TEMP/git-credentials-<id>.config`, which `.git/config` includes for this gitdir (and for
  the `/github/workspace` path a Docker action would see), so a container that does not mount
  `$RUNNER_TEMP` has no credential;
- "v4": the header is persisted in `.git/config` itself, which the container does see;
- "none": `persist-credentials: false` (what the templates set), no credential anywhere.
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any, Literal

from gitfixtures import git

Layout = Literal["v7", "v4", "none"]


def auth_header(token: str) -> str:
    return "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{token}".encode()).decode()


def runner_checkout(
    repo_url: str, dest: Path, runner_temp: Path, *, token: str, server: str, layout: Layout
) -> Path:
    """Clone with the token (as checkout does), then leave the credential where `layout` says."""
    key = f"http.{server.rstrip('/')}/.extraheader"
    dest.parent.mkdir(parents=True, exist_ok=True)
    git(dest.parent, "-c", f"{key}={auth_header(token)}", "clone", "--quiet", repo_url, str(dest))
    git(dest, "config", "user.name", "github-actions[bot]")
    git(dest, "config", "user.email", "41898282+github-actions[bot]@users.noreply.github.com")
    if layout == "v4":
        git(dest, "config", key, auth_header(token))
    elif layout == "v7":
        runner_temp.mkdir(parents=True, exist_ok=True)
        credentials = runner_temp / f"git-credentials-{uuid.uuid4()}.config"
        credentials.write_text(f'[http "{server.rstrip("/")}/"]\n\textraheader = {auth_header(token)}\n')
        git(dest, "config", f"includeIf.gitdir:{dest}/.git/.path", str(credentials))
        git(
            dest,
            "config",
            "includeIf.gitdir:/github/workspace/.git/.path",
            f"/github/runner_temp/{credentials.name}",
        )
    return dest


def daily_env(world: Any, server_url: str) -> dict[str, str]:
    """What a daily workflow's step environment holds on the emulators (the token goes in as an input)."""
    return {
        "GITHUB_API_URL": world.harness.emulator.api_url,
        "GITHUB_SERVER_URL": server_url,
        "GITHUB_REPOSITORY": "example/kb",
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": world.stub.url,
    }
