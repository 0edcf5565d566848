"""Hostnames a rule or document names: in URLs, and bare (`get.acme.sh`-style names in prose), each
with the path that follows it.

Bare names are only taken in lowercase and with a top-level domain that is not also a common file
extension or code attribute, so `config.in`, `lib.so`, `System.Net` and `this.app` are not hosts.
Private names (`.internal`, `.local`, single labels, private IPs) are never "outside".

An allowed entry is a domain (`acme.dev`: it and its subdomains) or a host and path (`github.com/acme`:
that owner's repos on the code host, and the bare host with no path). A code host is shared by
everyone, so only its team's own paths are allowed; the hosts that serve anyone's raw files and gists
(`raw.githubusercontent.com`, `gist.github.com`…) are never allowed as someone's subdomain, only when
named themselves.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

# Found from their literal parts (`://`, `.com`) so the engine can skip ahead; the rest is checked after.
_URL_AUTHORITY = re.compile(r"://([^/\s?#\"'<>`)\]}|\\]+)")
_SCHEME_BEFORE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]{1,20}\Z")
# Not `.info`, `.int`, `.es`, `.app`, `.sh`, `.in`…: `log.info`, `np.int` and `install.sh` are code.
BARE_TLDS = (
    "com net org io dev ai co cloud gov edu mil biz xyz us uk de fr nl se eu jp cn ru br au ch ie nz kr tw hk sg"
).split()
_TLD_END = re.compile(r"\.(?:" + "|".join(BARE_TLDS) + r")(?![\w\-(]|\.[A-Za-z0-9])")
# Namespaces of code that read like hosts (`java.io.File`).
_CODE_NAMESPACES = frozenset({"java", "javax", "android", "kotlin", "scala", "std", "self", "this", "os"})
_HOSTNAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9\-]{0,61}[a-z0-9])?\.)+[a-z]{2,}")
_HOST_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.-")
_NOT_BEFORE_HOST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@./-")
_PRIVATE_SUFFIXES = (
    "localhost",
    "local",
    "internal",
    "lan",
    "corp",
    "home",
    "intranet",
    "private",
    "svc",
    "cluster.local",
    "home.arpa",
)
# Reserved for documentation and tests (RFC 2606, RFC 6761).
_ALWAYS_ALLOWED = ("example.com", "example.org", "example.net", "example", "invalid", "test", "localhost")
# Hosts that serve anyone's files, gists and archives from a shared code host.
_USER_CONTENT = (
    "githubusercontent.com",
    "gist.github.com",
    "raw.github.com",
    "codeload.github.com",
    "bytebucket.org",
)
_PATH = re.compile(r"/[^\s?#\"'<>`)\]}|\\]*")


@dataclass(frozen=True)
class HostRef:
    host: str
    start: int
    end: int
    path: str = ""  # what follows the host: `/acme/ledger/pull/12`, or "" for a bare name


def _host_of(authority: str) -> str:
    host = authority.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.split(":", 1)[0].rstrip(".").lower()


def _is_private(host: str) -> bool:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        if "." not in host:
            return True  # a single label (`db`, `redis`) resolves only inside a network
        return any(host == s or host.endswith("." + s) for s in _PRIVATE_SUFFIXES)
    return ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_unspecified


def _path_at(text: str, pos: int) -> str:
    found = _PATH.match(text, pos)
    return found.group(0).rstrip(".,;:!") if found else ""


def _url_hosts(text: str, spans: list[tuple[int, int]]) -> Iterator[HostRef]:
    for m in _URL_AUTHORITY.finditer(text):
        if _SCHEME_BEFORE.search(text, max(0, m.start() - 21), m.start()) is None:
            continue
        spans.append((m.start(), m.end()))
        host = _host_of(m.group(1))
        if host:
            yield HostRef(host, m.start(1), m.end(1), _path_at(text, m.end()))


def _bare_hosts(text: str, url_spans: list[tuple[int, int]]) -> Iterator[HostRef]:
    for m in _TLD_END.finditer(text):
        start = m.start()
        while start > 0 and text[start - 1] in _HOST_CHARS:
            start -= 1
        if start > 0 and text[start - 1] in _NOT_BEFORE_HOST:
            continue  # part of a path, an email, a mixed-case name (`System.Net`) or an identifier
        name = text[start : m.end()].lstrip(".-")
        start = m.end() - len(name)
        if not _HOSTNAME.fullmatch(name) or any(s <= start < e for s, e in url_spans):
            continue
        if name.split(".", 1)[0] in _CODE_NAMESPACES:
            continue
        yield HostRef(name, start, m.end(), _path_at(text, m.end()))


def host_refs(text: str) -> Iterator[HostRef]:
    """Every host named in `text`: URL authorities, then bare names outside URLs and emails."""
    url_spans: list[tuple[int, int]] = []
    if "://" in text:
        yield from _url_hosts(text, url_spans)
    if "." in text:
        yield from _bare_hosts(text, url_spans)


def _normalise(domain: str) -> str:
    entry = domain.strip().lower().split("://", 1)[-1]
    host, slash, path = entry.partition("/")
    host = host.lstrip("*").lstrip(".").rstrip(".")
    return f"{host}/{path.strip('/')}" if slash and path.strip("/") else host


def _is_user_content(host: str) -> bool:
    return any(host == h or host.endswith("." + h) for h in _USER_CONTENT)


def _under(path: str, prefix: str) -> bool:
    path = path.lower().rstrip("/")
    return path == prefix or path.startswith(prefix + "/")


def path_scoped(host: str, allowed: Sequence[str]) -> bool:
    """Whether the allowed entries name this host only with paths (so a reference shows its path)."""
    return bool(_host_verdict(host, tuple(allowed))[1])


def is_allowed(host: str, allowed: Sequence[str], path: str = "") -> bool:
    """The host is private, loopback or reserved; or a parent domain is allowed (a shared host's
    user-content subdomains aside); or the host is allowed for a path this one is under."""
    whole, prefixes = _host_verdict(host, tuple(allowed))
    if whole:
        return True
    if not prefixes:
        return False
    return not path.strip("/") or any(_under(path, prefix) for prefix in prefixes)


@lru_cache(maxsize=4096)
def _host_verdict(host: str, allowed: tuple[str, ...]) -> tuple[bool, tuple[str, ...]]:
    """Whether the whole host is allowed, and else the path prefixes it is allowed under."""
    if _is_private(host):
        return True, ()
    for domain in _ALWAYS_ALLOWED:
        if host == domain or host.endswith("." + domain):
            return True, ()
    prefixes: list[str] = []
    for entry in map(_normalise, allowed):
        if not entry:
            continue
        if "/" in entry:
            entry_host, _, prefix = entry.partition("/")
            if host == entry_host:
                prefixes.append("/" + prefix)
        elif host == entry or (host.endswith("." + entry) and not _is_user_content(host)):
            return True, ()
    return False, tuple(prefixes)
