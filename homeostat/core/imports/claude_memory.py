"""Claude Code's auto memory for one project: where it is, and its notes as entries.

Where (as Claude Code 2.1.332 resolves it, checked against the real CLI in tests): the
`autoMemoryDirectory` setting when one is set in the project's `.claude/settings.local.json` or the
user's `settings.json` (never the checked-in `.claude/settings.json`, which Claude Code ignores for
this key), else `<config dir>/projects/<project key>/memory/`, where the config dir is
`$CLAUDE_CONFIG_DIR` or `~/.claude` and the key is the git repository's root (the main worktree's, so
every worktree shares one memory) with each character other than a letter or digit made `-`.

What: `MEMORY.md` is an index Claude loads each session, one `- [Title](file.md) — hook` line per
memory, older notes written as plain list items; each other `.md` file is one memory, with
frontmatter (`name`, `description`, `metadata.type` — `type` at the top level in older files) and a
body that leads with the rule or fact, then `**Why:**` and `**How to apply:**` lines. A `user` memory
describes the developer, not the team's code, and is never imported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from homeostat.core.format.markdown import split_frontmatter
from homeostat.core.format.yamltext import YamlError, load_yaml
from homeostat.core.imports.candidates import title_of
from homeostat.core.imports.memories import Entry, named_paths, plain
from homeostat.core.imports.split import Item, split_body

MEMORY_INDEX = "MEMORY.md"
SETTING = "autoMemoryDirectory"
KEY_LIMIT = 200  # a longer key is cut and given a hash of the whole path, as Claude Code does
_PROJECT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_RESERVED = re.compile(r"^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$", re.IGNORECASE)
_INDEX_LINE = re.compile(r"^\[[^\]]*\]\(([^)\s]+\.md)\)")
_LABEL = re.compile(
    r"^\s*(?:[-*]\s+)?(?:\*\*|__)?(why|how to apply)\s*:\s*(?:\*\*|__)?\s*(.*)$", re.IGNORECASE
)


# --- where ----------------------------------------------------------------------------------------


def _java_hash(text: str) -> int:
    """Java's String.hashCode over UTF-16 code units, as Claude Code hashes a long project path."""
    value = 0
    data = text.encode("utf-16-le")
    for index in range(0, len(data), 2):
        value = (value * 31 + int.from_bytes(data[index : index + 2], "little")) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = digits[rest] + out
        if number == 0:
            return out


def project_key(project_root: str) -> str:
    """The folder name under `projects/` Claude Code gives a project."""
    # each UTF-16 code unit that is not an ASCII letter or digit becomes `-`, as in Claude Code
    key = "".join(
        c if c.isascii() and c.isalnum() else "--" if ord(c) > 0xFFFF else "-" for c in project_root
    )
    if len(key) <= KEY_LIMIT:
        return key
    return f"{key[:KEY_LIMIT]}-{_base36(abs(_java_hash(project_root)))}"


@dataclass(frozen=True)
class MemoryPlace:
    path: str  # the memory folder, absolute
    how: str  # how it was found, for the preview


def setting_dir(text: str, home: str) -> str | None:
    """`autoMemoryDirectory` from a settings file's text: `~/` expanded; unset, relative or
    unreadable is no setting (Claude Code ignores those too)."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    value = data.get(SETTING) if isinstance(data, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    if value.startswith("~/"):
        value = f"{home.rstrip('/')}/{value[2:]}"
    if not value.startswith("/") or "\x00" in value or len(value.rstrip("/")) < 3:
        return None
    return value.rstrip("/")


def memory_place(
    project_root: str, home: str, env: Mapping[str, str], settings: Sequence[tuple[str, str]]
) -> MemoryPlace:
    """The project's memory folder: the first `autoMemoryDirectory` of `settings` ((label, text),
    in Claude Code's order), else the default folder under the config dir."""
    for label, text in settings:
        found = setting_dir(text, home)
        if found is not None:
            return MemoryPlace(found, f"{SETTING} in {label}")
    config_dir = env.get("CLAUDE_CONFIG_DIR", "").strip().rstrip("/") or f"{home.rstrip('/')}/.claude"
    named = env.get("CLAUDE_CODE_PROJECT_DIR_NAME", "").strip()
    if env.get("CLAUDE_CONFIG_DIR") and _PROJECT_NAME.match(named) and not _RESERVED.match(named):
        key = named
    else:
        key = project_key(project_root)
    return MemoryPlace(f"{config_dir}/projects/{key}/memory", f"Claude Code's folder for {project_root}")


# --- what -----------------------------------------------------------------------------------------


def read_memories(files: Mapping[str, str]) -> list[Entry]:
    """Every note of the folder (`{path relative to it: text}`), MEMORY.md first, in path order."""
    entries: list[Entry] = []
    for path in sorted(files, key=lambda name: (name != MEMORY_INDEX, name)):
        front = split_frontmatter(files[path])
        if front is not None and path != MEMORY_INDEX:
            entries.append(_memory_file(path, front.yaml_text, front.body, front.body_line))
        else:
            entries += _list_notes(path, files[path])
    return entries


def _memory_file(path: str, yaml_text: str, body: str, body_line: int) -> Entry:
    origin = f"{path}:{body_line}"
    try:
        data = load_yaml(yaml_text).data
    except YamlError as exc:
        return Entry(
            origin, skip=f"its frontmatter is not YAML (line {exc.line + 1}): fix or delete the file"
        )
    meta = data if isinstance(data, dict) else {}
    nested = meta.get("metadata")
    kind = str(meta.get("type") or (nested.get("type") if isinstance(nested, dict) else "") or "")
    name = str(meta.get("name") or "")
    description = str(meta.get("description") or "")
    lead, why = _body_parts(body)
    hints = (path, name.replace("-", " "), description)
    if kind == "user":
        return Entry(
            origin,
            title=description or name,
            kind=kind,
            hints=hints,
            skip="a user memory: it describes you, not the team's code",
        )
    if not lead:
        return Entry(origin, title=description or name, kind=kind, skip="it holds no text")
    heading = description or name.replace("-", " ").replace("_", " ").capitalize() or lead
    title = title_of(Item(text=plain(heading), lead_in="", headings=(), line=body_line))
    return Entry(origin, title, lead, why, kind, hints, named_paths(f"{lead} {why}"))


def _body_parts(body: str) -> tuple[str, str]:
    """The lead (the rule or fact) and the `Why:` and `How to apply:` lines, as one reason."""
    lead: list[str] = []
    labelled: list[str] = []
    current = lead
    for line in body.splitlines():
        label = _LABEL.match(line)
        if label:
            current = labelled
            text = label.group(2).strip()
            current.append(text if label.group(1).lower() == "why" else f"How to apply: {text}")
        elif line.strip():
            current.append(line.strip())
    return plain(" ".join(lead)), plain(" ".join(labelled))


def _list_notes(path: str, text: str) -> list[Entry]:
    """A file without frontmatter (the index, older notes): each list item a note; prose and the
    index's pointers to memory files are not notes."""
    items, prose = split_body(text)
    entries: list[Entry] = []
    for item in items:
        origin = f"{path}:{item.line}"
        if _INDEX_LINE.match(item.text):
            continue  # a pointer to a memory file, which is read itself
        title = title_of(item)
        body = item.text
        entries.append(Entry(origin, title, body, "", "note", (path, *item.headings), named_paths(body)))
    for piece in prose:
        entries.append(Entry(f"{path}:{piece.line}", title=plain(piece.text)[:80], skip="prose, not a note"))
    return entries
