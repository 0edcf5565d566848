"""Agent rule files as their tools read them: where they live, and the paths each applies to.

| File | Scope |
|---|---|
| `.cursor/rules/**/*.mdc` | `globs` (comma-separated or a list); `alwaysApply: true` or neither: everywhere |
| `.github/instructions/*.instructions.md` | `applyTo` (comma-separated or a list) |
| `.github/copilot-instructions.md`, `.cursorrules`, root `AGENTS.md` and `CLAUDE.md` | everywhere |
| `<folder>/AGENTS.md`, `<folder>/CLAUDE.md` | `<folder>/**` |
| `.claude/rules/**/*.md` | `paths` (a list or one glob); none: everywhere |

A rule folder nested in a subfolder (`pkg/.cursor/rules/…`) scopes its globs to that folder. Cursor's
frontmatter is not YAML (bare `**/*.ts` would be a YAML alias), so every format's frontmatter is read
line by line, the way the tools read it. Homeostat's own exported files are skipped whole and its
marked blocks cut out, so an export is never imported back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from homeostat.core.export.formats import AGENTS_DOCS, BEGIN, CLAUDE_DIR, CURSOR_DIR, END, OWN_MARK

Format = Literal["cursor", "copilot", "copilot-main", "agents", "claude", "claude-rule", "cursorrules"]
EVERYWHERE = ("**",)
_FRONT_KEYS = frozenset(
    {"description", "globs", "alwaysApply", "applyTo", "paths", "name", "priority", "type", "trigger", "tags"}
)


@dataclass(frozen=True)
class RuleFile:
    path: str
    format: Format
    scope: tuple[str, ...]
    body: str  # without frontmatter and Homeostat's blocks
    body_line: int  # the file line the body starts on
    note: str = ""  # how the scope was read, when a person should know


def rule_file_format(path: str) -> Format | None:
    """Which tool's rule file `path` is, or None (Homeostat's own export folders included)."""
    name = path.rsplit("/", 1)[-1]
    if re.search(r"(?:^|/)\.cursor/rules/", path) and name.endswith(".mdc"):
        return None if f"/{CURSOR_DIR}" in f"/{path}" else "cursor"
    if (
        path.startswith(".github/instructions/")
        and name.endswith(".instructions.md")
        and path.count("/") == 2
    ):
        return "copilot"
    if path == ".github/copilot-instructions.md":
        return "copilot-main"
    if path == ".cursorrules":
        return "cursorrules"
    if re.search(r"(?:^|/)\.claude/rules/", path) and name.endswith(".md"):
        return None if f"/{CLAUDE_DIR}" in f"/{path}" else "claude-rule"
    if name == "AGENTS.md" and not path.startswith(AGENTS_DOCS):
        return "agents"
    if name == "CLAUDE.md":
        return "claude"
    return None


# --- frontmatter ----------------------------------------------------------------------------------


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def _split_commas(text: str) -> list[str]:
    """Split on commas outside braces and quotes: `a,{b,c},"d,e"` → `a`, `{b,c}`, `"d,e"`."""
    parts, current, depth, quote = [], "", 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        current += ch
    return [*parts, current]


def _globs(value: str) -> list[str]:
    """`a, b`, `"a,b"`, `['a', "b"]` → [a, b]; commas inside braces stay (`*.{ts,tsx}`)."""
    text = _unquote(value)
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    found: list[str] = []
    for part in _split_commas(text):
        found += [g for piece in _split_commas(_unquote(part.strip())) if (g := _unquote(piece.strip()))]
    return found


def read_front(text: str) -> tuple[dict[str, list[str]], str, int]:
    """(key → values, body, body line) of a leading `---` block, read line by line; a key followed
    by `- item` lines is a list."""
    if not text.startswith("---\n"):
        return {}, text, 1
    end = text.find("\n---", 3)
    while end >= 0 and text[end + 4 : end + 5] not in ("\n", ""):
        end = text.find("\n---", end + 4)
    if end < 0:
        return {}, text, 1
    block = text[4:end]
    body_start = end + 5 if text[end + 4 : end + 5] == "\n" else end + 4
    fields: dict[str, list[str]] = {}
    current: str | None = None
    for line in block.split("\n"):
        item = re.match(r"^\s+-\s*(.*)$", line)
        if item and current is not None:
            value = _unquote(item.group(1).split(" #", 1)[0])
            if value:
                fields[current].append(value)
            continue
        key, colon, value = line.partition(":")
        if not colon or not key.strip() or key[:1].isspace():
            continue
        current = key.strip()
        raw = value.split(" #", 1)[0].strip()
        fields[current] = _globs(raw) if raw else []
    return fields, text[body_start:], text[:body_start].count("\n") + 1


_INNER_FRONT = re.compile(r"(?:^|\n)---\n((?:[A-Za-z]+:[^\n]*\n)+)---(?:\n|$)")


def strip_inner_fronts(body: str) -> str:
    """A second frontmatter block pasted into a body (common in Cursor files) is metadata, not text."""

    def drop(match: re.Match[str]) -> str:
        keys = {line.split(":", 1)[0] for line in match.group(1).splitlines()}
        return "\n" if keys <= _FRONT_KEYS else match.group(0)

    return _INNER_FRONT.sub(drop, body)


def strip_own_block(text: str) -> str:
    """The text outside Homeostat's marked block (an AGENTS.md or copilot-instructions.md export)."""
    start = text.find(BEGIN)
    if start < 0:
        return text
    end = text.find(END, start)
    if end < 0:
        return text[:start]
    return text[:start] + text[end + len(END) :]


# --- scope --------------------------------------------------------------------------------------


def _in_folder(folder: str, glob: str) -> str:
    if not folder:
        return glob
    return f"{folder}/{glob.removeprefix('./').removeprefix('/')}"


def _folder(path: str, marker: str) -> str:
    """`pkg/.cursor/rules/x.mdc` → `pkg`; `apps/api/AGENTS.md` → `apps/api`."""
    index = path.find(marker)
    return path[: max(index - 1, 0)] if index > 0 else ""


def _scope(fmt: Format, path: str, front: dict[str, list[str]]) -> tuple[tuple[str, ...], str]:
    if fmt == "cursor":
        folder = _folder(path, ".cursor/rules/")
        always = [v.lower() for v in front.get("alwaysApply", [])]
        globs = front.get("globs", [])
        if "true" in always or not globs:
            note = (
                ""
                if "true" in always
                else "no globs and not alwaysApply (applied on request): imported as everywhere"
            )
            return ((f"{folder}/**",) if folder else EVERYWHERE), note
        return tuple(_in_folder(folder, g) for g in globs), ""
    if fmt == "copilot":
        globs = front.get("applyTo", [])
        return (tuple(globs) or EVERYWHERE), "" if globs else "no applyTo: imported as everywhere"
    if fmt == "claude-rule":
        folder = _folder(path, ".claude/rules/")
        globs = front.get("paths", [])
        return (
            tuple(_in_folder(folder, g) for g in globs) or ((f"{folder}/**",) if folder else EVERYWHERE)
        ), ""
    if fmt in ("agents", "claude"):
        folder = path.rsplit("/", 1)[0] if "/" in path else ""
        if folder in ("", ".claude"):
            return EVERYWHERE, ""
        return (f"{folder}/**",), ""
    return EVERYWHERE, ""


def parse_rule_file(path: str, text: str) -> RuleFile | None:
    """The file's body and scope; None for a file that is no rule file or that Homeostat wrote."""
    fmt = rule_file_format(path)
    if fmt is None:
        return None
    text = strip_own_block(text.replace("\r\n", "\n"))
    if OWN_MARK in text:
        return None
    front, body, line = read_front(text)
    scope, note = _scope(fmt, path, front)
    return RuleFile(path, fmt, scope, strip_inner_fronts(body), line, note)
