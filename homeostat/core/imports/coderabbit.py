"""A CodeRabbit learnings export (CSV or JSON) as entries.

CodeRabbit exports learnings two ways, and both are read: the organization Learnings API
(`GET /v1/learnings`, JSON `{"data": [...]}` or the same columns as CSV with `format=csv`: `id`,
`learning`, `repository_name`, `author_username`, `file`, `source_url`, `pull_request`, …) and the
Knowledge Base export (`GET /v1/knowledge/learnings/export`, JSON `{"items": [...]}`: `id`,
`learning`, `repo_owner`, `repo_name`, `user`, `file`, `url`, `pull_request`, …). A bare JSON list of
learnings is read too.

Lenient about spelling (column names in any case, with spaces, dashes or camelCase), explicit about
what is needed: a `learning` column holding the text. The repository, file and link are used when
present (where the lesson goes, and the review it was taught in); every other column is ignored.
Who taught it is never copied into the lesson: the developer importing it vouches for it.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.imports.candidates import title_of
from homeostat.core.imports.memories import Entry, named_paths, plain
from homeostat.core.imports.split import Item
from homeostat.errors import HomeostatError

TEXT = "learning"
# What each optional column may be called, in the order they are looked for.
COLUMNS: Mapping[str, tuple[str, ...]] = {
    "repo": ("repository_name", "repo_name", "repository", "repo"),
    "owner": ("repo_owner", "repository_owner", "owner"),
    "file": ("file", "file_path", "path"),
    "url": ("source_url", "url", "comment_url"),
    "pull": ("pull_request", "pr", "pull_request_number"),
}
JSON_LISTS = ("data", "items", "learnings")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


class ExportError(HomeostatError):
    """The file is not a learnings export this reads; the message names the file and what is wrong."""

    exit_code = 2


def column_name(name: str) -> str:
    """`Repository Name`, `repository-name` and `repositoryName` are all `repository_name`."""
    spaced = _CAMEL.sub("_", name.strip().lstrip("\ufeff"))
    return re.sub(r"[\s-]+", "_", spaced).lower()


@dataclass(frozen=True)
class Learning:
    line: int  # the row's line (CSV) or its place in the list (JSON), 1-based
    text: str
    repo: str = ""  # as the export names it: `billing` or `example/billing`
    file: str = ""
    url: str = ""
    pull: str = ""


def read_export(name: str, text: str) -> list[Learning]:
    """The learnings of an export; an ExportError for anything that is not one, or holds none."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise ExportError(f"{name}: the file is empty: export the learnings again")
    as_json = name.lower().endswith(".json") or (
        not name.lower().endswith(".csv") and stripped[:1] in ("{", "[")
    )
    rows = _json_rows(name, stripped) if as_json else _csv_rows(name, stripped)
    if not rows:
        raise ExportError(f"{name}: the export holds no learnings")
    return [_learning(name, line, row) for line, row in rows]


def _json_rows(name: str, text: str) -> list[tuple[int, dict[str, str]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ExportError(f"{name}: not valid JSON (line {exc.lineno}: {exc.msg}): export it again") from None
    if isinstance(data, dict):
        found = next((data[key] for key in JSON_LISTS if isinstance(data.get(key), list)), None)
        if found is None:
            keys = ", ".join(sorted(map(str, data))) or "none"
            raise ExportError(
                f"{name}: not a CodeRabbit learnings export: expected a list of learnings under `data` "
                f"(GET /v1/learnings) or `items` (GET /v1/knowledge/learnings/export); its keys: {keys}"
            )
        data = found
    if not isinstance(data, list):
        raise ExportError(f"{name}: not a CodeRabbit learnings export: expected a list of learnings")
    rows: list[tuple[int, dict[str, str]]] = []
    for index, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise ExportError(f"{name}: learning {index} is not an object: export the learnings again")
        rows.append((index, {column_name(str(k)): _cell(v) for k, v in item.items()}))
    _require_text(name, [set(row) for _, row in rows])
    return rows


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value)
    return value if isinstance(value, str) else json.dumps(value)


def _csv_rows(name: str, text: str) -> list[tuple[int, dict[str, str]]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader)
        columns = [column_name(cell) for cell in header]
        _require_text(name, [set(columns)])
        rows: list[tuple[int, dict[str, str]]] = []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(columns):
                raise ExportError(
                    f"{name}: line {reader.line_num}: {len(cells)} cells under {len(columns)} columns; "
                    "the CSV is broken: export it again"
                )
            rows.append((reader.line_num, dict(zip(columns, cells, strict=False))))
    except csv.Error as exc:
        raise ExportError(
            f"{name}: line {reader.line_num}: {exc}; the CSV is broken: export it again"
        ) from None
    return rows


def _require_text(name: str, column_sets: Sequence[set[str]]) -> None:
    missing = [columns for columns in column_sets if TEXT not in columns]
    if missing:
        seen = ", ".join(sorted(missing[0])) or "none"
        raise ExportError(
            f"{name}: not a CodeRabbit learnings export: it needs a `{TEXT}` column with each learning's "
            f"text (its columns: {seen})"
        )


def _first(row: Mapping[str, str], names: Sequence[str]) -> str:
    return next((row[n].strip() for n in names if row.get(n, "").strip()), "")


def _learning(name: str, line: int, row: Mapping[str, str]) -> Learning:
    repo = _first(row, COLUMNS["repo"])
    owner = _first(row, COLUMNS["owner"])
    if owner and repo and "/" not in repo:
        repo = f"{owner}/{repo}"
    return Learning(
        line=line,
        text=row.get(TEXT, "").strip(),
        repo=repo,
        file=_first(row, COLUMNS["file"]),
        url=_first(row, COLUMNS["url"]),
        pull=_first(row, COLUMNS["pull"]),
    )


def learning_entry(name: str, learning: Learning, repo: str | None, url: str) -> Entry:
    """The entry for one learning; `repo` is the KB repo its repository is (None: none of them or
    not said), `url` its link when that is a review or PR in one of the KB's code repos."""
    origin = f"{name}:{learning.line}"
    text = plain(learning.text)
    if not text:
        return Entry(origin, skip="the learning is empty")
    title = title_of(Item(text=text, lead_in="", headings=(), line=learning.line))
    hints = tuple(part for part in (learning.file, learning.repo) if part)
    return Entry(
        origin,
        title,
        text,
        kind="learning",
        hints=hints,
        paths=tuple(dict.fromkeys([*([learning.file] if learning.file else []), *named_paths(text)])),
        repo=repo,
        url=url,
    )
