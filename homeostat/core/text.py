"""Small text helpers shared by the schema, the scorers and search: ids, words, word counts.

Titles and topics come in any script. An ASCII-only slugger once turned every CJK label into the same
empty id (PEERS.md, lesson 12), so ids keep Unicode letters and fall back to a hash, never to "".
"""

from __future__ import annotations

import re

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    import hashlib


class _Lazy:
    """A regex compiled on first use: Unicode classes cost milliseconds to compile, and a session
    hook that never meets CJK text should not pay for them at import."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> object:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        found = getattr(self._compiled, name)
        setattr(self, name, found)  # kept: the next `.match` is an attribute, not this call
        return found


def sha256(data: bytes = b"") -> hashlib._Hash:
    """SHA-256 from CPython's own `_sha256` module where it is built: `import hashlib` loads OpenSSL,
    a tenth of a warm session hook's imports, for the same digest."""
    try:
        from _sha256 import sha256 as own  # type: ignore[import-not-found]
    except ImportError:
        from hashlib import sha256 as own
    return own(data)  # type: ignore[no-any-return]


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A regex compiled the first time it is used (see `_Lazy`), typed as the pattern it stands for."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]


ID_PATTERN: re.Pattern[str] = _Lazy(r"^[^\W_][\w-]*$", re.UNICODE)  # type: ignore[assignment]
_NON_WORD: re.Pattern[str] = _Lazy(r"[^\w]+", re.UNICODE)  # type: ignore[assignment]
# Scripts written without spaces between words: kana, CJK ideographs.
_UNSPACED = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_CJK: re.Pattern[str] = _Lazy(rf"[{_UNSPACED}\uac00-\ud7af]")  # type: ignore[assignment]  # and Hangul
_UNSPACED_RUN: re.Pattern[str] = _Lazy(rf"[{_UNSPACED}]+")  # type: ignore[assignment]
_WORD: re.Pattern[str] = _Lazy(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)  # type: ignore[assignment]
_IDENT = lazy_pattern(r"[A-Za-z_][A-Za-z0-9_.:/-]*[A-Za-z0-9_]")
_BACKTICKED = lazy_pattern(r"`([^`\n]+)`")
MAX_ID_LENGTH = 64


def _strip_accents(text: str) -> str:
    """é → e, ß stays; only combining marks on Latin letters go, so CJK and Hangul keep their shape.
    unicodedata is imported here: only ids made from titles need it, never a session hook."""
    import unicodedata

    out: list[str] = []
    for ch in unicodedata.normalize("NFC", text):
        if ord(ch) < 0x250:  # Latin letters: é → e
            out.extend(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
        else:  # every other script keeps its marks (で must not become て)
            out.append(ch)
    return "".join(out)


def slugify(text: str, *, prefix: str = "rule") -> str:
    """A lower-case id from a title in any script; never empty."""
    folded = _strip_accents(text).lower()
    slug = _NON_WORD.sub("-", folded).replace("_", "-").strip("-")
    slug = re.sub(r"-{2,}", "-", slug)
    if len(slug) > MAX_ID_LENGTH:
        cut = slug[: MAX_ID_LENGTH + 1]
        slug = cut[: cut.rfind("-")] if "-" in cut[MAX_ID_LENGTH // 2 :] else slug[:MAX_ID_LENGTH]
        slug = slug.rstrip("-")
    if not slug or not ID_PATTERN.match(slug):
        digest = sha256(text.encode("utf-8")).hexdigest()[:8]
        slug = f"{prefix}-{digest}"
    return slug


def is_valid_id(value: str) -> bool:
    return bool(ID_PATTERN.match(value)) and value == value.lower() and len(value) <= MAX_ID_LENGTH * 2


def count_words(text: str) -> int:
    """Words as a reader counts them, for the 60- and 100-word limits: Chinese and Japanese, written
    without spaces, one word per two characters of a run (a run of one is a word), since a Chinese or
    Japanese word is one to three characters; every other script (Korean too, which spaces its words)
    split on spaces. Counted a word per character, a Japanese rule of 70 characters, 25 English words
    in translation, was over the limit."""
    if text.isascii():  # no CJK to find: the common case, and validate counts every rule's parts
        return len(text.split())
    runs = _UNSPACED_RUN.findall(text)
    rest = _UNSPACED_RUN.sub(" ", text)
    return sum((len(run) + 1) // 2 for run in runs) + len(rest.split())


_ASCII_WORD = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)?")


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits), CJK characters one per token."""
    if text.isascii():  # the common case, several times faster
        return _ASCII_WORD.findall(text.lower())
    tokens: list[str] = []
    for match in _WORD.finditer(text.lower()):
        token = match.group(0)
        if _CJK.search(token):
            tokens.extend(ch for ch in token if not ch.isspace())
        else:
            tokens.append(token)
    return tokens


def identifiers(text: str) -> set[str]:
    """Code names in backticks: `with_retry()`, `src/api/app.py`, `ApiError` (without call parens)."""
    names: set[str] = set()
    if "`" not in text:
        return names
    find = _IDENT.findall
    for span in _BACKTICKED.findall(text):
        names.update(find(span))
    return names


def content_hash(*parts: str) -> str:
    """A stable hash of the content that matters (never timestamps or SHAs), for skip-if-unchanged."""
    digest = sha256()
    for part in parts:
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def plural(count: int, one: str, many: str | None = None) -> str:
    """`1 file`, `2 files`: counts in messages read as English."""
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def camel_case(name: str) -> str:
    """A snake_case field name as the camelCase key every JSON answer uses (`fast_forwarded` ->
    `fastForwarded`)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
