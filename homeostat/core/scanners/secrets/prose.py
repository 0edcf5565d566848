"""Secrets told in prose, with no key or flag: a word for a secret, words that say what it is, then
the value (`the staging password is …`, `the token was rotated to `…``, `| DB password | … |`,
`API secret …`), the value before the word (``Use `…` as the Okta token``), and the same in other
languages (`Passwort: …`, `mot de passe : …`, `パスワード：…`, `пароль: …`).

A word for a secret is common in prose and in code, so the value is held to a high bar: a
password's value must read as a password where nothing but its place says it is one
(`placed_password`); a token's or a key's must look random (or be a UUID or hex under a token), and
a value with no word between it and the secret word must be long and clearly random.

A line detector: `secrets._keyword_lines` sends a line here when a secret word in it is followed by
what `PROSE_GATE` reads or preceded by `as the`, or when it holds a word of `PROSE_WORDS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.commands import placed_password, strong_enough
from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.positional import judge, password_ok, said_to_be_fake
from homeostat.core.scanners.secrets.values import is_uuid, looks_fake, looks_random

# Words for a password, English first, then other languages (ASCII ones, then the rest).
_PASSWORD_WORDS = ("password", "passphrase", "passwd", "passcode")
_FOREIGN_ASCII_PASSWORD_WORDS = (
    "passwort",  # German
    "kennwort",
    "mot de passe",  # French
    "contrasena",  # Spanish, without its tilde
    "senha",  # Portuguese
    "wachtwoord",  # Dutch
    "haslo",  # Polish, without its ogonek
    "parola",  # Italian, Romanian, Turkish
    "salasana",  # Finnish
    "passord",  # Norwegian
    "adgangskode",  # Danish
    "heslo",  # Czech, Slovak
    "sifre",  # Turkish, without its cedilla
)
_FOREIGN_PASSWORD_WORDS = (
    "contraseña",
    "hasło",
    "lösenord",
    "jelszó",
    "şifre",
    "пароль",
    "パスワード",
    "密码",
    "密碼",
    "口令",
    "비밀번호",
    "كلمة المرور",
    "סיסמה",
    "पासवर्ड",
    "mật khẩu",
    "รหัสผ่าน",
    "κωδικός",
)
_KEY_PREFIXES = tuple(
    word + joint
    for word in (
        "api",
        "access",
        "secret",
        "signing",
        "encryption",
        "master",
        "license",
        "licence",
        "auth",
        "deploy",
        "app",
        "client",
        "private",
        "api ",  # `api キー`, `api 키`
    )
    for joint in ("", " ", "_", "-")
)
# Words before a key in other languages: `clé API`, `API-Schlüssel` is found by `schlüssel`.
_FOREIGN_KEY_WORDS = (
    "clé api",
    "clé d'api",
    "clave de api",
    "clave api",
    "chave de api",
    "chave api",
    "api-schlüssel",
)

# Words for a token or a key; `key` alone is read only after a word that makes it a credential.
_TOKEN_WORDS = ("token", "secret", "key")
_FOREIGN_TOKEN_WORDS = (
    "токен",
    "トークン",
    "令牌",
    "토큰",
    "ключ",
    "キー",
    "密钥",
    "密鑰",
    "키",
    *_FOREIGN_KEY_WORDS,
)
_KEY_WORDS = frozenset(("key", "ключ", "キー", "密钥", "密鑰", "키"))
# Between the word and the value: a plural, a few words saying whose (`for staging`, `of the CI
# user`), then a separator (`:`, `=`, `|`, an arrow) or a verb (`is`, `was changed to`, `ist`).
_QUALIFIER = (
    r"(?:s|es)?(?:[ \t]+(?:for|of|on|in|at|für|von|vom|zum|zur|de|du|des|del|della|da|do|dla|van|voor|от|для)"
    r"[ \t]+[\w.\-@]{1,40}(?:[ \t]+[\w.\-@]{1,40}){0,2}){0,2}"
)
_CONNECTIVE = (
    r"(?:[ \t]*(?:[:：=|]|->|=>|→)[ \t]*"
    r"|[ \t]+(?:(?:is|was|are|were|has[ \t]+been|have[ \t]+been|ist|war|est|était|es|era|é|è|jest|är|er|je|on)[ \t]+"
    r"(?:(?:now|still|changed|set|reset|rotated|updated)[ \t]+(?:to[ \t]+)?)?"
    r"|(?:now|changed|set|reset|rotated|updated)[ \t]+(?:to[ \t]+)?|to[ \t]+)"
    r"|[ \t]*(?:は|是|为|為|는|은|이|가)[ \t]*)"
)
_SEPARATORS = frozenset(":：=|→>")
# A bare value ends where its run ends: a longer run is no value cut short.
_VALUE = (
    r"""(?:`([^`\s]{4,256})`|"([^"\s]{4,256})"|'([^'\s]{4,256})'|([^\s`"'|,;)]{4,256})(?![^\s`"'|,;)]))"""
)
_AFTER_WORD = re.compile(_QUALIFIER + _CONNECTIVE + _VALUE)
# The value right after the word, with only blanks between: `API secret …`, `server token <uuid>`.
_RIGHT_AFTER = re.compile(r"[ \t]+([A-Za-z0-9+/=_\-.~]{32,256})(?![^\s.,;)])")
# The value before the word: ``Use `…` as the Okta token``, `… is the password`.
_AS_THE = re.compile(r"[ \t]+(?:as|is)[ \t]+(?:the|our|my|your|an?)[ \t]+(?:[\w\-]{1,20}[ \t]+){0,2}\Z")
_VERB_WORDS = frozenset(
    "is was are were has have been now still changed set reset rotated updated to".split()
)


def _password_value(value: str, quoted: bool, *, after_separator: bool = False) -> bool:
    """Quoted, or after a `:` or `=` as in a key's value: a password mixing classes with a digit;
    bare after words: a value that reads as a password by its shape alone."""
    if after_separator and not quoted:
        shaped = password_ok(value, quoted=False) or placed_password(value)
        return shaped and password_ok(value, quoted=True) and any(c.isdigit() for c in value)
    if quoted:
        return password_ok(value, quoted=True) and strong_enough(value) and any(c.isdigit() for c in value)
    return password_ok(value, quoted=True) and placed_password(value)


def _token_value(value: str) -> bool:
    kind = judge("api_token", value, quoted=False)
    return kind is not None and kind != "high-entropy"


# A UUID after one of these and "token" is a cursor or an id, handed out in the open.
_CURSOR_WORDS = tuple(
    w + " "
    for w in "page next continuation pagination idempotency sync correlation request cancellation csrf".split()
)


def _names_a_cursor(text: str, start: int) -> bool:
    return text[max(0, start - 16) : start].lower().endswith(_CURSOR_WORDS)


def _after(text: str, start: int, end: int, password: bool) -> Iterator[Found]:
    m = _AFTER_WORD.match(text, end)
    if m is not None:
        group = next(i for i in (1, 2, 3, 4) if m.group(i) is not None)
        value = m.group(group).rstrip(".:!?")
        if value.lower() in _VERB_WORDS:
            return
        separated = any(c in _SEPARATORS for c in text[end : m.start(group)])
        ok = _password_value(value, group < 4, after_separator=separated) if password else _token_value(value)
        if ok and not said_to_be_fake(text, m.start(group) + len(value)):
            kind = "password" if password else "generic-secret"
            yield Found(kind, m.start(group), m.start(group) + len(value), RANK_KEYED)
            return
    m = _RIGHT_AFTER.match(text, end)
    if m is None:
        return
    value = m.group(1)
    if looks_random(value, strict=True) or (
        not password and is_uuid(value) and not looks_fake(value) and not _names_a_cursor(text, start)
    ):
        yield Found("high-entropy", m.start(1), m.end(1), RANK_KEYED)


def _before(text: str, start: int, password: bool) -> Iterator[Found]:
    """The value before `as the … token`: the run of non-blanks before ` as `, past a quote."""
    window = max(0, start - 60)
    if text.find(" as ", window, start) < 0 and text.find(" is ", window, start) < 0:
        return
    m = _AS_THE.search(text, window, start)
    if m is None:
        return
    end = m.start()
    if end and text[end - 1] in "`\"'":
        end -= 1
    begin = end
    while begin > 0 and begin > end - 256 and not text[begin - 1].isspace() and text[begin - 1] not in "`\"'":
        begin -= 1
    value = text[begin:end]
    if len(value) >= 8 and (_password_value(value, True) if password else _token_value(value)):
        yield Found("password" if password else "generic-secret", begin, end, RANK_KEYED)


def _occurrences(lowered: str, word: str) -> Iterator[int]:
    pos = lowered.find(word)
    while pos >= 0:
        yield pos
        pos = lowered.find(word, pos + len(word))


def _is_word_start(lowered: str, pos: int) -> bool:
    """A word of prose: not the end of a key's name (`hashed_password`, `clientSecret`)."""
    return pos == 0 or not (lowered[pos - 1].isalnum() or lowered[pos - 1] in "_.-$")


def prose_secrets(line: str, lowered: str) -> Iterator[Found]:
    """Secrets in a sentence, a table row or a list item: after a word for a secret, or before
    `as the token`. Reads a line `PROSE_GATE` or a word of `PROSE_WORDS` chose."""
    words: list[tuple[str, bool]] = [(w, True) for w in _PASSWORD_WORDS + _FOREIGN_ASCII_PASSWORD_WORDS]
    words += [(w, False) for w in _TOKEN_WORDS]
    if not line.isascii():
        words += [(w, True) for w in _FOREIGN_PASSWORD_WORDS]
        words += [(w, False) for w in _FOREIGN_TOKEN_WORDS]
    for word, password in words:
        for pos in _occurrences(lowered, word):
            if word in _KEY_WORDS:
                if not lowered.endswith(_KEY_PREFIXES, max(0, pos - 12), pos):
                    continue
            elif word.isascii() and not _is_word_start(lowered, pos):
                continue
            yield from _after(line, pos, pos + len(word), password)
            yield from _before(line, pos, password)


# What `secrets._keyword_lines` asks after a secret word (`pass`, `token`…) to send its line here:
# the rest of the word, a qualifier and a connective; or, before the word, `as the` or `is the`.
# The value must hold a digit or be long: most words after "the token is" are words.
PROSE_GATE = re.compile(
    r"(?>[a-z]{0,8})" + _QUALIFIER + _CONNECTIVE + r"""[`"']?(?:[^\s`"']{0,255}\d|[^\s`"']{16})"""
    r"|(?>[a-z]{0,8})[ \t]+[A-Za-z0-9+/=_\-.~]{32}"
)
PROSE_BEFORE = _AS_THE
# Words for a password that hold no word `secrets._keyword_lines` looks for (`passwort` holds `pass`):
# each sends its line here. The words past ASCII are looked for only in a text that has such letters.
# Five are looked for in every text; the rest only in a text past ASCII (a Finnish, Danish, Czech or
# Turkish text nearly always has a letter past it), as are the words past ASCII themselves.
PROSE_WORDS = ("kennwort", "contrasena", "senha", "wachtwoord", "parola")
PROSE_WIDE_WORDS = (
    *(w for w in _FOREIGN_ASCII_PASSWORD_WORDS if "pass" not in w and w not in PROSE_WORDS),
    *_FOREIGN_PASSWORD_WORDS,
    *_FOREIGN_TOKEN_WORDS,
)
