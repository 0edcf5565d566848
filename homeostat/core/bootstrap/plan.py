"""What a seed or bootstrap will read and send, as values, and the preview a person reads before any call.

The preview is the dry run's whole output and what is asked about at a terminal: every file each
topic's prompt holds, what was never read and why, what was read but refused, the topics skipped as
unchanged, the Markdown docs imported without a model, and the estimated cost from the one price table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from homeostat.core.asker import usd
from homeostat.core.bootstrap.drafting import OUTPUT_TOKENS, Estimate
from homeostat.core.bootstrap.merge import DocumentDraft
from homeostat.core.text import plural


@dataclass(frozen=True)
class TopicPlan:
    topic: str
    document: str  # the KB path it merges into
    area: str
    scope: tuple[str, ...]
    files: tuple[str, ...]  # what the prompt holds
    cut: tuple[str, ...] = ()  # of those, the files cut to size
    redactions: int = 0
    prompt: str = ""
    source_hash: str = ""
    estimate: Estimate = Estimate(0, 0, 0.0)
    skipped: bool = False  # drafted from these very inputs before

    @property
    def needs_call(self) -> bool:
        return bool(self.files) and not self.skipped


@dataclass(frozen=True)
class DocPlan:
    path: str  # in the code repo
    draft: DocumentDraft
    skipped: bool = False


@dataclass
class RepoPlan:
    name: str  # the repo's name in homeostat.yaml (or the checkout's folder)
    repo: str | None  # None in a KB without repo folders
    checkout: str
    url: str
    topics: list[TopicPlan] = field(default_factory=list)
    never_read: dict[str, str] = field(default_factory=dict)  # path → why
    refused: dict[str, str] = field(default_factory=dict)  # read, then refused by content
    unreadable: dict[str, str] = field(default_factory=dict)  # binary, too large, a symlink…
    scanned: int = 0  # files read locally to choose (table definitions, manifests)
    docs: list[DocPlan] = field(default_factory=list)

    @property
    def calls(self) -> list[TopicPlan]:
        return [t for t in self.topics if t.needs_call]


def total(plans: Sequence[RepoPlan]) -> tuple[int, float]:
    """(model calls, estimated USD) across every repo."""
    calls = [t for plan in plans for t in plan.calls]
    return len(calls), sum(t.estimate.cost_usd for t in calls)


def _never_read_lines(never: dict[str, str]) -> list[str]:
    """Tests are counted per folder (there are many); everything else is listed by path."""
    tests = Counter(
        path.split("/", 1)[0] if "/" in path else path for path, why in never.items() if why == "test"
    )
    lines = [f"    {path} ({why})" for path, why in sorted(never.items()) if why != "test"]
    if tests:
        lines.append(
            "    tests: " + ", ".join(f"{folder} ({count})" for folder, count in sorted(tests.items()))
        )
    return lines


def preview(plans: Sequence[RepoPlan], model: str, cap: float, cap_source: str) -> str:
    """The dry run: every file each prompt would hold, what is never read, and the cost."""
    lines: list[str] = []
    for plan in plans:
        lines.append(f"{plan.name} (checkout {plan.checkout}):")
        for topic in plan.topics:
            if not topic.files:
                lines.append(f"  {topic.topic}: nothing to draft from")
                continue
            if topic.skipped:
                lines.append(f"  {topic.topic}: skipped, unchanged since the last draft ({topic.document})")
                continue
            extra = f", {plural(topic.redactions, 'secret')} redacted" if topic.redactions else ""
            lines.append(
                f"  {topic.topic} → {topic.document}: {plural(len(topic.files), 'file')}, "
                f"~{topic.estimate.input_tokens:,} tokens in, ~{usd(topic.estimate.cost_usd)}{extra}"
            )
            lines += [f"    {path}{' (cut to size)' if path in topic.cut else ''}" for path in topic.files]
        if plan.docs:
            fresh = [d for d in plan.docs if not d.skipped]
            lines.append(
                f"  Markdown docs imported without a model: {len(fresh)} "
                f"({len(plan.docs) - len(fresh)} unchanged)"
            )
            lines += [f"    {doc.path} → {doc.draft.path}" for doc in fresh]
        if plan.never_read:
            lines.append(f"  never read ({plural(len(plan.never_read), 'file')}):")
            lines += _never_read_lines(plan.never_read)
        if plan.refused:
            lines.append("  read, but never sent:")
            lines += [f"    {path} ({why})" for path, why in sorted(plan.refused.items())]
        if plan.unreadable:
            lines.append("  not read:")
            lines += [f"    {path}: {why}" for path, why in sorted(plan.unreadable.items())]
        if plan.scanned:
            lines.append(f"  scanned locally to choose files (nothing sent): {plural(plan.scanned, 'file')}")
    calls, cost = total(plans)
    if calls:
        lines.append(
            f"estimated cost: ~{usd(cost)} for {plural(calls, 'call')} to {model} (list prices, about "
            f"{OUTPUT_TOKENS:,} output tokens a call); spending cap {usd(cap)} ({cap_source})"
        )
        if cost > cap:
            lines.append(
                "the estimate is over the cap: topics past it are left for a rerun (raise the cap to draft all)"
            )
    else:
        lines.append("no model call needed")
    return "\n".join(lines) + "\n"
