"""A session repo's part of the corpus as a file: what `context` and the hooks read on every call.

A part is read whole on every session start and message, and most of its bytes are the rules'
texts (their whole and rule-only views), of which a view serves a dozen, and the posting lists of
terms a session never looks up. So the file holds the part's records without them, then the texts
and the posting lists themselves: a reader loads the records and reads a rule's text or a term's
postings from the file only when asked for, through the file handle it was loaded with, so a part
rewritten or deleted meanwhile is never mixed up with the one loaded. At 10,000 rules a session
start skips 5.6 MB of strings and 1.8 MB of postings.

    PART_MAGIC, the records' length (8 bytes, little-endian), the marshalled records, the blobs

The records are `Corpus.to_data()` (with the part's `scope_index`), each rule's view field holding
its number in the part; `offsets` holds per rule the byte start and end of each of its two texts
among the blobs (UTF-8) and each text's length in characters, `postings` each term's byte range. A
value many rules share (an area, a file, a scope) is one object, so marshal writes it once (as the
whole corpus's file does).
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Mapping

from homeostat.core.selection.corpus import Corpus, Postings
from homeostat.core.selection.entries import Entry, SectionEntry
from homeostat.core.selection.scope_index import ScopeIndex
from homeostat.core.type_hints import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from typing import Any

    from homeostat.adapters.plain_files import StrPath

PART_FORMAT = 2  # part of a part file's name (`corpus_cache._part_name`): a new layout is never misread
PART_MAGIC = f"homeostat corpus part {PART_FORMAT}\n".encode()
_VIEW = Entry._fields.index("view")
_SHORT = Entry._fields.index("short")
_WIDTH = 6  # offsets per rule: view start, end and characters, rule-only start, end and characters
# The fields many rules or sections share a value of (as the whole corpus's file has them)
_SHARED_ENTRY = ("area", "topic", "scope", "kind", "status", "refs", "file", "owner")
_SHARED_SECTION = ("doc_id", "doc_title", "area", "scope", "refs", "source", "updated", "url")


def part_bytes(corpus: Corpus) -> bytes:
    """The part's file (`corpus.scopes` must be its `scope_index`)."""
    from array import array  # writing only: a session hook reads the offsets as a memoryview

    data = corpus.to_data()
    memo: dict[object, object] = {}
    shared = frozenset(Entry._fields.index(f) for f in _SHARED_ENTRY)
    texts: list[bytes] = []
    offsets = array("q")
    size = 0
    rows = []
    for number, row in enumerate(data["entries"]):
        view, short = row[_VIEW], row[_SHORT]
        encoded = view.encode("utf-8", "surrogatepass")
        start, size = size, size + len(encoded)
        texts.append(encoded)
        if view.startswith(short):  # a rule's rule-only view is the head of its whole view
            short_end = start + len(short.encode("utf-8", "surrogatepass"))
            offsets.extend((start, size, len(view), start, short_end, len(short)))
        else:
            encoded = short.encode("utf-8", "surrogatepass")
            texts.append(encoded)
            offsets.extend((start, size, len(view), size, size + len(encoded), len(short)))
            size += len(encoded)
        rows.append(
            tuple(
                number if i == _VIEW else None if i == _SHORT else memo.setdefault(v, v) if i in shared else v
                for i, v in enumerate(row)
            )
        )
    data["entries"] = rows
    in_sections = frozenset(SectionEntry._fields.index(f) for f in _SHARED_SECTION)
    data["sections"] = [
        tuple(memo.setdefault(v, v) if i in in_sections else v for i, v in enumerate(row))
        for row in data["sections"]
    ]
    spans: dict[str, tuple[int, int]] = {}
    for term, packed in data.pop("postings").items():
        spans[term] = (size, size + len(packed))
        texts.append(packed)
        size += len(packed)
    data["postings"] = {}  # read from the file when looked up (`_StoredPostings`)
    assert corpus.scopes is not None, "a part is cut with its scope index"
    head = {
        "corpus": data,
        "scopes": corpus.scopes.to_data(),
        "offsets": offsets.tobytes(),
        "postings": spans,
    }
    raw = marshal.dumps(head)
    return b"".join([PART_MAGIC, len(raw).to_bytes(8, "little"), raw, *texts])


class _Texts:
    """A loaded part's texts, read from its file by byte range when first asked for."""

    __slots__ = ("_file", "_base", "_offsets", "_read")

    def __init__(self, file: Any, base: int, offsets: memoryview) -> None:
        self._file = file
        self._base = base
        self._offsets = offsets
        self._read: dict[int, str] = {}

    def text(self, at: int) -> str:
        found = self._read.get(at)
        if found is None:
            raw = self.raw(self._offsets[at], self._offsets[at + 1])
            found = self._read[at] = raw.decode("utf-8", "surrogatepass")
        return found

    def raw(self, start: int, end: int) -> bytes:
        self._file.seek(self._base + start)
        found: bytes = self._file.read(end - start)
        if len(found) != end - start:
            raise OSError(f"{self._file.name}: the part file is shorter than its offsets")
        return found

    def chars(self, first: int) -> memoryview:
        """Every rule's view's length in characters (`first` 0) or its rule-only view's (3)."""
        return self._offsets[first + 2 :: _WIDTH]

    def __del__(self) -> None:
        self._file.close()


class _StoredPostings(Mapping[str, bytes]):
    """A loaded part's packed posting lists (`selection.Postings` unpacks them), each read from its
    file when first looked up: a session looks up a few dozen of its part's terms."""

    def __init__(self, texts: _Texts, spans: Mapping[str, tuple[int, int]]) -> None:
        self._texts = texts
        self._spans = spans

    def __getitem__(self, term: str) -> bytes:
        start, end = self._spans[term]
        return self._texts.raw(start, end)

    def __iter__(self) -> Iterator[str]:
        return iter(self._spans)

    def __len__(self) -> int:
        return len(self._spans)

    def __contains__(self, term: object) -> bool:
        return term in self._spans


def whole_entry(entry: Entry) -> Entry:
    """The entry with its texts in its fields, as a plain `Entry`."""
    return Entry._make((*entry[:_VIEW], entry.view, entry.short, *entry[_SHORT + 1 :]))


def lazy_entry(texts: _Texts) -> type[Entry]:
    """An `Entry` class whose rules read their view and rule-only view from `texts` (their fields
    hold their number in the part); equal to, and hashed as, the plain entry it stands for. A loaded
    part is read, never written again: `whole_entry` gives a rule with its texts in its fields."""

    def view(entry: Entry) -> str:
        return texts.text(_WIDTH * cast("int", entry[_VIEW]))

    def short(entry: Entry) -> str:
        return texts.text(_WIDTH * cast("int", entry[_VIEW]) + 3)

    view_lengths, short_lengths = texts.chars(0), texts.chars(3)

    def view_chars(entry: Entry) -> int:
        return view_lengths[entry[_VIEW]]  # type: ignore[index]  # the field holds its number

    def short_chars(entry: Entry) -> int:
        return short_lengths[entry[_VIEW]]  # type: ignore[index]

    def plain(other: object) -> object:
        return tuple(whole_entry(other)) if isinstance(other, Entry) else other

    namespace = {
        "__slots__": (),
        "view": property(view),
        "short": property(short),
        "view_chars": property(view_chars),
        "short_chars": property(short_chars),
        "__eq__": lambda a, b: tuple(whole_entry(a)) == plain(b),
        "__ne__": lambda a, b: tuple(whole_entry(a)) != plain(b),
        "__hash__": lambda a: hash(tuple(whole_entry(a))),
        "__repr__": lambda a: repr(whole_entry(a)),
    }
    return cast("type[Entry]", type("Entry", (Entry,), namespace))


def read_part(path: StrPath) -> Corpus | None:
    """A cached part; None when missing, of another layout or unreadable (it is cut again)."""
    try:
        file = open(path, "rb", buffering=0)  # noqa: SIM115 - the loaded part's texts keep it open
    except OSError:
        return None
    try:
        start = len(PART_MAGIC) + 8
        lead = file.read(start)
        if len(lead) != start or not lead.startswith(PART_MAGIC):
            raise ValueError("not a part file of this layout")
        size = int.from_bytes(lead[len(PART_MAGIC) :], "little")
        head = file.read(size)
        if len(head) != size:
            raise ValueError("truncated")
        data = marshal.loads(head)
        texts = _Texts(file, start + size, memoryview(data["offsets"]).cast("q"))
        corpus = Corpus.from_data(data["corpus"], entry=lazy_entry(texts))
        postings = Postings(_StoredPostings(texts, data["postings"]))
        return corpus._replace(postings=postings, scopes=ScopeIndex.from_data(data["scopes"]))
    except (OSError, ValueError, EOFError, KeyError, IndexError, TypeError):
        file.close()
        return None
