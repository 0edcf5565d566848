"""Text to search terms: words, camelCase, Snowball stems, file references, and the task's words."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from homeostat.core.similarity import STOPWORDS
from homeostat.core.text import identifiers, lazy_pattern, words
from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    pass


_CODE_EXT = lazy_pattern(
    r"\.(py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|scala|sql|ya?ml|json|"
    r"toml|md|sh|bash|css|scss|less|html|vue|svelte|proto|tf|gradle|xml|ini|cfg|lock|txt|env|graphql|gql)$"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # every message uses it
# For `search_words` (ASCII text only): each byte but letters, digits and the apostrophe to a space
# (`_GAPS`); lower-case letters and digits to "a", capitals to "A", so `_CAMEL` splits where "aA" is.
_GAPS = bytes(c if c < 128 and (chr(c).isalnum() or c == 39) else 32 for c in range(256))
_CASES = bytes(65 if 65 <= c <= 90 else 97 if c < 128 and chr(c).isalnum() else 32 for c in range(256))
# Zero-width and bidi control characters: invisible to a reviewer, readable by a model. Stripped from
# everything an agent is served or an export writes.
_HIDDEN = lazy_pattern("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def strip_hidden(text: str) -> str:
    return text if text.isascii() else _HIDDEN.sub("", text)  # every hidden character is non-ASCII


# The stemmer is part of the index's identity (corpus_cache.corpus_key): the same word must become the
# same term when the index is built and when it is queried.
STEMMER_ID = "snowball-english-3.1.1"
_STEMS: dict[str, str] = {}
_ENGLISH: list[Callable[[str], str]] = []


def _stemmer() -> Callable[[str], str]:
    """snowballstemmer's English (Porter2) stemmer, loaded on first use. The package's `__init__`
    imports all 36 of its languages (about 13 ms, a tenth of a warm session hook), so a bare stand-in
    package lets only `english_stemmer` and its two helpers load; the stand-in is then removed, so a
    later `import snowballstemmer` anywhere in the process still runs the real `__init__`."""
    if not _ENGLISH:
        import importlib.util
        import sys

        standin = None
        if "snowballstemmer" not in sys.modules:
            spec = importlib.util.find_spec("snowballstemmer")
            if spec is not None:
                standin = sys.modules["snowballstemmer"] = importlib.util.module_from_spec(spec)
        try:
            from snowballstemmer.english_stemmer import EnglishStemmer  # type: ignore[import-untyped]
        finally:
            if standin is not None and sys.modules.get("snowballstemmer") is standin:
                del sys.modules["snowballstemmer"]
        _ENGLISH.append(EnglishStemmer().stemWord)
    return _ENGLISH[0]


def term(word: str) -> str:
    """A word's search term: its Snowball (Porter2) stem, so status/statuses, retry/retries/retried
    and cache/cached/caching meet."""
    found = _STEMS.get(word)
    if found is None:
        found = _STEMS[word] = _stemmer()(word)
    return found


def remember_stems(stems: Mapping[str, str]) -> None:
    """Seed the stem memo with an index's vocabulary (stemmed when the index was built)."""
    _STEMS.update(stems)


def search_words(text: str) -> list[str]:
    """The words search reads: `words` of the text with camelCase split (`refundHandler` is refund
    and handler). ASCII text (the common case, and an index reads every rule) is split by C string
    methods instead of two regex passes: the camel split only where a lower-case letter or digit
    meets a capital, and `words`' pattern only on the few pieces holding an apostrophe; every other
    piece between characters that are not letters, digits or apostrophes is one of its matches."""
    if not text.isascii():
        return words(_CAMEL.sub(" ", text))
    raw = text.encode()
    if b"aA" in raw.translate(_CASES):
        raw = _CAMEL.sub(" ", text).encode()
    pieces = raw.lower().translate(_GAPS).decode().split()
    if b"'" not in raw:
        return pieces
    return [w for piece in pieces for w in ((piece,) if "'" not in piece else words(piece))]


def terms(text: str) -> list[str]:
    """Search terms: lower-cased words without stopwords, stemmed."""
    return [term(w) for w in search_words(text) if w not in STOPWORDS]


def path_terms(path: str) -> list[str]:
    """The words of a path: `src/billing/api/refundHandler.py` → src, billing, api, refund, handler, py."""
    return terms(re.sub(r"[/._\-]+", " ", path))


def is_file_ref(name: str) -> bool:
    """A code reference that names a file or folder (`src/api/app.py`, `web/routes/`, `errors.py`)."""
    if "://" in name or name.startswith(("http", "@")):
        return False
    if "/" in name:
        return True
    return bool(_CODE_EXT.search(name)) and "." in name[1:]


def file_refs(text: str) -> tuple[str, ...]:
    """Files and folders the text names in backticks, without a leading `./`."""
    found = {name.removeprefix("./") for name in identifiers(text) if is_file_ref(name)}
    return tuple(sorted(found))


# Words of a branch name or commit subject that say nothing about the change itself.
TASK_NOISE = frozenset(
    """main master develop development dev trunk head origin branch merge into fix fixes fixed fixup bug
    bugs bugfix hotfix feature features feat wip chore refactor patch release update updates bump tmp temp
    issue gh pr review reviews address addressed comment comments nit nits typo typos lint
    news entry changelog pre commit ci squash revert add added adds remove removed
    make use""".split()
)
# A file name's "test" says only that it is a test file, which the touched paths already say.
TEST_MARKERS = frozenset({"test", "tests", "spec", "specs", "conftest"})
_TICKET = lazy_pattern(r"^[A-Za-z]{2,10}-\d+(?=$|[-_])")
_SPLIT = lazy_pattern(r"[/\-_.\s]+|(?<=[A-Za-z])(?=\d)|(?<=\d)(?=[A-Za-z])")


def _task_words(text: str) -> list[str]:
    out = []
    for piece in _SPLIT.split(_CAMEL.sub(" ", text)):
        for word in words(piece):
            if len(word) > 1 and not word.isdigit() and word not in STOPWORDS and word not in TASK_NOISE:
                out.append(word)
    return out


def branch_words(branch: str) -> list[str]:
    """`feature/PROJ-123-apikey-from-file` → apikey, file: split on `/ - _ .`, camelCase and digits;
    ticket ids, numbers and words such as main, fix, feature and wip dropped."""
    return [w for part in branch.split("/") for w in _task_words(_TICKET.sub("", part))]


def task_words(
    branch: str = "", commits: Sequence[str] = (), files: Sequence[str] = (), *, stated: str = ""
) -> tuple[str, ...]:
    """The words of what the developer is doing: what they said (`stated`: `--task`, the MCP tools'
    `task`), the branch name, the subjects (and first body lines) of recent commits (merge commits
    skipped), and the names of the files changed in the working tree, each once."""
    found = _task_words(stated) + branch_words(branch)
    for subject in commits:
        if not subject.startswith("Merge "):
            found += _task_words(subject)
    for path in files:
        name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        found += [w for w in _task_words(name) if w not in TEST_MARKERS]
    kept: dict[str, str] = {}  # one word per search term: `status` and `statuses` are one word
    for word in found:
        kept.setdefault(term(word), word)
    return tuple(kept.values())
