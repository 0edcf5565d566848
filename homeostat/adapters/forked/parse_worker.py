"""Reading part of a large KB's rule files in a forked child, beside this process reading the rest.

A cold rebuild at 20,000 rules spends most of its time parsing the KB (about 1.5 s of 2.5), one file
at a time, while the second core waits: the counting child (`count_worker`) has only the tokenizer
to load until the texts are ready. So once the KB's files are read, a second child is forked with
them in memory, parses the last rule files (about a third of their text, `child_share`) and sends back
what the corpus build takes from each rule and each unreadable section (`core.selection.corpus_rows`), as a
marshal of plain tuples, with the search index of the rules it read (`corpus_rows.indexed_rows`:
their texts are the last the build indexes, so the index goes in whole). This process parses the
rest meanwhile, then builds the corpus from both.
The cached corpus is written in a form that depends on its values alone (`corpus_cache._dumped`),
so it is the same to the byte whichever process read which file; tests/adapters/forked/test_parse_worker.py holds
the two builds equal.

When anything goes wrong on the child's side (it fails, dies, or sends what does not unmarshal into
rows for its files) this process parses those files itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from homeostat.adapters.forked.answer import answer, fork_answering, reaped, send_and_leave
from homeostat.core.kb import CONFIG_FILE, classify, parse_file
from homeostat.core.records import Record
from homeostat.core.selection.corpus_rows import (
    FileRows,
    RuleRow,
    indexed_rows,
    rows_data,
    rows_from_data,
    rule_row,
    served_rows,
)
from homeostat.core.selection.entries import Entry
from homeostat.core.selection.index import IndexedRules

# Below this much Markdown text (in characters; about 1,500 rules) a second parser saves less than
# it costs to start and to hear from.
PARSE_MIN_BYTES = 1_000_000
# The child's share of the rule files' text: about a third, as it starts after this process, indexes
# what it read and takes a moment to send it (at 20,000 rules, 0.35 has the two done together; at
# 0.45, before the child indexed its share, this process waited ~0.6 s for it).
CHILD_SHARE = 0.35


def child_share(files: Mapping[str, str | bytes]) -> list[str]:
    """The rule files (not documents) the child reads: the last ones by path, about `CHILD_SHARE` of
    the Markdown text; none for a KB with less than `PARSE_MIN_BYTES` of it, or with a KB file that
    is not UTF-8 (the loader reports those first, before the files in path order). Only the files
    taken are classified: this runs before the child can start."""
    if any(not isinstance(text, str) and (p == CONFIG_FILE or classify(p)) for p, text in files.items()):
        return []
    markdown = sorted(p for p in files if p.endswith(".md"))
    total = sum(len(files[p]) for p in markdown)
    if total < PARSE_MIN_BYTES:
        return []
    taken: list[str] = []
    size = 0
    for path in reversed(markdown):
        if size >= CHILD_SHARE * total:
            break
        kind = classify(path)
        if kind is not None and kind[0] == "rule":
            taken.append(path)
            size += len(files[path])
    return taken[::-1]


class Apart(Record):
    """What the child sends: its files' rows and the index of the rules it read."""

    rows: list[FileRows]
    indexed: IndexedRules


def read_rows(files: Mapping[str, str | bytes], paths: Sequence[str]) -> list[FileRows]:
    """Each of `paths` read as `load_kb` reads it, as the rows the corpus build takes from it."""
    out: list[FileRows] = []
    for path in paths:
        text = files[path]
        assert isinstance(text, str)  # `child_share` takes text only
        parsed = parse_file(path, text)
        out.append((path, [rule_row(rule) for rule in parsed.rules], [u.row() for u in parsed.unreadable]))
    return out


@contextmanager
def parse_apart(
    files: Mapping[str, str | bytes], paths: Sequence[str]
) -> Iterator[Callable[[], Apart | None]]:
    """Read `paths` of `files` in a forked child; the function given waits for their rows and index
    (None when the child could not give them: read them here). No child for no paths."""
    if not paths:
        yield lambda: None
        return
    worker = _Parser(files, paths)
    try:
        yield worker.received
    finally:
        worker.close()


class _Parser:
    def __init__(self, files: Mapping[str, str | bytes], paths: Sequence[str]) -> None:
        self.paths = list(paths)
        self.pid, self.done = fork_answering(lambda done_write: _child(files, self.paths, done_write))

    def received(self) -> Apart | None:
        pid, done, self.pid, self.done = self.pid, self.done, 0, -1
        sent = answer(pid, done) if done >= 0 else None
        return None if sent is None else _checked(sent[0], self.paths)

    def close(self) -> None:
        """Stop the child if it is still at work (the build failed) and wait for it."""
        if self.done >= 0:
            os.close(self.done)
            self.done = -1
        if self.pid:
            try:
                os.kill(self.pid, 9)
            except OSError:
                pass
            pid, self.pid = self.pid, 0
            reaped(pid)


_FIELDS = len(RuleRow._fields)
_ENTRY_FIELDS = len(Entry._fields)


def _row_data(row: Any) -> bool:
    """A row as `rows_data` makes it: a plain tuple of RuleRow's length whose entry is a plain tuple too."""
    return (
        type(row) is tuple and len(row) == _FIELDS and type(row[0]) is tuple and len(row[0]) == _ENTRY_FIELDS
    )


def _checked(sent: Any, paths: list[str]) -> Apart | None:
    """The child's rows and index, when they are rows for exactly the files it was given, in order,
    and an index of as many rules as those files serve."""
    if type(sent) is not tuple or len(sent) != 2:
        return None
    found, indexed = sent
    if type(found) is not list or len(found) != len(paths):
        return None
    out: list[FileRows] = []
    for item, path in zip(found, paths, strict=True):
        if type(item) is not tuple or len(item) != 3 or item[0] != path:
            return None
        _, rows, unreadable = item
        if type(rows) is not list or not all(_row_data(r) for r in rows):
            return None
        if type(unreadable) is not list or any(type(u) is not tuple or len(u) != 4 for u in unreadable):
            return None
        out.append((path, rows_from_data(rows), unreadable))
    if type(indexed) is not tuple or len(indexed) != 3:
        return None
    postings, lengths, terms = indexed
    if type(postings) is not dict or type(lengths) is not list or type(terms) is not dict:
        return None
    if len(lengths) != len(served_rows((rows, unread) for _, rows, unread in out)):
        return None
    if any(type(flat) is not list for flat in postings.values()):
        return None
    return Apart(out, indexed)


def _child(files: Mapping[str, str | bytes], paths: list[str], done_write: int) -> None:
    """The forked child: read its files, send their rows and their index, and leave."""

    def rows_and_index() -> tuple[list[tuple[str, Any, Any]], Any]:
        found = read_rows(files, paths)
        rows = [(path, rows_data(read), unreadable) for path, read, unreadable in found]
        return rows, indexed_rows(found)

    send_and_leave(done_write, rows_and_index)
