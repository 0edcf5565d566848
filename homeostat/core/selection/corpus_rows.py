"""What the corpus build takes from each rule, as plain data (`RuleRow`).

The build reads a rule's fields, its two rendered forms and the file names it mentions, and nothing
else of it. Held as strings, tuples, booleans and integers, a row made in another process (the cold
rebuild reads part of the KB in a forked child, `adapters.forked.parse_worker`) crosses a pipe as a marshal
and gives the build the values one process would have given it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from homeostat.core.kb import unserved
from homeostat.core.records import Record
from homeostat.core.render.rule import rule_view_parts
from homeostat.core.scoring import ScoreKey
from homeostat.core.selection.entries import Entry
from homeostat.core.selection.index import IndexedRules, index_texts, rule_text
from homeostat.core.selection.terms import file_refs, strip_hidden
from homeostat.core.served import served_meta

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from homeostat.core.kb import KB
    from homeostat.core.schema import Rule

UnreadableRow = tuple[str, int, str, tuple[str, ...]]  # `Unreadable.row`
# One KB file read elsewhere: its path, its rules' rows and its unreadable parts' rows
FileRows = tuple[str, list["RuleRow"], list[UnreadableRow]]


class RuleRow(Record):
    """A rule's entry as the row stage knows it, and what the build still needs to finish it: the entry's
    scope is as written (the build expands it), its owner the rule's own (the build falls back to its
    area's), its score and token counts 0."""

    entry: Entry  # its view is the rule-only view (`short`) and what the whole view adds (`rest`)
    score_key: ScoreKey
    contradicts: tuple[str, ...]
    rule: str  # the rule's text as written, to tell a pending lesson that landed already

    @property
    def rest(self) -> str:
        """What the whole view adds to the rule-only view: counted apart, as the view's tail."""
        return self.entry.view[len(self.entry.short) :]


def rule_row(rule: Rule) -> RuleRow:
    """The row of a rule: what selection, search and every surface read of it, as `core.served` gives
    it (its score's inputs as they stand: they are not shown)."""
    meta, source = rule.meta, rule.meta.source
    shown = served_meta(meta)
    short, rest = rule_view_parts(rule)
    clean = strip_hidden(short)
    entry = Entry(
        id=meta.id,
        title=shown.title,
        area=shown.area,
        topic=shown.topic or "",
        scope=shown.scope,
        kind=meta.kind or "",
        adopted=meta.adopted,
        status=meta.status,
        score=0,
        refs=file_refs(f"{shown.title}\n{short}{rest}"),
        view=clean + strip_hidden(rest),
        short=clean,
        tokens=0,
        short_tokens=0,
        file=rule.file,
        owner=shown.owner,
    )
    score_key = (source.type, source.changed_code, source.author, len(meta.contradicts), len(meta.open_flags))
    return RuleRow(entry, score_key, meta.contradicts, rule.rule)


def rows_data(rows: Iterable[RuleRow]) -> list[tuple[Any, ...]]:
    """The rows as plain tuples, their entries too, which marshal writes (it writes no tuple subclass)."""
    return [(tuple(row.entry), *row[1:]) for row in rows]


def rows_from_data(data: Iterable[tuple[Any, ...]]) -> list[RuleRow]:
    new = tuple.__new__
    return [new(RuleRow, (new(Entry, row[0]), *row[1:])) for row in data]


ByFile = dict[str, tuple[list[RuleRow], list[UnreadableRow]]]


def rows_by_file(kb: KB) -> ByFile:
    """Each file's rules' rows and unreadable parts' rows, of a KB loaded without some of its rule
    files (read elsewhere, `merged_rows`)."""
    by_file: ByFile = {}
    for rule in kb.rules:
        by_file.setdefault(rule.file, ([], []))[0].append(rule_row(rule))
    for unreadable in kb.unreadable:
        by_file.setdefault(unreadable.file, ([], []))[1].append(unreadable.row())
    return by_file


def merged_rows(here: ByFile, apart: Sequence[FileRows]) -> tuple[list[RuleRow], list[UnreadableRow]]:
    """Every rule's row and every unreadable part's row in `load_kb`'s order (by file path, then as
    the file holds them), from the files read here (`rows_by_file`) and those read elsewhere. Every
    unreadable part read here is one of its files': none is there for not being UTF-8 (those
    `load_kb` puts first)."""
    by_file = dict(here)
    for path, rows, unread in apart:
        if path in by_file:
            raise ValueError(f"{path}: read twice")
        by_file[path] = (rows, unread)
    all_rows: list[RuleRow] = []
    all_unreadable: list[UnreadableRow] = []
    for path in sorted(by_file):
        rows, unread = by_file[path]
        all_rows += rows
        all_unreadable += unread
    return all_rows, all_unreadable


def served_head(here: ByFile, first: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
    """The texts the corpus build counts first (`ToCount.rules`) of the rules read here, where the
    files read elsewhere come after these in path order: each served rule's rule-only view and what
    its whole view adds, in `merged_rows`' order, less the rules of an unreadable part (served from
    nowhere, as `counted_first` leaves them out) and, with `first`, those of the areas it leaves
    for later (`counted_first`)."""
    served = served_rows(here[path] for path in sorted(here))
    return [(row.entry.short, row.rest) for row in served if first is None or first(row.entry.area)]


def served_rows(found: Iterable[tuple[list[RuleRow], list[UnreadableRow]]]) -> list[RuleRow]:
    """The rules the corpus serves of files' rows, in order: a rule of an unreadable part is served
    from nowhere (`counted_first` leaves it out; `unserved` is of the file's own parts)."""
    out: list[RuleRow] = []
    for rows, unread in found:
        broken = unserved(unread)
        out += [row for row in rows if not broken or (row.entry.file, row.entry.id) not in broken]
    return out


def indexed_rows(found: Sequence[FileRows]) -> IndexedRules:
    """The index of the served rules of files read elsewhere, which come last among the KB's rules
    (`counted_first`'s `indexed`), made where they were read."""
    return index_texts(
        [rule_text(row.entry.title, row.entry.view) for row in served_rows((r, u) for _, r, u in found)]
    )
