"""Text hidden in an encoding, decoded so the risky-content families can read it too: base64 (and its
URL-safe form, and UTF-16 text in it, as PowerShell's `-EncodedCommand` takes), base32, hex byte runs,
`\\x63`/`\\143`/`\\u0063` escapes (a run alone, and each line with its escapes decoded in place, so
`$'\\x63\\x75\\x72\\x6c -s … | sh'` reads `curl -s … | sh`), `String.fromCharCode(99, …)` and any
bracketed list of byte values, bytes in binary digits, base85, percent-encoding, and ROT13, a text read
backwards or a Caesar shift where the text names it.

Only what decodes to readable text is kept (a key, a hash or an image decodes to bytes no one reads),
so tokens and digests are left alone. Each run is found with one regex pass: linear in the text.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes

_BASE64 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX_RUN = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{2}){8,}(?![0-9A-Fa-f])")
_ESCAPES = re.compile(r"(?:\\x[0-9A-Fa-f]{2}|\\[0-7]{3}|\\u[0-9A-Fa-f]{4}){4,}")
_ESCAPE = re.compile(r"\\x([0-9A-Fa-f]{2})|\\([0-7]{3})|\\u([0-9A-Fa-f]{4})")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2}){4,}")
# A word with three or more percent-escapes among its letters (`curl%20-s%20http%3A%2F%2F…`), decoded whole.
_PERCENT_WORD = re.compile(r"(?<![^\s`'\"(])[^\s%`'\"(]*(?:%[0-9A-Fa-f]{2}[^\s%`'\"(]*){3,}")
_BASE32 = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Z2-7]{16,}={0,6}(?![A-Za-z0-9+/=_-])")
_CHAR_CODES = re.compile(r"fromCharCode\s*\(\s*(\d{1,7}(?:\s*,\s*\d{1,7}){3,})\s*\)")
# A list of byte values in any language's brackets (`bytes([99, 117, …])`, `[99,117,…].pack('c*')`),
# eight or more, and eight or more bytes written in binary digits.
_BYTE_LIST = re.compile(r"[\[({]\s*(\d{1,3}(?:\s*,\s*\d{1,3}){7,})\s*,?\s*[\])}]")
_BINARY = re.compile(r"(?<![01])[01]{8}(?:[ \t,]+[01]{8}){7,}(?![01])")
# Ascii85 (Python's `a85decode`, Adobe's `<~ … ~>`) and base85, named where the text holds them.
_BASE85 = re.compile(
    r"\b(?:a85decode|b85decode|ascii85|base85)\w*\s*\(?\s*b?['\"]([!-~]{10,}?)['\"]|<~([!-u\s]{10,}?)~>",
    re.IGNORECASE,
)
_LINE = re.compile(r"[^\n]+")
_ROT13_NAMED = re.compile(r"\brot-?13\b", re.IGNORECASE)
# A text to be read the other way round, or with its letters shifted back, where the text says so.
_REVERSED_NAMED = re.compile(
    r"\b(?:right\s+to\s+left|backwards?|reversed?|in\s+reverse|from\s+the\s+end)\b", re.IGNORECASE
)
_SHIFT_NAMED = re.compile(
    r"\b(?:caesar|shift\w*|rotate\w*)\b[^.\n]{0,60}?\bby\s+(one|two|three|four|five|six|seven|eight|nine|ten|\d{1,2})\b",
    re.IGNORECASE,
)
_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_MIN_DECODED = 8
_SEPARATOR = re.compile(rb"[ |;/.$(){}\n]")  # a blank or a shell character: a readable text has one
_MAX_RUN = 200_000  # a run past this is data, not a payload someone reads: left alone


@dataclass(frozen=True)
class Decoded:
    start: int  # where the encoded run is, in the text given
    how: str  # base64, hex, escapes, percent-encoding, ROT13
    text: str


def _readable(data: bytes, letters_share: float = 0.4) -> str | None:
    """The bytes as text when they read as text: UTF-8, nearly all printable, some letters and a blank
    or a shell character (a word list, a command, a sentence). `letters_share` is lower where the run
    itself is plainly text with a few characters escaped (a word percent-encoded in place, whose
    decoded form is a command with addresses and flags)."""
    if len(data) < _MIN_DECODED or _SEPARATOR.search(data) is None:
        return None  # (the separator looked for first, in the bytes: most runs decode to noise)
    wide = _utf16(data)  # its zero bytes already tell text from noise: fewer letters are needed
    try:
        text = data.decode("utf-16-le") if wide else data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    letters = sum(c.isalnum() for c in text)  # an address's digits are as much the text as its letters
    if printable < 0.95 * len(text) or letters < (0.25 if wide else letters_share) * len(text):
        return None
    return text


def _utf16(data: bytes) -> bool:
    """Little-endian UTF-16 of mostly ASCII text: a zero after nearly every other byte."""
    return len(data) >= 2 * _MIN_DECODED and data[1::2].count(0) >= 0.9 * (len(data) // 2)


def _from_base32(run: str) -> bytes | None:
    body = run.rstrip("=")
    if body.isalpha() or not any(c.isalpha() for c in body):
        return None  # a shouted word or a number, not an encoding
    try:
        return base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return None


def _in_place(line: str) -> str | None:
    """The line with each run of escapes decoded where it stands, when every run decodes to printable
    text (the command around a few escaped letters is read whole)."""
    pieces: list[str] = []
    last = 0
    for m in _ESCAPES.finditer(line):
        try:
            decoded = _from_escapes(m.group(0)).decode("utf-8")
        except UnicodeDecodeError:
            return None
        if not decoded.isprintable():
            return None
        pieces += [line[last : m.start()], decoded]
        last = m.end()
    return "".join([*pieces, line[last:]]) if pieces else None


def _from_base64(run: str) -> bytes | None:
    body = run.rstrip("=")
    if body.isdigit() or body.isalpha() and (body.islower() or body.isupper()):
        return None  # a number or a plain word, not an encoding
    padded = body + "=" * (-len(body) % 4)
    try:
        if "-" in body or "_" in body:
            return base64.urlsafe_b64decode(padded)
        return base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError):
        return None


def _from_escapes(run: str) -> bytes:
    out = bytearray()
    for m in _ESCAPE.finditer(run):
        if m.group(1):
            out.append(int(m.group(1), 16))
        elif m.group(2):
            out.append(int(m.group(2), 8) & 0xFF)
        else:
            out += chr(int(m.group(3), 16)).encode("utf-8", "replace")
    return bytes(out)


def escape_marks(text: str) -> Iterator[tuple[int, int]]:
    """Where `text` holds escapes or percent-encoding: what `decoded_payloads` may decode besides the
    base64, hex and ROT13 inside runs of word characters and `+/=-@$!` (which it finds the same in a
    run taken alone)."""
    at = text.find("\\")
    while at >= 0:
        yield at, at + 1
        at = text.find("\\", at + 1)
    at = text.find("fromCharCode")
    while at >= 0:
        yield at, at + len("fromCharCode")
        at = text.find("fromCharCode", at + 1)
    if "%" in text:
        yield from (m.span() for m in _PERCENT.finditer(text))
        yield from (m.span() for m in _PERCENT_WORD.finditer(text))
    for pattern in (_BYTE_LIST, _BINARY, _BASE85, _REVERSED_NAMED, _SHIFT_NAMED):
        yield from (m.span() for m in pattern.finditer(text))


def _shifted(text: str, by: int) -> str:
    """Each ASCII letter of `text` moved `by` places along the alphabet (a Caesar shift)."""
    lower = "abcdefghijklmnopqrstuvwxyz"
    upper = lower.upper()
    table = str.maketrans(lower + upper, lower[by:] + lower[:by] + upper[by:] + upper[:by])
    return text.translate(table)


def _from_base85(run: str) -> bytes | None:
    for decode in (base64.a85decode, base64.b85decode):
        try:
            return decode(run)
        except (binascii.Error, ValueError):
            continue
    return None


def _told_how(text: str) -> Iterator[Decoded]:
    """What the text says to read another way: backwards, shifted along the alphabet, or a byte list,
    binary digits or base85 decoded."""
    for m in _BYTE_LIST.finditer(text):
        codes = [int(c) for c in m.group(1).split(",")]
        if len(m.group(0)) <= _MAX_RUN and all(c < 256 for c in codes):
            if (found := _readable(bytes(codes))) is not None:
                yield Decoded(m.start(), "byte values", found)
    for m in _BINARY.finditer(text):
        if len(m.group(0)) <= _MAX_RUN:
            digits = bytes(int(bits, 2) for bits in re.findall(r"[01]{8}", m.group(0)))
            if (found := _readable(digits)) is not None:
                yield Decoded(m.start(), "binary", found)
    for m in _BASE85.finditer(text):
        run = m.group(1) or "".join(m.group(2).split())
        if len(run) <= _MAX_RUN and (data := _from_base85(run)) is not None and (found := _readable(data)):
            yield Decoded(m.start(), "base85", found)
    reversed_ = _REVERSED_NAMED.search(text)
    if reversed_ is not None:
        yield Decoded(reversed_.start(), "reversed", text[reversed_.end() :][::-1])
    shift = _SHIFT_NAMED.search(text)
    if shift is not None:
        count = shift.group(1).lower()
        by = int(count) if count.isdigit() else _NUMBERS[count]
        if 0 < by < 26:
            rest = text[shift.end() :]
            yield Decoded(shift.start(), "shifted", _shifted(rest, 26 - by))
            yield Decoded(shift.start(), "shifted", _shifted(rest, by))


def decoded_payloads(text: str) -> Iterator[Decoded]:
    """Every encoded run in `text` that decodes to readable text, with where it is."""
    for m in _BASE64.finditer(text):
        run = m.group(0)
        if len(run) <= _MAX_RUN and (data := _from_base64(run)) is not None and (found := _readable(data)):
            yield Decoded(m.start(), "base64", found)
    for m in _HEX_RUN.finditer(text):
        if len(m.group(0)) <= _MAX_RUN and (found := _readable(bytes.fromhex(m.group(0)))):
            yield Decoded(m.start(), "hex", found)
    for m in _BASE32.finditer(text):
        run = m.group(0)
        if len(run) <= _MAX_RUN and (data := _from_base32(run)) is not None and (found := _readable(data)):
            yield Decoded(m.start(), "base32", found)
    if "\\" in text:
        for m in _ESCAPES.finditer(text):
            if len(m.group(0)) <= _MAX_RUN and (found := _readable(_from_escapes(m.group(0)))):
                yield Decoded(m.start(), "escapes", found)
        for line in _LINE.finditer(text):
            if "\\" in line.group(0) and len(line.group(0)) <= _MAX_RUN:
                decoded_line = _in_place(line.group(0))
                if decoded_line is not None:
                    yield Decoded(line.start(), "escapes in place", decoded_line)
    if "fromCharCode" in text:
        for m in _CHAR_CODES.finditer(text):
            codes = [int(c) for c in re.findall(r"\d+", m.group(1))]
            if len(m.group(0)) <= _MAX_RUN and all(c < 0x110000 for c in codes):
                chars = "".join(map(chr, codes))
                if (found := _readable(chars.encode("utf-8", "replace"))) is not None:
                    yield Decoded(m.start(), "character codes", found)
    if "%" in text:
        for m in _PERCENT.finditer(text):
            if len(m.group(0)) <= _MAX_RUN and (found := _readable(unquote_to_bytes(m.group(0)))):
                yield Decoded(m.start(), "percent-encoding", found)
        for m in _PERCENT_WORD.finditer(text):
            if len(m.group(0)) <= _MAX_RUN and (found := _readable(unquote_to_bytes(m.group(0)), 0.25)):
                yield Decoded(m.start(), "percent-encoding", found)
    named = _ROT13_NAMED.search(text)
    if named is not None:
        yield Decoded(named.start(), "ROT13", codecs.decode(text[named.end() :], "rot13"))
    yield from _told_how(text)
