"""Which code repo a session works in, from its checkout's `origin` URL or, failing that, its folder.

Scope comes from where you stand (PEERS.md, lesson 10): a session, the MCP server and an export find
their repo from the checkout, never from an argument a caller could set to read another team's area.
These functions only parse; the adapter reads `remote.origin.url` and the folder name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from homeostat.core.records import Record

_SCP = re.compile(r"^(?:[\w.+-]+@)?(?P<host>[\w.-]+):(?!//)(?P<path>.+)$")


class RepoSlug(Record):
    """host (lower case, "" for a local path), the path's owner part and the repo name."""

    host: str
    owner: str
    name: str


def parse_origin(url: str) -> RepoSlug | None:
    """`https://github.com/acme/ledger.git`, `git@github.com:acme/ledger.git`, `ssh://…`, or a path.

    Returns None for text that names no repository at all (empty, or a bare host).
    """
    text = url.strip().rstrip("/")
    if not text:
        return None
    host = ""
    path = text
    scp = _SCP.match(text)
    if "://" in text:
        try:
            parts = urlsplit(text)
            host = (parts.hostname or "").lower()
        except ValueError:  # `https://[host/…`: no host we could match
            return None
        path = parts.path
    elif scp and not re.match(r"^[A-Za-z]:[\\/]", text):  # C:\… is a Windows path, not scp syntax
        host = scp.group("host").lower()
        path = scp.group("path")
    segments = [s for s in re.split(r"[\\/]+", path) if s]
    if not segments:
        return None
    name = segments[-1].removesuffix(".git")
    if not name:
        return None
    owner = "/".join(segments[:-1]) if host else (segments[-2] if len(segments) > 1 else "")
    return RepoSlug(host, owner, name)


def _same(a: RepoSlug, b: RepoSlug) -> bool:
    return (a.host, a.owner.lower(), a.name.lower()) == (b.host, b.owner.lower(), b.name.lower())


def session_repo(repos: Sequence[tuple[str, str]], origin_url: str | None, folder_name: str) -> str | None:
    """The KB repo name (from `repos[].name`) this checkout belongs to, or None when none matches.

    `repos` holds (name, url) pairs from homeostat.yaml. An origin URL matching a repo's URL wins; then
    an origin whose last path part is a repo's name (a fork or a mirror); then the folder name.
    """
    slug = parse_origin(origin_url) if origin_url else None
    if slug is not None:
        for name, url in repos:
            configured = parse_origin(url)
            if configured is not None and _same(slug, configured):
                return name
        for name, url in repos:
            configured = parse_origin(url)
            if slug.name.lower() in (name.lower(), (configured.name.lower() if configured else "")):
                return name
    folder = folder_name.strip().lower()
    for name, url in repos:
        configured = parse_origin(url)
        if folder and folder in (name.lower(), (configured.name.lower() if configured else "")):
            return name
    return None
