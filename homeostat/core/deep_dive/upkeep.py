"""What ages: rules unconfirmed for `scoring.staleAfterDays`, areas with rules but no covering
document, and document sections not updated within the same window. Stale rules are retired (and
their citations retracted); the documents' gaps are only noted, for a person."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from homeostat.core.config import CORE_AREA, Config
from homeostat.core.daily.consolidate import scopes_overlap
from homeostat.core.kb import KB
from homeostat.core.schema import Document, Rule


def stale_rules(
    rules: Sequence[Rule], today: dt.date, days: int, confirmed: Mapping[str, dt.date] | None = None
) -> list[Rule]:
    """Rules whose `lastConfirmed` (or the later date in `confirmed`, a merged duplicate's) is more
    than `days` before today, oldest first."""
    cutoff = today - dt.timedelta(days=days)
    when = {
        r.id: max(r.meta.last_confirmed, (confirmed or {}).get(r.id, r.meta.last_confirmed)) for r in rules
    }
    return sorted((r for r in rules if when[r.id] < cutoff), key=lambda r: (when[r.id], r.id))


@dataclass(frozen=True)
class CoverageNote:
    kind: Literal["no-document", "stale-section"]
    area: str
    rules: int = 0  # no-document: the area's rules in force
    doc: str = ""  # stale-section: which section, and when it was last updated
    section: str = ""
    updated: str = ""


def coverage_notes(
    kb: KB, config: Config, rules: Sequence[Rule], today: dt.date, days: int
) -> list[CoverageNote]:
    return no_document(kb, config, rules) + stale_sections(kb.documents, today, days)


def no_document(kb: KB, config: Config, rules: Sequence[Rule]) -> list[CoverageNote]:
    """Areas with rules in force and no document of their own or whose scope reaches their paths
    (core is covered only by a core document)."""
    counts = Counter(r.area for r in rules)
    notes: list[CoverageNote] = []
    for area, n in sorted(counts.items()):
        found = config.area(area)
        paths = found.paths if found is not None and area != CORE_AREA else ()
        if not any(_covers(document, area, paths) for document in kb.documents):
            notes.append(CoverageNote("no-document", area, rules=n))
    return notes


def _covers(document: Document, area: str, paths: Sequence[str]) -> bool:
    """Its own area's document, or one in the same repo whose scope reaches the area's paths (globs
    of different repos never meet: `services/**` in two repos are different folders)."""
    if document.meta.area == area:
        return True
    same_repo = _repo(document.meta.area) == _repo(area)
    return (
        same_repo and bool(document.meta.scope) and bool(paths) and scopes_overlap(document.meta.scope, paths)
    )


def _repo(area: str) -> str:
    return area.split("/", 1)[0] if "/" in area else ""


def stale_sections(documents: Sequence[Document], today: dt.date, days: int) -> list[CoverageNote]:
    """Sections whose provenance `updated` (else the document's) is past the stale window."""
    cutoff = today - dt.timedelta(days=days)
    notes: list[CoverageNote] = []
    for document in sorted(documents, key=lambda d: d.doc_id):
        for section in document.sections:
            updated = _date(section.provenance.updated if section.provenance else "") or document.meta.updated
            if updated < cutoff:
                notes.append(
                    CoverageNote(
                        "stale-section",
                        document.meta.area,
                        doc=document.doc_id,
                        section=section.id,
                        updated=updated.isoformat(),
                    )
                )
    return notes


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        return None
