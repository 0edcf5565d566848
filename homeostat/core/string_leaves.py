"""The strings inside parsed data (a JSON dump, a YAML mapping), each with the key path that holds it.

Checks that must read every text a reader could be served walk data this way: the secret check names
the lesson field that holds a secret, the risky check reads a broken file's frontmatter as YAML decodes it.
"""

from __future__ import annotations

from collections.abc import Iterator


def string_leaves(value: object) -> Iterator[tuple[str, str]]:
    """(dotted key path, string) for every string in `value`, in document order; a list's items keep
    the list's path, other scalars are skipped. A loop, not recursion: the walk is as deep as the data,
    and the data is bounded by whoever parsed it (a model's fields, the YAML loader's depth and size)."""
    stack: list[tuple[str, object]] = [("", value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            yield path, item
        elif isinstance(item, dict):
            stack.extend(
                (f"{path}.{key}" if path else str(key), child) for key, child in reversed(item.items())
            )
        elif isinstance(item, list | tuple):
            stack.extend((path, child) for child in reversed(item))
