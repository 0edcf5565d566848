"""`homeostat eval`: measure rule selection against the KB's `eval/selection.yaml`.

Cases run through the code the hook and the MCP server use, so a change to ranking shows up here
before it reaches a session. Eval sees every area, team-only ones included (it measures selection,
not who may read what). Exit 0 unless the case file is broken (2) or a `--min` floor fails (1).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from homeostat.cli_options import add_format_option, add_kb_option
from homeostat.core.kb import CASES_FILE
from homeostat.core.measure.eval import (
    EvalError,
    audiences,
    check_repos,
    failed_floors,
    parse_cases,
    parse_floor,
    render_report,
    run_cases,
)
from homeostat.core.render.view import LineCounter
from homeostat.workspace import Workspace

DRAFT_FILE = "eval/from-repeats.yaml"


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="measure rule selection against eval/selection.yaml",
        description="Run the selection cases in eval/selection.yaml (touched paths or a search task, the "
        "rule "
        "ids expected) and report Hit, MRR, nDCG, recall and precision at 1/3/5/10, R-precision and the "
        "share of expected rules served within the budget.",
    )
    parser.add_argument("--cases", metavar="FILE", help=f"the case file (default: <kb>/{CASES_FILE})")
    parser.add_argument(
        "--min",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="fail (exit 1) when a summary metric is below VALUE, e.g. --min hit@5=0.8",
    )
    parser.add_argument("--repo", metavar="NAME", help="repo for cases that name none (default: core only)")
    parser.add_argument(
        "--from-repeats",
        action="store_true",
        help="instead of running cases, draft them from review lessons that re-taught a rule the "
        f"author was never served (selection misses on the state branch) into {DRAFT_FILE}",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        help=f"with --from-repeats: the file to write (default: <kb>/{DRAFT_FILE}); never overwritten",
    )
    add_format_option(parser)
    add_kb_option(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, workspace: Workspace) -> int:
    from homeostat.adapters.cache.corpus_cache import load_corpus
    from homeostat.core.cost.tiktoken_count import count_tokens

    if args.from_repeats:
        if args.min:
            raise EvalError("--min sets a floor for running cases; --from-repeats only drafts them")
        return draft_from_repeats(args, workspace)
    if args.out:
        raise EvalError("--out names the file --from-repeats writes; pass --from-repeats too")
    floors = [parse_floor(text) for text in args.min]
    root = workspace.root
    path = Path(args.cases) if args.cases else root / CASES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EvalError(
            f"{path}: cannot read the case file ({exc.strerror}); write cases there or pass --cases"
        ) from None
    cases = parse_cases(text, str(path))
    corpus = load_corpus(root).corpus
    check_repos(cases, corpus, str(path))
    report = run_cases(
        corpus, cases, audiences(corpus, args.repo), LineCounter(corpus.line_tokens, count_tokens)
    )
    if args.format == "json":
        workspace.out.write(json.dumps(report.to_data(), indent=2) + "\n")
    else:
        workspace.out.write(render_report(report))
    failed = failed_floors(report.summary, floors)
    for line in failed:
        print(f"homeostat: eval floor failed: {line}", file=sys.stderr)
    return 1 if failed else 0


def draft_from_repeats(args: argparse.Namespace, workspace: Workspace) -> int:
    """Write eval cases drafted from selection misses to a new file a person reviews; an existing
    file is never overwritten (their edits may be in it), and cases the case file has are left out."""
    import yaml

    from homeostat.core.measure.repeats import DRAFT_HEADER, draft_cases
    from homeostat.runs.measure.metrics import local_state

    root = workspace.root
    out = Path(args.out) if args.out else root / DRAFT_FILE
    cases_path = Path(args.cases) if args.cases else root / CASES_FILE
    known: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    if cases_path.is_file():
        known = [
            (c.files, c.expect) for c in parse_cases(cases_path.read_text(encoding="utf-8"), str(cases_path))
        ]
    cases, pathless = draft_cases(local_state(root).repeat_records(), known)
    result = {"out": str(out), "drafted": len(cases), "withoutPaths": pathless, "written": False}
    if cases:
        text = DRAFT_HEADER + yaml.safe_dump({"cases": cases}, sort_keys=False, allow_unicode=True)
        parse_cases(text, str(out))  # what is written runs as it is
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("x", encoding="utf-8") as handle:
                handle.write(text)
        except FileExistsError:
            raise EvalError(
                f"{out} exists: review it and move its cases into {CASES_FILE}, delete it, or pass --out FILE"
            ) from None
        except OSError as exc:
            raise EvalError(
                f"{out}: cannot write the drafted cases ({exc.strerror}); pass --out FILE"
            ) from None
        result["written"] = True
    if args.format == "json":
        workspace.out.write(json.dumps(result, indent=2) + "\n")
        return 0
    if cases:
        print(
            f"drafted {len(cases)} eval case(s) from selection misses into {out}; review them, then move "
            f"the ones you keep into {CASES_FILE}"
        )
    else:
        print(
            "no selection miss to draft from (a rule re-taught though the author's sessions never got it); "
            "nothing written"
        )
    if pathless:
        print(f"{pathless} selection miss(es) had no touched path recorded; no case was drafted for them")
    return 0
