"""Secret and personal-data scanner for KB text, model prompts and the daily run.

`find_secrets` combines self-identifying token formats (`scanners.vendor_formats`), structural checks (PEM
keys, JWTs, card numbers), detect-secrets' IBM/Cloudant/SoftLayer detectors, and position-based
detectors (password and token keys, credentialed URLs, `curl -u`, `Authorization` headers). Every
candidate passes the same placeholder and reference checks (`scanners.values`).

Disguises are undone first (`scanners.normalise`): a token split by a zero-width character or a soft
hyphen, written in fullwidth letters, percent-encoded or as HTML character references is found on the
lines that held one, and reported (and redacted) at its span in the original text.

Speed: only lines that hold a long token-like run, a secret-ish word or `://` reach the detectors;
everything else (most Markdown prose) is passed over by one regex search.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from homeostat.core.scanners.normalise import Normalised, normalise
from homeostat.core.scanners.secrets.arguments import ARGUMENT_DETECTORS, ARGUMENT_GATES
from homeostat.core.scanners.secrets.bridge import plugin_hits
from homeostat.core.scanners.secrets.commands import (
    COMMAND_DETECTORS,
    GATE_PIECES,
    GATE_WORDS,
    ORACLE_GATE_WORDS,
    SHORT_FLAG_LETTERS,
)
from homeostat.core.scanners.secrets.credential_files import FILE_DETECTORS
from homeostat.core.scanners.secrets.found import RANK_FORMAT, Found
from homeostat.core.scanners.secrets.layouts import (
    LAYOUT_DETECTORS,
    LAYOUT_GATES,
    LAYOUT_LINE_DETECTORS,
    next_line_values,
)
from homeostat.core.scanners.secrets.positional import CONTEXT_DETECTORS
from homeostat.core.scanners.secrets.prose import (
    PROSE_BEFORE,
    PROSE_GATE,
    PROSE_WIDE_WORDS,
    PROSE_WORDS,
    prose_secrets,
)
from homeostat.core.scanners.secrets.spaced import SPACED_DETECTORS
from homeostat.core.scanners.secrets.structure import base64_private_keys, cards, jwts, private_keys
from homeostat.core.scanners.secrets.url_secrets import URL_MARKS, URL_TAIL, url_secrets
from homeostat.core.scanners.secrets.values import looks_fake, lower_same_length
from homeostat.core.scanners.secrets.vendor_formats import find_tokens

__all__ = ["SecretHit", "find_emails", "find_secrets", "redact_secrets", "redacted"]


@dataclass(frozen=True)
class SecretHit:
    """One finding: `text[start:end]` is the secret (a URL's password, a token, a whole PEM block)."""

    kind: str
    start: int
    end: int
    line: int


# Every self-identifying token lies inside a run like this, so formats are only tried inside runs.
_RUN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~$:"
_RUN = re.compile(f"[{re.escape(_RUN_CHARS)}]{{16,}}")  # what `_runs` finds, without the regex walk
_MIN_RUN = 16
# A text written a byte per character: `_RUN`'s characters as `a`, the rest as a blank (a character
# past Latin-1, encoded as `?`, is none of them).
_RUN_SHAPE = bytes(97 if chr(b) in _RUN_CHARS else 32 for b in range(256))
_TOKENISH = re.compile(r"[A-Z0-9]")
# A run this long may be a random value under an arbitrary key (`mimi=…`): check its line's keys.
_LONG_RUN = 32
# Position-based detectors only read lines where a secret-ish word is used as a key (followed by `=`,
# `?=`, `:`, `,`, an element's `>` or a backticked value) or a CLI flag, or that mention `curl`, a
# bearer or authorization header, an XML `value=`, a command's gate word, or a URL with userinfo, a
# query or a webhook path. Prose that merely mentions "the token" or "a password" is passed over.
# Each word is found with `str.find`, far faster than one alternation.
_KEY_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "psk")
# Bounded, so that a word met again and again on one line (`passpasspass…`) is never read to the
# line's end from each place it occurs.
_AS_KEY = re.compile(r"[\w.\-]{0,64}[\"'`\]]?(?:\*\*|__)?[ \t]{0,40}(?:[?+]?[:=,>]|`[^`\s])")
_FLAG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")
_AS_FLAG = re.compile(r"(?<![\w\-])--?[\w\-]*\Z")  # `--password`, and one-dash `-storepass`
_AS_SETTER = re.compile(r"[a-z]{0,12}[ \t]{0,4}\(")
_SETTER_BEFORE = re.compile(
    r"(?:\b(?:set|with|use)_?|\.)[a-z_]{0,16}\Z"
)  # `setToken(`, a builder's `.password(`
# A builder's method is read only when a literal is given to it (`.password("…")`, not `a.token()`).
_DOT_CALL = re.compile(r"[a-z_]{0,12}[ \t]{0,4}\([ \t]*[\"']")
_ALWAYS_WORDS = ("curl", "bearer", "ssws", "value=", "mysql", "mariadb", "flyv1", "authorization ")
_USERINFO = re.compile(r"[^\s/@]*@")


def _line_span(text: str, pos: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    return start, len(text) if end < 0 else end


def _runs(text: str) -> Iterator[tuple[int, int]]:
    """The spans of `_RUN.finditer(text)`: each maximal run of its characters at least 16 long. The
    regex tries a match at every character of every word and fails on most (a fifth of the scan);
    here `bytes.find` skips to the next 16 run characters in a row, which always start a run."""
    shape = text.encode("latin-1", "replace").translate(_RUN_SHAPE)
    least = b"a" * _MIN_RUN
    start = shape.find(least)
    while start >= 0:
        end = shape.find(b" ", start + _MIN_RUN)
        end = len(shape) if end < 0 else end
        yield start, end
        start = shape.find(least, end)


def _run_findings(text: str, lines: dict[int, int]) -> Iterator[Found]:
    """Token formats and JWTs inside runs; long runs also put their line on the `lines` list."""
    for start, end in _runs(text):
        if _TOKENISH.search(text, start, end) is None:
            continue  # a lowercase path, URL or identifier: no token format is all lowercase letters
        for token in find_tokens(text, start, end):
            if not looks_fake(text[token.start : token.end]):
                yield Found(token.kind, token.start, token.end, RANK_FORMAT)
        if text.find("eyJ", start, end) >= 0:
            yield from jwts(text, start, end)
        if text.find("LS0tLS1CRUdJTi", start, end) >= 0:
            yield from base64_private_keys(text, start, end)
        if end - start >= _LONG_RUN:
            line_start, line_end = _line_span(text, start)
            lines[line_start] = line_end


# Gate words that share a piece are looked for only in a text that holds the piece: one search
# where most texts hold none of them, instead of one a word.
_GATE_PIECES = ("-cli", "smb", "ssh", "login", "auth", "passwd", " /", "sql")


def _gate_groups(words: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    groups: dict[str, list[str]] = {}
    for word in dict.fromkeys(words):
        piece = next((p for p in _GATE_PIECES if p in word), word)
        groups.setdefault(piece, []).append(word)
    return tuple((piece, tuple(members)) for piece, members in groups.items())


_GATE_GROUPS = _gate_groups((*_ALWAYS_WORDS, *GATE_WORDS, *GATE_PIECES, *ARGUMENT_GATES, *LAYOUT_GATES))


def _setter_before(lowered: str, pos: int, after: int) -> bool:
    setter = _SETTER_BEFORE.search(lowered, max(0, pos - 20), pos)
    if setter is None:
        return False
    return lowered[setter.start()] != "." or _DOT_CALL.match(lowered, after) is not None


def _prose_before(lowered: str, pos: int) -> bool:
    """`… as the Okta token`: a value may stand before the word."""
    window = max(0, pos - 60)
    if lowered.find(" as ", window, pos) < 0:
        return False  # (`… is the password` is read on a line chosen for another reason)
    m = PROSE_BEFORE.search(lowered, window, pos)
    if m is None:
        return False
    value = lowered[lowered.rfind(" ", max(0, m.start() - 256), m.start()) + 1 : m.start()]
    return len(value) >= 16 or any(c.isdigit() for c in value)


def _keyword_lines(text: str, lowered: str, lines: dict[int, int], prose: dict[int, int]) -> None:
    """Fills `lines` with the lines the line detectors read, and `prose` with those the prose
    detector reads (a secret word followed by a verb or preceded by `as the`, a foreign word)."""
    _key_word_lines(text, lowered, lines, prose)
    for word in (*PROSE_WORDS, *(() if text.isascii() else PROSE_WIDE_WORDS)):
        pos = lowered.find(word)
        while pos >= 0:
            pos = lowered.find(word, _mark(text, pos, prose))
    _gate_word_lines(text, lowered, lines)
    _short_flag_lines(text, lowered, lines)
    _url_lines(text, lowered, lines)


def _mark(text: str, pos: int, into: dict[int, int]) -> int:
    """Remembers the line holding `pos` in `into` and returns its end, where the next search starts."""
    start, end = _line_span(text, pos)
    into[start] = end
    return end


def _key_word_lines(text: str, lowered: str, lines: dict[int, int], prose: dict[int, int]) -> None:
    """A secret's key word used as a key, a flag's name or a setter marks its line for the line
    detectors; followed by a verb, or after `as the`, it marks the line for the prose detector."""
    for word in _KEY_WORDS:
        pos = lowered.find(word)
        while pos >= 0:
            after = pos + len(word)
            if (
                _AS_KEY.match(lowered, after)
                or pos
                and lowered[pos - 1] in _FLAG_CHARS  # a flag's name runs up to the word: `--api-token`
                and _AS_FLAG.search(lowered, max(0, pos - 40), pos)
                or _AS_SETTER.match(lowered, after)
                and _setter_before(lowered, pos, after)  # `setApiToken(`, `.password("`
            ):
                after = _mark(text, pos, lines)
            if PROSE_GATE.match(lowered, pos + len(word)) or _prose_before(lowered, pos):
                after = max(after, _mark(text, pos, prose))
            pos = lowered.find(word, after)


def _gate_word_lines(text: str, lowered: str, lines: dict[int, int]) -> None:
    """The command detectors' gate words (and, beside an `@`, the Oracle connect words) mark their lines."""
    for piece, words in _GATE_GROUPS:
        if len(words) > 1 and lowered.find(piece) < 0:
            continue  # no word of the group is in the text
        for word in words:
            pos = lowered.find(word)
            while pos >= 0:
                pos = lowered.find(word, _mark(text, pos, lines))
    if "@" in lowered:
        for word in ORACLE_GATE_WORDS:
            pos = lowered.find(word)
            while pos >= 0:
                pos = lowered.find(word, _mark(text, pos, lines))


def _short_flag_lines(text: str, lowered: str, lines: dict[int, int]) -> None:
    """`-p` or `-w` after a blank: a short flag the command detectors read."""
    for blank in (" -", "\t-"):
        pos = lowered.find(blank)
        while pos >= 0:
            after = pos + 2
            if after < len(lowered) and lowered[after] in SHORT_FLAG_LETTERS:
                after = _mark(text, pos, lines)
            pos = lowered.find(blank, after)


def _url_lines(text: str, lowered: str, lines: dict[int, int]) -> None:
    """A URL with user information, or whose tail holds a credential's mark, marks its line."""
    pos = lowered.find("://")
    while pos >= 0:
        after = pos + 3
        if _USERINFO.match(lowered, after):
            after = _mark(text, pos, lines)
        else:
            tail = URL_TAIL.match(lowered, after)
            assert tail is not None  # it matches the empty string
            after = _mark(text, pos, lines) if any(m in tail.group(0) for m in URL_MARKS) else tail.end()
        pos = lowered.find("://", after)


# Lines up to this long are remembered once judged: a KB repeats its short field lines in every rule,
# and 8,192 remembered lines of at most this length hold a few megabytes, whatever the files hold.
_REMEMBERED_LINE = 256


def _line_findings(line: str, lowered: str) -> tuple[Found, ...]:
    if len(line) <= _REMEMBERED_LINE:
        return _remembered_line_findings(line, lowered)
    return _judged_line(line, lowered)


@lru_cache(maxsize=8192)
def _remembered_line_findings(line: str, lowered: str) -> tuple[Found, ...]:
    """The detectors read one line and nothing else, so a line met again (every rule's `author: ana`
    and `tokens: 130`) is judged once: the same findings, at offsets within the line."""
    return _judged_line(line, lowered)


@lru_cache(maxsize=1024)
def _prose_findings(line: str, lowered: str) -> tuple[Found, ...]:
    """The prose detector's findings in one line, remembered like the line detectors'."""
    return tuple(prose_secrets(line, lowered))


def _judged_line(line: str, lowered: str) -> tuple[Found, ...]:
    found = list(plugin_hits(line, lowered))
    for detector in CONTEXT_DETECTORS:
        found.extend(detector(line))
    found.extend(url_secrets(line, lowered))
    for command_detector in (*COMMAND_DETECTORS, *ARGUMENT_DETECTORS, *LAYOUT_LINE_DETECTORS):
        found.extend(command_detector(line, lowered))
    return tuple(found)


def _resolve(found: list[Found]) -> list[Found]:
    """Non-overlapping findings: the most specific kind wins, then the longer span. The spans kept
    so far are held sorted by start (they never overlap, so by end too): a new one overlaps one of
    them only if it overlaps the last that starts before it ends, found by bisection, so a text of
    thousands of findings is settled in n log n, not n squared."""
    starts: list[int] = []
    ends: list[int] = []
    chosen: list[Found] = []
    for f in sorted(found, key=lambda f: (f.rank, f.start - f.end, f.start)):
        if f.end <= f.start:
            continue
        at = bisect_left(starts, f.end)  # the kept spans before `at` start before this one ends
        if at and ends[at - 1] > f.start:
            continue
        starts.insert(at, f.start)
        ends.insert(at, f.end)
        chosen.insert(at, f)
    return chosen


def _with_lines(text: str, found: list[Found]) -> list[SecretHit]:
    hits: list[SecretHit] = []
    line, counted = 1, 0
    for f in found:
        line += text.count("\n", counted, f.start)
        counted = f.start
        hits.append(SecretHit(f.kind, f.start, f.end, line))
    return hits


def _scan(text: str) -> list[Found]:
    found = list(private_keys(text))
    found.extend(cards(text))
    lines: dict[int, int] = {}
    found.extend(_run_findings(text, lines))
    lowered = lower_same_length(text)
    for file_detector in (
        *FILE_DETECTORS,
        *SPACED_DETECTORS,
        *LAYOUT_DETECTORS,
    ):  # shapes that may span lines
        found.extend(file_detector(text, lowered))
    prose: dict[int, int] = {}
    _keyword_lines(text, lowered, lines, prose)
    found.extend(next_line_values(text, lines))
    for start, end in lines.items():
        for f in _line_findings(text[start:end], lowered[start:end]):
            found.append(f.shifted(start))
    for start, end in prose.items():
        for f in _prose_findings(text[start:end], lowered[start:end]):
            found.append(f.shifted(start))
    return found


def _disguised(plain: Normalised) -> Iterator[Found]:
    """Findings on the normalised lines that held a disguise, at their spans in the original. The
    pieces come in order, so each line is found once, from the end of the last (a line of a million
    fullwidth letters is a million pieces, and one line)."""
    text = plain.text
    lines: list[tuple[int, int]] = []
    line_end = -1
    for piece in plain.pieces:
        if piece[0] <= line_end:
            continue  # on the line already found
        start = text.rfind("\n", line_end + 1, piece[0]) + 1 or line_end + 1
        line_end = text.find("\n", piece[0])
        line_end = len(text) if line_end < 0 else line_end
        lines.append((start, line_end))
    for start, end in lines:
        for f in _scan(text[start:end]):
            original = plain.original_span(f.start + start, f.end + start)
            yield Found(f.kind, original[0], original[1], f.rank)


def find_secrets(text: str) -> list[SecretHit]:
    """Secrets in `text`, disguised or not, sorted by start and non-overlapping."""
    if not text:
        return []
    found = _scan(text)
    plain = normalise(text, percent=True)
    if plain.changed:
        found.extend(_disguised(plain))
    return _with_lines(text, _resolve(found))


def redact_secrets(text: str) -> tuple[str, int]:
    """`text` with each secret replaced by `[REDACTED:<kind>]`, and how many were replaced."""
    hits = find_secrets(text)
    parts: list[str] = []
    last = 0
    for hit in hits:
        parts.append(text[last : hit.start])
        parts.append(f"[REDACTED:{hit.kind}]")
        last = hit.end
    parts.append(text[last:])
    return "".join(parts), len(hits)


def redacted(text: str) -> str:
    """`text` with every secret replaced: what a run may write or print about a lesson."""
    return redact_secrets(text)[0] if text else text


_EMAIL = re.compile(
    r"(?<![\w.+\-/:%@])[A-Za-z0-9][A-Za-z0-9._%+\-]{0,63}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w\-]|\.[A-Za-z0-9])"
)
# Reserved for documentation (RFC 2606, RFC 6761), so never a person's address.
_EXAMPLE_DOMAIN = re.compile(r"(?:^|\.)(?:example\.(?:com|org|net)|example|invalid|test|localhost)$", re.I)
_FILE_SUFFIX = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|js|ts|py|css|map|json|ya?ml|md|txt|lock)$", re.I)
_ROLE_LOCAL_PARTS = frozenset({"git", "noreply", "no-reply", "donotreply", "do-not-reply"})


def find_emails(text: str) -> list[SecretHit]:
    """Email addresses that may name a person (not documentation domains, `git@`, or `icon@2x.png`)."""
    if "@" not in text:
        return []
    found: list[Found] = []
    for m in _EMAIL.finditer(text):
        local, _, domain = m.group(0).partition("@")
        if _EXAMPLE_DOMAIN.search(domain) or _FILE_SUFFIX.search(domain):
            continue
        if local.lower() in _ROLE_LOCAL_PARTS:
            continue
        found.append(Found("email", m.start(), m.end(), RANK_FORMAT))
    return _with_lines(text, found)
