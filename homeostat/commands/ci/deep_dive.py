"""`homeostat deep-dive`: wire the weekly deep dive to the CI environment's host and model credentials.

The same credentials as `homeostat daily` (`GITHUB_TOKEN` or `HOMEOSTAT_GITHUB_TOKEN`, Bitbucket's
variables, `ANTHROPIC_API_KEY`); the KB is the checkout the job runs in. `--dry-run` and
`--show-prompts` need no host token: they open nothing.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
from collections.abc import Callable
from typing import TextIO

from homeostat.adapters.state.event_log import run_events
from homeostat.cli_options import (
    add_format_option,
    add_kb_option,
    askers_from_args,
    check_cost_and_prompts,
    emit_json,
)
from homeostat.console import note_unreadable
from homeostat.core.asker import RunStats
from homeostat.core.render import ci_report
from homeostat.core.render.ci_report import DeepDiveReport
from homeostat.core.schema import Rule
from homeostat.core.state.checkpoints import seal_key
from homeostat.runs.deep_dive import DeepDiveDeps, DeepDiveOptions, DeepDiveResult, run_deep_dive
from homeostat.runs.deep_dive.run_state import Found
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "deep-dive",
        help="the weekly deep dive: merge near-duplicates, check contradictions, retire stale rules",
        description=(
            "Merge near-duplicate rules into the higher-scoring one, ask the model about contradictions "
            "between the week's new rules and the rules they overlap, retire rules unconfirmed for "
            "scoring.staleAfterDays and retract the document sections citing them, and note documents "
            "that do not keep up; with agents.deepDive.checkCode, also retire rules whose named paths and "
            "identifiers are all gone from the code repos (file names and code-search counts through the "
            "host API; no file is read). All in one deep-dive PR a person merges."
        ),
    )
    add_kb_option(parser)
    add_format_option(parser)
    parser.add_argument(
        "--dry-run", action="store_true", help="find and print what the PR would hold; write nothing"
    )
    parser.add_argument(
        "--max-cost", type=float, metavar="USD", help="spending cap for this run (default: agents.maxCostUsd)"
    )
    parser.add_argument(
        "--show-prompts",
        action="store_true",
        help="print every prompt the run would send; send and write nothing",
    )
    parser.set_defaults(run=run)


def run(
    args: argparse.Namespace, workspace: Workspace, *, now: Callable[[], dt.datetime] | None = None
) -> int:
    """`now` is the run's clock (a benchmark's week later); the wall clock else."""
    from homeostat.kb_origin import origin_git, origin_host

    root, kb, config = workspace.root, workspace.kb, workspace.config
    note_unreadable([u.row() for u in kb.unreadable])
    check_cost_and_prompts(args, "a result")
    out: TextIO = io.StringIO() if args.format == "json" else workspace.out
    options = DeepDiveOptions(dry_run=args.dry_run, max_cost=args.max_cost, show_prompts=args.show_prompts)
    env = workspace.env
    stats = RunStats(seal=seal_key(env))
    git = origin_git(root, config, env)
    host, kb_repo = origin_host(config, git, env) if not (args.dry_run or args.show_prompts) else (None, None)
    with run_events(root, env, show_prompts=args.show_prompts) as sink:
        ask = askers_from_args(args, config, stats, sink=sink, env=env)
        ask("deep-dive")  # a missing key or an unknown model stops the run here, before anything is read
        deps = DeepDiveDeps(git=git, host=host, kb_repo=kb_repo, asker_for=ask, stats=stats, out=out)
        if now is not None:
            deps.now = now
        return _publish(run_deep_dive(deps, options), stats, out)


def _publish(result: DeepDiveResult, stats: RunStats, out: TextIO) -> int:
    """Inside GitHub Actions: step outputs, the job summary and annotations, read off the result;
    with --format json, the result as JSON (what the text form printed is its `text`)."""
    from homeostat.adapters.hosts import github_actions

    if isinstance(out, io.StringIO):
        emit_json(deep_dive_data(result, out.getvalue()))

    if github_actions.in_github_actions():
        report = ci_report_of(result, stats)
        github_actions.write_report(ci_report.deep_dive(report))
    return result.exit_code


def ci_report_of(result: DeepDiveResult, stats: RunStats) -> DeepDiveReport:
    from homeostat.runs.deep_dive.propose import summary_line

    found = result.found
    return DeepDiveReport(
        counts=found.counts() if found is not None else {},
        summary=summary_line(found) if found is not None else "",
        pr_url=result.pull.url if result.pull is not None else "",
        notices=[(n.kind, n.message) for n in found.notices] if found is not None else [],
        cost_usd=stats.cost_usd,
        dry_run=result.dry_run,
        capped=found.capped if found is not None else False,
        failed=result.failed,
        week_done=result.week_done,
    )


def deep_dive_data(result: DeepDiveResult, text: str) -> dict[str, object]:
    """`--format json` (docs/cli.md): rules as objects with an id, sections as `<doc>#<section>`."""
    found = result.found
    pull = result.pull
    data: dict[str, object] = {
        "dryRun": result.dry_run,
        "exitCode": result.exit_code,
        "failed": result.failed or None,
        "weekDone": result.week_done or None,
        "pr": {"number": pull.number, "url": pull.url, "state": str(pull.state)} if pull else None,
        "counts": found.counts() if found is not None else {},
        "capped": found.capped if found is not None else False,
        "merges": [],
        "contradictions": [],
        "stale": [],
        "retracted": [],
        "listed": [],
        "notes": [],
        "skipped": [],
        "unanswered": [],
        "notices": [],
        "codeCheck": None,
        "text": text,
    }
    if found is None:
        return data
    data["merges"] = [
        {"keep": _rule(m.keep), "drop": _rule(m.drop), "reason": m.reason} for m in found.merges
    ]
    data["contradictions"] = [
        {"rule": _rule(c.rule), "contradicts": {"id": c.other}, "reason": c.reason}
        for c in found.contradictions
    ]
    data["stale"] = [{**_rule(r), "lastConfirmed": r.meta.last_confirmed.isoformat()} for r in found.stale]
    data["retracted"] = [
        {"section": f"{w.citation.doc_id}#{w.citation.section_id}", "ruleId": w.rule_id}
        for w in found.rewrites
    ]
    data["listed"] = [
        {"section": f"{r.doc}#{r.section}", "ruleId": r.rule_id, "note": r.note} for r in found.listed
    ]
    data["notes"] = [
        {
            "kind": n.kind,
            "area": n.area,
            "rules": n.rules,
            "section": f"{n.doc}#{n.section}" if n.doc else None,
            "updated": n.updated or None,
        }
        for n in found.notes
    ]
    data["skipped"] = list(found.skipped)
    data["unanswered"] = list(found.unanswered)
    data["notices"] = [{"kind": n.kind, "message": n.message} for n in found.notices]
    data["codeCheck"] = _code_check(found)
    return data


def _code_check(found: Found) -> dict[str, object] | None:
    """`agents.deepDive.checkCode`'s findings; None when the check is off."""
    code = found.code
    if not (code.ran or code.notes):
        return None
    return {
        "ran": code.ran,
        "trees": list(code.trees),
        "checked": code.checked,
        "searches": code.searches,
        "retired": [{"id": rule_id, "evidence": list(gone.evidence)} for rule_id, gone in code.retired],
        "sections": [{"section": gone.subject, "evidence": list(gone.evidence)} for gone in code.sections],
        "leftAlone": [{"subject": item.subject, "why": item.why} for item in code.undecided],
        "unsearched": code.unsearched,
        "notes": list(code.notes),
    }


def _rule(rule: Rule) -> dict[str, str]:
    return {"id": rule.id, "title": rule.title, "area": rule.area}
