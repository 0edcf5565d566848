"""Secrets on command lines, by the flag or the shape that carries them: a short flag that is the
password in the tool it belongs to (`docker login -p …`, `sqlcmd -P …`, `7z a -p…`), a strong
password after `-p`, `-P` or `-w` of any tool, and an Oracle connect string (`user/password@db`).

A long flag (`--password …`, `--api-key=…`) is judged by its name in `context.cli_flags`, and
`mysql -p…` in `context.mysql_passwords`; these are the shapes a flag's name does not tell.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.positional import judge, password_ok, secret_value_ok
from homeostat.core.scanners.secrets.values import is_env_name, is_reference, looks_fake, looks_random

# A value after a flag: quoted, or up to the next blank or quote.
_VALUE = r"""(?:"([^"\s]{1,256})"|'([^'\s]{1,256})'|([^\s"'`]{1,256}))"""
# The rest of one command: up to a pipe, `;`, `&` or the end of the line, at most 300 characters.
_SAME_COMMAND = r"[^\n|;&]{0,300}?"

# (kind, the tool and what comes before its flag, the flag, what the value is: password or token)
_TOOL_FLAGS: tuple[tuple[str, str, str, str], ...] = (
    (
        "registry-login",
        r"\b(?:docker|podman|buildah|skopeo|nerdctl|finch|oras|helm[ \t]+registry)(?:[ \t]+[^\s|;&]{1,60}){0,3}?"
        r"[ \t]+login\b",
        r"-p(?:=|[ \t]+)",
        "password",
    ),
    ("sql-server-password", r"\b(?:sqlcmd|bcp|osql|isql)\b", r"-P[ \t]*", "password"),
    ("archive-password", r"\b(?:7z|7za|7zr|7zz|rar|unrar)\b", r"-p", "password"),
    ("archive-password", r"\b(?:zip|unzip|zipcloak)\b", r"-P[ \t]+", "password"),
    ("codecov-token", r"\bcodecov\b", r"-t[ \t]+", "token"),
    # net-snmp's SNMPv3 authentication and privacy passphrases
    ("snmp-passphrase", r"\bsnmp[a-z]{2,12}\b", r"-[AX][ \t]+", "password"),
    ("ssh-key-passphrase", r"\bssh-keygen\b", r"-[NP][ \t]+", "password"),
    ("openssl-password", r"\bopenssl\b", r"-k[ \t]+", "password"),
    ("vault-token", r"\bvault[ \t]+login\b", r"", "token"),
    ("redis-password", r"\b(?:redis-cli|valkey-cli|keydb-cli)\b", r"-a[ \t]+", "password"),
    ("sshpass-password", r"\bsshpass\b", r"-p[ \t]*", "password"),
    # `smbclient -U user%password`: the password after the user, past a `%`
    (
        "smb-password",
        r"\b(?:smbclient|rpcclient|smbmap|smbcacls|net)\b",
        r"-U[ \t]+[^\s%'\"]{1,64}%",
        "password",
    ),
    # `htpasswd -b [-c] file user password`: batch mode takes the password as its last argument
    (
        "htpasswd-password",
        r"\bhtpasswd\b",
        r"-[a-zA-Z]*b[a-zA-Z]*(?:[ \t]+-[a-zA-Z]+)*[ \t]+[^\s\-]\S{0,200}[ \t]+[^\s\-]\S{0,64}[ \t]+",
        "password",
    ),
)
_TOOL_PATTERNS = tuple(
    (
        kind,
        re.compile(tool + (_SAME_COMMAND + r"(?<=[\s=])" + flag if flag else r"[ \t]+(?!-)") + _VALUE),
        value_kind,
    )
    for kind, tool, flag, value_kind in _TOOL_FLAGS
)
_TOOL_WORDS = (
    "login",
    "snmp",
    "sqlcmd",
    "bcp",
    "osql",
    "isql",
    "7z",
    "rar",
    "zip",
    "codecov",
    "ssh-keygen",
    "openssl",
    "redis-cli",
    "valkey-cli",
    "keydb-cli",
    "sshpass",
    "smb",
    "rpcclient",
    "net ",
    "htpasswd",
)


def _value(m: re.Match[str], first: int = 1) -> tuple[int, int, str]:
    """The value `_VALUE` matched, its groups numbered from `first`."""
    group = next(i for i in (first, first + 1, first + 2) if m.group(i) is not None)
    return m.start(group), m.end(group), m.group(group)


# What `-p` takes in other commands: a port or a port mapping (`-p 8080:80`, `-p 127.0.0.1:53:53/udp`).
_PORTS = re.compile(r"[\d.:]+(?:/(?:tcp|udp|sctp))?")


def tool_flags(line: str, lowered: str) -> Iterator[Found]:
    """The password or token a known tool takes as a short flag."""
    if not any(map(lowered.__contains__, _TOOL_WORDS)):
        return
    for kind, pattern, value_kind in _TOOL_PATTERNS:
        for m in pattern.finditer(line):
            start, end, value = _value(m)
            if _PORTS.fullmatch(value):
                continue
            ok = (
                password_ok(value, quoted=True)
                if value_kind == "password"
                else secret_value_ok("api_token", value, quoted=True)
            )
            if ok:
                yield Found(kind, start, end, RANK_KEYED)


# `-p`, `-P` or `-w` then a value, in any tool: only a value no option takes, a strong password.
_SHORT_FLAG = re.compile(r"(?<![\w\-])-[pPw](?:=|[ \t]+)" + _VALUE)
# Values that are something else: a path or file name, a glob or pattern (`pip[0-9.]#`), a setting
# (`net.ipv6.conf.lo.disable_ipv6=0`).
_NOT_A_PASSWORD = re.compile(r"[/\\\[\]{}()<>]|\.[A-Za-z0-9]{1,5}\Z|\A[~.]|\A[\w.\-]+=")


_SNAKE_CASE = re.compile(r"[a-z]+(?:_[a-z0-9]+)+")


def strong_password(value: str) -> bool:
    """A value that reads as a password where nothing says it is one: eight or more characters with
    letters and digits and a third class (case or a mark), not a path, a file, a pattern, a setting,
    an option, a reference or a placeholder."""
    if len(value) < 8 or value[0] == "-" or _NOT_A_PASSWORD.search(value):
        return False
    if is_reference(value) or is_env_name(value) or looks_fake(value, password=True):
        return False
    if _SNAKE_CASE.fullmatch(value):
        return False  # `ledger_production_backup_2024`: a name
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value)
    digit = any(c.isdigit() for c in value)
    mark = any(not c.isalnum() for c in value)
    return digit and (lower or upper) and lower + upper + mark >= 2


# What reads as a file name to `strong_password` (`.29JX` after letters and digits) is, where a
# position says a password goes, the password's own last characters.
_DOT_TAIL = re.compile(r"\.[A-Za-z0-9]{1,5}\Z")
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)+(?:[\-+][\w.\-]+)?")


def placed_password(value: str) -> bool:
    """A bare value where a keyword or an argument's place says a password goes: `strong_password`,
    forgiving an ending that looks like a file's extension."""
    if _VERSION.fullmatch(value):
        return False  # `v0.12.25`, `2.4.1-rc1`: a version after the word
    if strong_password(value):
        return True
    tail = _DOT_TAIL.search(value)
    if tail is None or (tail.group(0)[1:].isalpha() and tail.group(0)[1:].islower()):
        return False  # `.txt`, `.pem`: a file after all
    return strong_password(value[: tail.start()] + "_" + tail.group(0)[1:])


# A flag whose name says it takes a password or a secret, written with one dash (Java's keytool
# `-storepass`, `-keypass`, `-srcstorepass`; `-password`, `-passphrase`, `-secret`, `-pwd` of many
# tools); `--…` flags are judged by `context.cli_flags`.
_NAMED_FLAG = re.compile(
    r"(?<![\w\-])-(?i:([a-z]{0,16}(?:pass(?:word|wd|phrase)?|secret|pwd)))(?:=|:|[ \t]+)(?!-)" + _VALUE
)


def named_flags(line: str, lowered: str) -> Iterator[Found]:
    """The value of `-storepass …`, `-password …` and other one-dash flags named for a secret."""
    if " -" not in lowered and not lowered.startswith("-"):
        return
    for m in _NAMED_FLAG.finditer(line):
        start, end, value = _value(m, 2)
        # a `!` first is a YAML tag only in YAML: on a command line it is the password's own
        bare = value[1:] if value.startswith("!") else value
        if password_ok(bare, quoted=True) and strong_enough(value):
            yield Found("password-flag", start, end, RANK_KEYED)


def strong_enough(value: str) -> bool:
    """Not a word or a number alone: six or more characters mixing two classes of letter, digit and mark."""
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return len(value) >= 6 and classes >= 2 and not _NOT_A_PASSWORD.search(value)


# A user and a password given together to something named for credentials or authentication:
# `new NetworkCredential("svc", "…")`, `auth=("svc", "…")`, `SetBasicAuth("svc", "…")`, `login("u", "…")`;
# and PowerShell's `ConvertTo-SecureString '…' -AsPlainText`.
_CREDENTIAL_PAIR = re.compile(
    r"""(?i:\b[\w.]{0,40}(?:credentials?|auth|basicauth|login|signin|sign_in|authenticate|connect))[ \t]*"""
    r"""(?:=[ \t]*\(|\()[ \t]*(["'])([^"'\n]{1,128})\1[ \t]*,[ \t]*(["'])([^"'\n]{1,256})\3"""
)
_SECURE_STRING = re.compile(
    r"""(?i:\bConvertTo-SecureString)[ \t]+(?:-String[ \t]+)?(["'])([^"'\n]{1,256})\1(?=[^\n]{0,80}-AsPlainText)"""
)


def credential_pairs(line: str, lowered: str) -> Iterator[Found]:
    """The password of a user-and-password pair given to credentials or a login, and a plain-text
    string made a SecureString."""
    if "(" in line and any(map(lowered.__contains__, ("cred", "auth", "login", "sign", "connect"))):
        for m in _CREDENTIAL_PAIR.finditer(line):
            user, value = m.group(2), m.group(4)
            if user != value and password_ok(value, quoted=True) and strong_enough(value):
                yield Found("credential-pair", m.start(4), m.end(4), RANK_KEYED)
    if "securestring" in lowered:
        for m in _SECURE_STRING.finditer(line):
            if password_ok(m.group(2), quoted=True):
                yield Found("password", m.start(2), m.end(2), RANK_KEYED)


# Apple's app-specific passwords (`abcd-efgh-ijkl-mnop`): four groups of four lowercase letters.
_APP_PASSWORD = re.compile(r"[a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4}")
_HEX_ONLY = re.compile(r"[0-9a-fA-F]+")


def short_flags(line: str, lowered: str) -> Iterator[Found]:
    """`-p S3cr…`, `-P…`, `-w …` of any command, where the value could be nothing but a password:
    a strong password, an app-specific password, or a long random token (a personal access token
    given as `-p`; never a hash, which `git log -p <sha>` shows)."""
    if " -p" not in lowered and " -w" not in lowered and not lowered.startswith(("-p", "-w")):
        return
    for m in _SHORT_FLAG.finditer(line):
        start, end, value = _value(m)
        if (
            strong_password(value)
            or _APP_PASSWORD.fullmatch(value)
            or (len(value) >= 24 and not _HEX_ONLY.fullmatch(value) and looks_random(value))
        ):
            yield Found("password-flag", start, end, RANK_KEYED)


# `user/password@host…`: Oracle's connect string (sqlplus, expdp, impdp, sqlldr, rman, connect
# strings in config), read only on a line that names Oracle's tools or a connect descriptor.
_ORACLE_LINE = re.compile(
    r"\b(?:sqlplus|sqlcl|sql|expdp|impdp|exp|imp|sqlldr|rman|dgmgrl|tnsping|connect|conn)\b|oracle|:1521\b|@//",
    re.IGNORECASE,
)
_ORACLE_CONNECT = re.compile(
    r"""(?<![\w/.\-@$])[A-Za-z][\w$#]{0,29}/("[^"\n]{1,128}"|[^\s/@"'`]{1,128})@(?=//|[A-Za-z0-9(])"""
)
_ORACLE_WORDS = ("sql", "exp", "imp", "rman", "dgmgrl", "tnsping", "conn", "oracle", ":1521", "@//")


def oracle_connects(line: str, lowered: str) -> Iterator[Found]:
    """The password of `user/password@db` on a line about Oracle."""
    if "/" not in line or "@" not in line or not any(map(lowered.__contains__, _ORACLE_WORDS)):
        return
    if _ORACLE_LINE.search(line) is None:
        return
    for m in _ORACLE_CONNECT.finditer(line):
        value = m.group(1)
        quoted = value.startswith('"')
        text = value[1:-1] if quoted else value
        if password_ok(text, quoted=quoted):
            start = m.start(1) + quoted
            yield Found("oracle-connect", start, start + len(text), RANK_KEYED)


# `echo S3cr… | docker login --password-stdin`, `gh auth login --with-token <<< …`: a literal sent to
# a command that reads its secret from standard input.
# Flags and commands that read a password from standard input: `--password-stdin`, `sudo -S`,
# `passwd --stdin`.
_STDIN_FLAGS = (
    r"(?:--(?:password-stdin|with-token|token-stdin|secret-stdin|stdin-password)\b"
    r"|\bsudo(?:[ \t]+-[A-Za-z]+)*[ \t]+-[A-Za-z]*S\b|\bpasswd\b[^\n|;&]{0,40}--stdin\b)"
)
_PIPED = re.compile(
    r"\b(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?" + _VALUE + r"[ \t]*\|[^\n|;&]{0,200}?" + _STDIN_FLAGS
)
_HERE_STRING = re.compile(_STDIN_FLAGS + r"[^\n|;&]{0,200}?<<<[ \t]*" + _VALUE)


def stdin_secrets(line: str, lowered: str) -> Iterator[Found]:
    """A literal echoed or here-stringed into `--password-stdin`, `--with-token` and the like."""
    if "stdin" not in lowered and "with-token" not in lowered and "sudo" not in lowered:
        return
    for pattern in (_PIPED, _HERE_STRING):
        for m in pattern.finditer(line):
            start, end, value = _value(m)
            if password_ok(value, quoted=True) and not value.startswith("$"):
                yield Found("stdin-secret", start, end, RANK_KEYED)


# A setter named for a secret, given a literal: `client.setToken("…")`, `set_password('…')`,
# `withApiKey("…")`, a builder's `.password("…")` or `.api_key("…")`; and `<tool> config set <key> <value>` (npm, yarn, pnpm, git, pip, gcloud…).
_SETTER = re.compile(
    r"""(?i:(?:\b(?:set|with|use)_?|(?<=[\w)\]]\.))((?:api_?|access_?|auth_?|bearer_?|client_?|secret_?)?"""
    r"""(?:key|token|password|passwd|secret|credentials?)))[ \t]*\([ \t]*(["'])([^"'\n]{1,256})\2[ \t]*\)"""
)
# What `_SETTER` needs, looked for first: a secret's word right before `(`.
_SETTER_HINT = re.compile(r"(?:key|token|passw[a-z]*|secret|credentials?)[ \t]*\(")
# (`aws configure set …`, `heroku config:set KEY=…`, `dokku config:set app KEY=…` too)
_CONFIG_SET = re.compile(
    r"\bconfig(?:ure)?(?:[ \t]+|:)(?:-{1,2}\w[\w\-]*[ \t]+)*set[ \t]+(?:(?:-{1,2}\w[\w\-]*[ \t]+)*\w[\w\-]*[ \t]+(?=[\w.\-]+=))?"
    r"([^\s=]{1,128})(?:[ \t]+|=)" + _VALUE
)


def setter_secrets(line: str, lowered: str) -> Iterator[Found]:
    """The literal given to a secret's setter or to `config set` of a secret's key."""
    if "(" in line and _SETTER_HINT.search(lowered) is not None:
        for m in _SETTER.finditer(line):
            if secret_value_ok(m.group(1), m.group(3), quoted=True) or (
                "pass" in m.group(1).lower()
                and " " not in m.group(3)  # `.password("Enter your password")`: a label, not one
                and password_ok(m.group(3), quoted=True)
            ):
                yield Found("setter-secret", m.start(3), m.end(3), RANK_KEYED)
    if "config" in lowered and ("set" in lowered.replace("setting", "")):
        for m in _CONFIG_SET.finditer(line):
            key = m.group(1).rsplit(":", 1)[-1].rsplit(".", 1)[-1]
            start, end, value = _value(m, 2)
            kind = judge(key, value, quoted=True)
            if kind and kind != "high-entropy":
                yield Found(kind, start, end, RANK_KEYED)


COMMAND_DETECTORS = (
    tool_flags,
    short_flags,
    named_flags,
    credential_pairs,
    oracle_connects,
    stdin_secrets,
    setter_secrets,
)
# What sends a line to these detectors, found in the lowercased text with `str.find` (a regex over
# the whole text was 8 MB/s): a tool whose flag is no `-p` or `-w` (`codecov -t`, `ssh-keygen -N`,
# `openssl -k`, `vault login`), Oracle's tools and descriptors (on a text with an `@`), a short flag
# (`-p` or `-w` after a blank: `docker login -p`, `sqlcmd -P`, `7z -p…`), a stdin flag or
# `config set`. A setter (`setToken(`) is found from its secret word, with the key words.
GATE_WORDS = (
    "codecov",
    "snmp",
    "ssh-keygen",
    "openssl",
    "vault login",
    "redis-cli",
    "valkey-cli",
    "keydb-cli",
    "sshpass",
    "smbclient",
    "rpcclient",
    "smbmap",
    "smbcacls",
    "htpasswd",
    "securestring",
)
ORACLE_GATE_WORDS = ("sqlplus", "oracle", "expdp", "impdp", "sqlldr", "rman", "connect", ":1521", "@//")
GATE_PIECES = (
    "-stdin",
    "| sudo",
    "with-token",
    "config set",
    "configure set",
    "config:set",
    "credential(",
    "auth(",
    "login(",
)
SHORT_FLAG_LETTERS = "pw"
