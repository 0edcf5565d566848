"""Fitting the ranked rules into the token budget, by group, saying what was cut and why."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from homeostat.core.records import Record
from homeostat.core.selection.entries import Entry
from homeostat.core.selection.rank import Ranked
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


class Placed(Record):
    ranked: Ranked
    form: str  # "full" or "rule-only"

    @property
    def entry(self) -> Entry:
        return self.ranked.entry

    @property
    def text(self) -> str:
        return self.entry.view if self.form == "full" else self.entry.short

    @property
    def tokens(self) -> int:
        return self.entry.tokens if self.form == "full" else self.entry.short_tokens


class Cut(Record):
    """Something left out of a view, and why; every cut is reported (`--explain`, JSON, MCP)."""

    id: str
    what: str  # "rule" or "section"
    reason: str
    area: str = ""
    topic: str = ""


class Fitted(Record):
    placed: tuple[Placed, ...]
    cut: tuple[Cut, ...]
    tokens: int
    chars: int


def group_of(entry: Entry) -> str:
    """The kind group a rule renders under; rejected decisions get their own."""
    if entry.rejected:
        return "rejected"
    return entry.kind or "rule"


def fit_rules(
    ranked: Sequence[Ranked], tokens: int, chars: int, group_cost: Callable[[str], tuple[int, int]]
) -> Fitted:
    """Greedy in rank order: whole, else rule-only, else cut; a rule that does not fit never blocks a
    smaller one after it. A group's guidance line is paid by the first rule placed in it."""
    placed: list[Placed] = []
    cut: list[Cut] = []
    used_tokens = used_chars = 0
    opened: set[str] = set()
    new = tuple.__new__
    for item in ranked:
        entry = item.entry
        group = group_of(entry)
        extra_tokens, extra_chars = (0, 0) if group in opened else group_cost(group)
        tokens_left, chars_left = tokens - used_tokens - extra_tokens, chars - used_chars - extra_chars
        # each size is looked at only when the one before it fits: a cached part reads it from a table
        if entry.tokens <= tokens_left and (size := entry.view_chars) <= chars_left:
            form, cost = "full", entry.tokens
        elif (size := entry.short_chars) <= chars_left and entry.short_tokens <= tokens_left:
            form, cost = "rule-only", entry.short_tokens
        else:
            reason = "over the character cap" if size > chars_left else "over the rule token budget"
            cut.append(new(Cut, (entry.id, "rule", reason, entry.area, entry.topic)))  # most rules of a tier
            continue
        used_tokens += cost + extra_tokens
        used_chars += size + extra_chars
        opened.add(group)
        placed.append(Placed(item, form))
    return Fitted(tuple(placed), tuple(cut), used_tokens, used_chars)
