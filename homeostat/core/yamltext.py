"""YAML reading that keeps line numbers and refuses duplicate keys.

PyYAML silently keeps the last of two equal keys; a KB file with `updated:` twice would then validate
while saying two things. Every finding needs a line, so loading also returns where each key sits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


class YamlError(ValueError):
    """Broken YAML; `line` is 1-based within the YAML text."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class YamlDoc:
    data: Any
    key_lines: dict[tuple[str | int, ...], int]  # key path -> 1-based line in the YAML text


_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[valid-type,misc,unused-ignore]
    """SafeLoader (libyaml's when present, for speed on large KBs) that rejects duplicate keys."""


def _construct_mapping(loader: _Loader, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)  # type: ignore[no-untyped-call,unused-ignore]
        if isinstance(key, (list, dict)):
            raise YamlError("a mapping key must be a plain value", key_node.start_mark.line + 1)
        if key in seen:
            raise YamlError(
                f"duplicate key {key!r} (first on line {seen[key]})", key_node.start_mark.line + 1
            )
        seen[key] = key_node.start_mark.line + 1
    mapping: dict[Any, Any] = loader.construct_mapping(node, deep=deep)
    return mapping


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)  # type: ignore[arg-type,unused-ignore]


def _walk(node: Node, path: tuple[str | int, ...], out: dict[tuple[str | int, ...], int]) -> None:
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, ScalarNode):
                child = (*path, str(key_node.value))
                out[child] = key_node.start_mark.line + 1
                _walk(value_node, child, out)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            child = (*path, index)
            out[child] = item.start_mark.line + 1
            _walk(item, child, out)


def load_yaml(text: str) -> YamlDoc:
    """Parse one YAML document; raise YamlError with a 1-based line on any problem."""
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(f"invalid YAML: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise YamlError(f"invalid YAML: {exc}", 1) from None
    lines: dict[tuple[str | int, ...], int] = {}
    if node is not None:
        _walk(node, (), lines)
    return YamlDoc(data, lines)


def line_of(doc: YamlDoc, path: tuple[str | int, ...], default: int = 1) -> int:
    """The line of the deepest known prefix of `path` (errors point at the nearest key that exists)."""
    for end in range(len(path), 0, -1):
        found = doc.key_lines.get(path[:end])
        if found is not None:
            return found
    return default
