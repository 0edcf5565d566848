"""Turn usage from a Claude Code session transcript: ids and counts only, never text.

The transcript (JSON Lines at the hook's `transcript_path`) holds `user` and `assistant` records whose
`message` has the Messages API shape. A user turn starts at a user record that carries the person's
words (not a tool result, a meta record or a subagent's sidechain) and runs to the next one. For each
turn this counts the Homeostat tools called (MCP tools of a server named homeostat, or the
`homeostat` command through Bash), whether any of them retrieved knowledge, the ids credited with
`> From Homeostat (…)`, and the file edits. The file may lag the conversation, so the caller re-reads
the previous turn on every Stop and passes `last_assistant_message` for the current one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence

from homeostat.core.type_hints import TYPE_CHECKING

if TYPE_CHECKING:
    from homeostat.core.events import Scalar

CREDIT = re.compile(r">\s*From Homeostat \(([^)\n]{1,400})\)")
_MCP_TOOL = re.compile(r"^mcp__(?:plugin_[\w-]+?_)?homeostat__([\w-]+)$")
_CLI = re.compile(
    r"""(?:^|[;&|(])\s*["']?(?:[^\s"';&|]*/)?homeostat["']?\s+(context|search|read|docs|explain|report)\b"""
)
LOOKUP_TOOLS = frozenset({"context", "search", "read", "docs", "explain"})
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_EMPTY_ANSWERS = ("no ", "nothing ", "unknown ", "mcp writes are off")


class Turn:
    """One user turn: where it starts in the file (a byte offset) and what it did. A plain class:
    the Stop hook reads turns on every stop, and `dataclasses` costs it more to import than this."""

    __slots__ = ("offset", "tools", "retrieved", "credited", "edits", "pending_calls")

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.tools: list[str] = []
        self.retrieved = False
        self.credited: list[str] = []
        self.edits = 0
        self.pending_calls: dict[str, str] = {}  # tool_use id -> tool, until answered

    @property
    def looked_up(self) -> bool:
        return any(tool in LOOKUP_TOOLS for tool in self.tools)

    def event_data(self, session: str, number: int, known: frozenset[str]) -> dict[str, Scalar]:
        credited = [i for i in dict.fromkeys(self.credited) if i in known]
        return {
            "session": session,
            "turn": number,
            "tools": ",".join(sorted(set(self.tools))),
            "toolCalls": len(self.tools),
            "lookedUp": self.looked_up,
            "retrieved": self.retrieved,
            "credited": ",".join(credited),
            "credits": len(credited),
            "edits": self.edits,
        }


def credited_ids(text: str) -> list[str]:
    """`> From Homeostat (a, b)` → ["a", "b"]; the caller keeps only ids the KB has."""
    ids: list[str] = []
    for match in CREDIT.finditer(text):
        ids += [part.strip().strip("`") for part in re.split(r"[,;\s]+", match.group(1)) if part.strip()]
    return ids


def homeostat_tool(name: str, tool_input: object) -> str | None:
    """The Homeostat tool a tool call is (`search`), or None."""
    found = _MCP_TOOL.match(name)
    if found:
        return found.group(1)
    if name == "Bash" and isinstance(tool_input, dict):
        command = tool_input.get("command")
        cli = _CLI.search(command) if isinstance(command, str) else None
        return cli.group(1) if cli else None
    return None


def _blocks(message: object) -> list[dict[str, object]]:
    if not isinstance(message, dict):
        return []
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _starts_turn(record: dict[str, object]) -> bool:
    if record.get("type") != "user" or record.get("isMeta") or record.get("isSidechain"):
        return False
    if record.get("isCompactSummary"):
        return False
    blocks = _blocks(record.get("message"))
    return bool(blocks) and not any(b.get("type") == "tool_result" for b in blocks)


def _result_text(block: dict[str, object]) -> str:
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    return ""


def _assistant(turn: Turn, blocks: Sequence[dict[str, object]]) -> None:
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            turn.credited += credited_ids(str(block.get("text", "")))
        elif kind == "tool_use":
            name = str(block.get("name", ""))
            if name in EDIT_TOOLS:
                turn.edits += 1
            tool = homeostat_tool(name, block.get("input"))
            if tool is not None:
                turn.tools.append(tool)
                turn.pending_calls[str(block.get("id", ""))] = tool


def _results(turn: Turn, blocks: Sequence[dict[str, object]]) -> None:
    for block in blocks:
        if block.get("type") != "tool_result":
            continue
        tool = turn.pending_calls.pop(str(block.get("tool_use_id", "")), None)
        if tool not in LOOKUP_TOOLS or block.get("is_error"):
            continue
        text = _result_text(block).strip().lower()
        if text and not text.startswith(_EMPTY_ANSWERS):
            turn.retrieved = True


def read_turns(lines: Iterable[tuple[int, bytes]]) -> list[Turn]:
    """Turns from (byte offset, line) pairs; lines before the first user turn and broken lines are
    skipped (a line being written while we read is simply read again next time)."""
    turns: list[Turn] = []
    for offset, raw in lines:
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if _starts_turn(record):
            turns.append(Turn(offset))
            continue
        if not turns or record.get("isSidechain"):
            continue
        blocks = _blocks(record.get("message"))
        if record.get("type") == "assistant":
            _assistant(turns[-1], blocks)
        elif record.get("type") == "user":
            _results(turns[-1], blocks)
    return turns
