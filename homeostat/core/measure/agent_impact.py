"""What a KB pull request changes for agents: `validate --base REF` compares the base and the head.

A reviewer reads a rule's text; what an agent will get is decided elsewhere, by the budgets: a new
rule scoped to `src/billing/**` can take the place of one already served there, and a grown rule can
stop fitting anywhere. So the PR check works out, per area and per exported always-on file, the
tokens added and removed; for the paths the changed rules scope, which rules the default budget
(`distribution`) no longer fits and the new ones that took their place; and the rules that no session
start serves any more at the paths they scope (only MCP `search` still finds them).

Only the paths the changed rules scope are looked at (a sample path per glob, `sample_path`), so the
check costs what the PR changes, not what the KB holds.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from homeostat.core.export.budget import ALWAYS_ON, WHERE, Limit
from homeostat.core.export.formats import repo_export
from homeostat.core.globs import expand_braces
from homeostat.core.records import Record
from homeostat.core.render.view import build_view
from homeostat.core.selection.audience import Audience
from homeostat.core.selection.corpus import Corpus
from homeostat.core.selection.entries import CORE, Entry
from homeostat.core.selection.globs import glob_matches, is_global
from homeostat.core.selection.parts import repo_part
from homeostat.core.selection.scope_index import SERVED
from homeostat.errors import ConfigError

MAX_PATHS = 200  # sample paths looked at per side; a PR that touches more is summarised, not walked
SAMPLE_NAME = "homeostat-sample"


class AreaDelta(Record):
    area: str
    base_rules: int
    head_rules: int
    base_tokens: int
    head_tokens: int

    def to_data(self) -> dict[str, object]:
        return {
            "area": self.area,
            "baseRules": self.base_rules,
            "headRules": self.head_rules,
            "baseTokens": self.base_tokens,
            "headTokens": self.head_tokens,
            "delta": self.head_tokens - self.base_tokens,
        }


class ExportDelta(Record):
    repo: str | None
    format: str  # claude, copilot or agents
    base_tokens: int
    head_tokens: int
    left_out: int  # rules the head's budget leaves out of it

    @property
    def file(self) -> str:
        return WHERE[self.format]

    def to_data(self) -> dict[str, object]:
        return {
            "repo": self.repo,
            "format": self.format,
            "file": self.file,
            "baseTokens": self.base_tokens,
            "headTokens": self.head_tokens,
            "delta": self.head_tokens - self.base_tokens,
            "leftOut": self.left_out,
        }


class PushedOut(Record):
    """A rule the default budget served at `path` before the PR and no longer does; `by`: the rules
    served there now that were not before (empty when the rule's own growth is why)."""

    rule: str
    path: str
    by: tuple[str, ...]

    def to_data(self) -> dict[str, object]:
        return {"rule": self.rule, "path": self.path, "by": list(self.by)}


class Unreachable(Record):
    """A rule in force that no session start serves at any path it scopes (MCP search still finds it)."""

    rule: str
    area: str
    paths: tuple[str, ...]

    def to_data(self) -> dict[str, object]:
        return {"rule": self.rule, "area": self.area, "paths": list(self.paths)}


class Growth(Record):
    """`--max-budget-growth`: tokens (`500`) or a percentage of the base (`10%`)."""

    value: float
    percent: bool

    def exceeded(self, base: int, head: int) -> bool:
        grown = head - base
        if grown <= 0:
            return False
        if not self.percent:
            return grown > self.value
        return base == 0 or 100.0 * grown / base > self.value

    def describe(self) -> str:
        return f"{self.value:g}%" if self.percent else f"{int(self.value):,} tokens"


def parse_growth(text: str) -> Growth:
    """`500` (tokens) or `10%` (of the base); anything else is one line naming the option."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*", text)
    if match is None or (not match.group(2) and "." in match.group(1)):
        raise ConfigError(
            f"--max-budget-growth {text!r}: give tokens (500) or a percentage of the base (10%)"
        )
    return Growth(float(match.group(1)), bool(match.group(2)))


class Impact(Record):
    base: str
    areas: tuple[AreaDelta, ...]
    exports: tuple[ExportDelta, ...]
    pushed_out: tuple[PushedOut, ...]
    unreachable: tuple[Unreachable, ...]
    changed: int  # rules added, removed or changed
    paths: int  # sample paths looked at
    capped: bool  # more paths than MAX_PATHS: some were not looked at
    base_tokens: int  # of every rule sessions may be served, at the base
    head_tokens: int

    @property
    def added(self) -> int:
        return sum(max(0, a.head_tokens - a.base_tokens) for a in self.areas)

    @property
    def removed(self) -> int:
        return sum(max(0, a.base_tokens - a.head_tokens) for a in self.areas)

    def over(self, growth: Growth | None) -> list[str]:
        """What grew past `--max-budget-growth`: all the rules agents can be served, and each
        exported always-on file."""
        if growth is None:
            return []
        found = []
        if growth.exceeded(self.base_tokens, self.head_tokens):
            found.append(
                f"the KB's served rules grew from {self.base_tokens:,} to {self.head_tokens:,} tokens"
            )
        for e in self.exports:
            if growth.exceeded(e.base_tokens, e.head_tokens):
                where = f"{e.file} of {e.repo}" if e.repo else e.file
                found.append(f"the {where} grew from {e.base_tokens:,} to {e.head_tokens:,} tokens")
        return [f"{line}, more than --max-budget-growth {growth.describe()}" for line in found]

    def to_data(self, growth: Growth | None = None) -> dict[str, object]:
        return {
            "base": self.base,
            "tokens": {
                "base": self.base_tokens,
                "head": self.head_tokens,
                "added": self.added,
                "removed": self.removed,
            },
            "changedRules": self.changed,
            "areas": [a.to_data() for a in self.areas],
            "exports": [e.to_data() for e in self.exports],
            "pushedOut": [p.to_data() for p in self.pushed_out],
            "unreachable": [u.to_data() for u in self.unreachable],
            "pathsChecked": self.paths,
            "pathsCapped": self.capped,
            "maxBudgetGrowth": None if growth is None else growth.describe(),
            "overGrowth": self.over(growth),
        }


# --- sample paths ------------------------------------------------------------------------------------


def sample_path(glob: str) -> str | None:
    """A path the glob matches (`src/billing/**/*.ts` → `src/billing/homeostat-sample.ts`), to ask
    selection what a session there gets; None for a glob no simple path is made for."""
    pattern = expand_braces(glob.removeprefix("./"))[0]
    path = re.sub(r"\[!?([^\]])[^\]]*\]", r"\1", pattern)  # a class: its first character
    path = path.replace("**/", "").replace("/**", f"/{SAMPLE_NAME}")
    path = "" if path == "**" else path
    path = path.replace("*", SAMPLE_NAME).replace("?", "x")
    if not path or path.endswith("/"):
        path += SAMPLE_NAME
    path = re.sub(rf"{SAMPLE_NAME}({SAMPLE_NAME})+", SAMPLE_NAME, path)
    return path if glob_matches(glob, path) else None


def _rule_paths(entry: Entry, corpus: Corpus) -> list[str]:
    """Sample paths for what a rule scopes: its own path globs, else (a global rule) its area's."""
    globs = [g for g in entry.scope if not is_global(g)]
    if not globs:
        info = corpus.areas.get(entry.area)
        globs = list(info.paths) if info is not None else []
    return [p for g in globs if (p := sample_path(g)) is not None]


# --- the comparison --------------------------------------------------------------------------------


def _fingerprint(entry: Entry) -> tuple[object, ...]:
    return (entry.view, entry.scope, entry.status, entry.adopted, entry.area, entry.score, entry.kind)


def changed_ids(base: Corpus, head: Corpus) -> set[str]:
    """Rules added, removed or changed in anything selection reads."""
    before = {e.id: _fingerprint(e) for e in base.entries}
    after = {e.id: _fingerprint(e) for e in head.entries}
    return {i for i in before.keys() | after.keys() if before.get(i) != after.get(i)}


def area_totals(corpus: Corpus) -> dict[str, tuple[int, int]]:
    """(rules, tokens) of the rules sessions may be served, per area."""
    out: dict[str, tuple[int, int]] = {}
    for e in corpus.entries:
        if e.status in SERVED and e.adopted:
            rules, tokens = out.get(e.area, (0, 0))
            out[e.area] = (rules + 1, tokens + e.tokens)
    return out


def area_deltas(
    before: Mapping[str, tuple[int, int]], after: Mapping[str, tuple[int, int]]
) -> list[AreaDelta]:
    """The areas whose served rules or tokens differ."""
    rows = []
    for area in sorted(before.keys() | after.keys()):
        (br, bt), (hr, ht) = before.get(area, (0, 0)), after.get(area, (0, 0))
        if (br, bt) != (hr, ht):
            rows.append(AreaDelta(area, br, hr, bt, ht))
    return rows


def _repos(corpus: Corpus) -> list[str | None]:
    return [r.name for r in corpus.repos] if corpus.multi_repo else [None]


def export_deltas(
    base: Corpus,
    head: Corpus,
    limits: tuple[Mapping[str, Limit], Mapping[str, Limit]],
    count: Callable[[str], int],
) -> list[ExportDelta]:
    """Tokens of each always-on exported file, per repo, at the base and the head."""
    rows = []
    for repo in dict.fromkeys([*_repos(base), *_repos(head)]):
        before = repo_export(base, repo, limits[0], ALWAYS_ON, with_files=False)
        after = repo_export(head, repo, limits[1], ALWAYS_ON, with_files=False)
        for fmt, text in after.always_on.items():
            old, new = count(before.always_on.get(fmt, "")), count(text)
            if old != new:
                rows.append(ExportDelta(repo, fmt, old, new, len(after.left_out.get(fmt, ()))))
    return rows


def _audiences(entry: Entry, corpus: Corpus) -> list[Audience]:
    """Who may be served the rule: its repo's sessions (a core rule: every repo's)."""
    if not corpus.multi_repo:
        return [Audience(None)]
    if entry.area == CORE or "/" not in entry.area:
        return [Audience(r.name) for r in corpus.repos]
    return [Audience(entry.area.split("/", 1)[0])]


class _Views:
    """What the default budget serves at a path, per side and audience, each worked out once."""

    def __init__(self, corpus: Corpus, count: Callable[[str], int]) -> None:
        self.corpus, self.count = corpus, count
        self.parts: dict[str | None, Corpus] = {}
        self.served: dict[tuple[str | None, str], frozenset[str]] = {}

    def at(self, audience: Audience, path: str) -> frozenset[str]:
        key = (audience.repo, path)
        found = self.served.get(key)
        if found is None:
            part = self.parts.get(audience.repo)
            if part is None:
                part = self.parts[audience.repo] = repo_part(self.corpus, audience.repo)
            view = build_view(part, [path], audience, self.count)
            found = self.served[key] = frozenset(view.served_ids)
        return found


def compare(
    base_ref: str,
    base: Corpus,
    head: Corpus,
    count: Callable[[str], int],
    limits: tuple[Mapping[str, Limit], Mapping[str, Limit]],
) -> Impact:
    """The base and the head side by side, for the table in the job summary and `--max-budget-growth`."""
    changed = changed_ids(base, head)
    before, after = _Views(base, count), _Views(head, count)
    probes: dict[tuple[str | None, str], Audience] = {}
    for rule_id in sorted(changed):
        for corpus in (base, head):
            entry = corpus.entry(rule_id)
            if entry is None:
                continue
            for audience in _audiences(entry, corpus):
                for path in _rule_paths(entry, corpus):
                    probes.setdefault((audience.repo, path), audience)
    capped = len(probes) > MAX_PATHS
    looked = list(probes.items())[:MAX_PATHS]
    pushed: list[PushedOut] = []
    for (_, path), audience in looked:
        was, now = before.at(audience, path), after.at(audience, path)
        entrants = tuple(sorted(now - was))
        for rule_id in sorted(was - now):
            entry = head.entry(rule_id)
            if entry is None or entry.status not in SERVED or not entry.adopted:
                continue  # removed, retired or rejected by the PR: not pushed out
            by = tuple(i for i in entrants if i != rule_id)
            pushed.append(PushedOut(rule_id, path, by))
    suspects = sorted({p.rule for p in pushed} | {i for i in changed if head.entry(i) is not None})
    unreachable = [u for i in suspects if (u := _unreachable(i, base, head, before, after)) is not None]
    totals = area_totals(base), area_totals(head)
    return Impact(
        base_ref,
        tuple(area_deltas(*totals)),
        tuple(export_deltas(base, head, limits, count)),
        tuple(pushed),
        tuple(unreachable),
        len(changed),
        len(looked),
        capped,
        sum(t for _, t in totals[0].values()),
        sum(t for _, t in totals[1].values()),
    )


def _unreachable(
    rule_id: str, base: Corpus, head: Corpus, before: _Views, after: _Views
) -> Unreachable | None:
    """The rule, when the head serves it at none of the paths it scopes and the base served it at
    one (or it is new): a change the PR made, not one it found."""
    entry = head.entry(rule_id)
    if entry is None or entry.status not in SERVED or not entry.adopted:
        return None
    paths = _rule_paths(entry, head)[:8]
    if not paths:
        return None
    audiences = _audiences(entry, head)
    if any(rule_id in after.at(a, p) for a in audiences for p in paths):
        return None
    old = base.entry(rule_id)
    if old is not None:
        old_paths = _rule_paths(old, base)[:8]
        if not any(rule_id in before.at(a, p) for a in _audiences(old, base) for p in old_paths):
            return None  # unreachable before the PR too
    return Unreachable(rule_id, entry.area, tuple(paths))


# --- the table -------------------------------------------------------------------------------------

SHOWN = 10


def _signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}"


def _cut(items: Sequence[str], shown: int = SHOWN) -> str:
    more = f" and {len(items) - shown} more" if len(items) > shown else ""
    return ", ".join(items[:shown]) + more


def impact_markdown(impact: Impact, growth: Growth | None = None) -> str:
    """The short table for the job summary: tokens per area and per always-on file, then the rules
    pushed out and the unreachable ones."""
    out = [
        f"### What agents will get (against `{impact.base}`)",
        "",
        f"{impact.changed} rules changed; served rules {impact.base_tokens:,} → {impact.head_tokens:,} "
        f"tokens (+{impact.added:,} / -{impact.removed:,}).",
        "",
    ]
    rows = [(f"area `{a.area}`", a.base_tokens, a.head_tokens) for a in impact.areas] + [
        (f"{e.file}" + (f" ({e.repo})" if e.repo else ""), e.base_tokens, e.head_tokens)
        for e in impact.exports
    ]
    if rows:
        out += ["| What | Base tokens | Head tokens | Change |", "| --- | ---: | ---: | ---: |"]
        out += [f"| {what} | {b:,} | {h:,} | {_signed(h - b)} |" for what, b, h in rows[:20]]
        if len(rows) > 20:
            out.append(f"| … {len(rows) - 20} more | | | |")
        out.append("")
    if impact.pushed_out:
        lines = [
            f"`{p.rule}` at `{p.path}`" + (f" (by {', '.join(f'`{b}`' for b in p.by[:3])})" if p.by else "")
            for p in impact.pushed_out
        ]
        out += [f"**No longer fit the default budget:** {_cut(lines)}.", ""]
    if impact.unreachable:
        out += [
            f"**Unreachable** (no session start serves them; MCP search still finds them): "
            f"{_cut([f'`{u.rule}`' for u in impact.unreachable])}.",
            "",
        ]
    if impact.capped:
        out += [f"Only {impact.paths} of the paths the changed rules scope were looked at.", ""]
    out += [f"**Over the limit:** {line}." for line in impact.over(growth)]
    return "\n".join(out).rstrip() + "\n"


def impact_text(impact: Impact, growth: Growth | None = None) -> list[str]:
    """The same, as lines for the step log."""
    lines = [
        f"agents: against {impact.base}, {impact.changed} rules changed; served rules "
        f"{impact.base_tokens:,} -> {impact.head_tokens:,} tokens (+{impact.added:,} / -{impact.removed:,})"
    ]
    lines += [
        f"agents: area {a.area}: {a.base_tokens:,} -> {a.head_tokens:,} tokens ({_signed(a.head_tokens - a.base_tokens)})"
        for a in impact.areas
    ]
    lines += [
        f"agents: {e.file}{f' ({e.repo})' if e.repo else ''}: {e.base_tokens:,} -> {e.head_tokens:,} tokens"
        for e in impact.exports
    ]
    lines += [
        f"agents: {p.rule} no longer fits the default budget at {p.path}"
        + (f" (pushed out by {', '.join(p.by)})" if p.by else " (its own size)")
        for p in impact.pushed_out
    ]
    lines += [f"agents: {u.rule} is unreachable: no session start serves it" for u in impact.unreachable]
    lines += [f"agents: over the limit: {line}" for line in impact.over(growth)]
    return lines


def insights_details(impact: Impact, growth: Growth | None, limit: int = 2000) -> str:
    """One paragraph for a Code Insights report's details (Bitbucket keeps 2,000 characters)."""
    text = (
        f"Against {impact.base}: {impact.changed} rules changed; served rules +{impact.added:,} / "
        f"-{impact.removed:,} tokens; {len(impact.pushed_out)} no longer fit the default budget; "
        f"{len(impact.unreachable)} unreachable."
    )
    over = impact.over(growth)
    if over:
        text += " Over the limit: " + "; ".join(over) + "."
    return text if len(text) <= limit else text[: limit - 1] + "…"
