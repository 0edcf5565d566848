"""Passwords in the shapes of credential files, which name no key before the value: a `.netrc` entry
(`machine h login u password p`, on one line or several) and a `.pgpass` line (alone on its line, or
quoted in a code span of prose)
(`hostname:port:database:username:password`). Both read the whole text, in one pass each.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.positional import password_ok

# A netrc entry: `machine <host>` (or `default login …`), up to four other `<token> <value>` pairs,
# then `password <value>`; tokens are separated by any white space, newlines included.
_NETRC = re.compile(
    r"\b(?:machine[ \t]+\S{1,256}|default(?=\s{1,64}login\b))"
    r"(?:\s{1,64}(?:login|account|port|protocol)\s{1,64}\S{1,256}){0,4}"
    r"\s{1,64}password[ \t]+([^\s\"'`]{1,256})"
)
# Domains reserved for documentation (RFC 2606, RFC 6761).
_DOCUMENTATION_HOST = re.compile(
    r"\bmachine[ \t]+(?:\S+\.)?(?:example\.(?:com|org|net)|example|invalid|test)\b"
)
# A .pgpass line: host (or `*`), port (digits or `*`), database, user, password; `\:` and `\\`
# are escapes. The line holds nothing else but leading Markdown (`- `, `> `, backticks).
_FIELD = r"(?:[^:\s\\]|\\.){1,128}"
_PGPASS = re.compile(
    r"[ \t>*\-`]*(?:[A-Za-z0-9_.\-]{1,253}|\*):(?:\d{1,5}|\*):"
    + _FIELD
    + ":"
    + _FIELD
    + r":((?:[^:\s\\`]|\\.){1,256})[ \t`]*\Z"
)


def _entries(text: str, lowered: str) -> Iterator[re.Match[str]]:
    """Each netrc entry, tried only where `machine` or `default` starts (a regex search over the
    whole text tries every character)."""
    for word in ("machine", "default"):
        pos = lowered.find(word)
        while pos >= 0:
            m = _NETRC.match(text, pos)
            if m is not None:
                yield m
            pos = lowered.find(word, pos + len(word))


def netrc_passwords(text: str, lowered: str) -> Iterator[Found]:
    for m in _entries(text, lowered):
        if _DOCUMENTATION_HOST.search(m.group(0)):
            continue  # `machine example.com`: a sample in the docs, not a credential
        if password_ok(m.group(1), quoted=False):  # a bare word, as prose has them: held to a password's bar
            yield Found("netrc-password", m.start(1), m.end(1), RANK_KEYED)


# A .pgpass line's port field, `:5432:` or `:*:`, found by one search (a literal `:` first, which the
# regex engine skips to): only the lines that hold one are read as .pgpass lines.
_PORT_FIELD = re.compile(r":(?:\d{1,5}|\*):")


# The same line quoted in a code span of prose (`` Put `db:5432:ledger:app:pw` in ~/.pgpass ``): its fields
# hold no backtick, so each try stops at the next one.
_SPAN_FIELD = r"(?:[^:\s\\`]|\\.){1,128}"
_PGPASS_SPAN = re.compile(
    r"`(?:[A-Za-z0-9_.\-]{1,253}|\*):(?:\d{1,5}|\*):"
    + _SPAN_FIELD
    + ":"
    + _SPAN_FIELD
    + r":((?:[^:\s\\`]|\\.){1,256})`"
)


def pgpass_lines(text: str, lowered: str) -> Iterator[Found]:
    line_end = -1
    for port in _PORT_FIELD.finditer(text):
        if port.start() < line_end:
            continue  # a line already read
        start = text.rfind("\n", line_end + 1, port.start()) + 1 or line_end + 1
        line_end = text.find("\n", port.end())
        line_end = len(text) if line_end < 0 else line_end
        m = _PGPASS.match(text, start, line_end)
        if m is None and "`" in text[start:line_end]:
            m = _PGPASS_SPAN.search(text, start, line_end)
        if m is not None and password_ok(m.group(1), quoted=False):
            yield Found("pgpass-password", m.start(1), m.end(1), RANK_KEYED)


FILE_DETECTORS = (netrc_passwords, pgpass_lines)
