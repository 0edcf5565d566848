"""`homeostat validate`: check the whole KB; the PR check every KB runs.

Exit 1 on any error finding, 0 otherwise, 2 when the KB cannot be read at all. Inside GitHub Actions
the findings also become annotations and a job-summary table; inside Bitbucket Pipelines, a Code
Insights report. Nothing is rewritten except by `--fix`, which touches only cached score/tokens.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import json
import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from homeostat.adapters.cache.token_memo import load_token_counts, save_token_counts
from homeostat.adapters.forked.tasks import tasks_beside
from homeostat.adapters.hosts.github_actions import (
    append_summary,
    in_github_actions,
    write_commands,
    write_outputs,
)
from homeostat.adapters.kb_files import kb_repository, read_ref, read_tree, write_changed
from homeostat.cli_options import add_format_option, add_kb_option, kb_dir, one_of
from homeostat.console import Progress
from homeostat.core.cost.token_counts import TokenCounts
from homeostat.core.findings import Finding
from homeostat.core.kb import CASES_FILE, CONFIG_FILE, KB, load_kb
from homeostat.core.measure.agent_impact import (
    Growth,
    Impact,
    impact_markdown,
    impact_text,
    insights_details,
    parse_growth,
)
from homeostat.core.render.findings import (
    code_insights,
    format_json,
    format_text,
    github_annotations,
    github_summary,
    summary_line,
)
from homeostat.core.type_hints import cast
from homeostat.core.validate import (
    FindingRow,
    Runner,
    ValidationResult,
    config_readable,
    finding_rows,
    validate_kb,
)
from homeostat.core.validate.content_checks import check_file_secrets
from homeostat.core.validate.fix import fix_cached_fields
from homeostat.errors import ConfigError, HomeostatError
from homeostat.runs.measure.agent_impact import base_from_env
from homeostat.workspace import Workspace

INSIGHTS_DETAILS = 2000  # Bitbucket keeps a report's details to 2,000 characters


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "validate",
        help="check the KB: schema, config, secrets, risky content, provenance, documents, conflicts",
        description=(
            "Check every rule, topic file, document and homeostat.yaml, and that a generated CODEOWNERS "
            "is current. Exit 1 on any error."
        ),
    )
    parser.add_argument("path", nargs="?", help=argparse.SUPPRESS)  # `validate DIR`, for one more release
    add_kb_option(parser)
    parser.add_argument("--ref", help="validate this git ref of the KB repo instead of the working tree")
    parser.add_argument("--fix", action="store_true", help="rewrite the cached score and tokens fields only")
    add_format_option(parser)
    parser.add_argument("--today", help="the date to check against, YYYY-MM-DD (default: today, UTC)")
    parser.add_argument(
        "--base",
        metavar="REF",
        help="also show what changes for agents against this ref (in a CI pull request: its base branch)",
    )
    parser.add_argument(
        "--max-budget-growth",
        metavar="N|N%",
        help="fail when what agents get grows by more than N tokens or N%% of the base (needs a base)",
    )
    parser.add_argument(
        "--no-insights",
        action="store_true",
        help="inside Bitbucket Pipelines, do not post a Code Insights report",
    )
    parser.set_defaults(run=run)


def parse_today(value: str | None) -> dt.date:
    if value is None:
        return dt.datetime.now(dt.UTC).date()
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ConfigError(f"--today {value!r} is not a YYYY-MM-DD date") from None


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    try:
        return check(args)
    finally:
        gc.unfreeze()  # an in-process caller (a test) gets back the collector it had


def check(args: argparse.Namespace) -> int:
    named = one_of(args, "kb", "path", "the KB")
    root = Path(
        named if args.kb is None and named is not None else kb_dir(named)
    )  # `validate PATH` as before
    today = parse_today(args.today)
    growth = parse_growth(args.max_budget_growth) if args.max_budget_growth else None
    base, from_env = (args.base, False) if args.base else (base_from_env(os.environ), True)
    if growth is not None and base is None:
        raise ConfigError("--max-budget-growth needs a base to compare with: pass --base REF")
    files: Mapping[str, str | bytes]
    if args.ref:
        if args.fix:
            raise ConfigError("--fix rewrites the working tree; it cannot be combined with --ref")
        git, folder = kb_repository(root)
        files = read_ref(git, args.ref, folder, whole_repo=True)
    else:
        files = read_tree(root, whole_repo=True)
    tokens = load_token_counts(root)
    with Progress("validating") as progress, tasks_beside(sum(map(len, files.values()))) as beside:
        secrets = scan_while_loading(files, beside, args.ref)
        kb = load_loose(files, root, progress)
        del files  # a ref's bytes are not held past loading (a tree's texts are the KB's own)
        progress.update(progress.done, what="checking")
        result = validate_kb(kb, today, tokens, beside=beside, secrets=secrets)
    if args.fix:
        if not config_readable(result.findings):
            first = next(f for f in result.errors if f.file == CONFIG_FILE)
            raise ConfigError(
                f"--fix: {first.file}:{first.line}: {first.message}; fix homeostat.yaml first "
                "(cached scores depend on its members and roles)"
            )
        written = write_changed(root, fix_cached_fields(kb, result.cache))
        for rel in written:
            print(f"fixed cached score/tokens in {rel}", file=sys.stderr)
        if written:
            result = validate_kb(load_kb(read_tree(root, whole_repo=True), root=str(root)), today, tokens)
    if not args.ref:  # a --ref may name a bare repository: no cache is written beside it
        save_token_counts(root, tokens)
    result = with_selection_eval(result)
    impact = against_base(result, root, base, tokens, from_env=from_env, required=growth is not None)
    over = impact.over(growth) if impact is not None else []
    emit(result, args.format, impact, growth)
    publish_to_ci(result, root, insights=not args.no_insights, impact=impact, growth=growth)
    return 1 if result.errors or over else 0


def against_base(
    result: ValidationResult,
    root: Path,
    base: str | None,
    tokens: TokenCounts,
    *,
    from_env: bool,
    required: bool,
) -> Impact | None:
    """What changes for agents against the base, when there is one to compare with. A base only the
    CI environment named that this clone lacks (a shallow checkout) is a note, not a failure, unless
    `--max-budget-growth` needs it; a KB too broken to select from is left to its findings."""
    if base is None or result.kb.config is None:
        return None
    from homeostat.runs.measure.agent_impact import agent_impact

    try:
        return agent_impact(root, result.kb, base, tokens, from_env=from_env)
    except ConfigError as exc:
        if required or not from_env:
            raise
        print(f"homeostat: no agent-impact table: {exc}", file=sys.stderr)
        return None


def scan_while_loading(
    files: Mapping[str, str | bytes], beside: Runner | None, ref: str | None
) -> Callable[[], list[FindingRow]] | None:
    """The secret scan begun in a child before the KB is loaded, as it reads the files alone (a
    second of validate's at 10,000 rules, spent while this process parses them); None to scan the
    loaded KB. Not for a ref: the scan holds `files`, whose bytes would outlive the loading."""
    if beside is None or ref:
        return None
    return beside(lambda: finding_rows(check_file_secrets(files)))


def load_loose(files: Mapping[str, str | bytes], root: Path, progress: Progress) -> KB:
    """The KB, loaded without the cyclic garbage collector, then set aside from it (`gc.freeze`).

    A loaded KB is millions of objects that live until validate ends; the full collections that
    walked them again and again freed next to nothing (5 objects at 10,000 rules), and at 100,000
    rules validate without the collector took about a seventh less CPU (one run each, a busy
    machine). What the checks allocate afterwards is collected as usual (and `run` unfreezes)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        kb = load_kb(files, root=str(root), on_file=progress.update)
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    return kb


def with_selection_eval(result: ValidationResult) -> ValidationResult:
    """When the KB has eval/selection.yaml, check it, and hold it to the floors homeostat.yaml sets
    (`eval.minHitAt5`, …): a KB change that worsens selection fails like a failing test. The file
    is the one validate read with the whole repository, by the same rule (a link, a FIFO or a file
    over its size limit is an error the loader reported, and never read)."""
    text = result.kb.files.get(CASES_FILE)
    if text is None and CASES_FILE in result.kb.binaries:  # not UTF-8: read as far as it goes
        text = result.kb.binaries[CASES_FILE].decode("utf-8", "replace")
    if text is None or result.kb.config is None or result.errors:
        return result  # no cases, or a KB too broken to select from (its errors say why)
    from homeostat.adapters.cache.corpus_cache import build_from_kb
    from homeostat.core.cost.tiktoken_count import count_tokens
    from homeostat.core.measure.eval import selection_findings
    from homeostat.core.render.view import LineCounter

    corpus = build_from_kb(result.kb)
    count = LineCounter(corpus.line_tokens, count_tokens)
    found = selection_findings(corpus, text, result.kb.config.eval.floors(), count)
    return replace(result, findings=result.findings + tuple(found)) if found else result


def emit(
    result: ValidationResult, fmt: str, impact: Impact | None = None, growth: Growth | None = None
) -> None:
    rules, documents = len(result.kb.rules), len(result.kb.documents)
    findings = list(result.findings)
    if fmt == "json":
        text = format_json(findings, rules, documents)
        if impact is not None:
            payload = json.loads(text)
            payload["agentImpact"] = impact.to_data(growth)
            text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
        sys.stdout.write(text)
        return
    sys.stdout.write(format_text(findings))
    if impact is not None:
        print("\n".join(impact_text(impact, growth)))
    print(f"validate: {summary_line(findings, rules, documents)}")


def repo_relative(findings: list[Finding], root: Path, workspace: str | None) -> list[Finding]:
    """Findings name KB-relative files; annotations need paths relative to the CI checkout."""
    if not workspace:
        return findings
    try:
        prefix = root.resolve().relative_to(Path(workspace).resolve()).as_posix()
    except ValueError:
        return findings
    if prefix in ("", "."):
        return findings
    return [replace(f, file=f"{prefix}/{f.file}") for f in findings]


def publish_to_ci(
    result: ValidationResult,
    root: Path,
    *,
    insights: bool,
    impact: Impact | None = None,
    growth: Growth | None = None,
) -> None:
    """Annotations (on stderr, apart from the report), a summary and step outputs on GitHub Actions;
    Code Insights on Bitbucket Pipelines. What changes for agents goes in the summary and the report."""
    findings = list(result.findings)
    rules, documents = len(result.kb.rules), len(result.kb.documents)
    if in_github_actions():
        located = repo_relative(findings, root, os.environ.get("GITHUB_WORKSPACE"))
        write_commands(github_annotations(located))
        summary = github_summary(located, rules, documents)
        if impact is not None:
            summary += "\n" + impact_markdown(impact, growth)
        append_summary(summary)
        write_outputs({"errors": str(len(result.errors)), "warnings": str(len(result.warnings))})
    if insights and os.environ.get("BITBUCKET_BUILD_NUMBER") and os.environ.get("BITBUCKET_COMMIT"):
        report, annotations = code_insights(findings, rules, documents)
        if impact is not None:
            report = with_impact(report, impact, growth)
        print(f"homeostat: {post_validation_report(os.environ, report, annotations)}", file=sys.stderr)


def post_validation_report(
    env: Mapping[str, str], report: dict[str, object], annotations: list[dict[str, object]]
) -> str:
    """Post the report; a failure to post is reported, never a reason to change validate's verdict."""
    from homeostat.adapters.hosts.code_insights import (
        insights_api_from_env,
        pipelines_commit,
        post_code_insights,
    )

    try:
        workspace, repo, commit = pipelines_commit(env)
        result = post_code_insights(insights_api_from_env(env), workspace, repo, commit, report, annotations)
    except HomeostatError as exc:
        return f"could not post the Code Insights report: {exc}"
    dropped = f", {result.dropped} past Bitbucket's limit not posted" if result.dropped else ""
    return f"posted Code Insights report {result.report_id} on {commit[:12]} ({result.annotations} annotations{dropped})"


def with_impact(report: dict[str, object], impact: Impact, growth: Growth | None) -> dict[str, object]:
    """The Code Insights report with what changes for agents: four numbers (a report holds at most
    10) and a sentence in its details; a growth past the limit fails it."""
    data = list(cast("list[dict[str, object]]", report["data"]))
    data += [
        {"title": "Tokens added for agents", "type": "NUMBER", "value": impact.added},
        {"title": "Tokens removed for agents", "type": "NUMBER", "value": impact.removed},
        {"title": "Rules pushed out of the budget", "type": "NUMBER", "value": len(impact.pushed_out)},
        {"title": "Rules unreachable", "type": "NUMBER", "value": len(impact.unreachable)},
    ]
    details = f"{report['details']} {insights_details(impact, growth, INSIGHTS_DETAILS - len(str(report['details'])) - 1)}"
    failed = report["result"] == "FAILED" or bool(impact.over(growth))
    return {**report, "data": data, "details": details, "result": "FAILED" if failed else "PASSED"}
