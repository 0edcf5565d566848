"""`homeostat doctor`: check the live setup through the code host and git; `--security` answers the
review package's questions (what is read, what leaves, who can change the rules, the blast radius).

Run it in a clone of the KB repo with the token CI uses (the variables the scheduled runs read), so
what it reports about branch protection and the token's reach is what CI has. Each finding is ok,
warn or fail with its fix; the exit code is 1 when any check fails, so a scheduled job can run it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from homeostat import VERSION
from homeostat.cli_options import add_format_option, add_kb_option, emit_json
from homeostat.core.doctor.checks import Finding, counts, diagnose
from homeostat.core.doctor.security_review import QUESTIONS, security_review
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "doctor",
        help="check the live setup: branch protection, token reach, pinned versions, runtime, retention",
        description=(
            "Check the KB's live setup through the code host and git: branch protection on the base branch, "
            "the token's write reach, the KB's visibility, the versions the CI files pin, the model runtime "
            "and its credential variable (set or not, never its value), exclusions and the event log."
        ),
    )
    add_kb_option(parser)
    parser.add_argument(
        "--security",
        action="store_true",
        help="also answer what is read, what leaves the network, who can change the rules, the blast radius",
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.runs.doctor import gather

    root = workspace.root
    setup = gather(root, workspace.env, VERSION)
    findings = diagnose(setup)
    review = security_review(setup, setup.config, findings) if args.security and setup.config else None
    if args.format == "json":
        emit_json(_json(root, setup.host.repo, findings, review))
    else:
        print(_text(root, setup.host.repo, findings, review, args.security), end="")
    return 1 if any(finding.status == "fail" for finding in findings) else 0


def _text(
    root: Path, repo: str, findings: list[Finding], review: dict[str, list[str]] | None, security: bool
) -> str:
    width = max(len(finding.check) for finding in findings)
    lines = [f"homeostat doctor: {root}{f' ({repo})' if repo else ''}, Homeostat {VERSION}"]
    for finding in findings:
        lines.append(f"  {finding.status:<4}  {finding.check:<{width}}  {finding.message}")
        if finding.fix:
            lines.append(f"  {'':<4}  {'':<{width}}  fix: {finding.fix}")
    if review is not None:
        for key, title in QUESTIONS:
            lines += ["", f"{title}:"] + [f"  - {item}" for item in review[key]]
    elif security:
        lines += ["", "--security needs a readable homeostat.yaml: fix the config check first."]
    tally = counts(findings)
    lines += ["", f"doctor: {tally['ok']} ok, {tally['warn']} warn, {tally['fail']} fail"]
    return "\n".join(lines) + "\n"


def _json(
    root: Path, repo: str, findings: list[Finding], review: dict[str, list[str]] | None
) -> dict[str, object]:
    data: dict[str, object] = {
        "kb": str(root),
        "repo": repo,
        "version": VERSION,
        "checks": [
            {"check": f.check, "status": f.status, "message": f.message, "fix": f.fix} for f in findings
        ],
        "counts": counts(findings),
        "security": review,  # null without --security: a key is never absent
    }
    return data
