"""Token counts kept between `validate` runs, in the checkout's git-ignored `.homeostat/index/`.

A fresh CI checkout has none and counts every rule; a developer's clone counts only the rules whose
text changed since its last run, and loads no tokenizer when none did. The file is a cache: when it
is unreadable, from another tokenizer or deleted, it is ignored and written anew; failing to write
it never fails validate.
"""

from __future__ import annotations

import json
from pathlib import Path

from homeostat.adapters.plain_files import write_atomic
from homeostat.core.cost.tiktoken_count import TOKENIZER_ID
from homeostat.core.cost.token_counts import TokenCounts

TOKENS_FILE = ".homeostat/index/tokens.json"


def load_token_counts(root: Path) -> TokenCounts:
    try:
        data = json.loads((root / TOKENS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return TokenCounts()
    counts = data.get("counts") if isinstance(data, dict) and data.get("tokenizer") == TOKENIZER_ID else None
    if not isinstance(counts, dict):
        return TokenCounts()
    return TokenCounts({k: v for k, v in counts.items() if isinstance(k, str) and type(v) is int})


def save_token_counts(root: Path, counts: TokenCounts) -> None:
    """Keep this run's counts (not every text ever counted), when they differ from what was read."""
    if not counts.changed:
        return
    path = root / TOKENS_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        marker = path.parent / ".gitignore"  # a cache, never committed, whatever the KB's .gitignore says
        if not marker.exists():
            marker.write_text("*\n", encoding="utf-8")
        # sorted: the same counts give the same file whatever order they were counted in
        write_atomic(
            path, json.dumps({"tokenizer": TOKENIZER_ID, "counts": dict(sorted(counts.used.items()))})
        )
    except OSError:
        pass  # a cache: the next run counts again
