"""Document sections a session gets: those naming or covering the touched files, within their budget."""

from __future__ import annotations

from collections.abc import Sequence

from homeostat.core.selection.audience import Audience
from homeostat.core.selection.budget import Cut
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import SectionEntry
from homeostat.core.selection.globs import glob_matches
from homeostat.core.selection.rank import NEARBY, OUTRIGHT, is_folder_ref, naming
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


def section_names(section: SectionEntry, touched: Sequence[str]) -> int:
    """2 when the section names a touched file, 1 a folder holding one, else 0."""
    best = 0
    for ref in section.refs:
        for path in touched:
            relation = naming(ref, path)
            if relation == OUTRIGHT:
                return 2
            if is_folder_ref(ref) and relation == NEARBY:
                best = 1
    return best


def select_sections(corpus: Corpus, touched: Sequence[str], audience: Audience) -> list[SectionEntry]:
    """Document sections that name a touched path (a file outright first, then a folder holding one)."""
    if not touched:
        return []
    found: list[tuple[int, int, SectionEntry]] = []
    for order, section in enumerate(corpus.sections):
        if not audience.sees(section.area, corpus):
            continue
        strength = section_names(section, touched)
        if strength:
            found.append((-strength, order, section))
    return [s for _, _, s in sorted(found, key=lambda f: (f[0], f[1]))]


def covering_documents(corpus: Corpus, touched: Sequence[str], audience: Audience) -> dict[str, set[str]]:
    """Area → ids of the visible documents whose scope covers a touched path (all of them with none)."""
    found: dict[str, set[str]] = {}
    for section in corpus.sections:
        if not audience.sees(section.area, corpus):
            continue
        if touched and not any(glob_matches(g, p) for g in section.scope for p in touched):
            continue
        found.setdefault(section.area, set()).add(section.doc_id)
    return found


def fit_sections(
    sections: Sequence[SectionEntry], tokens: int, chars: int
) -> tuple[list[SectionEntry], list[Cut]]:
    """Whole sections only, in order; one that does not fit never blocks a smaller one after it."""
    kept: list[SectionEntry] = []
    cut: list[Cut] = []
    used_tokens = used_chars = 0
    for section in sections:
        if used_tokens + section.tokens <= tokens and used_chars + len(section.view) <= chars:
            kept.append(section)
            used_tokens += section.tokens
            used_chars += len(section.view)
        else:
            cut.append(Cut(section.key, "section", "over the document budget", section.area))
    return kept, cut
