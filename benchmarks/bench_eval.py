"""Selection quality on the synthetic 150-rule fixture, and the per-message match's hit rate.

    .venv/bin/python benchmarks/bench_eval.py

Prints: `homeostat eval`'s summary (Hit@5, MRR and the rest) on tests/fixtures/eval150; then, for the
chat messages in its eval/prompts.yaml, how many received the rule or section they were written from,
how many conversation-only messages matched nothing, the tokens a matched message adds and the time a
match takes; and how the hit rate moves with the threshold for "rare in the KB". Numbers only.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "eval150"


def main() -> int:
    from homeostat.adapters.search_index import build
    from homeostat.core import search
    from homeostat.core.evaluation import parse_cases, run_cases
    from homeostat.core.render_view import LineCounter, render_prompt
    from homeostat.core.selection import Audience
    from homeostat.core.tokens import count_tokens

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "kb"
        shutil.copytree(FIXTURE, root)
        corpus = build(root)
    teams = frozenset(a.owner for a in corpus.areas.values())
    counter = LineCounter(corpus.line_tokens, count_tokens)
    cases = parse_cases((FIXTURE / "eval/selection.yaml").read_text(encoding="utf-8"))
    report = run_cases(corpus, cases, lambda repo: Audience(repo, "eval", teams), counter)
    s = report.summary
    print(f"eval: {len(cases)} cases on {len(corpus.entries)} rules")
    print(
        f"  Hit@1 {s['hit@1']:.3f}  Hit@5 {s['hit@5']:.3f}  MRR {s['mrr']:.3f}  nDCG@5 {s['ndcg@5']:.3f}  "
        f"recall@5 {s['recall@5']:.3f}  R-precision {s['r-precision']:.3f}  served {s['served']:.3f}"
    )
    rows = yaml.safe_load((FIXTURE / "eval/prompts.yaml").read_text(encoding="utf-8"))["prompts"]

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
    original = search.RARE_SHARE
    for share in (0.03, 0.05, 0.08, 0.1, 0.15):
        search.RARE_SHARE = share
        h, w, c, n, _, _ = rate()
        print(
            f"  rare = in at most {share:.0%} of rules and sections: {h}/{w} hit, {c}/{n} conversation clean"
        )
    search.RARE_SHARE = original
    return 0


if __name__ == "__main__":
    sys.exit(main())
