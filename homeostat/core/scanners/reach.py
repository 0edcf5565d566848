"""How far a word table reads into one word: no word a table means runs past `WORD_REACH` word
characters, so the last character of every such stretch is read as a space (`bounded_words`).

Why: a stem followed by `\\w*` (`check\\w*`, `ignor\\w*`, `[\\w-]*ment`) runs to the end of its word
from each place it could start, so a word repeating a stem ("check_check_…", "ignore_ignore_…"
a megabyte long) made a table quadratic in the text: 78 s for 100 KB. Bounded, each start reaches at
most `WORD_REACH` characters, and the tables read any text in linear time. One character for one, so
every offset and line number stands; readers that need the whole word (secrets, decoded payloads,
the learned reading) read the text itself.
"""

from __future__ import annotations

import re

WORD_REACH = 200
_LONG_RUN = re.compile(rf"\w{{{WORD_REACH}}}")


def bounded_words(text: str) -> str:
    """`text` with the last character of every `WORD_REACH`-long run of word characters read as a
    space; text with no such run is returned as it is."""
    return _LONG_RUN.sub(lambda m: m.group(0)[:-1] + " ", text)
