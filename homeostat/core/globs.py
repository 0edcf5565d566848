"""Path globs as Homeostat uses them: `**` for any depth, `*` and `?` within a segment, `{a,b}`.

Rule scopes are matched on every session start, where importing a full glob library costs more
than the matching. The common shapes become one regex here; anything else (character classes,
negation, extended globs, escapes) goes to wcmatch with the same flags, and a test checks the two
agree on every shape this module translates.
"""

from __future__ import annotations

import re

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


_NEEDS_WCMATCH = re.compile(r"[\[\]!()@+\\]")
MAGIC = re.compile(r"[*?\[\]{}!@+()\\]")  # the characters that make a glob more than a path


def literal_start(pattern: str) -> str:
    """What every path the glob matches starts with (`selection.glob_matches`): its characters before
    the first special one, without a leading `./`. A glob with none matches that one path alone."""
    magic = MAGIC.search(pattern)
    return (pattern[: magic.start()] if magic else pattern).removeprefix("./")


def _split_top(inner: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        current += ch
    return [*parts, current]


def expand_braces(glob: str) -> list[str]:
    """`src/*.{ts,tsx}` → `src/*.ts`, `src/*.tsx` (nested groups too; a group without a comma is literal)."""
    depth, start = 0, -1
    for i, ch in enumerate(glob):
        if ch == "{":
            start = i if depth == 0 else start
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _split_top(glob[start + 1 : i])
                if len(options) > 1:
                    return [
                        x for option in options for x in expand_braces(glob[:start] + option + glob[i + 1 :])
                    ]
    return [glob]


def _segment(segment: str) -> str:
    out = []
    for ch in segment:
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _one(glob: str) -> str:
    trailing = glob.endswith("/") and glob != "/"
    segments = [s for s in glob.split("/") if s]
    parts: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            parts.append("[^/]+(?:/[^/]+)*" if last else "(?:[^/]+/)*")
        else:
            parts.append(_segment(segment) + ("" if last else "/"))
    return "".join(parts) + ("/" if trailing else "/?")  # a path may name a folder with its slash


def glob_regex(glob: str) -> str | None:
    """The regex for a glob of the common shapes, or None when wcmatch must decide."""
    if _NEEDS_WCMATCH.search(glob) or glob.count("{") != glob.count("}") or glob.startswith("/"):
        return None
    alternatives = [_one(g) for g in expand_braces(glob)]  # a group without a comma stays literal
    return "^(?:" + "|".join(alternatives) + ")$"


_COMPILED: dict[str, Any] = {}


def compile_glob(glob: str) -> Any:
    """An object with `.match(path)`: our regex, or wcmatch's matcher for the other shapes."""
    matcher = _COMPILED.get(glob)
    if matcher is None:
        regex = glob_regex(glob)
        if regex is not None:
            matcher = re.compile(regex)
        else:
            from wcmatch import glob as wcglob

            flags = wcglob.GLOBSTAR | wcglob.BRACE | wcglob.DOTGLOB | wcglob.NEGATE | wcglob.EXTGLOB
            matcher = wcglob.compile(glob, flags=flags)
        _COMPILED[glob] = matcher
    return matcher
