"""Language selectors in a scope: `scope: ["lang:python"]` is every Python file, wherever it lives.

A rule about a language (type hints, error handling in Go) applies to that language's files in every
folder, and listing `**/*.py` and `**/*.pyi` by hand is easy to get half right. A selector names a
language from a file-extension table (`BUILT_IN`, which a team extends with `languages:` in
homeostat.yaml) and stands for one `**/*.<ext>` glob per extension. Everything that matches scopes
(selection and its scope index, the document sections, exports into each tool's own glob syntax)
sees the globs: selectors are expanded where the corpus is built (`selection.counted_first`), so a
language rule ranks as the path-wide glob it stands for does. A selector naming no language in the
table expands to nothing and matches no file; `validate` names the file that holds it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

PREFIX = "lang:"

# Extensions without the dot; a name and its common short name are both listed (`ts`, `typescript`).
BUILT_IN: Mapping[str, tuple[str, ...]] = {
    "c": ("c", "h"),
    "cpp": ("cc", "cpp", "cxx", "hh", "hpp", "hxx"),
    "csharp": ("cs",),
    "css": ("css", "scss", "sass", "less"),
    "dart": ("dart",),
    "elixir": ("ex", "exs"),
    "go": ("go",),
    "html": ("html", "htm"),
    "java": ("java",),
    "js": ("js", "jsx", "mjs", "cjs"),
    "javascript": ("js", "jsx", "mjs", "cjs"),
    "kotlin": ("kt", "kts"),
    "markdown": ("md", "mdx"),
    "php": ("php",),
    "proto": ("proto",),
    "py": ("py", "pyi"),
    "python": ("py", "pyi"),
    "ruby": ("rb",),
    "rust": ("rs",),
    "scala": ("scala", "sc"),
    "shell": ("sh", "bash", "zsh"),
    "sql": ("sql",),
    "swift": ("swift",),
    "terraform": ("tf", "tfvars"),
    "ts": ("ts", "tsx", "mts", "cts"),
    "typescript": ("ts", "tsx", "mts", "cts"),
    "yaml": ("yaml", "yml"),
}

LANGUAGE_NAME = re.compile(r"^[a-z0-9][a-z0-9+#._-]*$")
EXTENSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")


def is_selector(glob: str) -> bool:
    return glob.strip().startswith(PREFIX)


def language_of(selector: str) -> str:
    """`lang:Python` → `python` (names are matched without regard to case)."""
    return selector.strip()[len(PREFIX) :].strip().lower()


def language_table(extra: Mapping[str, Iterable[str]]) -> dict[str, tuple[str, ...]]:
    """The built-in table with a team's `languages:` added: a new name is a new language, a known
    one gains the extensions listed (never loses its own). Extensions are kept without a leading dot."""
    table = {name: tuple(exts) for name, exts in BUILT_IN.items()}
    for name, exts in extra.items():
        key = name.strip().lower()
        added = [e.strip().lstrip(".") for e in exts if e.strip().lstrip(".")]
        table[key] = tuple(dict.fromkeys([*table.get(key, ()), *added]))
    return table


def language_globs(language: str, table: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The globs a language stands for (empty for a name the table lacks)."""
    return tuple(f"**/*.{ext}" for ext in table.get(language, ()))


def expand_scope(scope: Iterable[str], table: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The scope with each selector replaced by its language's globs, in order, each glob once. A
    scope with no selector comes back as the same tuple (most do: nothing is copied for them)."""
    globs = tuple(scope)
    if not any(is_selector(glob) for glob in globs):
        return globs
    out: list[str] = []
    for glob in globs:
        for one in language_globs(language_of(glob), table) if is_selector(glob) else (glob,):
            if one not in out:
                out.append(one)
    return tuple(out)


def unknown_languages(scope: Iterable[str], table: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The selectors of a scope naming no language in the table, as written."""
    return [glob.strip() for glob in scope if is_selector(glob) and language_of(glob) not in table]
