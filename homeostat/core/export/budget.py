"""Budgets of the exported files an agent reads on every request, whatever it works on.

Exporting 5,000 rules wrote a 1.66 MB AGENTS.md: every agent paid for all of it on every request,
and the tools read only the start (Copilot code review the first 4,000 characters of an instruction
file; Codex stops reading AGENTS.md files at 32 KiB; Claude Code's guidance for what it loads at
launch is under 200 lines). So each always-on export gets a budget in lines and characters
(`distribution.exports`), filled in the order `context` ranks the rules, and the rest stays in the
path-scoped files (Claude `paths:`, Cursor `globs`, Copilot `applyTo`) or is reached through MCP.

| Format | Always-on text |
|---|---|
| claude | the rule files without `paths:` |
| copilot | the `copilot-instructions.md` block and the `applyTo: "**"` files |
| agents | the AGENTS.md block (AGENTS.md has no path scoping: all of it is read) |
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from homeostat.core.config import Config
from homeostat.core.records import Record
from homeostat.core.text import plural

ALWAYS_ON = ("claude", "copilot", "agents")
WHERE = {
    "claude": "Claude rules without paths",
    "copilot": "Copilot always-on instructions",
    "agents": "AGENTS.md block",
}


class Limit(Record):
    """A budget: at most `lines` lines and `chars` characters; None is no cap."""

    lines: int | None = None
    chars: int | None = None

    def to_data(self) -> dict[str, int | None]:
        return {"lines": self.lines, "chars": self.chars}

    def describe(self) -> str:
        parts = []
        if self.lines is not None:
            parts.append(plural(self.lines, "line"))
        if self.chars is not None:
            parts.append(f"{self.chars:,} characters")
        return " and ".join(parts) or "no cap"


NO_LIMIT = Limit()


class Size(Record):
    lines: int = 0
    chars: int = 0

    def plus(self, other: Size) -> Size:
        return Size(self.lines + other.lines, self.chars + other.chars)

    def to_data(self) -> dict[str, int]:
        return {"lines": self.lines, "chars": self.chars}

    def describe(self) -> str:
        return f"{plural(self.lines, 'line')}, {self.chars:,} characters"


def size_of(texts: Iterable[str]) -> Size:
    """Lines (a last line without its newline counts) and characters of these texts together."""
    lines = chars = 0
    for text in texts:
        lines += text.count("\n") + (0 if not text or text.endswith("\n") else 1)
        chars += len(text)
    return Size(lines, chars)


def within(size: Size, limit: Limit) -> bool:
    return (limit.lines is None or size.lines <= limit.lines) and (
        limit.chars is None or size.chars <= limit.chars
    )


def room(limit: Limit, used: Size) -> Limit:
    """What is left of a budget once `used` is spent (never below nothing)."""
    return Limit(
        None if limit.lines is None else max(0, limit.lines - used.lines),
        None if limit.chars is None else max(0, limit.chars - used.chars),
    )


def fill(ids: Sequence[str], cost: Callable[[str], Size], limit: Limit) -> tuple[list[str], list[str]]:
    """(taken, left out), greedy in the given order: each rule goes in when it fits what is left,
    and one that does not fit never keeps a smaller one after it out, as `context` fits a view."""
    taken: list[str] = []
    left: list[str] = []
    used = Size()
    for rule_id in ids:
        if (limit.lines is not None and used.lines >= limit.lines) or (
            limit.chars is not None and used.chars >= limit.chars
        ):  # nothing is left (every rule costs a line): 5,000 rules need not be measured
            left.append(rule_id)
            continue
        after = used.plus(cost(rule_id))
        if within(after, limit):
            taken.append(rule_id)
            used = after
        else:
            left.append(rule_id)
    return taken, left


def over_budget(sizes: Mapping[str, Size], limits: Mapping[str, Limit]) -> list[str]:
    """One line per always-on export over its budget."""
    return [
        f"{WHERE[fmt]}: {size.describe()}, over the budget of {limits[fmt].describe()} "
        f"(distribution.exports.{fmt})"
        for fmt, size in sizes.items()
        if fmt in limits and not within(size, limits[fmt])
    ]


def limits_from(config: Config) -> dict[str, Limit]:
    """`distribution.exports` of a loaded config, per always-on format."""
    exports = config.distribution.exports
    return {
        "claude": Limit(exports.claude.lines, exports.claude.chars),
        "copilot": Limit(exports.copilot.lines, exports.copilot.chars),
        "agents": Limit(exports.agents.lines, exports.agents.chars),
    }


def block_size(body: str) -> Size:
    """A marked block's size as it stands between its markers (what `extract_block` reads back)."""
    return size_of([body.strip("\n") + "\n"])


def left_out_line(count: int) -> str:
    """What the agent is told in place of the rules the budget left out."""
    return (
        f"{plural(count, 'more team rule')} did not fit this file's budget: the path-scoped rule files "
        "carry those for the files they cover, and the Homeostat MCP server gives the ones for the "
        "files you change (`context`) and finds any (`search`)."
    )
