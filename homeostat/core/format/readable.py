"""What a KB reader may read: regular files, each within the size limit of its kind.

A rule is a prompt to every developer's agent, so no reader may serve text that is not the KB's own
file. A symbolic link under `knowledge/` would serve whatever it points at (another repository's
secrets, `~/.ssh/config`); a FIFO hangs whoever opens it; a device or socket is no text at all; a
40 MB rule stalls every scan. The adapters that read a KB (from a working tree or a git tree) never
open such an entry: they put a `Refused` in its place in the map of path → content, which is empty
bytes to anything that reads it and, to `kb.decode_files`, one error naming the path. So validate
reports it and every other reader leaves it out, from one rule.
"""

from __future__ import annotations

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from homeostat.core.findings import Finding

CONFIG_FILE = "homeostat.yaml"
KNOWLEDGE = "knowledge/"
DOCS_DIR = "docs"
# The selection cases `eval` runs and `validate` holds to the eval floors, when the KB has them.
CASES_FILE = "eval/selection.yaml"

# Bytes. Generous for what each holds: a rule is at most 60 + 100 words and an example, a topic file
# (several rules) of 2,000 rules is about 1.2 MB, a document section at most 400 words, and a config
# of 300 repos and 500 members about 100 KB. Scanning runs at roughly 10 MB/s, so no file over its
# limit can cost validate or a session more than a fraction of a second.
CONFIG_LIMIT = 1_000_000
DOCUMENT_LIMIT = 1_000_000
RULE_FILE_LIMIT = 2_000_000
CASES_LIMIT = 1_000_000


def classify(path: str) -> tuple[str, str] | None:
    """('rule'|'document', area_dir) for a Markdown file under knowledge/, else None. (Here, not in
    `kb`, so that a session hook's file reading, which must not load the KB's loader, has it.)"""
    if not path.startswith(KNOWLEDGE) or not path.endswith(".md"):
        return None
    parts = path[len(KNOWLEDGE) :].split("/")
    if parts[-1].lower() == "readme.md":
        return None
    if len(parts) >= 3 and parts[-2] == DOCS_DIR:
        return "document", "/".join(parts[:-2])
    return "rule", "/".join(parts[:-1])


def size_limit(path: str) -> int | None:
    """The most bytes the file at `path` (relative to the KB) may hold; None for a file no reader
    serves (an image beside a document, a README)."""
    if path == CONFIG_FILE:
        return CONFIG_LIMIT
    if path == CASES_FILE:
        return CASES_LIMIT
    kind = classify(path)
    if kind is None:
        return None
    return DOCUMENT_LIMIT if kind[0] == "document" else RULE_FILE_LIMIT


def in_kb(path: str) -> bool:
    """A path every reader of the KB reads: homeostat.yaml, and anything under knowledge/."""
    return path in (CONFIG_FILE, CASES_FILE) or path.startswith(KNOWLEDGE) or path == KNOWLEDGE.rstrip("/")


class Refused(bytes):
    """An entry a reader did not open, in place of its content: empty bytes, and why.

    `what` is what the entry is ("a symbolic link", "a named pipe (FIFO)", "a git submodule", …), or
    "too large" with `size` in bytes for a regular file over its limit."""

    what: str
    size: int

    def __new__(cls, what: str, size: int = 0) -> Refused:
        refused = super().__new__(cls, b"")
        refused.what = what
        refused.size = size
        return refused

    def __repr__(self) -> str:
        return f"Refused({self.what!r}, {self.size})"


TOO_LARGE = "too large"
SYMLINK = "a symbolic link"


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def _kind_of_limit(path: str) -> str:
    if path == CONFIG_FILE:
        return CONFIG_FILE
    if path == CASES_FILE:
        return "a selection-cases file"
    return "a document" if size_limit(path) == DOCUMENT_LIMIT else "a rule or topic file"


def too_large_message(path: str, size: int) -> str:
    limit = size_limit(path) or 0
    return (
        f"{_megabytes(size)}, over the {_megabytes(limit)} limit for {_kind_of_limit(path)}; "
        "split it into smaller files (docs/validate.md, 'File limits')"
    )


def refused_message(path: str, refused: Refused) -> str:
    """The one line validate reports for an entry no reader opens."""
    if refused.what == TOO_LARGE:
        return too_large_message(path, refused.size)
    if refused.what == SYMLINK:
        return (
            "a symbolic link: no reader follows a link in the KB (it would serve text from outside "
            "it); put the file itself here, or remove the link"
        )
    return f"{refused.what}, not a regular file: no reader opens it; remove it from the KB"


def text_size(text: str) -> int:
    """The UTF-8 size of `text`, encoded only where its length leaves the answer open."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def over_limit(path: str, content: str | bytes) -> int | None:
    """The content's size when it is over the limit for `path`, else None."""
    limit = size_limit(path)
    if limit is None or len(content) * (1 if isinstance(content, bytes) else 4) <= limit:
        return None
    size = len(content) if isinstance(content, bytes) else text_size(content)
    return size if size > limit else None


def refusal(path: str, content: str | bytes) -> Finding | None:
    """The finding for an entry that may not be read as it is: refused by the reader, or over its
    size limit (content given in memory, not read from disk, is held to the same limits)."""
    from homeostat.core.findings import error  # not on a session hook's path, which reads files only

    if isinstance(content, Refused):
        return error("schema", path, 1, refused_message(path, content))
    size = over_limit(path, content)
    if size is not None:
        return error("schema", path, 1, too_large_message(path, size))
    return None
