"""`homeostat calibrate`: propose `scoring.confidence` weights fitted to the reviews people settled.

Reads the settled review decisions on the state branch, fits the weights, and opens (or updates) one
PR to homeostat.yaml with the calibration table; `--dry-run` prints the proposal and the diff
instead. The work is `homeostat.runs.measure.calibrate` (and the fit, `homeostat.core.measure.calibration`).
"""

from __future__ import annotations

import argparse

from homeostat.cli_options import add_format_option, add_kb_option, at_least, emit_json
from homeostat.core.measure.calibration import MIN_SAMPLE
from homeostat.workspace import Workspace


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="propose scoring.confidence weights fitted to settled reviews, as a PR to homeostat.yaml",
        description=(
            "Fit scoring.confidence to the lessons reviewers merged or closed (the settled reviews on\n"
            "the state branch) and propose the weights as a PR to homeostat.yaml, with a calibration\n"
            "table and how many past lessons would have been decided differently. Never applied without\n"
            "that PR; fewer settled reviews than --min-sample is refused."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_kb_option(parser)
    parser.add_argument(
        "--dry-run", action="store_true", help="print the proposal and the diff; push nothing"
    )
    parser.add_argument(
        "--min-sample",
        type=at_least(20),
        default=MIN_SAMPLE,
        metavar="N",
        help=f"settled reviews needed before anything is proposed (default {MIN_SAMPLE}, at least 20)",
    )
    add_format_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.kb_origin import origin_git
    from homeostat.runs.measure import calibrate

    root, kb, config = workspace.root, workspace.kb, workspace.config
    git = origin_git(root, config, workspace.env)
    if args.dry_run:
        result = calibrate.dry_run(git, config, kb.files["homeostat.yaml"], args.min_sample)
    else:
        from homeostat.kb_origin import publisher_for

        result = calibrate.propose(publisher_for(root, config), config, args.min_sample)
    text = calibrate.render(result, dry_run=args.dry_run)
    if args.format == "json":
        emit_json(calibrate.data(result, dry_run=args.dry_run, text=text))
    else:
        workspace.out.write(text)
    return 0
