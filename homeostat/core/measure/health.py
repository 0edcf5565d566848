"""KB health: the counts a reviewer looks at, for `homeostat report`, the MCP `health` tool and the
dashboard: where rules sit, what is stale or flagged, what drifts to a catch-all topic."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from homeostat.core.text import plural

if TYPE_CHECKING:
    from homeostat.core.kb import KB


@dataclass(frozen=True)
class Health:
    rules: int
    by_status: Mapping[str, int]
    by_area: Mapping[str, int]
    by_topic: Mapping[str, int]
    by_kind: Mapping[str, int]
    stale: tuple[str, ...]
    open_flags: tuple[tuple[str, int], ...]
    catch_all_share: float
    documents: int
    sections: int
    errors: int
    warnings: int

    def to_data(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "byStatus": dict(self.by_status),
            "byArea": dict(self.by_area),
            "byTopic": dict(self.by_topic),
            "byKind": dict(self.by_kind),
            "stale": list(self.stale),
            "openFlags": {rid: n for rid, n in self.open_flags},
            "catchAllShare": round(self.catch_all_share, 3),
            "documents": self.documents,
            "sections": self.sections,
            "validation": {"errors": self.errors, "warnings": self.warnings},
        }


def kb_health(
    kb: KB, today: dt.date, stale_days: int, catch_all: frozenset[str], errors: int, warnings: int
) -> Health:
    """Counts a reviewer looks at: where rules sit, what is stale or flagged, what drifts to a catch-all.
    Areas and topics are named as `core.served` shows them."""
    from homeostat.core.served import served_value

    rules = kb.rules
    live = [r for r in rules if r.meta.status != "retired"]
    cutoff = today - dt.timedelta(days=stale_days)
    topics = Counter(
        f"{served_value('name', r.area)}/{served_value('name', r.meta.topic)}"
        if r.meta.topic
        else f"{served_value('name', r.area)} (no topic)"
        for r in live
    )
    in_catch_all = sum(1 for r in live if (r.meta.topic or "") in catch_all)
    return Health(
        rules=len(rules),
        by_status=dict(Counter(r.meta.status for r in rules)),
        by_area=dict(Counter(served_value("name", r.area) for r in live)),
        by_topic=dict(topics),
        by_kind=dict(
            Counter((r.meta.kind or "none") + ("" if r.meta.adopted else " (rejected)") for r in live)
        ),
        stale=tuple(
            sorted(r.id for r in live if r.meta.status == "accepted" and r.meta.last_confirmed < cutoff)
        ),
        open_flags=tuple(sorted((r.id, len(r.meta.open_flags)) for r in rules if r.meta.open_flags)),
        catch_all_share=in_catch_all / len(live) if live else 0.0,
        documents=len(kb.documents),
        sections=sum(len(d.sections) for d in kb.documents),
        errors=errors,
        warnings=warnings,
    )


def render_health(health: Health, usage: Mapping[str, int] | None = None, days: int = 0) -> str:
    def counts(values: Mapping[str, int]) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(values.items())) or "none"

    lines = [
        f"Rules: {health.rules} ({counts(health.by_status)})",
        f"By area: {counts(health.by_area)}",
        f"By topic: {counts(health.by_topic)}",
        f"By kind: {counts(health.by_kind)}",
        f"Stale (accepted, not confirmed in time): {len(health.stale)}"
        + (
            f" ({', '.join(health.stale[:10])}" + (", …" if len(health.stale) > 10 else "") + ")"
            if health.stale
            else ""
        ),
        f"Open flags: {sum(n for _, n in health.open_flags)} on {plural(len(health.open_flags), 'rule')}"
        + (f" ({', '.join(rid for rid, _ in health.open_flags[:10])})" if health.open_flags else ""),
        f"Catch-all topics hold {health.catch_all_share:.0%} of live rules",
        f"Documents: {health.documents} with {plural(health.sections, 'section')}",
        f"Validation: {plural(health.errors, 'error')}, {plural(health.warnings, 'warning')}",
    ]
    if usage is not None:
        lines.append(f"Last {plural(days, 'day')} on this machine: {counts(usage)}")
    return "\n".join(lines) + "\n"
