"""Which code a rule names, and whether that code is still there: the pure half of the deep dive's
optional code check (`agents.deepDive.checkCode`).

A rule names code three ways: backticked identifiers (`useLedgerClient`, `LegacyGrid`,
`MAX_RETRIES`), file paths in its text (`src/ledger/client.ts`, `web/components/`), and scope globs
that reach past its area's own paths (`web/ledger/**`). Only distinctive identifiers count: a plain
word (`fetch`, `Money`, `theme.space`) is found everywhere, so a search for it proves nothing and
costs a request. Paths on the never-read list (env files, keys, tests, `sources.excludePaths`) and
names that look like secrets are never looked up: they are left unchecked, and a rule with an
unchecked name is never proposed.

A rule is proposed for retirement only when every name it makes was looked up and is gone from every
code repo it may apply to; one name still present, or one look-up that failed, keeps it. The run
that reads the trees and asks the host's search is `homeostat.runs.deep_dive.code_check`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from homeostat.core.bootstrap.sources import is_noise, never_read
from homeostat.core.safety.secrets import find_secrets
from homeostat.core.selection.globs import glob_matches

_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+|\]\([^)]*\)", re.I)
_IDENTIFIER = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_CALL = re.compile(r"\(.*\)$")
_PATH_CHARS = re.compile(r"^[\w.@+\-/*?{},\[\]]+$")
_BARE_PATH = re.compile(r"(?<![\w/.:@-])((?:[A-Za-z0-9_.@-]+/){1,}[A-Za-z0-9_.*@-]*)(?![\w/])")
_GLOB_MAGIC = re.compile(r"[*?\[{]")
_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_FILE_NAMES = frozenset(
    {"Dockerfile", "Makefile", "Jenkinsfile", "Procfile", "Gemfile", "Rakefile", "Containerfile", "Justfile"}
)
_EXTENSIONS = frozenset(
    """py pyi ts tsx js jsx mjs cjs go rb java kt kts rs cs php swift scala c h cc cpp hpp m mm sql
    yaml yml json toml md rst sh bash zsh tf hcl proto graphql gql css scss sass less html vue svelte
    xml gradle ini cfg conf properties ex exs erl clj dart lua r pl ipynb txt csv""".split()
)
MIN_IDENTIFIER = 4


class NameKind(StrEnum):
    IDENTIFIER = "identifier"
    PATH = "path"
    GLOB = "glob"


@dataclass(frozen=True)
class Name:
    kind: NameKind
    text: str

    def shown(self) -> str:
        return f"`{self.text}`"


@dataclass(frozen=True)
class Named:
    """What one rule (or one document section) names: the names to look up, and the names left
    unchecked (never-read paths, secret-like text), which keep the rule whatever the rest shows."""

    names: tuple[Name, ...] = ()
    unchecked: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.names or self.unchecked)


def distinctive(identifier: str) -> bool:
    """An identifier a count search can tell apart from prose: camelCase or PascalCase with two
    humps, or snake_case; at least `MIN_IDENTIFIER` characters."""
    bare = identifier.strip("_$")
    if len(bare) < MIN_IDENTIFIER:
        return False
    return bool(_CAMEL.search(bare)) or ("_" in bare and any(c.isalpha() for c in bare))


def _is_path(text: str) -> bool:
    if not _PATH_CHARS.match(text) or "//" in text:
        return False
    if "/" in text:
        return any(part for part in text.split("/"))
    if text in _FILE_NAMES:
        return True
    stem, dot, ext = text.rpartition(".")
    return bool(dot and stem and ext.lower() in _EXTENSIONS)


def _clean_path(text: str) -> str:
    return text.removeprefix("./").lstrip("/")


def names_in_text(text: str) -> list[Name]:
    """Identifiers and paths named in Markdown text, in order, each once."""
    found: dict[Name, None] = {}
    spans = _BACKTICKED.findall(text)
    for span in spans:
        span = span.strip()
        if "://" in span or " " in span:
            continue
        bare = _CALL.sub("", span)
        if bare in _FILE_NAMES:
            found[Name(NameKind.PATH, bare)] = None
        elif _is_path(bare) and not _IDENTIFIER.match(bare):
            path = _clean_path(bare)
            kind = NameKind.GLOB if _GLOB_MAGIC.search(path) else NameKind.PATH
            found[Name(kind, path)] = None
        elif _is_path(bare) and bare.rpartition(".")[2].lower() in _EXTENSIONS:
            found[Name(NameKind.PATH, _clean_path(bare))] = None  # `client.ts` is a file, not a member
        elif _IDENTIFIER.match(bare):
            for part in bare.split("."):
                if distinctive(part):
                    found[Name(NameKind.IDENTIFIER, part)] = None
    prose = _URL.sub(" ", _BACKTICKED.sub(" ", text))
    for match in _BARE_PATH.finditer(prose):
        path = _clean_path(match.group(1))
        last = path.rstrip("/").rpartition("/")[2]
        deep = path.rstrip("/").count("/") >= 2  # `and/or` is prose; `src/ledger/api` is a path
        if path.endswith("/") or deep or last.rpartition(".")[2].lower() in _EXTENSIONS:
            if _is_path(path.rstrip("/") or "x") and path.strip("/"):
                kind = NameKind.GLOB if _GLOB_MAGIC.search(path) else NameKind.PATH
                found[Name(kind, path)] = None
    return list(found)


def names_of_rule(
    text: str, scope: Sequence[str], area_paths: Sequence[str], exclude: Sequence[str] = ()
) -> Named:
    """The names a rule makes: its text's identifiers and paths, and its scope globs that have a
    literal folder and are not simply its area's own paths (those say where the area is, not what the
    rule is about)."""
    names = names_in_text(text)
    for glob in scope:
        glob = _clean_path(glob)
        magic = _GLOB_MAGIC.search(glob)
        literal = glob[: magic.start()] if magic else glob
        if glob.startswith("!") or "/" not in literal or glob in area_paths:
            continue
        name = Name(NameKind.GLOB if magic else NameKind.PATH, glob)
        if name not in names:
            names.append(name)
    return screened(names, exclude)


def screened(names: Iterable[Name], exclude: Sequence[str] = ()) -> Named:
    """Never-read paths and secret-like names are set aside unchecked: never looked up, never sent."""
    kept: list[Name] = []
    unchecked: list[str] = []
    for name in names:
        if find_secrets(name.text):
            unchecked.append(f"{name.kind.value} that looks like a secret")
        elif name.kind is not NameKind.IDENTIFIER and never_read(name.text.rstrip("/"), exclude):
            unchecked.append(f"{name.shown()} (never read: {never_read(name.text.rstrip('/'), exclude)})")
        else:
            kept.append(name)
    return Named(tuple(kept), tuple(unchecked))


GOLDEN = 0.6180339887498949


def rotation(rule_ids: Iterable[str], today: dt.date) -> list[str]:
    """The order a run looks rules up in: a fixed ring (by a hash of the id), entered each week at
    another point (the golden-ratio step), so runs that stop at the search cap cover the whole KB
    over the weeks, and a rerun in the same week checks the same rules."""
    start = (((today.toordinal() - 1) // 7) * GOLDEN) % 1.0  # ordinal 1 is a Monday: ISO weeks

    def key(rule_id: str) -> tuple[float, str]:
        place = int(hashlib.sha256(rule_id.encode()).hexdigest()[:12], 16) / float(16**12)
        return ((place - start) % 1.0, rule_id)

    return sorted(rule_ids, key=key)


# --- a code repo's file names --------------------------------------------------------------------


@dataclass(frozen=True)
class CodeTree:
    """One code repo's file names at one commit (the host's tree listing; no file is opened)."""

    repo: str  # owner/name, as the evidence names it
    sha: str
    paths: tuple[str, ...]
    truncated: bool = False  # the host listed only part of the tree: an absent path proves nothing
    _sorted: list[str] = field(default_factory=list, compare=False, repr=False)
    _by_name: dict[str, list[str]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._sorted.extend(sorted(self.paths))
        for path in self._sorted:
            for part in _parts_with_dirs(path):
                self._by_name.setdefault(part[0], []).append(part[1])

    @property
    def at(self) -> str:
        return f"{self.repo}@{self.sha[:12]}"

    def has_path(self, path: str) -> bool:
        """A file or folder of that path, at the root or deeper (`components/Button.tsx` is found as
        `web/components/Button.tsx`): a text's paths are often relative to somewhere."""
        wanted = path.strip("/")
        last = wanted.rpartition("/")[2]
        return any(full == wanted or full.endswith("/" + wanted) for full in self._by_name.get(last, ()))

    def canary(self) -> str | None:
        """A source file whose name the host's search must find if it indexes this repo at all: the
        shortest-named code file that is neither noise nor on the never-read list."""
        for path in sorted(self._sorted, key=lambda p: (p.count("/"), len(p), p)):
            name = path.rpartition("/")[2]
            if name.rpartition(".")[2].lower() in _EXTENSIONS and not is_noise(path) and not never_read(path):
                return path
        return None

    def has_glob(self, glob: str) -> bool:
        magic = _GLOB_MAGIC.search(glob)
        literal = glob[: magic.start()] if magic else glob
        start = bisect_left(self._sorted, literal)
        for path in self._sorted[start:]:
            if not path.startswith(literal):
                return False
            if glob_matches(glob, path):
                return True
        return False


def _parts_with_dirs(path: str) -> Iterable[tuple[str, str]]:
    """(last segment, path) for the file and each folder above it, so folders are found by name."""
    parts = path.split("/")
    for end in range(len(parts), 0, -1):
        yield parts[end - 1], "/".join(parts[:end])


@dataclass(frozen=True)
class CodeHits:
    """A count-only code search's answer: how many files hold the term, and the paths of the first
    page of them (names only: the search is asked for no text)."""

    total: int
    paths: tuple[str, ...] = ()

    def in_code(self, exclude: Sequence[str] = ()) -> bool:
        """Found in a file that counts as code: a hit only in never-read files (tests, env files,
        `sources.excludePaths`) is no evidence; hits past the page listed might be code, so they count."""
        if self.total > len(self.paths):
            return True
        return any(never_read(path, exclude) is None for path in self.paths)


# --- the verdict --------------------------------------------------------------------------------


class Presence(StrEnum):
    PRESENT = "present"
    GONE = "gone"
    UNKNOWN = "unknown"  # the look-up failed or was not made (request cap, truncated tree)


@dataclass(frozen=True)
class Looked:
    """One name's look-up in one repo; `why` says what was not known and why."""

    name: Name
    repo: str  # CodeTree.at
    presence: Presence
    why: str = ""


def tree_presence(name: Name, tree: CodeTree) -> Looked:
    """A path or glob against a repo's file names; absent from a truncated listing is unknown."""
    found = tree.has_glob(name.text) if name.kind is NameKind.GLOB else tree.has_path(name.text)
    if found:
        return Looked(name, tree.at, Presence.PRESENT)
    if tree.truncated:
        return Looked(name, tree.at, Presence.UNKNOWN, f"the host listed only part of {tree.repo}'s tree")
    return Looked(name, tree.at, Presence.GONE)


@dataclass(frozen=True)
class Vanished:
    """A rule (or section) whose every name is gone: the evidence, one line per name."""

    subject: str  # rule id, or <doc>#<section>
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class Undecided:
    subject: str
    why: str


def verdict(
    subject: str, named: Named, looks: Mapping[Name, Sequence[Looked]]
) -> Vanished | Undecided | None:
    """Vanished when every name was looked up in every repo and found in none; Undecided when no name
    is known to be present but one could not be looked up; None when a name is still there."""
    if not named.names:
        return None
    unknown: list[str] = [f"{u} is left unchecked" for u in named.unchecked]
    evidence: list[str] = []
    for name in named.names:
        seen = looks.get(name, ())
        if any(look.presence is Presence.PRESENT for look in seen):
            return None
        if not seen:
            unknown.append(f"{name.shown()} was not looked up")
            continue
        missing = [look for look in seen if look.presence is Presence.UNKNOWN]
        if missing:
            unknown.append(f"{name.shown()}: {missing[0].why}")
            continue
        where = ", ".join(look.repo for look in seen)
        verb = "no longer appears in" if name.kind is NameKind.IDENTIFIER else "matches nothing in"
        if name.kind is NameKind.PATH:
            verb = "is no longer in"
        evidence.append(f"{name.shown()} {verb} {where}")
    if unknown:
        return Undecided(subject, "; ".join(unknown))
    return Vanished(subject, tuple(evidence))


@dataclass
class CodeFindings:
    """What the code check found in one run, for the PR body, the JSON and the run log."""

    ran: bool = False
    trees: list[str] = field(default_factory=list)  # CodeTree.at of every repo listed
    retired: list[tuple[str, Vanished]] = field(default_factory=list)  # (rule id, evidence)
    sections: list[Vanished] = field(default_factory=list)  # <doc>#<section> naming vanished paths
    undecided: list[Undecided] = field(default_factory=list)  # left alone, and why
    notes: list[str] = field(default_factory=list)  # repo-wide: a listing or search that failed
    checked: int = 0  # rules that named code
    unsearched: int = 0  # rules left for a later run by the search cap (not listed one by one)
    searches: int = 0  # code-search requests sent
