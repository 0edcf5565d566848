"""Passwords written `keyword value`, with blanks and no `=` or `:` between: the configuration files
and statements that put a password after a word (`password …` in msmtprc, fetchmailrc, nmcli,
`insecure-password …` in HAProxy, `requirepass …` in redis.conf, SQL's `PASSWORD '…'` and
`IDENTIFIED BY '…'`, Db2's `USER u USING …`), an expect script's `send` after a password prompt,
a Postfix `sasl_passwd` line (`[host]:port user:password`) and a Jetty realm line
(`user: password,role`).

Each reads the whole text, and tries a match only where its word starts (`str.find`), so a text of
keywords alone is read once. A bare value is held to a password's bar where nothing else says it
is one (`strong_password`); a quoted one must mix two classes of character.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.commands import placed_password, strong_enough, strong_password
from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.positional import password_ok

_VALUE = r"""(?:"([^"\s]{1,256})"|'([^'\s]{1,256})'|([^\s"'`;,]{1,256}))"""
# The keyword, not inside a longer word or a flag (`--password …` is a flag's), then blanks.
_SPACED = re.compile(
    r"(?i:(?<![\w\-.$])(?:insecure-password|password|passwd|passphrase|requirepass|masterauth|"
    r"identified[ \t]+by|using|[a-z]{1,12}_pass(?:word|wd)?|rootpw))[ \t]+(?!-)" + _VALUE
)
# `auth_pass` (keepalived), `rootpw` (OpenLDAP's slapd.conf): the value after a blank, as above.
_SPACED_WORDS = (
    "_pass",
    "rootpw",
    "insecure-password",
    "password",
    "passwd",
    "passphrase",
    "requirepass",
    "masterauth",
    "identified",
    "using",
)


def _value(m: re.Match[str], first: int = 1) -> tuple[int, int, str, bool]:
    group = next(i for i in (first, first + 1, first + 2) if m.group(i) is not None)
    return m.start(group), m.end(group), m.group(group), group < first + 2


def _ok(value: str, quoted: bool) -> bool:
    if not any(c.isdigit() for c in value) and (not quoted or value.isalpha()):
        return False  # `password header`, `using System`: a word (a bare password needs a digit)
    if quoted:
        return password_ok(value, quoted=True) and strong_enough(value)
    # A keyword then a blank is no code's assignment: a dot in the value is the password's own.
    return password_ok(value, quoted=True) and placed_password(value)


# `using` is Db2's only after `user <name>` (in C#, SQL Server and prose it starts other things).
_DB2_USER = re.compile(r"(?i:\buser)[ \t]+\S{1,64}[ \t]+\Z")


def spaced_passwords(text: str, lowered: str) -> Iterator[Found]:
    """`password <value>` and its kin, where no `=` or `:` follows the keyword."""
    for word in _SPACED_WORDS:
        pos = lowered.find(word)
        while pos >= 0:
            at = _name_start(lowered, pos) if word == "_pass" else pos
            m = _SPACED.match(text, at)
            if m is not None and (word != "using" or _DB2_USER.search(text, max(0, pos - 80), pos)):
                start, end, value, quoted = _value(m)
                if _ok(value, quoted):
                    yield Found("password", start, end, RANK_KEYED)
            pos = lowered.find(word, pos + len(word))


def _name_start(lowered: str, pos: int) -> int:
    """Where the name holding `_pass` at `pos` starts (`auth` of `auth_pass`)."""
    start = pos
    while start > 0 and pos - start < 12 and "a" <= lowered[start - 1] <= "z":
        start -= 1
    return start


# expect: a `send "…\r"` within a few lines after an `expect` whose pattern asks for a password.
_EXPECT_SEND = re.compile(
    r"""(?i:assword|passphrase)[^\n{]{0,80}(?:\n(?:[^\n]{0,200}\n){0,3}?[ \t]*|\{[ \t]*)send(?:[ \t]+--)?[ \t]+"""
    r"""(?:"([^"\n]{1,256}?)(?:\\r|\\n)?"|\{([^}\n]{1,256}?)(?:\\r|\\n)?\})"""
)


def expect_sends(text: str, lowered: str) -> Iterator[Found]:
    """The reply an expect script sends to a password prompt."""
    pos = lowered.find("expect")
    while pos >= 0:
        line_end = lowered.find("\n", pos)
        line_end = len(text) if line_end < 0 else line_end
        m = _EXPECT_SEND.search(text, pos, min(len(text), line_end + 1000))
        if m is not None and m.start() < line_end:
            group = 1 if m.group(1) is not None else 2
            value = m.group(group)
            if not value.startswith("$") and password_ok(value, quoted=True) and strong_enough(value):
                yield Found("password", m.start(group), m.start(group) + len(value), RANK_KEYED)
        pos = lowered.find("expect", line_end)


# Postfix's sasl_passwd: a host (in brackets, or dotted) with an optional port, then `user:password`,
# alone on the line.
_SASL_LINE = re.compile(
    r"[ \t]*(?:\[[\w.\-]{1,253}\]|[\w\-]{1,63}(?:\.[\w\-]{1,63})+)(?::\d{1,5})?[ \t]+"
    r"[\w.+\-]{1,64}(?:@[\w.\-]{1,253})?:(\S{1,256})[ \t]*\Z"
)


_MAIL_WORDS = ("sasl", "smtp", "relay", "postfix", "mail")


def sasl_lines(text: str, lowered: str) -> Iterator[Found]:
    """A relay's credentials in Postfix's `sasl_passwd` (and its kin): host, port, then user and password."""
    if not any(map(lowered.__contains__, _MAIL_WORDS)):
        return  # read only in a text about mail relays: every YAML line has a `:`
    for line_start, line_end in _lines_with(text, ":"):
        m = _SASL_LINE.match(text, line_start, line_end)
        if m is not None and _DIGIT_DOT_DIGIT.search(m.group(1)) is None and strong_password(m.group(1)):
            yield Found("password", m.start(1), m.end(1), RANK_KEYED)


_DIGIT_DOT_DIGIT = re.compile(r"\d\.\d")  # `app:v1.2.3-rc1`: an image and its version, not a password
# An `OBF:` value is Jetty's reversible obfuscation of a password: as good as the password.
_OBFUSCATED = re.compile(r"[a-z0-9]{8,256}")


# Jetty's realm.properties: `user: password[,role…]`, the password maybe marked `OBF:` (reversible).
# A hash (`MD5:`, `CRYPT:`) is no password. Read only in a text that names the file or the realm.
_REALM_LINE = re.compile(
    r"[ \t]*[\w.\-]{1,64}[ \t]*[:=][ \t]*(OBF:)?([^\s,:]{6,256}),[ \t]*[\w\-]{1,64}(?:[ \t]*,[ \t]*[\w\-]{1,64}){0,20}[ \t]*\Z"
)


def realm_lines(text: str, lowered: str) -> Iterator[Found]:
    """Users, passwords and roles in a Jetty (or Tomcat-style) realm file."""
    if "realm" not in lowered:
        return
    for line_start, line_end in _lines_with(text, ","):
        m = _REALM_LINE.match(text, line_start, line_end)
        if m is None:
            continue
        value = m.group(2)
        if strong_password(value) or (m.group(1) and _OBFUSCATED.fullmatch(value)):
            yield Found("password", m.start(2), m.end(2), RANK_KEYED)


def _lines_with(text: str, char: str) -> Iterator[tuple[int, int]]:
    """Each line that holds `char`, once, found by `str.find`."""
    pos = text.find(char)
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        yield start, end
        pos = text.find(char, end)


SPACED_DETECTORS = (spaced_passwords, expect_sends, sasl_lines, realm_lines)
