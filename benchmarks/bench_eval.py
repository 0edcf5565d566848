"""Selection quality on the eval fixtures, and the per-message match's hit rate.

    .venv/bin/python benchmarks/bench_eval.py [--fixture eval150|reviews|reviews_heldout] [--no-task]

Prints, for the fixture (default: all three; `reviews` is written from real review threads and
selection was tuned on it, `reviews_heldout` is written the same way from other PRs and never tuned
on, `eval150` is synthetic): `homeostat eval`'s summary (Hit@1/3/5, MRR and the rest) over the touched-file cases
(with the task signal from each case's branch and commits, or without it with `--no-task`) and over
the search cases; then, for the chat messages in its eval/prompts.yaml, how many received the rule or section they were written from,
how many conversation-only messages matched nothing, the tokens a matched message adds and the time a
match takes; and how the hit rate moves with the threshold for "rare in the KB". Numbers only.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ("reviews", "reviews_heldout", "eval150")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="selection and per-message match quality")
    parser.add_argument("--fixture", choices=FIXTURES, action="append")
    parser.add_argument("--no-task", action="store_true", help="ignore the cases' branch and commits")
    args = parser.parse_args(argv)
    for name in args.fixture or FIXTURES:
        report(ROOT / "tests" / "fixtures" / name, task=not args.no_task)
    return 0


def report(fixture: Path, *, task: bool) -> None:
    from homeostat.adapters.cache.corpus_cache import build
    from homeostat.core.cost.tiktoken_count import count_tokens
    from homeostat.core.measure.eval import parse_cases, run_cases
    from homeostat.core.render.view import LineCounter, render_prompt
    from homeostat.core.selection import corpus as selection  # where RARE_SHARE lives
    from homeostat.core.selection import search
    from homeostat.core.selection.audience import Audience

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "kb"
        shutil.copytree(fixture, root)
        corpus = build(root)
    teams = frozenset(a.owner for a in corpus.areas.values())
    counter = LineCounter(corpus.line_tokens, count_tokens)
    cases = parse_cases((fixture / "eval/selection.yaml").read_text(encoding="utf-8"))
    print(f"{fixture.name}: {len(corpus.entries)} rules")
    for label, group in (
        ("touched-file cases", [c for c in cases if c.files]),
        ("search cases", [c for c in cases if not c.files]),
    ):
        if not group:
            continue
        if not task:
            group = [c.model_copy(update={"branch": "", "commits": ()}) for c in group]
        s = run_cases(corpus, group, lambda repo: Audience(repo, "eval", teams), counter).summary
        print(
            f"  {label} ({len(group)}): Hit@1 {s['hit@1']:.3f}  Hit@3 {s['hit@3']:.3f}  "
            f"Hit@5 {s['hit@5']:.3f}  MRR {s['mrr']:.3f}  nDCG@5 {s['ndcg@5']:.3f}  "
            f"recall@5 {s['recall@5']:.3f}  served {s['served']:.3f}"
        )
    if not (fixture / "eval/prompts.yaml").is_file():
        return  # the held-out set has touched-file cases only
    rows = yaml.safe_load((fixture / "eval/prompts.yaml").read_text(encoding="utf-8"))["prompts"]

    def rate() -> tuple[int, int, int, int, list[int], list[float]]:
        hits = chats_clean = 0
        tokens: list[int] = []
        times: list[float] = []
        for row in rows:
            started = time.perf_counter()
            match = search.match_prompt(corpus, row["prompt"], Audience(row["repo"], "t", teams))
            times.append((time.perf_counter() - started) * 1000)
            got = [e.id for e in match.rules] + [x.key for x in match.sections]
            if row["expect"] is None:
                chats_clean += not got
                continue
            hits += row["expect"] in got
            if got:
                tokens.append(render_prompt(match, counter).tokens)
        writers = sum(1 for r in rows if r["expect"] is not None)
        return hits, writers, chats_clean, len(rows) - writers, tokens, times

    hits, writers, clean, chats, tokens, times = rate()
    print(
        f"prompts: {hits} of {writers} messages received the rule or section they came from; "
        f"{clean} of {chats} conversation-only messages matched nothing"
    )
    print(
        f"  a matched message adds {statistics.median(tokens):.0f} tokens (median; max {max(tokens)}); "
        f"a match takes {statistics.median(times):.2f} ms (median, in process)"
    )
    original = selection.RARE_SHARE
    for share in (0.03, 0.05, 0.08, 0.1, 0.15):
        selection.RARE_SHARE = share
        h, w, c, n, _, _ = rate()
        print(
            f"  rare = in at most {share:.0%} of rules and sections: {h}/{w} hit, {c}/{n} conversation clean"
        )
    selection.RARE_SHARE = original


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
