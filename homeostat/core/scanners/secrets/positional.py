"""Secrets found by their position: the value after a password or token key, in a URL's userinfo,
after `curl -u` or `mysql -p`, in an `Authorization` header, after Fly.io's `FlyV1` scheme, or in a
`<add key=… value=…>` element.

The value must still look like a secret for the kind of key it sits under: any literal for a
password key, a random-looking string (or a UUID for a token key) for other secret keys, and a long
unmistakably random string when the key name says nothing (`mimi=…`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.found import RANK_ENTROPY, RANK_KEYED, RANK_URL, Found
from homeostat.core.scanners.secrets.keys import KeyClass, classify_key, is_aws_secret, takes_uuid_token
from homeostat.core.scanners.secrets.values import (
    CIPHERTEXT_PREFIXES,
    base64_text,
    is_base64_userinfo,
    is_ciphertext,
    is_code_expression,
    is_env_name,
    is_prefixed_uuid,
    is_public_value,
    is_reference,
    is_uuid,
    looks_fake,
    looks_random,
    names_a_secret,
)

_SEPARATOR = re.compile(r"[:=]")
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-$@")
_QUOTED = re.compile(r"""(["'`])((?:(?!\1).){1,300})\1""")
# A value is at most `_MAX_VALUE` characters: a bare run longer than that (`password=password=…` on
# one line) is no key's value, and is never read past the bound from each separator on the line.
_MAX_VALUE = 256
_BARE = re.compile(rf"[^\s,`]{{1,{_MAX_VALUE + 1}}}")
# Longer bare values are tokens in one alphabet (an AWS session token, a kubeconfig's base64 key,
# a 1Password service token), `=` only as padding: the match stops at the next `=` or `:`, which is
# where the next separator's own try starts, so no character is read from two separators.
_LONG_BARE = re.compile(r"[A-Za-z0-9+/_\-.~]{257,8192}={0,3}(?=[\s,`;\"')\]}]|\Z)")
_QUOTED_LONG = re.compile(r"""(["'`])([A-Za-z0-9+/_\-.~]{300,8192}={0,3})\1""")
_BARE_CUT = re.compile(r"[;&](?=\s*[\w.\-]+=)")
_PROSE_VALUE = re.compile(r"`([^`\s]{4,300})`")
_PROSE_KEY = re.compile(
    r"(?i:\b(password|passphrase|passwd|secret|token|api[ _-]?key|private[ _-]?key|secret[ _-]?key|"
    r"access[ _-]?key)s?)(?:\*\*|__)?[ \t]+\Z"
)
# Paths, module names and hostnames in backticks: `src/app/db.py`, `config.secrets`, `vault.internal`.
_DOTTED_OR_PATH = re.compile(r"[~./]*[A-Za-z_][\w\-]*(?:[/.][A-Za-z_][\w\-]*)+/?")
# First two arguments of a call: `getenv("API_TOKEN", "…")`, `config.get('password', '…')`.
_CALL_PAIR = re.compile(r"""\(\s*(["'])([\w.\-]{2,80})\1\s*,\s*(["'])([^"'\s]{4,300})\3""")
_XML_PAIR = re.compile(r"""\b(?:key|name)\s*=\s*"([^"]{1,80})"\s+value\s*=\s*"([^"]*)\"""", re.IGNORECASE)
# An element named for its value: `<Password>…</Password>`, `<apiKey>…</apiKey>` (Maven, NuGet,
# .NET, Spring and FileZilla files).
_XML_ELEMENT = re.compile(r"<([A-Za-z][\w.\-]{0,63})>([^<>\s]{1,256})</\1>")
# The value never starts with `-`: in `--prod --token …` it is the next flag, not `--prod`'s value.
_CLI_FLAG = re.compile(
    r"""(?<![\w\-])--([A-Za-z][\w\-]{1,40})(?:=|[ \t]{1,8})(["']?)([^\s"'\-][^\s"']{3,299})\2"""
)
_CURL_USER = re.compile(
    r"""(?<![\w\-])(?:-u|--user)(?:=|[ \t]{1,8})(?:"([^":\s]{0,128}):([^"]{1,256})"|"""
    r"""'([^':\s]{0,128}):([^']{1,256})'|"""
    r"""([^\s:"']{0,128}):(?:'([^']{1,256})'|"([^"]{1,256})"|([^\s`'"]{1,256})))"""
)
# After `Bearer` or Okta's `SSWS`, or an `Authorization` header with any scheme word before the
# credential (`Basic`, `token`, `Api-Key`, `GenieKey`…) or none.
_AUTH_HEADER = re.compile(
    r"(?i:\b(?:bearer|ssws)[ \t]+|\bauthorization[\"']?(?:[ \t]*[:=][ \t]*|[ \t]+)[\"']?"
    r"(?:[A-Za-z][A-Za-z0-9_\-]{0,24}[ \t]+)?)"
    r"([A-Za-z0-9._~+/\-]{16,}=*)"
)
# A `#` belongs in no URL's password unencoded, but people write one there.
_URL_USERINFO = re.compile(
    r"""\b([A-Za-z][A-Za-z0-9+.\-]{1,30})://([^\s:/@?#"'`<>]{0,128}):([^\s/@?"'`<>]{1,256})@"""
    r"""(?=[^\s/?#"'`<>])"""
)
# `mysql -u root -pS3cret`: the password sits right after `-p`, with no blank (`-p` alone prompts).
_MYSQL_PASSWORD = re.compile(
    r"""\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlsh|mariadb|mariadb-dump)\b[^\n|;&]{0,300}?"""
    r"""(?<=\s)-p(?:"([^"\s]{1,256})"|'([^'\s]{1,256})'|([^\s"'`]{1,256}))"""
)
# Fly.io macaroons after their auth scheme: `FlyV1 fm2_…,fm2_…`.
_FLY_MACAROONS = re.compile(
    r"\bFlyV1[ \t]+(fm[12][ar]?_[A-Za-z0-9+/=_\-]{20,}(?:,fm[12][ar]?_[A-Za-z0-9+/=_\-]{20,})*)"
)
_DB_SCHEMES = re.compile(
    r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|oracle|"
    r"clickhouse|cassandra|couchdb|neo4j|nats|kafka|jdbc|cockroachdb|snowflake)(?:\+\w+)?",
    re.IGNORECASE,
)
# The shortest value `looks_random(strict=True)` accepts; lets most `Note: …` separators go unread.
_MIN_RANDOM = 32
_STRING_PREFIXES = frozenset("rRbBuUfF")
_SNAKE_NAME = re.compile(r"_*[a-z]+(?:_[a-z0-9]+)+")
_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}


def _trim_bare(value: str) -> str:
    """Cut a bare value at the next `;key=` or `&key=` and drop trailing punctuation, quotes or
    brackets that close something opened before the value (`f(password=pw)`, `"x=pw"`)."""
    cut = _BARE_CUT.search(value)
    if cut:
        value = value[: cut.start()]
    while value:
        last = value[-1]
        unbalanced_quote = last in "\"'" and value.count(last) % 2 == 1
        unbalanced_closer = last in _CLOSERS and value.count(last) > value.count(_CLOSERS[last])
        if not (last in ".,;:" or unbalanced_quote or unbalanced_closer):
            break
        value = value[:-1]
    return value


def _key_before(line: str, end: int) -> str:
    """The key name ending just before a separator at `end`, past quotes, `]` and Markdown emphasis."""
    i = end
    if i > 0 and line[i - 1] in "?+" and line[i : i + 1] == "=":
        i -= 1  # Make's `?=` and `+=`
    while i > 0 and line[i - 1] in " \t":
        i -= 1
    if i > 0 and line[i - 1] == "]":
        i -= 1
    if line.endswith(("**", "__"), 0, i):
        i -= 2
    if i > 0 and line[i - 1] in "\"'`":
        i -= 1
    j = i
    while j > 0 and j > i - 80 and line[j - 1] in _KEY_CHARS:
        j -= 1
    return line[j:i].lstrip("$@.-")


def _skip_lead(line: str, pos: int) -> int:
    """Past blanks and Markdown emphasis between a separator and its value."""
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    if line.startswith(("**", "__"), pos):
        pos += 2
    while pos < len(line) and line[pos] in " \t":
        pos += 1
    return pos


def _value_after(line: str, pos: int) -> tuple[int, str, bool] | None:
    """The value starting at `pos` (after a separator): its start, text and whether it was quoted."""
    pos = _skip_lead(line, pos)
    if line[pos : pos + 1] in _STRING_PREFIXES and line[pos + 1 : pos + 2] in ("'", '"'):
        if line[pos] in "fF":
            return None  # an f-string is built from variables
        pos += 1  # r'…', b'…', u'…' are literals like any other
    quoted = _QUOTED.match(line, pos) or _QUOTED_LONG.match(line, pos)
    if quoted:
        return quoted.start(2), quoted.group(2), True
    bare = _BARE.match(line, pos)
    if bare is None:
        return None
    if bare.end() - bare.start() > _MAX_VALUE:
        long = _LONG_BARE.match(line, pos)
        return None if long is None else (long.start(), long.group(0), False)
    return bare.start(), _trim_bare(bare.group(0)), False


# PowerShell's Verb-Noun commands: `ConvertTo-SecureString`, `Get-Credential`.
_CMDLET = re.compile(r"[A-Z][a-z]+(?:[A-Z][a-z]*)?-[A-Z][A-Za-z]+")


def _encoded_word(value: str) -> bool:
    """Base64 of a word or words, or of a placeholder (`cGFzc3dvcmQ=` is "password"): a stand-in
    written the way a Kubernetes Secret wants it, not a password."""
    decoded = base64_text(value)
    return decoded is not None and (decoded.replace(" ", "").isalpha() or looks_fake(decoded, password=True))


def password_ok(value: str, *, quoted: bool) -> bool:
    """A literal password: any non-placeholder string when quoted, a mixed one of 6+ when bare."""
    if is_reference(value) or looks_fake(value, password=True) or is_env_name(value) or names_a_secret(value):
        return False
    if (
        _encoded_word(value)
        or is_ciphertext(value)
        or (("$" in value or "{" in value) and is_public_value(value))
    ):
        return False
    if quoted:
        return len(value) >= 4
    if _CMDLET.fullmatch(value):
        return False  # `$pw = ConvertTo-SecureString …`: a PowerShell command, not a literal
    if _SNAKE_NAME.fullmatch(value):
        return False  # a variable: `pass_fds=pass_fds`, `password=user_password`
    if len(value) < 6 or is_code_expression(value) or value[0] in "([{":
        return False
    classes = sum(
        (
            any(c.islower() for c in value),
            any(c.isupper() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return classes >= 2


def secret_value_ok(key: str, value: str, *, quoted: bool) -> bool:
    """A literal secret under a key that names one: random-looking, a UUID under a token key, or
    base64 of `user:password`; never a reference, an env name, code, or a public key."""
    if is_reference(value) or is_env_name(value) or (not quoted and is_code_expression(value)):
        return False
    if is_public_value(value):
        return False
    if is_base64_userinfo(value):
        return True  # `"auth": "ZGVwbG95Oi…"` in a Docker config, `_auth=` in .npmrc: user:password
    if is_uuid(value):
        return takes_uuid_token(key) and not looks_fake(value)
    if is_prefixed_uuid(value) and takes_uuid_token(key):
        return not looks_fake(value)
    return looks_random(value)


def judge(key: str, value: str, *, quoted: bool) -> str | None:
    """The kind to report for `value` under `key`, or None when it is not a secret."""
    cls = classify_key(key)
    if cls is KeyClass.PASSWORD:
        return "password" if password_ok(value, quoted=quoted) else None
    if cls is KeyClass.SECRET:
        if not secret_value_ok(key, value, quoted=quoted):
            return None
        return "aws-secret-key" if is_aws_secret(key) else "generic-secret"
    # looks_random first: its alphabet check turns most values away at once (a URL, a path, prose),
    # and the three tests are pure, so their order changes nothing but the time
    if cls is not KeyClass.OTHER or not looks_random(value, strict=True):
        return None
    if is_reference(value) or (not quoted and is_code_expression(value)) or is_public_value(value):
        return None
    return "high-entropy"


def _rank(kind: str) -> int:
    return RANK_ENTROPY if kind == "high-entropy" else RANK_KEYED


def _separator_end(line: str, pos: int) -> int:
    """End of the assignment operator at `pos` (`=`, `:`, `:=`, `=>`), or -1 for `==`, `://`, `::`…"""
    before = line[pos - 1] if pos else ""
    after = line[pos + 1] if pos + 1 < len(line) else ""
    if line[pos] == "=":
        if before in "=!<>:" or after == "=":
            return -1
        return pos + 2 if after == ">" else pos + 1
    if before == ":" or after in ":/":
        return -1
    return pos + 2 if after == "=" else pos + 1


def assignments(line: str) -> Iterator[Found]:
    """`key = value`, `key: value`, `key := value`, `"key": "value"`, `key=>value`, `**key:** `value``."""
    for sep in _SEPARATOR.finditer(line):
        if sep.start() == 0:
            continue
        sep_end = _separator_end(line, sep.start())
        if sep_end < 0:
            continue
        key = _key_before(line, sep.start())
        if "@" in key:
            continue  # `user:password@host:5432/dev`: a URL's host and port, not a key
        cls = classify_key(key) if key else KeyClass.IGNORE
        # `judge` turns down any value under an ignored key (`url:`, `created:`), so none is read
        if cls is KeyClass.IGNORE or (cls is KeyClass.OTHER and sep_end + _MIN_RANDOM > len(line)):
            continue
        value = _value_after(line, sep_end)
        if value is None:
            continue
        start, text, quoted = value
        kind = judge(key, text, quoted=quoted)
        if (
            kind
            and not said_to_be_fake(line, start + len(text))
            and not _inside_ciphertext(line, sep.start())
        ):
            yield Found(kind, start, start + len(text), _rank(kind))


# A comment after the value that says it is not a real one: `password: hunter2  # an example`.
_FAKE_COMMENT = re.compile(
    r"[ \t]*[,;]?[ \t]*(?:#|//|--|;)[^\n]{0,80}?\b(?i:example|sample|dummy|fake|placeholder|not[ \t]+(?:a[ \t]+)?real|for[ \t]+(?:the[ \t]+)?docs)\b"
)


def _inside_ciphertext(line: str, sep: int) -> bool:
    """`vault:v1:…`: the separator is inside a ciphertext that names its encryption."""
    word_start = max(line.rfind(" ", 0, sep), line.rfind("\t", 0, sep), line.rfind('"', 0, sep)) + 1
    return line.startswith(CIPHERTEXT_PREFIXES, word_start)


def said_to_be_fake(line: str, end: int) -> bool:
    return _FAKE_COMMENT.match(line, end) is not None


def prose_values(line: str) -> Iterator[Found]:
    """Markdown prose: a backticked value right after "password", "private key", "api key"…"""
    if "`" not in line:
        return
    for m in _PROSE_VALUE.finditer(line):
        key = _PROSE_KEY.search(line, max(0, m.start() - 40), m.start())
        value = m.group(1)
        if key is None or _DOTTED_OR_PATH.fullmatch(value) or is_code_expression(value):
            continue
        # Held to the bar of a bare value: in prose, a backticked word is more often code than a secret.
        kind = judge(key.group(1).replace(" ", "_"), value, quoted=False)
        if kind:
            yield Found(kind, m.start(1), m.end(1), _rank(kind))


def call_pairs(line: str) -> Iterator[Found]:
    """`getenv("api_token", "…")`, `config.set('password', '…')`."""
    if "," not in line:
        return
    for m in _CALL_PAIR.finditer(line):
        key = m.group(2)
        if key[0].isupper() and not key.isupper():
            continue  # `MovedAttribute("HTTPPasswordMgr", …)`: a class name, not a setting
        # Held to the bar of a bare value: most pairs of strings are tuples of names, not settings.
        kind = judge(key, m.group(4), quoted=False)
        if kind and kind != "high-entropy":
            yield Found(kind, m.start(4), m.end(4), RANK_KEYED)


def xml_pairs(line: str) -> Iterator[Found]:
    """NuGet and .NET config: `<add key="ClearTextPassword" value="…" />`, Spring and Ant's
    `<property name="password" value="…"/>`, and `<password>…</password>` elements."""
    if "value" in line.lower():
        for m in _XML_PAIR.finditer(line):
            kind = judge(m.group(1), m.group(2), quoted=True)
            if kind and kind != "high-entropy":
                yield Found(kind, m.start(2), m.end(2), RANK_KEYED)
    if "</" in line:
        for m in _XML_ELEMENT.finditer(line):
            kind = judge(m.group(1), m.group(2), quoted=True)
            if kind and kind != "high-entropy":
                yield Found(kind, m.start(2), m.end(2), RANK_KEYED)


def cli_flags(line: str) -> Iterator[Found]:
    """`--api-key …`, `--password=…`, `--token …` on a command line."""
    if "--" not in line:
        return
    for m in _CLI_FLAG.finditer(line):
        kind = judge(m.group(1), m.group(3), quoted=bool(m.group(2)))
        if kind and kind != "high-entropy":
            yield Found(kind, m.start(3), m.end(3), RANK_KEYED)


def curl_users(line: str) -> Iterator[Found]:
    """`curl -u user:…` and `--user "user:…"`: the half after the colon."""
    if "-u" not in line and "--user" not in line:
        return
    for m in _CURL_USER.finditer(line):
        groups = m.groups()
        for user_i, pw_i in ((0, 1), (2, 3), (4, 5), (4, 6), (4, 7)):
            password = groups[pw_i]
            if password is None:
                continue
            user = groups[user_i] or ""
            if user[:1] in "<[{$" or not password_ok(password, quoted=True):
                break
            start = m.start(pw_i + 1)
            yield Found("basic-auth", start, start + len(password), RANK_KEYED)
            break


def mysql_passwords(line: str) -> Iterator[Found]:
    """`mysql -u root -p…` and `mysqldump -p'…'`."""
    if "-p" not in line:
        return
    for m in _MYSQL_PASSWORD.finditer(line):
        group = next(i for i in (1, 2, 3) if m.group(i) is not None)
        if password_ok(m.group(group), quoted=True):
            yield Found("mysql-password", m.start(group), m.end(group), RANK_KEYED)


def fly_tokens(line: str) -> Iterator[Found]:
    """Fly.io tokens after `FlyV1`, however short each macaroon is."""
    if "FlyV1" not in line:
        return
    for m in _FLY_MACAROONS.finditer(line):
        if not looks_fake(m.group(1)):
            yield Found("flyio-token", m.start(1), m.end(1), RANK_KEYED)


def auth_headers(line: str) -> Iterator[Found]:
    """`Authorization: Bearer …`, `Authorization: Basic …`."""
    lowered = line.lower()
    if "bearer" not in lowered and "authorization" not in lowered and "ssws" not in lowered:
        return
    for m in _AUTH_HEADER.finditer(line):
        value = m.group(1)
        if not is_reference(value) and (looks_random(value) or is_base64_userinfo(value)):
            yield Found("authorization-header", m.start(1), m.end(1), RANK_KEYED)


def url_credentials(line: str) -> Iterator[Found]:
    """The password in a URL's userinfo, for database and any other URLs."""
    if "://" not in line or "@" not in line:
        return
    for m in _URL_USERINFO.finditer(line):
        password = m.group(3)
        if is_reference(password) or looks_fake(password, password=True) or is_env_name(password):
            continue
        if is_reference(m.group(2)) and password.startswith(("$", "%", "{")):
            continue
        kind = "database-url" if _DB_SCHEMES.fullmatch(m.group(1)) else "credentialed-url"
        yield Found(kind, m.start(3), m.end(3), RANK_URL)


CONTEXT_DETECTORS = (
    assignments,
    prose_values,
    call_pairs,
    xml_pairs,
    cli_flags,
    curl_users,
    mysql_passwords,
    fly_tokens,
    auth_headers,
    url_credentials,
)
