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
# Namespaces of code that read like hosts (`java.io.File`), and the objects a web handler is handed,
# whose attributes read like hosts too (`request.org`, `ctx.app`).
_CODE_NAMESPACES = frozenset(
    {"java", "javax", "android", "kotlin", "scala", "std", "self", "this", "os", "request", "req", "ctx"}
)
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
_PATH = re.compile(r"/[^\s?#\"'<>`)\]}|\\]{0,300}")
# URLs as browsers and curl read them: a special scheme followed by any run of `/` and `\`
# (`https:\\evil.net`, `https:/\evil.net`, `https:evil.net`), the scheme in any case.
_LOOSE_URL = re.compile(r"(?i)\b(?:https?|wss?|ftp):(?!//)[\\/]*([^/\s?#\"'<>`)\]}|\\]+)")
# curl reads `https://acme.dev\@evil.net/` as user `acme.dev\` at evil.net; a browser as acme.dev.
_CURL_AUTHORITY = re.compile(r"://([^/\s?#\"'<>`)\]}|]+)")
# `//cdn.host.tld/x`: a URL relative to the page's scheme.
_PROTOCOL_RELATIVE = re.compile(
    r"(?:^|(?<=[\s\"'`(=]))//((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?=[/:\s\"'`)]|$)"
)
# A bare name with a path after it is a host whatever its top-level domain (`get-tools.app/install`);
# names ending in a code or file extension are files (`app.py/…` never names a host).
_HOST_WITH_PATH = re.compile(
    r"(?<![\w.@/\\-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,24}))(?::\d{1,5})?(?=/[\w.~-])"
)
_FILE_EXTENSIONS = frozenset(
    "py js ts tsx jsx mjs cjs md json yml yaml txt toml cfg ini xml sql go rs rb java kt kts css scss html htm lock "
    "c h cc cpp hpp cs php pl swift gradle log csv tar gz tgz bz2 png jpg jpeg gif svg pdf proto tf tfvars env "
    "conf properties vue svelte lua r ex exs erl hs ml scala dart sbt mk cmake bat ps1 psm1 ipynb whl jar".split()
)
# A shouted host (`REGISTRY.EVIL-MIRROR.NET/…`): all capitals, so `System.Net` is still code.
_UPPER_HOST = re.compile(
    r"(?<![\w.@/-])((?:[A-Z0-9](?:[A-Z0-9-]{0,61}[A-Z0-9])?\.)+[A-Z]{2,24})(?![\w-]|\.[A-Za-z0-9])"
)
# Microsoft's .NET frameworks, always written in capitals: products, not hosts (`ASP.NET` handlers).
_SHOUTED_PRODUCTS = frozenset({"ASP.NET", "ADO.NET", "VB.NET"})
# git's scp-like address (`git@evil.io:acme/tools.git`): the host between the `@` and a colon a path follows.
_SCP_HOST = re.compile(
    r"@(?<=[\w.-]@)((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}):(?=[\w~.-]{1,100}/)"
)
_HOST_REACH = 253  # the longest hostname: a bare host's start is looked for no further back


@dataclass(frozen=True)
class HostRef:
    host: str
    start: int
    end: int
    path: str = ""  # what follows the host: `/acme/ledger/pull/12`, or "" for a bare name


# Full stops a browser's host mapping (UTS #46) reads as `.`: ideographic, full-width, half-width.
_HOST_DOTS = str.maketrans(dict.fromkeys("\u3002\uff0e\uff61", "."))


def _host_of(authority: str) -> str:
    host = authority.rsplit("@", 1)[-1].translate(_HOST_DOTS)
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host[1:]
    return host.split(":", 1)[0].rstrip(".").lower()


def _ipv4_number(host: str) -> ipaddress.IPv4Address | None:
    """A host that is an IPv4 address in any form a browser or curl takes: `1572395042`,
    `0x5db8d822`, `0150.0020.0204.0345`, `93.184.216.34`."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = []
    for part in parts:
        try:
            if part.lower().startswith("0x"):
                values.append(int(part[2:] or "0", 16))
            elif len(part) > 1 and part.startswith("0"):
                values.append(int(part, 8))
            else:
                values.append(int(part, 10))
        except ValueError:
            return None
    number = 0
    for value in values[:-1]:
        if value > 255:
            return None
        number = number * 256 + value
    last_bits = 8 * (5 - len(values))
    if values[-1] >= 1 << last_bits:
        return None
    return ipaddress.IPv4Address((number << last_bits) + values[-1])


# Addresses reserved for documentation (RFC 5737, RFC 3849): Python counts them private, but no team's
# network holds them; a rule that names one stands it in for a public host, and is read as one.
_DOCUMENTATION = tuple(
    ipaddress.ip_network(net)
    for net in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32")
)


def _is_private(host: str) -> bool:
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None = _ipv4_number(host)
    if ip is None:
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            if "." not in host:
                return True  # a single label (`db`, `redis`) resolves only inside a network
            return any(host == s or host.endswith("." + s) for s in _PRIVATE_SUFFIXES)
        mapped = getattr(ip, "ipv4_mapped", None)
        if mapped is not None:
            ip = mapped
    if any(ip in net for net in _DOCUMENTATION):
        return False
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
        curl = _CURL_AUTHORITY.match(text, m.start())
        if curl is not None and "\\" in curl.group(1) and "@" in curl.group(1):
            other = _host_of(curl.group(1))  # where curl connects: past the last `@`
            if other and other != host:
                spans.append((m.start(), curl.end()))
                yield HostRef(other, m.start(1), curl.end(1), _path_at(text, curl.end()))
    if "\\" in text or ":" in text:
        for m in _LOOSE_URL.finditer(text):
            host = _host_of(m.group(1))
            if host and not any(s <= m.start() < e for s, e in spans[-4:]):
                spans.append((m.start(), m.end()))
                yield HostRef(host, m.start(1), m.end(1), _path_at(text, m.end()))


def _bare_hosts(text: str, url_spans: list[tuple[int, int]]) -> Iterator[HostRef]:
    for m in _TLD_END.finditer(text):
        start = m.start()
        while start > 0 and text[start - 1] in _HOST_CHARS and m.start() - start < _HOST_REACH:
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


def _other_hosts(text: str, url_spans: list[tuple[int, int]], bare: set[int]) -> Iterator[HostRef]:
    """Hosts a lowercase, listed-TLD reading misses: `//host/…`, a name with a path whatever its TLD,
    a shouted name, and git's scp-like `user@host:path`."""
    found: list[tuple[int, int, str]] = []
    if "//" in text:
        found += [(m.start(1), m.end(1), m.group(1)) for m in _PROTOCOL_RELATIVE.finditer(text)]
    if "/" in text:
        found += [
            (m.start(1), m.end(1), m.group(1))
            for m in _HOST_WITH_PATH.finditer(text)
            if m.group(2) not in _FILE_EXTENSIONS and m.group(1).split(".", 1)[0] not in _CODE_NAMESPACES
        ]
    found += [
        (m.start(1), m.end(1), m.group(1).lower())
        for m in _UPPER_HOST.finditer(text)
        if m.group(1) not in _SHOUTED_PRODUCTS
    ]

    for start, end, name in found:
        if start in bare or any(s <= start < e for s, e in url_spans) or not _HOSTNAME.fullmatch(name):
            continue
        bare.add(start)
        yield HostRef(name, start, end, _path_at(text, end))
    if "@" in text:
        for m in _SCP_HOST.finditer(text):
            if m.start(1) not in bare and not any(s <= m.start(1) < e for s, e in url_spans):
                bare.add(m.start(1))
                yield HostRef(
                    m.group(1), m.start(1), m.end(1), _path_at("/" + text[m.end() : m.end() + 300], 0)
                )


# Needed by a host in a URL, a shouted host and a host with a path; a bare host needs a listed TLD.
_SCHEMES = ("http", "https", "ws", "wss", "ftp")  # `_LOOSE_URL`'s, each right before a colon
_BARE_TLD = re.compile(r"\.(?:" + "|".join(BARE_TLDS) + ")")  # `_TLD_END` without its lookahead
_NAME_AND_PATH = re.compile(r"\.[a-z]{2,24}(?::\d{1,5})?/[\w.~-]")
_SHOUTED_LABEL = re.compile(r"\.[A-Z]{2}")


def host_marks(text: str) -> Iterator[tuple[int, int]]:
    """Where `text` holds what a host `host_refs` finds needs: `//`, a scheme and a colon, or one of
    these dotted endings. A part of `text` none of them touches names no host."""
    yield from occurrences(text, "//")
    colon = text.find(":")
    while colon >= 0:
        if text[max(0, colon - 5) : colon].lower().endswith(_SCHEMES):
            yield colon - 5, colon + 1
        colon = text.find(":", colon + 1)
    if "@" in text:
        yield from (m.span() for m in _SCP_HOST.finditer(text))
    for pattern in (_BARE_TLD, _NAME_AND_PATH, _SHOUTED_LABEL):
        if pattern is not _NAME_AND_PATH or "/" in text:
            yield from (m.span() for m in pattern.finditer(text))


def occurrences(text: str, needle: str) -> Iterator[tuple[int, int]]:
    """Where `needle` is in `text` (`str.find`, a memchr), overlaps included."""
    at = text.find(needle)
    while at >= 0:
        yield at, at + len(needle)
        at = text.find(needle, at + 1)


def host_refs(text: str) -> Iterator[HostRef]:
    """Every host named in `text`: URL authorities (as browsers and curl read them), then bare names
    outside URLs and emails."""
    url_spans: list[tuple[int, int]] = []
    if "://" in text or ":" in text and ("\\" in text or "http" in text.lower()):
        yield from _url_hosts(text, url_spans)
    if "." in text:
        bare: set[int] = set()
        for ref in _bare_hosts(text, url_spans):
            bare.add(ref.start)
            yield ref
        yield from _other_hosts(text, url_spans, bare)


# A Kubernetes API group (`apiGroups: ["acme.io"]`, `apiVersion: acme.io/v1`, `group: acme.io`): named
# like a domain by convention, but a resource's kind, not a place anything is sent.
_API_GROUP_BEFORE = re.compile(
    r"(?:\bapiGroups[\"']?\s*:\s*\[?(?:\s*[\"']?[\w.-]*[\"']?\s*,)*\s*|\bapiVersion[\"']?\s*:\s*|\bgroup[\"']?\s*:\s*)"
    r"[\"']?$"
)


# A label or annotation key prefixed by a domain (`pod-security.kubernetes.io/enforce: restricted`,
# `app.kubernetes.io/name=web`): the host, one name after it, then a key's colon and a space or a `=`.
# Not an image (`registry.evil.io/app:latest`: its colon is followed by the tag).
_LABEL_KEY_AFTER = re.compile(r"/[\w.-]+(?::(?:\s|$|`)|=)")
_KEY_OPENS_LINE = re.compile(r"\s*(?:-\s+)?[\"']?")


# Kubernetes' own prefixes: `kubectl.kubernetes.io/last-applied-configuration` is an annotation's key.
_KUBERNETES_OWN = re.compile(r"(?:[\w-]+\.)*(?:kubernetes\.io|k8s\.io)", re.IGNORECASE)
_KEY_NAME_AFTER = re.compile(r"/[\w.-]+(?![\w./-])")


def kubernetes_name(text: str, start: int, end: int) -> bool:
    """The host at `start:end` names no place but a Kubernetes API group (`_API_GROUP_BEFORE` on its line before
    it) or a label key's prefix (`_LABEL_KEY_AFTER` right after it, or one name after Kubernetes' own prefix)."""
    line = text.rfind("\n", 0, start) + 1
    if _API_GROUP_BEFORE.search(text, max(line, start - 200), start) is not None:
        return True
    # a key opens its line (YAML) or stands in code, and is no URL's host
    as_key = _KEY_OPENS_LINE.fullmatch(text, line, start) is not None or text.count("`", line, start) % 2 == 1
    if not as_key or text.endswith("//", 0, start):
        return False
    if _LABEL_KEY_AFTER.match(text, end) is not None:
        return True
    return (
        _KUBERNETES_OWN.fullmatch(text, start, end) is not None
        and _KEY_NAME_AFTER.match(text, end) is not None
    )


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
