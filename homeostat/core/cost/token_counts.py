"""Token counts remembered by the text counted, so an unchanged rule is never counted again.

Kept apart from `tokens.py`, which a session hook imports for the tokenizer's name alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from homeostat.core.cost.tiktoken_count import count_tokens, splits_cleanly


def text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


class TokenCounts:
    """Counts by the digest of the text counted: a text counted before is never counted again.

    `validate` checks every rule's cached `tokens` field against a count of its rendered view; with the
    counts of an earlier run (`known`, by digest), a rule whose text is unchanged is trusted without
    tiktoken, and when no text changed the tokenizer is never loaded. New texts are counted one by one:
    tiktoken's threaded batch is slower than a plain loop on two cores.
    """

    def __init__(self, known: Mapping[str, int] | None = None) -> None:
        self.known = dict(known or {})  # given and not yet looked up: each moves to `used` when it is
        self.counted = 0  # texts counted with the tokenizer
        self.used: dict[str, int] = {}  # the counts this run looked up, the ones worth keeping

    def count(self, text: str) -> int:
        key = text_digest(text)
        found = self._looked_up(key)
        return self._counted(key, count_tokens(text)) if found is None else found

    def count_joined(self, head: str, head_tokens: int, tail: str) -> int:
        """Tokens of `head + tail`, given `head`'s: where the two split cleanly (`splits_cleanly`)
        only `tail` is counted, so a rule's whole form costs only what it adds to its rule-only form."""
        if not splits_cleanly(head, tail):
            return self.count(head + tail)
        key = text_digest(head + tail)
        found = self._looked_up(key)
        return self._counted(key, head_tokens + count_tokens(tail)) if found is None else found

    def _looked_up(self, key: str) -> int | None:
        found = self.used.get(key)
        if found is None:
            found = self.known.pop(key, None)
            if found is not None:
                self.used[key] = found
        return found

    def _counted(self, key: str, tokens: int) -> int:
        self.counted += 1
        self.used[key] = tokens
        return tokens

    @property
    def changed(self) -> bool:
        """Whether `used` differs from the counts given: something was counted, or some went unused."""
        return self.counted > 0 or bool(self.known)
