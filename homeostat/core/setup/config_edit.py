"""Changing keys of `homeostat.yaml` in place, keeping every comment and line that did not change.

A settings change from the dashboard becomes a PR whose diff is the few lines it changed, not a
rewritten file: each key is found through the YAML composer's positions and its entry (`key: value`,
or a whole block) is replaced, or a missing key is added under its parent. The result is parsed
again and must give exactly the config asked for; anything else is an error and nothing is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from homeostat.core.config import Config
from homeostat.core.kb import load_config
from homeostat.errors import HomeostatError

Path = tuple[str | int, ...]  # mapping keys, and indices into lists of items
_PLAIN = re.compile(r"^[A-Za-z0-9_./+-][A-Za-z0-9 _./@+-]*$")


class ConfigEditError(HomeostatError):
    """homeostat.yaml cannot be changed in place; the message names the key."""


def config_changes(old: Config, new: Config) -> list[tuple[Path, Any]]:
    """The key paths whose value differs, with the value to write (lists are replaced whole)."""
    before = old.model_dump(by_alias=True, mode="json")
    after = new.model_dump(by_alias=True, mode="json")
    lean = new.model_dump(by_alias=True, mode="json", exclude_defaults=True)
    changes: list[tuple[Path, Any]] = []
    _diff(before, after, lean, (), changes)
    return changes


def _diff(before: Any, after: Any, lean: Any, path: Path, out: list[tuple[Path, Any]]) -> None:
    if isinstance(before, dict) and isinstance(after, dict) and after:
        for key in after:
            if before.get(key) != after[key]:
                inner = lean.get(key) if isinstance(lean, dict) else None
                _diff(before.get(key), after[key], inner, (*path, key), out)
        return
    if _same_items(before, after) and isinstance(lean, list):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            if old != new:
                _diff(old, new, lean[index], (*path, index), out)
        return
    out.append((path, after if lean is None else lean))


def _same_items(before: Any, after: Any) -> bool:
    """Two lists of as many items (members, repos): changed item by item, not rewritten whole."""
    return (
        isinstance(before, list)
        and isinstance(after, list)
        and len(before) == len(after)
        and all(isinstance(item, dict) for item in before + after)
    )


def apply_changes(text: str, changes: Sequence[tuple[Path, Any]], expected: Config) -> str:
    """`text` with every change made; an error unless it then loads as `expected`."""
    for path, value in changes:
        text = set_value(text, path, value)
    config, _, findings = load_config(text)
    if config is None or config.model_dump() != expected.model_dump():
        problem = findings[0].message if findings else "it loads as another config"
        raise ConfigEditError(f"homeostat.yaml could not be changed in place ({problem}); edit it by hand")
    return text


def set_value(text: str, path: Path, value: Any) -> str:
    """Set `path` (mapping keys from the top) to `value`, adding the keys that are missing."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise ConfigEditError(f"homeostat.yaml is not valid YAML ({exc})") from None
    if root is None or (isinstance(root, ScalarNode) and root.value == ""):
        return (
            text.rstrip("\n")
            + ("\n" if text.strip() else "")
            + _entry(path[0], _nest(path[1:], value), 0)
            + "\n"
        )
    node: Node = root
    for depth, key in enumerate(path):
        where = ".".join(str(part) for part in path[: depth + 1])
        if isinstance(key, int):
            if not isinstance(node, SequenceNode) or key >= len(node.value) or depth == len(path) - 1:
                raise ConfigEditError(
                    f"homeostat.yaml: {where}: not an item of a block list; edit it by hand"
                )
            node = node.value[key]
            continue
        if not isinstance(node, MappingNode) or node.flow_style:
            raise ConfigEditError(
                f"homeostat.yaml: {where}: its parent is not a block mapping; edit it by hand"
            )
        pair = next(((k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == key), None)
        if pair is None:
            return _insert(text, node, key, _nest(path[depth + 1 :], value))
        key_node, value_node = pair
        last = depth == len(path) - 1
        if last or (isinstance(value_node, ScalarNode) and value_node.tag.endswith(":null")):
            column = key_node.start_mark.column
            start, end = key_node.start_mark.index, _end(text, key_node.start_mark.index, value_node)
            entry = _entry(key, value if last else _nest(path[depth + 1 :], value), column)
            return text[:start] + entry + text[end:]
        node = value_node
    return text


def _nest(path: Path, value: Any) -> Any:
    for key in reversed(path):  # only mapping keys are ever missing
        value = {key: value}
    return value


def _end(text: str, start: int, value: Node) -> int:
    """Where an entry's text ends: its value's end, less trailing blank and comment-only lines."""
    end = value.end_mark.index
    if isinstance(value, ScalarNode) and value.style not in ("|", ">"):
        return end
    lines = text[start:end].split("\n")
    while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
        lines.pop()
    return start + len("\n".join(lines))


def _insert(text: str, mapping: MappingNode, key: str, value: Any) -> str:
    """Add `key: value` after the last entry of a block mapping, at its keys' indentation."""
    first_key, _ = mapping.value[0]
    last_key, last_value = mapping.value[-1]
    column = first_key.start_mark.column
    end = _end(text, last_key.start_mark.index, last_value)
    line_end = text.find("\n", end)
    cut = len(text) if line_end == -1 else line_end
    return str(text[:cut] + "\n" + " " * column + _entry(key, value, column) + text[cut:])


def _entry(key: str | int, value: Any, column: int) -> str:
    if _is_block(value):
        return f"{key}:\n" + "\n".join(_block(value, column + 2))
    return f"{key}: {flow(value)}"


def _block(value: Any, indent: int) -> list[str]:
    """Block YAML in the style homeostat.yaml is written in: items indented under their key, lists
    of plain values on one line."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if _is_block(inner):
                lines += [f"{pad}{key}:", *_block(inner, indent + 2)]
            else:
                lines.append(f"{pad}{key}: {flow(inner)}")
        return lines
    for item in value:
        if _is_block(item):
            inner_lines = _block(item, indent + 2)
            lines += [f"{pad}- {inner_lines[0].lstrip()}", *inner_lines[1:]]
        else:
            lines.append(f"{pad}- {flow(item)}")
    return lines


def _is_block(value: Any) -> bool:
    if isinstance(value, Mapping):
        return bool(value)
    return isinstance(value, list) and any(isinstance(item, (Mapping, list)) for item in value)


def flow(value: Any) -> str:
    """A scalar or a list of scalars on one line: plain where YAML reads it back the same, else JSON."""
    if isinstance(value, list):
        return "[" + ", ".join(flow(item) for item in value) + "]"
    if isinstance(value, str) and _PLAIN.match(value) and not value.endswith(" "):
        if yaml.safe_load(value) == value:
            return str(value)
    return json.dumps(value, ensure_ascii=False)
