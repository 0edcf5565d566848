"""What a field written on one frontmatter line must be, for the schema, the fast reader and every
surface alike (`core.served` shows only what passes it)."""

from __future__ import annotations

import re
import unicodedata

# Characters that end a line or control a terminal: none belongs in a title, a glob or an id.
_BREAKING = frozenset({"Cc", "Zl", "Zp"})


def single_line(value: str, *, tab: bool = False) -> bool:
    """No newline, carriage return, other control character or line separator (nor a tab, unless
    `tab`): what a field an exporter writes on one frontmatter line must be."""
    return value.isprintable() or not any(
        unicodedata.category(c) in _BREAKING and not (tab and c == "\t") for c in value
    )


# A `#` at a glob's start or after a blank starts a comment wherever the glob is written as plain YAML
# (a Cursor rule's `globs:`, Copilot's `applyTo:`): what follows it would be hidden there, and no
# path a glob matches needs one so placed.
_COMMENT = re.compile(r"(?:^|\s)#")


def is_glob(value: str) -> bool:
    """A scope glob: one line (`single_line`, no tab), not blank, no `#` that would start a comment."""
    return bool(value.strip()) and single_line(value) and _COMMENT.search(value) is None
