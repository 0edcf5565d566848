"""Which adapter serves `sources.host`: the one place a command turns the configured host kind into a
client, so curate, learn, the CI runs, doctor and the dashboard all build the same host the same way."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from homeostat.core.config import Host
from homeostat.core.hosts import CodeHost


def host_from_env(
    kind: Host, env: Mapping[str, str], *, read_only: bool = False, cache_root: Path | None = None
) -> CodeHost:
    """The code host (`sources.host`, or the one a URL names), with its credential from the environment;
    `read_only` when the command only reads reviews, so a missing token asks for read scopes only.
    `cache_root`: the KB checkout whose `.homeostat/cache/http/` keeps GitHub's ETags between runs
    (Bitbucket Cloud does not say a 304 is free of its limits, so it asks unconditionally)."""
    if kind == "bitbucket":
        from homeostat.adapters.hosts.bitbucket import bitbucket_host_from_env

        return bitbucket_host_from_env(env)
    from homeostat.adapters.hosts.github import github_host_from_env

    return github_host_from_env(env, read_only=read_only, cache_root=cache_root)
