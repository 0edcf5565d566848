"""A rule's explanation: where it came from, why it scores what it does, who owns it, what it
conflicts with, and where selection ranks it for given files; `explain`, the MCP tool and the
dashboard's entry page show the same answer.

This reads the KB itself rather than the cached corpus, because provenance and flags are not part of
what agents are served.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from homeostat.core.selection.entries import Entry
from homeostat.core.selection.rank import rank_summary, select_entries
from homeostat.core.served import served_value
from homeostat.runs.session import Session, relative_paths

if TYPE_CHECKING:
    from homeostat.core.kb import KB
    from homeostat.core.schema import Rule


@dataclass
class Explanation:
    id: str
    found: bool
    facts: dict[str, object] = field(default_factory=dict)

    def text(self) -> str:
        if not self.found:
            return str(self.facts.get("hint", "")) + "\n"
        lines = [f"{self.id}: {self.facts['title']}"]
        lines += [
            f"  {key}: {value}"
            for key, value in self.facts.items()
            if key != "title" and value not in ("", [], None)
        ]
        return "\n".join(lines) + "\n"

    def to_data(self) -> dict[str, object]:
        """The JSON form: every key always present (null when it does not apply), camelCase."""
        data: dict[str, object] = {"id": self.id, "found": self.found, **dict.fromkeys(JSON_KEYS)}
        data.update({_camel(label): value for label, value in self.facts.items()})
        return data


JSON_KEYS = (
    "hint",
    "title",
    "file",
    "area",
    "owner",
    "status",
    "kind",
    "scope",
    "source",
    "alsoFrom",
    "dates",
    "approvedBy",
    "score",
    "openFlags",
    "conflicts",
    "forTheseFiles",
)


def _camel(label: str) -> str:
    """`approved by` → `approvedBy`: the text form's labels as JSON keys."""
    first, *rest = label.split()
    return first + "".join(word.capitalize() for word in rest)


def _owner(kb: KB, rule: Rule) -> str:
    config = kb.require_config()
    area = config.area(rule.area)
    team = rule.meta.owner or (area.owner if area else "")
    handle = config.team_named(team).handle if team and config.team_named(team) else ""  # type: ignore[union-attr]
    handle = served_value("team", handle)
    return f"{team} ({handle})" if handle else (team or "no owning team (core)")


class Conflicts:
    """Each rule's content words, worked out once for a loaded KB: a long-lived MCP server keeps this
    beside the KB while its key is unchanged, so `explain` compares one rule's words with the rest
    instead of re-reading every rule's (0.7 s a call at 20,000 rules). Answers are memoised per rule."""

    def __init__(self, kb: KB) -> None:
        from homeostat.core.scoring import conflict_counts

        self.kb = kb
        self.counts = conflict_counts(kb.rules)  # contradictions declared against each rule
        self._contradicted_by: dict[str, list[str]] = {}
        for other in kb.rules:
            for target in dict.fromkeys(other.meta.contradicts):
                self._contradicted_by.setdefault(target, []).append(other.id)
        self._others = [
            (other.id, _repo(other.area), other.area, f"{other.title}\n{other.rule}")
            for other in kb.rules
            if other.meta.status != "retired"
        ]
        self._words: list[frozenset[str] | None] = [None] * len(self._others)  # found when first needed
        self._found: dict[str, list[str]] = {}

    def of(self, rule: Rule) -> list[str]:
        if rule.id not in self._found:
            self._found[rule.id] = self._near_duplicates(rule)
        found = [f"contradicts {other}" for other in rule.meta.contradicts]
        found += [f"contradicted by {other}" for other in self._contradicted_by.get(rule.id, [])]
        return found + self._found[rule.id]

    def _near_duplicates(self, rule: Rule) -> list[str]:
        from homeostat.core.similarity import SAME_LESSON_THRESHOLD, content_words, distinct_facts, overlap

        repo = _repo(rule.area)
        mine = f"{rule.title}\n{rule.rule}"
        words = content_words(mine)
        found = []
        for i, (other_id, other_repo, other_area, text) in enumerate(self._others):
            if other_id == rule.id:
                continue
            if other_repo != repo and "core" not in (rule.area, other_area):
                continue
            theirs = self._words[i]
            if theirs is None:
                theirs = self._words[i] = content_words(text)
            if overlap(words, theirs) >= SAME_LESSON_THRESHOLD and not distinct_facts(mine, text):
                found.append(f"near-duplicate of {other_id}")
        return found


def _repo(area: str) -> str:
    return area.split("/", 1)[0] if "/" in area else area


def explain(
    kb: KB,
    session: Session,
    rule_id: str,
    files: list[str] | None,
    base: Path | None = None,
    conflicts: Conflicts | None = None,
    task: Sequence[str] = (),
    *,
    flag_reasons: bool = False,
) -> Explanation:
    """`conflicts`: the KB's words when the caller keeps them (the MCP server); else worked out now.
    `task`: what the developer is doing, as words, which ranks `files` as `context` does.
    Each open flag is shown by who and when, and its reason only with `flag_reasons` (the dashboard,
    a person's browser): the CLI's answer is an agent's too (the plugin's explain skill runs it), and
    a flag merges with no person reading it (`docs/daily.md`, "What merges unread"), so its reason is
    words only the risky check has read, chosen by whoever ran `learn --flag` (an agent under a
    prompt injection among them); it is for the person who settles the dispute."""
    from homeostat.core.served import served_rule

    rule = kb.rule(rule_id)
    if rule is None or not session.audience.sees(rule.area, session.corpus):
        return _explain_unseen(kb, session, rule_id, rule)
    rule = served_rule(rule)  # every fact below is a field as `core.served` shows it
    facts = _rule_facts(kb, rule, conflicts or Conflicts(kb), flag_reasons=flag_reasons)
    if files is not None:
        touched = relative_paths(files, session.identity, base or session.identity.top)
        facts["for these files"] = _placement(session, touched, task, rule_id)
    return Explanation(rule_id, True, facts)


def _explain_unseen(kb: KB, session: Session, rule_id: str, rule: Rule | None) -> Explanation:
    """A rule this session cannot see: its pending lesson when this clone holds one, else a hint that
    tells a broken file (validate it) from a missing or hidden rule (search for it) — without saying
    which of the last two, so another area's rules stay unseen."""
    pending = session.corpus.entry(rule_id)
    if rule is None and pending is not None and session.audience.sees(pending.area, session.corpus):
        return _explain_pending(pending)
    broken = kb.unreadable_rule(rule_id) if rule is None else None
    hint = (
        f"Rule {rule_id!r} cannot be read ({broken}); run homeostat validate."
        if broken is not None
        else f"No rule {rule_id!r} in this KB for this repo; `search` for it."
    )
    return Explanation(rule_id, False, {"hint": hint})


def _rule_facts(kb: KB, rule: Rule, conflicts: Conflicts, *, flag_reasons: bool = False) -> dict[str, object]:
    """The rule's provenance, score and standing, in the order a reader asks about them; the keys are
    the JSON shape `explain --json`, the MCP tool and the dashboard share."""
    from homeostat.core.scoring import score_rule

    meta = rule.meta
    breakdown = score_rule(meta, kb.config, conflicts.counts.get(rule.id, 0))
    terms = ", ".join(f"{name} {points:+d}" for name, points in breakdown.terms) or "no terms"
    return {
        "title": meta.title,
        "file": f"{rule.file}:{rule.line}" + (f" (topic {meta.topic})" if meta.topic else ""),
        "area": meta.area,
        "owner": _owner(kb, rule),
        "status": meta.status + ("" if meta.adopted else ", rejected decision (served only as 'do not')"),
        "kind": meta.kind or "",
        "scope": ", ".join(meta.scope),
        "source": _source_line(rule),
        "also from": list(meta.also_from),
        "dates": f"created {meta.created}, last confirmed {meta.last_confirmed}",
        "approved by": ", ".join(meta.approved_by),
        "score": f"{breakdown.total} = {terms}"
        + (f" (cached {meta.score})" if meta.score is not None else ""),
        "open flags": [
            f"{f.by} on {f.at}" + (f": {f.reason}" if flag_reasons else "") for f in meta.open_flags
        ],
        "conflicts": conflicts.of(rule),
    }


def _source_line(rule: Rule) -> str:
    """Where the rule was learned, on one line: its type, then whichever of author, link and
    code-changed the source records (a missing one is left out, not shown empty)."""
    source = rule.meta.source
    return (
        f"{source.type}"
        + (f" by {source.author}" if source.author else "")
        + (f", {source.url}" if source.url else "")
        + ("" if source.changed_code is None else f", code changed: {'yes' if source.changed_code else 'no'}")
    )


def _placement(session: Session, touched: list[str], task: Sequence[str], rule_id: str) -> str:
    """Where selection ranks the rule for these files, as `context` would rank it, so "why did (not)
    my agent get this rule" has the same answer here as in the session."""
    ranked = select_entries(session.corpus, touched, session.audience, task).ranked
    place = next(((i, r) for i, r in enumerate(ranked, start=1) if r.entry.id == rule_id), None)
    if place is None:
        return "not selected: its scope does not cover them and it names none of them"
    i, r = place
    return f"#{i} of {len(ranked)}, tier {r.tier}, rrf {r.rrf:.4f} ({rank_summary(r)})"


def _explain_pending(entry: Entry) -> Explanation:
    """A lesson in this clone's pending set: served to this clone's sessions, not yet decided."""
    facts: dict[str, object] = {
        "title": entry.title,
        "status": "pending: a lesson in this clone's .homeostat/pending/; the daily run decides it",
        "area": entry.area,
        "owner": entry.owner or "no owning team (core)",
        "kind": entry.kind,
        "scope": ", ".join(entry.scope),
    }
    return Explanation(entry.id, True, facts)
