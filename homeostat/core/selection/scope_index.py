"""A repo part's served rules grouped by scope, and the scopes by the literal start of their globs.

A session start ranks the rules whose scope matches a touched file or is global; in a large repo
most rules are scoped to folders the session never touches, and looking at each of them is most of
what selecting costs. A glob matches only paths that begin with its characters before the first
special one (`globs.literal_start`; `src/api/**` only paths under `src/api/`, `**/*.py` any path,
its literal start being empty), so the scopes worth looking at are those filed under a prefix of a
touched path (the empty one included); every other rule is in no tier, which is what
`selection.select_entries` would have found by looking. Built when a part is cut and cached with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from homeostat.core.globs import literal_start
from homeostat.core.records import Record
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from homeostat.core.selection.entries import Entry

SERVED = ("accepted", "pending")  # the statuses selection ranks; the others never reach a tier


class ScopeIndex(Record):
    scopes: tuple[tuple[str, ...], ...]  # each distinct scope of a served rule, in first-seen order
    members: tuple[tuple[int, ...], ...]  # per scope, the numbers of its served rules, in order
    literals: Mapping[str, tuple[int, ...]]  # a glob's literal start -> the scopes holding such a glob
    adopted: tuple[int, ...]  # every served adopted rule's number, in order: the untiered are these
    adopted_by_area: Mapping[str, tuple[int, ...]]  # the same by area (an audience may not see some)

    def to_data(self) -> list[Any]:
        return [self.scopes, self.members, dict(self.literals), self.adopted, dict(self.adopted_by_area)]

    @classmethod
    def from_data(cls, data: Sequence[Any]) -> ScopeIndex:
        scopes, members, literals, adopted, by_area = data
        return cls(
            tuple(tuple(s) for s in scopes),
            tuple(tuple(m) for m in members),
            {str(k): tuple(v) for k, v in literals.items()},
            tuple(adopted),
            {str(k): tuple(v) for k, v in by_area.items()},
        )


def scope_index(entries: Iterable[Entry]) -> ScopeIndex:
    numbers: dict[tuple[str, ...], int] = {}
    scopes: list[tuple[str, ...]] = []
    members: list[list[int]] = []
    adopted: list[int] = []
    by_area: dict[str, list[int]] = {}
    for doc, entry in enumerate(entries):
        if entry.status not in SERVED:
            continue
        if entry.adopted:
            adopted.append(doc)
            by_area.setdefault(entry.area, []).append(doc)
        number = numbers.get(entry.scope)
        if number is None:
            number = numbers[entry.scope] = len(scopes)
            scopes.append(entry.scope)
            members.append([])
        members[number].append(doc)
    literals: dict[str, list[int]] = {}
    for number, scope in enumerate(scopes):
        for literal in dict.fromkeys(literal_start(glob) for glob in scope):
            literals.setdefault(literal, []).append(number)
    return ScopeIndex(
        tuple(scopes),
        tuple(tuple(m) for m in members),
        {k: tuple(v) for k, v in literals.items()},
        tuple(adopted),
        {k: tuple(v) for k, v in by_area.items()},
    )


def scopes_for(index: ScopeIndex, paths: Iterable[str]) -> list[int]:
    """The scopes that may match one of the paths or are global, in their order: those filed under
    a prefix of a path, the empty one always (a global glob's literal start is empty)."""
    literals = index.literals
    found = set(literals.get("", ()))
    for path in paths:
        for end in range(1, len(path) + 1):
            hit = literals.get(path[:end])
            if hit is not None:
                found.update(hit)
    return sorted(found)
