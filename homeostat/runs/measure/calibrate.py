"""`homeostat calibrate`: the settled reviews on the state branch in, a PR to homeostat.yaml out.

Steps: fetch the state branch and the base branch; fit `scoring.confidence` to the settled reviews
against the weights in force on the base branch (`homeostat.core.measure.calibration`); write the proposed
weights into homeostat.yaml in place (every comment and line that did not change kept:
`homeostat.core.setup.config_edit`); and open or update the one standing PR on `homeostat/calibrate`
through the same proposal plumbing `import` and `bootstrap` use, with the calibration table and what
would have been decided differently in its body. Nothing is applied without that PR; `--dry-run`
prints the proposal and the diff and pushes nothing. Fewer settled reviews than the minimum is a
refusal, not a guess.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from homeostat.adapters.git.plumbing import Git
from homeostat.adapters.state.state_store import read_state
from homeostat.core.config import Config
from homeostat.core.hosts import PullInfo
from homeostat.core.kb import CONFIG_FILE, load_config
from homeostat.core.measure.calibration import (
    MIN_TERM,
    TARGET,
    Calibration,
    NotEnoughReviews,
    calibrate,
    proposed_config,
    summary_lines,
    table,
    weight_rows,
)
from homeostat.core.setup.config_edit import Path as KeyPath
from homeostat.core.setup.config_edit import apply_changes, config_changes, flow
from homeostat.core.state.branch import state_branch
from homeostat.errors import ConfigError, HomeostatError
from homeostat.runs.proposal import open_proposal, publish_proposal
from homeostat.runs.publish import Publisher, body

BRANCH = "homeostat/calibrate"
REMOTE = "origin"


class TooFewReviews(HomeostatError):
    """Below the minimum sample: the message says how many reviews there are and what to do."""

    exit_code = 1


@dataclass
class CalibrateResult:
    calibration: Calibration
    branch: str  # the state branch read
    changes: list[tuple[KeyPath, Any]] = field(default_factory=list)
    diff: str = ""
    pull: PullInfo | None = None

    @property
    def proposes(self) -> bool:
        return self.calibration.better and bool(self.changes)


def _config_of(text: str, where: str) -> Config:
    config, _, findings = load_config(text, CONFIG_FILE)
    if config is None:
        first = findings[0].message if findings else "not a Homeostat config"
        raise ConfigError(f"{CONFIG_FILE} on {where}: {first}; fix it before calibrating")
    return config


def fit_history(git: Git, config: Config, min_sample: int) -> tuple[Calibration, str]:
    """The fit to the settled reviews on the KB branch's state branch, as the remote holds it now."""
    branch = state_branch(config.sources.base_branch)
    snapshot = read_state(git, REMOTE, branch)
    try:
        return calibrate(snapshot.records(), config, min_sample=min_sample), branch
    except NotEnoughReviews as exc:
        raise TooFewReviews(
            f"calibrate needs at least {exc.needed} settled reviews on {branch} to propose weights and "
            f"found {exc.found}: rerun once reviewers have settled more review PRs (or pass --min-sample N)"
        ) from None


def edit(text: str, calibration: Calibration) -> tuple[str, list[tuple[KeyPath, Any]]]:
    """homeostat.yaml with the proposed weights, changed in place; its key paths and values."""
    current = _config_of(text, "the calibrate branch")
    wanted = proposed_config(current, calibration)
    changes = config_changes(current, wanted)
    return (apply_changes(text, changes, wanted) if changes else text), changes


def diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{CONFIG_FILE}", f"b/{CONFIG_FILE}"
    )
    return "".join(lines)


def dry_run(git: Git, config: Config, config_text: str, min_sample: int) -> CalibrateResult:
    """The proposal against this checkout's homeostat.yaml; nothing is pushed."""
    calibration, branch = fit_history(git, config, min_sample)
    result = CalibrateResult(calibration, branch)
    if calibration.better:
        new_text, result.changes = edit(config_text, calibration)
        result.diff = diff(config_text, new_text)
    return result


def propose(publisher: Publisher, config: Config, min_sample: int) -> CalibrateResult:
    """Fit against the weights in force on the base branch; open or update the calibrate PR."""
    base = config.sources.base_branch
    proposal = open_proposal(publisher, base, BRANCH)
    in_force_text = (publisher.git.read_file(publisher.base_tip(base), CONFIG_FILE) or b"").decode("utf-8")
    in_force = _config_of(in_force_text, f"{REMOTE}/{base}")
    calibration, branch = fit_history(publisher.git, in_force, min_sample)
    result = CalibrateResult(calibration, branch)
    if not calibration.better:
        return result
    text = proposal.files.get(CONFIG_FILE, in_force_text)
    new_text, result.changes = edit(text, calibration)
    result.diff = diff(text, new_text)
    if result.changes:
        result.pull = publish_proposal(
            publisher,
            proposal,
            {CONFIG_FILE: new_text},
            title=f"Calibrate scoring.confidence to {calibration.reviews} settled reviews",
            body=pr_body(result),
            config=in_force,
            areas=(),
        )
    return result


def pr_body(result: CalibrateResult) -> str:
    c = result.calibration
    kept = sorted(set(c.current) - set(c.fitted))
    notes = [f"`scoring.confidence.{key}`: fewer than {MIN_TERM} settled reviews carry it" for key in kept]
    notes.append(
        "the counted terms (`repeated`, open flags, conflicts, `modelRating`, the judge) as recorded"
    )
    return body(
        "calibrate_pr.md.j2",
        reviews=c.reviews,
        merged=c.merged,
        target=f"{TARGET:.0%}",
        target_percent=round(TARGET * 100),
        min_term=MIN_TERM,
        weights=weight_rows(c),
        bands=table(c),
        summary=[*summary_lines(c), f"read from `{result.branch}`"],
        notes=notes,
    )


def render(result: CalibrateResult, *, dry_run: bool) -> str:
    c = result.calibration
    lines = [f"calibrate: {line}" if i == 0 else f"  {line}" for i, line in enumerate(summary_lines(c))]
    if not result.proposes:
        lines.append("  the weights in force already match the settled reviews: nothing to propose")
        return "\n".join(lines) + "\n"
    lines += ["", *weight_rows(c), "", *table(c), ""]
    if dry_run:
        lines += [
            "dry run: homeostat.yaml would change as below; nothing was pushed",
            result.diff.rstrip("\n"),
        ]
    elif result.pull is not None:
        lines.append(f"PR: {result.pull.url}")
    return "\n".join(lines) + "\n"


def data(result: CalibrateResult, *, dry_run: bool, text: str) -> dict[str, object]:
    """`--format json` (docs/cli.md)."""
    c = result.calibration
    return {
        "dryRun": dry_run,
        "stateBranch": result.branch,
        "reviews": c.reviews,
        "merged": c.merged,
        "fitted": list(c.fitted),
        "weights": [{"key": k, "now": c.current[k], "proposed": c.proposed[k]} for k in sorted(c.current)],
        "components": [
            {
                "key": m.key,
                "reviewsWith": m.with_reviewed,
                "mergedWith": m.with_merged,
                "reviewsWithout": m.without_reviewed,
                "mergedWithout": m.without_merged,
            }
            for m in c.components
        ],
        "bands": [
            {
                "band": b.band,
                "reviewsNow": b.before_reviewed,
                "mergedNow": b.before_merged,
                "reviewsProposed": b.after_reviewed,
                "mergedProposed": b.after_merged,
            }
            for b in c.bands
        ],
        "fit": {
            "lossNow": round(c.loss_before, 4),
            "lossProposed": round(c.loss_after, 4),
            "rankingNow": round(c.ranking_before, 4),
            "rankingProposed": round(c.ranking_after, 4),
        },
        "scored": c.scored,
        "decidedDifferently": c.decided_differently,
        "changed": c.changed,
        "agree": {k: {"asReviewer": v[0], "not": v[1]} for k, v in c.agree.items()},
        "proposes": result.proposes,
        "changes": [
            {"key": ".".join(str(p) for p in path), "value": flow(value)} for path, value in result.changes
        ],
        "diff": result.diff,
        "pr": result.pull.url if result.pull is not None else None,
        "text": text,
    }
