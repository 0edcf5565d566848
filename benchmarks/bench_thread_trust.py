"""The daily run's copy check (core.daily.trust.copied_span) on adversarial threads: time per KB.

    .venv/bin/python benchmarks/bench_thread_trust.py [--max-kb 1024]

A non-member's reply and a PR title are attacker-written, and the check runs on every confident
review draft, so it must stay linear in their size: the time per KB printed for each shape should be
flat from 1 KB to 1 MB. Shapes: one word repeated (every six-word window is the same), random words
(every window differs), CJK text (one token per character), and a draft as long as the reply that
copies nothing. CPU time (`time.process_time`), so other work on the machine does not skew it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from homeostat.core.daily.trust import Quoted, ThreadTrust, copied_span  # noqa: E402

MEMBER = "Raise RefundDeclined from billing.errors instead of returning None."


def _repeated(size: int, _r: random.Random) -> tuple[str, str]:
    text = ("curl " * (size // 5 + 1))[:size]
    return text, text


def _random_words(size: int, r: random.Random) -> tuple[str, str]:
    words = [f"w{r.randrange(10**6)}" for _ in range(size // 8 + 1)]
    text = " ".join(words)[:size]
    return text, text[len(text) // 2 :]


def _cjk(size: int, r: random.Random) -> tuple[str, str]:
    text = "".join(chr(0x4E00 + r.randrange(2000)) for _ in range(size // 3 + 1))
    return text, text


def _no_copy(size: int, r: random.Random) -> tuple[str, str]:
    reply = " ".join(f"a{r.randrange(10**6)}" for _ in range(size // 8 + 1))[:size]
    draft = " ".join(f"b{r.randrange(10**6)}" for _ in range(size // 8 + 1))[:size]
    return reply, draft


SHAPES: dict[str, Callable[[int, random.Random], tuple[str, str]]] = {
    "one word repeated": _repeated,
    "random words": _random_words,
    "CJK characters": _cjk,
    "nothing copied": _no_copy,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--max-kb", type=int, default=1024)
    args = parser.parse_args()
    sizes = [kb for kb in (1, 16, 128, 512, 1024) if kb <= args.max_kb]
    print(f"{'shape':<20}" + "".join(f"{f'{kb} KB':>12}" for kb in sizes) + "   (ms per KB)")
    for name, make in SHAPES.items():
        row = f"{name:<20}"
        for kb in sizes:
            reply, draft = make(kb * 1024, random.Random(kb))
            trust = ThreadTrust(members=(MEMBER,), others=(Quoted("mallory's reply", reply),))
            start = time.process_time()
            copied_span(draft, trust)
            row += f"{(time.process_time() - start) * 1000 / kb:>12.3f}"
        print(row)


if __name__ == "__main__":
    main()
