"""The raw finding every detector returns, before overlaps are settled and line numbers assigned."""

from __future__ import annotations

from typing import NamedTuple

# Lower rank wins an overlap: a vendor token beats the password position it sits in, which beats a
# bare high-entropy guess.
RANK_FORMAT = 0
RANK_URL = 1
RANK_CARD = 2
RANK_KEYED = 3
RANK_ENTROPY = 4


class Found(NamedTuple):
    kind: str
    start: int
    end: int
    rank: int

    def shifted(self, offset: int) -> Found:
        return self._replace(start=self.start + offset, end=self.end + offset)
