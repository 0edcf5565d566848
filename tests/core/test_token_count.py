"""Token counts: `count_tokens` must count what `encode(text, disallowed_special=())` counts."""

from __future__ import annotations

from homeostat.core.cost.tiktoken_count import _encoding, count_tokens


def test_special_token_text_counts_as_the_plain_text_it_is() -> None:
    texts = [
        "plain rule text about retries and ledgers",
        "<|endoftext|> and <|fim_prefix|> written in a rule",
        "mixed 日本語 text, emoji 🙂, and `code()`\n\n### Why\nbecause",
        "",
    ]
    encoding = _encoding()
    for text in texts:
        assert count_tokens(text) == len(encoding.encode(text, disallowed_special=()))
    assert count_tokens("<|endoftext|>") > 1  # read as its characters, never as one special token
