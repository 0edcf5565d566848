"""Which code repo a session works in, from its checkout's `origin` URL or, failing that, its folder.

Scope comes from where you stand (PEERS.md, lesson 10): a session, the MCP server and an export find
their repo from the checkout, never from an argument a caller could set to read another team's area.
These functions only parse; the adapter reads `remote.origin.url` and the folder name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from homeostat.core.records import Record

_SCP = re.compile(r"^(?:[\w.+-]+@)?(?P<host>[\w.-]+):(?!//)(?P<path>.+)$")
# `scheme://netloc/path` in printable ASCII with no query, fragment, escape or IPv6 bracket: read here
# as urllib.parse.urlsplit reads it, since every session hook parses its checkout's origin URL and
# urllib.parse (with the ipaddress module it imports) costs a hook more than the parse. Anything
# else goes to urlsplit itself.
_PLAIN_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://(?P<netloc>[^/]*)(?P<path>.*)$")
_NOT_PLAIN = re.compile(r"[^!-~]|[\[\]?#%]")


def split_url(text: str) -> tuple[str, str]:
    """(hostname lower-cased or "", path) as `urlsplit` gives them; ValueError where it raises."""
    plain = _PLAIN_URL.match(text)
    if plain is not None and _NOT_PLAIN.search(text) is None:
        host = plain.group("netloc").rpartition("@")[2].partition(":")[0]
        return host.lower(), plain.group("path")
    from urllib.parse import urlsplit

    parts = urlsplit(text)
    return (parts.hostname or "").lower(), parts.path


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
            host, path = split_url(text)
        except ValueError:  # `https://[host/…`: no host we could match
            return None
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
