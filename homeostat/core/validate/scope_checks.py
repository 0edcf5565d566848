"""Scopes name languages the KB knows: a `lang:` selector outside the table matches no file at all.

A misspelt selector (`lang:pyhton`) would leave its rule served nowhere and exported with no path,
with nothing to say so; the table is the built-in one with homeostat.yaml's `languages` added.
"""

from __future__ import annotations

from homeostat.core.config import Config
from homeostat.core.findings import Finding, error
from homeostat.core.kb import KB
from homeostat.core.languages import unknown_languages

CHECK = "config"


def check_languages(kb: KB, config: Config) -> list[Finding]:
    """One error per rule or document whose scope names a language the table lacks."""
    table = config.language_table()
    known = ", ".join(sorted(table))
    found: list[Finding] = []

    def named(file: str, line: int, what: str, scope: tuple[str, ...]) -> None:
        unknown = unknown_languages(scope, table)
        if unknown:
            shown = ", ".join(repr(s) for s in unknown)
            found.append(
                error(
                    CHECK,
                    file,
                    line,
                    f"scope {shown} names no language ({what}); use one of {known}, or add it under languages in homeostat.yaml",
                )
            )

    for rule in kb.rules:
        named(rule.file, rule.line, f"rule {rule.id}", rule.meta.scope)
    for document in kb.documents:
        named(document.file, 1, f"document {document.doc_id}", document.meta.scope)
    return found
