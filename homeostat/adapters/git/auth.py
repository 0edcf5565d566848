"""Git credentials for pushing to the KB's origin from CI, taken from the run's own host token.

`actions/checkout` v6 and later keep their token in a file under `$RUNNER_TEMP` that `.git/config`
only includes, which the action's container never sees, and `persist-credentials: false` leaves no
credential at all: a push would go out unauthenticated. So the run hands git the token itself, as
configuration in the environment of its own git processes (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`,
`GIT_CONFIG_VALUE_<n>`): nothing is written to `.git/config` or a credential file, and nothing reaches
a command line or a log. The header is scoped to the host's own server URL, so no other remote ever
sees the token, and it replaces (never doubles) a header a persisted checkout already set.

In Bitbucket Pipelines the clone's origin (`$BITBUCKET_GIT_HTTP_ORIGIN`) is authenticated by the
Pipelines proxy, which `.git/config` names as `localhost:29418`; a pipe runs in its own container
where that is nobody, so the origin's proxy becomes `$HOMEOSTAT_BITBUCKET_PROXY` when that is set.
Outside Pipelines, an https bitbucket.org origin gets the Bitbucket token as a header, as on GitHub.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

from homeostat.adapters.hosts.bitbucket import ACCESS_TOKEN_VARIABLE, API_TOKEN_VARIABLE
from homeostat.adapters.hosts.code_insights import PROXY_VARIABLE
from homeostat.adapters.hosts.github import TOKEN_VARIABLES
from homeostat.core.config import Host

GITHUB_SERVER_VARIABLE = "GITHUB_SERVER_URL"
DEFAULT_GITHUB_SERVER = "https://github.com"
BITBUCKET_SERVER = "https://bitbucket.org"
PIPELINES_ORIGIN_VARIABLE = "BITBUCKET_GIT_HTTP_ORIGIN"


def origin_auth_env(host: Host, origin: str | None, env: Mapping[str, str]) -> dict[str, str]:
    """The environment that lets git authenticate to `origin`; empty when the run has nothing to add."""
    if not origin:
        return {}
    settings = _github(origin, env) if host == "github" else _bitbucket(origin, env)
    return _as_environment(settings, env)


def _github(origin: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    token = next((env[name].strip() for name in TOKEN_VARIABLES if env.get(name, "").strip()), "")
    server = (env.get(GITHUB_SERVER_VARIABLE, "").strip() or DEFAULT_GITHUB_SERVER).rstrip("/") + "/"
    if not token or not origin.startswith(server):
        return []
    return _header(server, "x-access-token", token)


def _bitbucket(origin: str, env: Mapping[str, str]) -> list[tuple[str, str]]:
    pipelines_origin = env.get(PIPELINES_ORIGIN_VARIABLE, "").strip()
    proxy = env.get(PROXY_VARIABLE, "").strip()
    if pipelines_origin and _same_repo(origin, pipelines_origin):
        return [(f"http.{pipelines_origin}.proxy", proxy)] if proxy else []
    server = BITBUCKET_SERVER + "/"
    if not origin.startswith(server):
        return []
    if token := env.get(ACCESS_TOKEN_VARIABLE, "").strip():
        return _header(server, "x-token-auth", token)
    if token := env.get(API_TOKEN_VARIABLE, "").strip():
        return _header(server, "x-bitbucket-api-token-auth", token)
    return []


def _same_repo(a: str, b: str) -> bool:
    return a.rstrip("/").removesuffix(".git") == b.rstrip("/").removesuffix(".git")


def _header(server: str, user: str, token: str) -> list[tuple[str, str]]:
    credential = base64.b64encode(f"{user}:{token}".encode()).decode()
    key = f"http.{server}.extraheader"
    # An empty value first clears any header for this server from the checkout's own config.
    return [(key, ""), (key, f"AUTHORIZATION: basic {credential}")]


def _as_environment(settings: list[tuple[str, str]], env: Mapping[str, str]) -> dict[str, str]:
    """Append to whatever `GIT_CONFIG_COUNT` settings the caller's environment already has."""
    if not settings:
        return {}
    try:
        start = max(0, int(env.get("GIT_CONFIG_COUNT", "0") or 0))
    except ValueError:
        start = 0
    out = {"GIT_CONFIG_COUNT": str(start + len(settings))}
    for offset, (key, value) in enumerate(settings):
        out[f"GIT_CONFIG_KEY_{start + offset}"] = key
        out[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    return out
