"""What another tool remembered, as entries that can become pending lessons (`learn --from`).

Claude Code's auto memory and CodeRabbit's learnings are each read into `Entry`s by their own
module; this one holds what they share: the entry itself, fitting its text into a rule's word limits
without losing any of it, and the sentence that says where an entry came from when it gives no
reason of its own. Nothing here decides where an entry goes or whether it may: `learn`'s own checks
and the daily run do that.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from homeostat.core.schema import RULE_WORD_LIMIT, WHY_WORD_LIMIT
from homeostat.core.text import count_words

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")
_WIKI_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_PATH = re.compile(
    r"(?<![\w/.-])((?:[\w.-]+/)+[\w.*-]*|[\w-]+\.(?:py|ts|tsx|js|jsx|go|rb|java|kt|rs|sql|ya?ml|json|toml))"
)


class EntryTooLong(ValueError):
    """The entry's text cannot be one rule: its message says why, to show beside the entry."""


@dataclass(frozen=True)
class Entry:
    """One remembered thing: where it is (`origin`, `file:line`), its text, and what it names."""

    origin: str
    title: str = ""
    text: str = ""  # the instruction, as remembered
    why: str = ""  # the reason it gives, if any
    kind: str = ""  # the tool's own label for it (Claude's memory type), for the preview
    hints: tuple[str, ...] = ()  # file names and headings it sits under: which topic it belongs to
    paths: tuple[str, ...] = ()  # code paths it names: which area it belongs to
    repo: str | None = None  # the KB repo it belongs to, when the tool says (CodeRabbit)
    url: str = ""  # a review comment or PR in one of the KB's code repos it was taught in
    skip: str = ""  # why it is not a lesson at all (a user memory, an index line)
    foreign_repo: str = ""  # the repository the tool names, when the KB lists no such code repo


def plain(text: str) -> str:
    """One line of text: `[[memory-links]]` as their names, runs of whitespace as one space."""
    return " ".join(_WIKI_LINK.sub(r"\1", text).split())


def sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE.split(plain(text)) if part]


def named_paths(text: str) -> tuple[str, ...]:
    """Code paths a note names (`src/billing/api/errors.py`; a folder, `migrations/`, as a file in
    it), for its area."""
    found = (match.group(1).rstrip(".") for match in _PATH.finditer(text))
    return tuple(dict.fromkeys(f"{path}x" if path.endswith("/") else path for path in found))


def fit(text: str, why: str) -> tuple[str, str]:
    """(rule, why) within the word limits, every word kept: the whole sentences that fit the rule,
    the rest moved to the front of the why. Raises EntryTooLong when that cannot be done."""
    rule, reason = plain(text), plain(why)
    if count_words(rule) > RULE_WORD_LIMIT:
        parts = sentences(rule)
        kept: list[str] = []
        while parts and count_words(" ".join([*kept, parts[0]])) <= RULE_WORD_LIMIT:
            kept.append(parts.pop(0))
        if not kept:
            raise EntryTooLong(
                f"its first sentence has {count_words(parts[0])} words (a rule holds {RULE_WORD_LIMIT}): "
                "teach it by hand with homeostat learn"
            )
        rule, reason = " ".join(kept), " ".join([*parts, reason]).strip()
    if count_words(reason) > WHY_WORD_LIMIT:
        raise EntryTooLong(
            f"it has {count_words(rule) + count_words(reason)} words, more than a rule and its why hold "
            f"({RULE_WORD_LIMIT} and {WHY_WORD_LIMIT}): teach it by hand with homeostat learn"
        )
    return rule, reason
