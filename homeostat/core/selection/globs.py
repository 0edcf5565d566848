"""Scope globs as selection reads them: whether one matches a path, is global, how specific it is."""

from __future__ import annotations

import re

from homeostat.core.globs import MAGIC, compile_glob
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any


_MATCHERS: dict[str, Any] = {}


_MAGIC = MAGIC  # every session uses it


def glob_matches(pattern: str, path: str) -> bool:
    """wcmatch globstar matching, compiled once per glob; a glob whose literal start cannot match
    is rejected without compiling (a KB has hundreds of distinct globs, a session touches a few files)."""
    magic = _MAGIC.search(pattern)
    literal = pattern[: magic.start()] if magic else pattern
    literal = literal.removeprefix("./")
    if magic is None:
        return literal == path
    if not path.startswith(literal):
        return False
    matcher = _MATCHERS.get(pattern)
    if matcher is None:
        matcher = _MATCHERS[pattern] = compile_glob(pattern.removeprefix("./"))
    return bool(matcher.match(path))


def is_global(pattern: str) -> bool:
    """A glob for any folder: `**`, `**/*.py`. (`*.md` matches files at the repo's root only.)"""
    return pattern.removeprefix("./").startswith("**")


def specificity(pattern: str) -> tuple[int, int]:
    """(literal leading folders, literal characters): `src/api/**/*.py` is narrower than `src/**`."""
    text = pattern.removeprefix("./")
    parts = text.split("/")
    folders = 0
    for part in parts[:-1]:
        if _MAGIC.search(part):
            break
        folders += 1
    literal = len(re.sub(r"[*?\[\]{}!]", "", text))
    return folders, literal
