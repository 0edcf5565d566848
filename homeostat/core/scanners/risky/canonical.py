"""The canonical reading of a text, which the risky-content families read besides the text itself:
what a disguise leaves once undone.

A phrase list reads past `Ign\u043ere` (a Cyrillic o), `Ig**nore**`, `I g n o r e`, `1gn0r3` and
`` `--in``secure` ``; a model reads through all of them. So before any family looks, the text is
read again with:

- confusables folded to Latin (Unicode TS #39's confusables data, through `confusable_homoglyphs`):
  a word that mixes Latin with look-alike letters of another script, or is spelled wholly in
  letters that each look like a Latin one, is read in Latin; a word in a script of its own
  (`отправь`, `指令`) is left as it is, so the other-language families still read it;
- Markdown emphasis and strike marks that split a word dropped, inline HTML tags dropped (their text
  kept), code spans split to hide a word (`` `--in``secure` ``) joined, and any other markup between
  two letters of a word dropped (`Ig==no==re`, `Dis__re__gard`, `Ig++no++re`, `Ig<!-- -->nore`);
- letter-spaced words joined (`c u r l`, `P.R.I.N.T`, `i-g-n-o-r-e`, `y_o_u`), and runs of blanks
  read as one;
- leetspeak folded in words that mix letters and digits (`pr3v10u5` → `previous`);
- code-quoted letters inside a word joined to it (``Dis`re`gard``).

Where a disguise reads two ways, `other_readings` gives the other: leetspeak's `1` as `l` (`ru135`
→ `rules`), and the letters struck through inside a word dropped (`Ign~~x~~ore`).

Newlines stay where they are, so a line of the canonical reading is the same line of the original.
Every step is one pass of a regex whose matches cannot overlap: linear in the text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

# A word: letters and digits of any script, with the marks that join them.
_WORD = re.compile(r"[^\W_]+")
# A `*` or `_` run touching a letter on one side (`ig**nore`, `_Print_`) is emphasis; one between
# non-letters (`src/**`, `(*)`, `a * b`) is not. One touching a code span's backtick is, too
# (`` `--in`**`secure`** ``).
# (Each written to start with its mark, so the engine skips ahead to one: looking behind first
# tried every character.)
_STAR_EMPHASIS = re.compile(r"\*(?:(?<=[^\W_]\*)\**|(?<=`\*)\**|\**(?=[^\W_]|`))")
_UNDERSCORE_EMPHASIS = re.compile(r"_(?<![\w]_)_*(?=[^\W_])|_(?<=[^\W_]_)_*(?![\w])")
_STRIKE = re.compile(r"~~")
# Struck-through or code-quoted letters inside a word (`Ign~~x~~ore`, ``Dis`re`gard``): a reader skips
# the struck ones and joins the quoted ones to the word around them.
# (Each starts with its mark and looks behind past it, so the engine skips ahead to one.)
# struck-through text, read as withdrawn (`~~Never~~ Always commit…`, `Ign~~x~~ore`)
_STRUCK = re.compile(r"~~[^~\n]{1,80}~~")
_CODE_IN_WORD = re.compile(r"`(?<=[^\W_]`)([^`\s]{1,30})`(?=[^\W_])")
# letters in a code span ending a word (`Ign`ore` prev`ious``): the span is the word's tail
_CODE_ENDS_WORD = re.compile(r"`(?<=[^\W_]`)([^\W\d_]{1,30})`(?![\w`])")
# A dot left apart when a letter-spaced file name is joined (`. E N V` → `. env`).
_SPACED_DOT = re.compile(r"(?<![^\s])\. (?=[^\W\d_]{2,}\b)")
# Other markup between two letters of a word, whatever renders it: highlight `==`, insertion `++`, `^^`,
# a double underscore (a single one joins an identifier's words), an HTML comment (`Ig<!-- -->nore`) and
# an empty link (`Ig[](#)nore`, which renders as nothing).
# Each run is dropped only where letters touch it on both sides (`_in_word`), so `a == b`, `x++` and
# `__init__` are left as they are.
_MARKUP = re.compile(r"(?:==|\+\+|\^\^|__+|<!--[^<>\n]{0,40}?-->|\[\]\([^()\s]{0,40}\))+")
_MARKUP_MARKS = ("==", "++", "^^", "__", "<!--", "[](")
_INLINE_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,20}(?:\s[^<>\n]{0,200})?/?>")
_JOINED_CODE = re.compile(r"(?<=[^\W_])``(?=[^\W_-])|(?<=[\w-])``(?=[^\W_])")
# Single letters with one separator between each (`c u r l`, `P.R.I.N.T`): two or more.
_SPACED = re.compile(r"(?<!\w)[^\W\d_](?:([ ._\-·•])[^\W\d_])(?:\1[^\W\d_])*(?!\w)")
_BLANKS = re.compile(r"[ \t]{2,}")
LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t", "8": "b", "9": "g"}
)
# `1` stands for `l` as often as for `i` (`ru135` is `rules`): the second reading folds it so.
LEET_L = str.maketrans(
    {"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "6": "g", "7": "t", "8": "b", "9": "g"}
)
_LEET_INNER = str.maketrans({"@": "a", "$": "s", "!": "i"})
# A word with its letter-joined `@`/`$`/`!` (`p@ss`, `pa$$`); `_leet` folds those that mix letters and
# digits (found per word, not by lookaheads that would rescan a long word from each of its letters).
_FOLDABLE = re.compile(r"[0-9@$!]")  # what leetspeak is written with: a word holding none stays
_WORD_ON = re.compile(r"[\w@$!]*")
_HAS_LETTER = re.compile(r"[^\W\d_]")
_HAS_DIGIT = re.compile(r"[0-9@$!]")
_LONE_FOUR = re.compile(r"(?<=[^\W\d_] )4(?= [^\W\d_])")
_CONTRACTION_DIGIT = re.compile(r"(?<=[^\W\d_]')[0-9](?![\w@$!])")
_CONTRACTION_MARK = re.compile(r"[\w@$!]'[0-9](?![\w@$!])")
# Letters drawn with several strokes (`|\|` for N, `|\/|` for M, `\/` for V, `|-|` for H, `|_|` for U).
_DRAWN = (
    ("|\\/|", "m"),
    ("/\\/\\", "m"),
    ("|\\|", "n"),
    ("/\\/", "n"),
    ("\\/\\/", "w"),
    ("|-|", "h"),
    ("|_|", "u"),
    ("|)", "d"),
    ("|<", "k"),
    ("\\/", "v"),
)
# Lines that are each one letter-spaced word or a few (`I g n o r e` / `p r e v i o u s`): read as one line.
_SPACED_LINE = re.compile(
    r"[ \t]*[^\W\d_](?:[ ._·•-][^\W\d_])+(?:[ \t]{2,}[^\W\d_](?:[ ._·•-][^\W\d_])+)*[ \t]*"
)
# A linter's or a scanner's rule code (`B608`, `S101`, `SC2086`, `CWE79`): capitals, then digits, no leetspeak.
_RULE_CODE = re.compile(r"[A-Z]{1,4}[0-9]{2,6}")
_LETTER_BY_1 = re.compile(
    r"1(?:(?<=[^\W\d_]1)|(?=[^\W\d_]))"
)  # a `1` a letter touches: leetspeak may hold it


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each non-ASCII character Unicode lists as confusable with one ASCII letter or digit, and that
    character. Loaded on first use (0.1 s): only a text past ASCII needs it."""
    from confusable_homoglyphs.confusables import confusables_data  # type: ignore[import-untyped]

    found: dict[str, str] = {}
    for char, homoglyphs in confusables_data.items():
        if char.isascii() or len(char) != 1:
            continue
        latin = [h["c"] for h in homoglyphs if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalnum()]
        if latin:
            # TS #39's skeleton is `l` for I, l and 1 alike; a capital (Greek `Ι`, Cyrillic `І`) is read as
            # the capital it looks like, so `Ιgnore` is `Ignore`, not `lgnore`
            found[char] = "I" if latin[0] == "l" and char.isupper() else latin[0]
    # Latin letters drawn small, raised or lowered (`ɪɢɴᴏʀᴇ`, `ᵃ`, `ₓ`), which TS #39 mostly leaves out:
    # read as the letter their name says they are.
    for block in _SMALL_LETTER_BLOCKS:
        for code in block:
            char = chr(code)
            named = _SMALL_LETTER_NAME.fullmatch(unicodedata.name(char, ""))
            if named and char not in found:
                found[char] = named.group(1).lower()
    found["\u0130"] = "I"  # `İ`, whose dot is the one `i` has: `İgnore` is `Ignore`
    return found


_SMALL_LETTER_BLOCKS = (
    range(0x0250, 0x0300),
    range(0x1D00, 0x1DC0),
    range(0x2070, 0x20A0),
    range(0xA720, 0xA800),
)
_SMALL_LETTER_NAME = re.compile(
    r"(?:LATIN LETTER SMALL CAPITAL|MODIFIER LETTER (?:SMALL|CAPITAL)|LATIN SUBSCRIPT SMALL LETTER|"
    r"SUPERSCRIPT LATIN SMALL LETTER) ([A-Z])"
)
# A dot above on `i` or `j`, which already have one (what casefolding `İ` leaves): it changes nothing seen.
_REDUNDANT_DOT = re.compile("(?<=[ijIJ])\u0307")
# A word broken at a line's end with a hyphen (`Ig-` / `nore`): read whole, on the first of its lines.
# (Written to start with its `-`, so the engine skips ahead to one.)
_HYPHEN_BREAK = re.compile(r"-(?<=[^\W\d_]-)[ \t]*\n[ \t]*(?=[^\W\d_])")


def _fold_word(match: re.Match[str], native: frozenset[str] = frozenset()) -> str:
    word = match.group(0)
    if word.isascii():
        return word
    table = _prototypes()
    folded = "".join(table.get(c, c) for c in word)
    if folded.isascii():
        # every letter looks like a Latin one (`ехес`, `сurl`), unless the word is one of its script's own
        # among that script's prose (`Не отключайте…` is Russian, not `He`)
        return word if _script(word) in native else folded
    if any(c.isascii() for c in word):
        return folded  # Latin mixed with another script: `Ignоre`
    return word


def _script(word: str) -> str:
    """The script a word's letters are written in, by their Unicode names (`CYRILLIC`, `GREEK`); "" when
    they are in more than one."""
    scripts = {unicodedata.name(c, "?").split(" ", 1)[0] for c in word if c.isalpha()}
    return scripts.pop() if len(scripts) == 1 else ""


def _native_scripts(line: str) -> frozenset[str]:
    """The scripts past Latin that a line's words are written in as words of their own, not as
    look-alikes of Latin letters (a word some letter of which has no Latin look-alike)."""
    table = _prototypes()
    found = set()
    for m in _WORD.finditer(line):
        word = m.group(0)
        if not word.isascii() and not any(c.isascii() for c in word):
            if not all(c in table for c in word):
                found.add(_script(word))
    found.discard("")
    found.discard("LATIN")
    return frozenset(found)


def fold_confusables(text: str) -> str:
    """Words disguised with look-alike letters, read in Latin; other scripts' words left alone, and so
    are the words a line's own script has that happen to look Latin."""
    if text.isascii():
        return text
    text = _REDUNDANT_DOT.sub("", text) if "\u0307" in text else text
    return "".join(_fold_line(line) for line in text.splitlines(keepends=True))


def _fold_line(line: str) -> str:
    if line.isascii():
        return line
    native = _native_scripts(line)
    return _WORD.sub(lambda m: _fold_word(m, native), line)


def _join_hyphen_breaks(text: str) -> str:
    """Words broken across lines with a hyphen (`Ig-` / `nore`) joined, on the first of their lines; the
    lines they took the rest from are left empty, so every other line keeps its number."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        pieces, owed = [lines[i]], 0
        while i + 1 < len(lines) and _broken(pieces[-1]) and lines[i + 1].lstrip(" \t")[:1].isalpha():
            pieces[-1] = pieces[-1].rstrip(" \t")[:-1]
            pieces.append(lines[i + 1].lstrip(" \t"))
            i += 1
            owed += 1
        out.append("".join(pieces))
        out.extend([""] * owed)
        i += 1
    return "\n".join(out)


def _broken(line: str) -> bool:
    """The line ends in a letter and a hyphen."""
    end = line.rstrip(" \t")
    return len(end) > 1 and end[-1] == "-" and end[-2].isalpha()


def _drop_in_word(text: str) -> str:
    """`_MARKUP` runs with a letter right before and right after them dropped."""

    def drop(match: re.Match[str]) -> str:
        start, end = match.span()
        before = start > 0 and text[start - 1].isalpha()
        after = end < len(text) and text[end].isalpha()
        # a highlight's `==` marks open or close on a word (`==Exfil==trate the ==API== keys`)
        return "" if (before and after) or (match.group(0) == "==" and (before or after)) else match.group(0)

    return _MARKUP.sub(drop, text)


def _joined(match: re.Match[str]) -> str:
    """`c u r l` → `curl`; `E.C.H.O` → `echo` (lowercase: a shouted word is read as an HTTP method)."""
    return match.group(0)[::2].lower()


def _fold_leet(text: str, table: dict[int, str] = LEET) -> str:
    """Each word (a run of word characters and `@$!`) that holds a digit or `@$!` read by `_leet`: the
    words are found from those characters (rare in prose), not by reading every word."""
    pieces: list[str] = []
    last = 0
    for found in _FOLDABLE.finditer(text):
        start = found.start()
        if start < last:
            continue  # in the word just folded
        while start > last and (text[start - 1].isalnum() or text[start - 1] in "_@$!"):
            start -= 1
        end = _WORD_ON.match(text, found.end()).end()  # type: ignore[union-attr]  # it matches ""
        pieces += [text[last:start], _leet(text[start:end], table)]
        last = end
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def _leet(word: str, table: dict[int, str] = LEET) -> str:
    if (
        word.isdigit()
        or word.startswith(("0x", "0X"))
        or _RULE_CODE.fullmatch(word)
        or not _HAS_DIGIT.search(word)
        or not _HAS_LETTER.search(word)
    ):
        return word
    inner = word[0] + word[1:-1].translate(_LEET_INNER) + word[-1] if len(word) > 2 else word
    return inner.translate(table)


# What `run_reading` cannot see: marks whose removal joins two pieces into one word, tags, and letters
# past ASCII (confusables, `·` and `•` between spaced letters).
_JOINING_MARKS = (
    "*",
    "~~",
    "``",
    "<",
    "==",
    "++",
    "^^",
    "__",
    "[](",
    "|\\|",
    "/\\/",
    "\\/",
    "|-|",
    "|_|",
    "|)",
    "|<",
)
_WORDY_PAST_ASCII = re.compile(r"[^\W\x00-\x7f]|[·•]")
# Each ASCII byte as a letter or digit (`a`) or anything else (`s`): two single letters with anything
# but a letter or digit between them (`c u`, `e.g`, `x _a`) are where letter-spacing may be joined.
_CLASSES = bytes(ord("a") if chr(b).isalnum() else ord("s") for b in range(128)) + b"s" * 128
_SPACED_CLASSES = re.compile(rb"sas+as")


def joining_marks(text: str) -> Iterator[tuple[int, int]]:
    """Where `canonical` may make one word of pieces that stand apart in `text`: emphasis, strike and
    split code spans dropped, tags dropped, confusables folded, single letters joined (two with
    anything but a letter or digit between them: `c u`, `e.g`, `x _a`). A part of `text` none of
    these touches (and whose ends are no letters or digits) is read by the canonical reading one run
    of word characters at a time (`run_reading`)."""
    for mark in _JOINING_MARKS:
        at = text.find(mark)
        while at >= 0:
            yield at, at + len(mark)
            at = text.find(mark, at + 1)
    if "`" in text:
        yield from (m.span() for m in _CODE_IN_WORD.finditer(text))
        yield from (m.span() for m in _CODE_ENDS_WORD.finditer(text))
    if "-" in text:
        yield from (m.span() for m in _HYPHEN_BREAK.finditer(text))
    if "'" in text:  # a contraction's digit (`d0n'7`), which `canonical` reads as a letter
        yield from (m.span() for m in _CONTRACTION_MARK.finditer(text))
    if not text.isascii():
        yield from (m.span() for m in _WORDY_PAST_ASCII.finditer(text))
    classes = text.encode("ascii", "replace").translate(_CLASSES)
    yield from ((m.start() - 1, m.end() - 1) for m in _SPACED_CLASSES.finditer(b"s" + classes + b"s"))


def joins_words(text: str) -> bool:
    """Whether `canonical(text)` may make a word `run_reading` does not see (`joining_marks`)."""
    return next(joining_marks(text), None) is not None


def run_reading(run: str, table: dict[int, str] = LEET) -> str:
    """`canonical` of one run of word characters and `@$!+/=-` (no space in it) in a text where
    nothing joins it to its neighbours (`joins_words` is False): emphasis underscores dropped,
    leetspeak folded (`table`: `LEET`, or `LEET_L` for the second reading's `1` as `l`)."""
    out = _UNDERSCORE_EMPHASIS.sub("", run) if "_" in run else run
    return _fold_leet(out, table)


@lru_cache(maxsize=16)  # the quick look and the readings ask for the same text's, one after the other
def canonical(text: str) -> str:
    """The canonical reading of `text` (see the module's docstring); the text itself when nothing
    changes."""
    undisguised = _undisguised(text)
    folded = _fold_leet(undisguised)
    if folded != undisguised and "4" in folded:
        folded = _LONE_FOUR.sub("a", folded)  # `w1th0ut 4 r3v13w`: a lone 4 among leetspeak is the article
    if folded != undisguised and "'" in folded:
        # `d0n'7`, `c4n'7`: a contraction's ending written as a digit, among leetspeak
        folded = _CONTRACTION_DIGIT.sub(lambda m: m.group(0).translate(LEET), folded)
    return folded


def other_readings(text: str) -> list[str]:
    """The canonical reading's variants where a disguise reads two ways, each unlike `canonical(text)`:
    leetspeak's `1` as `l` (`ru135` → `rules`), and the text struck through dropped, as withdrawn
    (`Ign~~x~~ore`, `~~Never~~ Always…`; the first reading keeps it, as in `prev~~i~~ous`)."""
    first = canonical(text)
    found: list[str] = []
    undisguised = _undisguised(text)
    if "1" in undisguised and _LETTER_BY_1.search(undisguised):
        found.append(_fold_leet(undisguised, LEET_L))
    if "~~" in text:
        found.append(_fold_leet(_undisguised(text, struck=True)))
    return [reading for reading in dict.fromkeys(found) if reading != first]


@lru_cache(maxsize=16)
def _undisguised(text: str, *, struck: bool = False) -> str:
    """Every step of the canonical reading but leetspeak's (`struck`: text struck through dropped)."""
    out = fold_confusables(text)
    if ("|" in out or "\\/" in out) and any(drawn in out for drawn, _ in _DRAWN):
        for drawn, letter in _DRAWN:
            out = out.replace(drawn, letter)
    if "\n" in out and _SPACED_LINE_AT.search(out):
        out = _join_vertical(out)
    if "\n" in out and _LETTER_LINE_AT.search(out):
        out = _join_letter_lines(out)
    if "-" in out and _HYPHEN_BREAK.search(out):
        out = _join_hyphen_breaks(out)
    if "*" in out:
        out = _STAR_EMPHASIS.sub("", out)
    if "_" in out:
        out = _UNDERSCORE_EMPHASIS.sub("", out)
    if "~~" in out:
        out = _STRIKE.sub("", _STRUCK.sub("", out) if struck else out)
    if "`" in out:
        out = _CODE_ENDS_WORD.sub(r"\1", _CODE_IN_WORD.sub(r"\1", out))
    if any(mark in out for mark in _MARKUP_MARKS):
        out = _drop_in_word(out)
    if "<" in out:
        out = _INLINE_TAG.sub("", out)
    if "``" in out:
        out = _JOINED_CODE.sub("", out)
    if not out.isascii() or _spaced_candidate(out):
        joined = _SPACED.sub(_joined, out)
        if joined != out and ". " in joined:
            joined = _SPACED_DOT.sub(".", joined)
        out = joined
    return _BLANKS.sub(" ", out)


# A line that is letter-spaced whole and the next one too: the only texts `_join_vertical` changes.
_SPACED_LINE_AT = re.compile(
    r"(?m)^[ \t]*[^\W\d_](?:[ ._·•-][^\W\d_])+[ \t]*\n[ \t]*[^\W\d_][ ._·•-][^\W\d_]"
)


def _join_vertical(text: str) -> str:
    """Consecutive lines each letter-spaced whole, put together on the first of them (the others left
    empty, so the text keeps its lines): a word a line is read as one sentence."""
    lines = text.split("\n")
    run: list[int] = []
    for index, line in enumerate([*lines, ""]):
        if line.strip() and _SPACED_LINE.fullmatch(line):
            run.append(index)
            continue
        if len(run) > 1:
            lines[run[0]] = "   ".join(lines[i].strip() for i in run)
            for i in run[1:]:
                lines[i] = ""
        run = []
    return "\n".join(lines)


# Three lines of one letter each: a word written down the page a letter a line.
_LETTER_LINE_AT = re.compile(r"(?m)^[ \t]*[^\W\d_][ \t]*\n[ \t]*[^\W\d_][ \t]*\n[ \t]*[^\W\d_][ \t]*$")
_LETTER_LINE = re.compile(r"[ \t]*[^\W\d_][ \t]*")


def _join_letter_lines(text: str) -> str:
    """Runs of lines of one letter each, a blank line between words, put together on the first of
    them (the others left empty, so the text keeps its lines): `i` / `g` / `n` … read as `ign…`."""
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        if not _LETTER_LINE.fullmatch(lines[index]):
            index += 1
            continue
        words, last, at = [[lines[index].strip()]], index, index + 1
        while at < len(lines):
            if _LETTER_LINE.fullmatch(lines[at]):
                words[-1].append(lines[at].strip())
                last = at
            elif lines[at].strip() or at + 1 >= len(lines) or not _LETTER_LINE.fullmatch(lines[at + 1]):
                break
            else:
                words.append([])  # a blank line between two letters: a word ends
            at += 1
        if last - index >= 2:
            lines[index] = " ".join("".join(word) for word in words)
            lines[index + 1 : last + 1] = [""] * (last - index)
        index = last + 1
    return "\n".join(lines)


def _spaced_candidate(text: str) -> bool:
    """An ASCII text where `_SPACED` may match: two single letters with a separator between."""
    return _SPACED_CLASSES.search(b"s" + text.encode("ascii").translate(_CLASSES) + b"s") is not None
