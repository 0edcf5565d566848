"""Secrets recognised by their structure rather than a prefix: PEM private keys (which span lines),
JWTs (checked by decoding), and payment card numbers (checked by Luhn and issuer ranges).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.bridge import is_valid_jwt
from homeostat.core.scanners.secrets.found import RANK_CARD, RANK_FORMAT, Found
from homeostat.core.scanners.secrets.values import base64_pem_label, base64_text, looks_fake, luhn_valid

_PEM_IN_BASE64 = "LS0tLS1CRUdJTi"  # "-----BEGIN " in base64

_PEM_BEGIN = re.compile(r"-----BEGIN[ A-Z0-9]{0,40}? PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END[ A-Z0-9]{0,40}? PRIVATE KEY(?: BLOCK)?-----")
_PUTTY = re.compile(r"PuTTY-User-Key-File-\d+:")
_PUTTY_PRIVATE = re.compile(r"Private-Lines:[ \t]*(\d{1,4})")
# The private lines, then the MAC (or, in version 1 files, the hash) that closes the file.
_PUTTY_TAIL = re.compile(
    r"(?:\r?\n[ \t]*[A-Za-z0-9+/=]{1,200}[ \t]*(?=\r?\n|\Z)){0,400}(?:\r?\nPrivate-(?:MAC|Hash):[ \t]*[0-9a-fA-F]{1,128})?"
)
# The SSH Communications Security (RFC 4716 style) private key: four dashes and blanks.
_SSH2_BEGIN = re.compile(r"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----")
_SSH2_END = re.compile(r"---- END SSH2 ENCRYPTED PRIVATE KEY ----")
# Between the markers: base64 lines, escaped newlines (`\n` inside JSON or .env strings), headers.
_BASE64_WORD = re.compile(r"[A-Za-z0-9+/=]+")
_MIN_KEY_BODY = 24
_MIN_KEY_WORD = 16
_MAX_KEY_SPAN = 12_000

_JWT = re.compile(
    r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{8,}={0,2}\.eyJ[A-Za-z0-9_\-]{4,}={0,2}\.[A-Za-z0-9_\-+/]{8,}={0,2}"
)

# A JWE in compact form: a protected header, the encrypted key (empty with `"alg":"dir"`), the IV,
# the ciphertext and the tag. It is checked by its header, which must name an `enc`ryption.
_JWE = re.compile(
    r"(?<![A-Za-z0-9_\-])(eyJ[A-Za-z0-9_\-]{8,})\.[A-Za-z0-9_\-]*\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    r"\.[A-Za-z0-9_\-]{8,}"
)
# A private JSON Web Key: its `d` (the RSA private exponent, or the EC or OKP private key), in a text
# that names a key type (`"kty"`); a public JWK has no `d`.
_JWK_PRIVATE = re.compile(r'"d"[ \t]*:[ \t]*"([A-Za-z0-9_\-]{32,8192})"')
# A minisign or signify secret key: its `untrusted comment:` line says so, and the key is the next line.
_UNTRUSTED_SECRET = re.compile(
    r"untrusted comment:[^\n]{0,200}?(?i:secret key)[^\n]{0,200}\r?\n[ \t]*([A-Za-z0-9+/]{40,4096}={0,2})"
)

# Starts with a plain `\d{4}` so the engine can skip ahead quickly; the left edge is checked after.
_CARD = re.compile(r"\d{4}(?:\d{9,15}|([ \-])\d{4}\1\d{4}\1\d{1,7}|([ \-])\d{6}\2\d{4,5})(?![\w/]|[.,\-:]\d)")
_CARD_LEFT_EDGE = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.,/-+#")

# Every `_CARD` match starts with one of these shapes, digits written as `0`: thirteen digits, or
# 4-4-4-1 or 4-6-4 groups with one separator. `may_hold_card` writes a text so, a byte per character:
# ASCII digits as `0`, blanks and dashes as themselves, everything else as `x`, except that a
# character past Latin-1 (encoded as `?`) counts as a digit, since `\d` matches `٣` and `３` (Latin-1
# itself holds no other decimal digit). So a text without one of these shapes has no card, and the
# card regex need not walk its digits (a fifth of the secret scan's time).
_CARD_SHAPES = tuple(
    shape.replace("d", "0").encode()
    for shape in ("d" * 13, "dddd dddd dddd d", "dddd-dddd-dddd-d", "dddd dddddd dddd", "dddd-dddddd-dddd")
)
_CARD_SHAPE = bytes(48 if b in b"0123456789?" else b if b in b" -" else 120 for b in range(256))


def may_hold_card(text: str) -> bool:
    """False only where `cards` finds nothing: no card-shaped run of digits anywhere in `text`."""
    shape = text.encode("latin-1", "replace").translate(_CARD_SHAPE)
    return b"0000" in shape and any(map(shape.__contains__, _CARD_SHAPES))  # every shape starts so


def private_keys(text: str) -> Iterator[Found]:
    """PEM and PuTTY private keys with a real body; a lone marker or `…anything…` is not a key."""
    if "PRIVATE KEY" in text:
        begins = list(_PEM_BEGIN.finditer(text))
        for index, begin in enumerate(begins):
            # a key's body never holds another key's BEGIN: the window stops there, so a text of
            # BEGIN lines alone is read once, not up to 12,000 characters from each of them
            next_begin = begins[index + 1].start() if index + 1 < len(begins) else len(text)
            window_end = min(next_begin, begin.end() + _MAX_KEY_SPAN)
            end = _PEM_END.search(text, begin.end(), window_end)
            body = text[begin.end() : end.start() if end else window_end]
            if not end:
                body = re.split(r"[\"'`]|\n\s*\n", body, maxsplit=1)[0]
            if _key_body_length(body) < _MIN_KEY_BODY:
                continue
            stop = end.end() if end else begin.end() + len(body)
            yield Found("private-key", begin.start(), stop, RANK_FORMAT)
    if "PuTTY-User-Key-File" in text:
        for m in _PUTTY.finditer(text):
            private = _PUTTY_PRIVATE.search(text, m.end(), min(len(text), m.end() + 4000))
            if private:
                tail = _PUTTY_TAIL.match(text, private.end(), min(len(text), private.end() + 40_000))
                yield Found("private-key", m.start(), tail.end() if tail else private.end(), RANK_FORMAT)
    if '"kty"' in text:
        for m in _JWK_PRIVATE.finditer(text):
            yield Found("private-key", m.start(1), m.end(1), RANK_FORMAT)
    if "untrusted comment:" in text:
        for m in _UNTRUSTED_SECRET.finditer(text):
            yield Found("private-key", m.start(1), m.end(1), RANK_FORMAT)
    if "BEGIN SSH2 ENCRYPTED PRIVATE KEY" in text:
        for m in _SSH2_BEGIN.finditer(text):
            end = _SSH2_END.search(text, m.end(), min(len(text), m.end() + _MAX_KEY_SPAN))
            if end and _key_body_length(text[m.end() : end.start()]) >= _MIN_KEY_BODY:
                yield Found("private-key", m.start(), end.end(), RANK_FORMAT)


def base64_private_keys(text: str, start: int, end: int) -> Iterator[Found]:
    """A PEM private key written in base64 (`LS0tLS1CRUdJTi…`, a kubeconfig's `client-key-data`)
    inside the run `text[start:end]`; a certificate so written is public and left alone."""
    pos = text.find(_PEM_IN_BASE64, start, end)
    if pos < 0 or (pos > start and text[pos - 1] not in "=:\"'"):
        return
    label = base64_pem_label(text[pos:end])
    if label is not None and "PRIVATE" in label and end - pos >= 64:
        yield Found("private-key", pos, end, RANK_FORMAT)


def _key_body_length(body: str) -> int:
    """The base64 in a key's body: its words of base64 alone, each at least `_MIN_KEY_WORD` long
    (a key's lines are 64 characters, or one word when the newlines are escaped), so a sentence
    between the markers (`(redacted: the key lives in Vault)`) holds none."""
    cleaned = body.replace("\\n", "\n").replace("\\r", "")
    lines = [ln for ln in cleaned.splitlines() if ":" not in ln]  # drop `Proc-Type:` style headers
    words = " ".join(lines).split()
    return sum(len(w) for w in words if len(w) >= _MIN_KEY_WORD and _BASE64_WORD.fullmatch(w))


def jwts(text: str, start: int, end: int) -> Iterator[Found]:
    """JWTs inside `text[start:end]` whose header and payload decode to JSON, and JWEs whose header
    names an encryption (the payload of a JWE is ciphertext, so only the header can be read)."""
    for m in _JWT.finditer(text, start, end):
        if is_valid_jwt(m.group(0)) and not looks_fake(m.group(0)):
            yield Found("jwt", m.start(), m.end(), RANK_FORMAT)
    for m in _JWE.finditer(text, start, end):
        header = base64_text(m.group(1))
        if header is not None and '"enc"' in header and not looks_fake(m.group(0)):
            yield Found("jwe", m.start(), m.end(), RANK_FORMAT)


def _issuer_accepts(digits: str) -> bool:
    """Issuer ranges and lengths of the major schemes; anything else is an order or tracking number."""
    n = len(digits)
    two, four = int(digits[:2]), int(digits[:4])
    if digits[0] == "4":
        return n in (13, 16, 19)
    if 51 <= two <= 55 or 2221 <= four <= 2720:
        return n == 16
    if two in (34, 37):
        return n == 15
    if digits.startswith("6011") or two == 65 or 644 <= int(digits[:3]) <= 649 or two == 62:
        return 16 <= n <= 19
    if 3528 <= four <= 3589:
        return 16 <= n <= 19
    if 300 <= int(digits[:3]) <= 305 or two in (36, 38, 39):
        return 14 <= n <= 19
    return False


def cards(text: str) -> Iterator[Found]:
    """Card numbers: Luhn-valid, in an issuer's range, not all one digit."""
    if not may_hold_card(text):
        return
    for m in _CARD.finditer(text):
        if m.start() > 0 and text[m.start() - 1] in _CARD_LEFT_EDGE:
            continue
        digits = re.sub(r"[ \-]", "", m.group(0))
        if not 13 <= len(digits) <= 19 or len(set(digits)) == 1:
            continue
        if _issuer_accepts(digits) and luhn_valid(digits):
            yield Found("credit-card", m.start(), m.end(), RANK_CARD)
