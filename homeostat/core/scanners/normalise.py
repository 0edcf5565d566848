"""Undoing the disguises a scanner would otherwise read past: NFKC (fullwidth `ｇｈｐ＿` is `ghp_`),
invisible characters dropped (a token split by a zero-width space or a soft hyphen), HTML character
references decoded (`&#95;`, `&#124;`), and, for secrets, percent-encoding decoded (`%5F`).

The scanners run on the normalised text and map what they find back to the original with
`Normalised.original_span`, so a secret is redacted where it stands, disguise and all. Newlines are
never added or removed, so a line number in the normalised text is the same line in the original.
Text that holds no disguise (most of a KB) is returned as it is after two quick checks.
"""

from __future__ import annotations

import html
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from urllib.parse import unquote

from homeostat.core.scanners.hidden import INVISIBLE_CLASS

_INVISIBLE = re.compile(f"[{INVISIBLE_CLASS}]")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


@dataclass(frozen=True)
class Normalised:
    """The normalised text, and where each changed piece came from."""

    text: str
    # (start in `text`, start in the original, length in `text`, length in the original), in order
    pieces: tuple[tuple[int, int, int, int], ...] = ()
    _starts: list[int] = field(default_factory=list, compare=False, repr=False)

    @property
    def changed(self) -> bool:
        return bool(self.pieces)

    def _original(self, pos: int, *, is_end: bool) -> int:
        if not self._starts:
            self._starts.extend(p[0] for p in self.pieces)
        # The last piece starting at or before `pos` (strictly before, for the end of a span).
        i = bisect_right(self._starts, pos - 1 if is_end else pos) - 1
        if i < 0:
            return pos
        start, orig, length, orig_length = self.pieces[i]
        inside = pos <= start + length if is_end else pos < start + length
        if inside:  # the span starts or ends inside a replaced piece: take all of it
            return orig + orig_length if is_end else orig
        return orig + orig_length + (pos - start - length)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that `text[start:end]` was made from."""
        return self._original(start, is_end=False), self._original(end, is_end=True)


def _plain(piece: str) -> str:
    decoded = "".join(_INVISIBLE.split(piece))
    return unicodedata.normalize("NFKC", decoded) if decoded else decoded


def _unescaped(entity: str) -> str | None:
    decoded = html.unescape(entity)
    if decoded == entity:
        return None  # unknown
    if decoded and not _INVISIBLE.sub("", decoded):
        return ""  # an invisible character written as a reference (`Ig&#x200B;nore`): dropped like one
    if not decoded.isprintable():
        return None  # a control character that would move the lines
    return decoded


def _unquoted(run: str) -> str | None:
    decoded = unquote(run, errors="strict") if run else run
    return decoded if decoded.isprintable() else None


def normalise(text: str, *, percent: bool = False) -> Normalised:
    """`text` with disguises undone (percent-encoding only when `percent`)."""
    ascii_only = text.isascii()
    if ascii_only and "&" not in text and not (percent and "%" in text):
        return Normalised(text)
    changes: list[tuple[int, int, str]] = []  # (start, end, replacement) in the original
    if not ascii_only:
        for m in _NON_ASCII.finditer(text):
            run = m.group(0)
            if unicodedata.is_normalized("NFKC", run) and not _INVISIBLE.search(run):
                continue
            for offset, char in enumerate(run):
                plain = _plain(char)
                if plain != char and "\n" not in plain:
                    changes.append((m.start() + offset, m.start() + offset + 1, plain))
    if "&" in text:
        for m in _ENTITY.finditer(text):
            decoded = _unescaped(m.group(0))
            if decoded is not None:
                changes.append((m.start(), m.end(), decoded))
    if percent and "%" in text:
        for m in _PERCENT.finditer(text):
            try:
                decoded_run = _unquoted(m.group(0))
            except UnicodeDecodeError:
                continue
            if decoded_run is not None:
                changes.append((m.start(), m.end(), decoded_run))
    if not changes:
        return Normalised(text)
    changes.sort()
    parts: list[str] = []
    pieces: list[tuple[int, int, int, int]] = []
    last = length = 0
    for start, end, replacement in changes:
        if start < last:
            continue  # an entity inside a percent run, or the like: the first one read wins
        parts.append(text[last:start])
        length += start - last
        pieces.append((length, start, len(replacement), end - start))
        parts.append(replacement)
        length += len(replacement)
        last = end
    parts.append(text[last:])
    return Normalised("".join(parts), tuple(pieces))
