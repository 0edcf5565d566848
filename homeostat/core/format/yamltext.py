"""YAML reading that keeps line numbers and refuses duplicate keys.

PyYAML silently keeps the last of two equal keys; a KB file with `updated:` twice would then validate
while saying two things. Every finding needs a line, so loading also returns where each key sits.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode


class YamlError(ValueError):
    """Broken YAML; `line` is 1-based within the YAML text."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class YamlDoc:
    """A parsed document and where each key sits (key path -> 1-based line in the YAML text).

    The fast path finds the lines only when something asks (a finding needs a line): a KB whose
    rules are valid never asks, and recording every key's line was a fifth of reading the YAML."""

    __slots__ = ("_lines", "_text", "data", "folded")

    def __init__(
        self,
        data: Any,
        key_lines: dict[tuple[str | int, ...], int] | None = None,
        text: str = "",
        folded: tuple[tuple[str | int, ...], ...] = (),
    ) -> None:
        self.data = data
        self._lines = key_lines
        self._text = text
        # Scalars YAML joined from more than one line of the text (a quoted or plain value wrapped
        # over lines, or holding a line break YAML reads and an editor may not show: NEL, a lone
        # carriage return): the value read is not the one the file shows. Only the full parser
        # finds them; the fast path takes no such text.
        self.folded = folded

    @property
    def key_lines(self) -> dict[tuple[str | int, ...], int]:
        if self._lines is None:
            self._lines = _load_located(self._text).key_lines
            self._text = ""
        return self._lines


_BaseLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BaseLoader):  # type: ignore[valid-type,misc,unused-ignore]
    """libyaml's parser when present: composing nodes in C is most of the speed on a large KB."""


_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_MERGE = "tag:yaml.org,2002:merge"
_SIMPLE_INT = re.compile(r"^[-+]?(?:0|[1-9][0-9]*)$")
_SCALARS = yaml.constructor.SafeConstructor()


def _scalar(node: ScalarNode) -> Any:
    """Our own construction of the common scalars; PyYAML's for the rest (dates, floats, odd ints)."""
    tag, value = node.tag, node.value
    if tag == _STR:
        return value
    if tag == _NULL:
        return None
    if tag == _BOOL:
        return value.lower() in ("yes", "true", "on")
    if tag == _INT and _SIMPLE_INT.match(value):
        return int(value)
    try:
        return _SCALARS.construct_object(node, deep=True)  # type: ignore[no-untyped-call,unused-ignore]
    except (ValueError, OverflowError) as exc:  # `2026-01-01T25:00:00` resolves as a timestamp, then fails
        line = node.start_mark.line + 1 if node.start_mark is not None else 1
        raise YamlError(
            f"invalid YAML: {value!r} is not a valid {tag.rsplit(':', 1)[-1]} ({exc})", line
        ) from None


# Values an alias may add beyond one per character of the text (a small document may still reuse
# an anchor a few times).
_ALIAS_SLACK = 1_000


class _Budget:
    """How many more values a document may build. Each value written in the text takes at least one
    character, so only aliases can build more values than the text has characters: a "billion
    laughs" document (an anchor of nine aliases of an anchor of nine…) of 300 bytes builds 387 million.
    Past the budget it is an error naming the line, before the walk costs more than the text."""

    __slots__ = ("left",)

    def __init__(self, text: str) -> None:
        self.left = len(text) + _ALIAS_SLACK

    def spend(self, node: Node) -> None:
        self.left -= 1
        if self.left < 0:
            raise YamlError(
                "YAML aliases expand to more values than the text holds; write the values out",
                node.start_mark.line + 1,
            )


def _build(
    node: Node,
    path: tuple[str | int, ...],
    lines: dict[tuple[str | int, ...], int],
    budget: _Budget,
    depth: int = 0,
    folded: list[tuple[str | int, ...]] | None = None,
) -> Any:
    """Construct a value and record where each key sits, in one pass; refuse duplicate keys, and
    aliases that expand past `budget`.

    PyYAML's constructor is pure Python and was most of validate's time on 10,000 rules; walking
    the composed nodes directly costs a fraction of it.
    """
    if depth > 64:
        raise YamlError("YAML nested too deeply (or a recursive alias)", node.start_mark.line + 1)
    budget.spend(node)
    if isinstance(node, ScalarNode):
        if folded is not None and node.style not in ("|", ">") and node.end_mark.line > node.start_mark.line:
            folded.append(path)
        return _scalar(node)
    if isinstance(node, SequenceNode):
        items = []
        for index, item in enumerate(node.value):
            child = (*path, index)
            lines[child] = item.start_mark.line + 1
            items.append(_build(item, child, lines, budget, depth + 1, folded))
        return items
    if isinstance(node, MappingNode):
        mapping: dict[Any, Any] = {}
        first: dict[Any, int] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE or not isinstance(key_node, ScalarNode):
                raise YamlError("a mapping key must be a plain value", key_node.start_mark.line + 1)
            key = _scalar(key_node)
            line = key_node.start_mark.line + 1
            if key in first:
                raise YamlError(f"duplicate key {key!r} (first on line {first[key]})", line)
            first[key] = line
            child = (*path, str(key_node.value))
            lines[child] = line
            mapping[key] = _build(value_node, child, lines, budget, depth + 1, folded)
        return mapping
    raise YamlError(f"unsupported YAML node {node.tag}", node.start_mark.line + 1)


# --- a fast path for the block YAML Homeostat itself writes ------------------------------------------
#
# Rule frontmatter and topic-section comments are flat `key: value` lines, one level of nesting
# (`source:`), flow lists of plain or quoted items. Parsing those lines directly, with PyYAML's own
# resolver deciding each plain scalar's type, gives the same values as PyYAML; anything outside that
# shape (block lists, comments, anchors, tags…) goes to the full parser.

_LINE = re.compile(r"^( {0,2})([A-Za-z_][\w-]*):(?: (.*))?$")
_PLAIN_ITEM = re.compile(r"^[^\s\[\]{},\"'#&*!|>%@`?:-][^\[\]{},\"']*$")
# Outside a flow list a plain scalar may hold `,[]{}` and quotes after its first character (a title
# such as `Keep it short, don't nest`); what ends one there (`: `, ` #`) is refused below.
_PLAIN_BLOCK = re.compile(r"^[^\s\[\]{},\"'#&*!|>%@`?:-]")
_QUOTED = re.compile(r'^"(?:[^"\\]|\\["\\/bfnrt])*"$')
_SINGLE_QUOTED = re.compile(r"^'(?:[^']|'')*'$")  # no escapes but '' for a quote
_RESOLVER = yaml.resolver.Resolver()
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_FAST_TAGS = frozenset({_STR, _NULL, _BOOL, _INT, "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp"})
_IMPLICIT_FIRST = frozenset(
    first for firsts in yaml.resolver.Resolver.yaml_implicit_resolvers for first in (firsts or "")
) | {"\x00"}


def _fast_scalar(text: str, in_list: bool) -> Any:
    if text.startswith('"'):
        if not _QUOTED.match(text):
            raise _Slow
        try:
            return json.loads(text)
        except ValueError:  # a raw tab or other control character: YAML allows some, JSON none
            raise _Slow from None
    if text.startswith("'"):
        if not _SINGLE_QUOTED.match(text):
            raise _Slow
        return text[1:-1].replace("''", "'")
    if (
        not text
        or not (_PLAIN_ITEM if in_list else _PLAIN_BLOCK).match(text)
        or text != text.strip()
        or "\t" in text  # a tab before `#` or after `:` ends a plain scalar too
        or ": " in text
        or " #" in text
        or text.endswith(":")
    ):
        raise _Slow
    if text[0] not in _IMPLICIT_FIRST:  # PyYAML resolves implicit types by first character
        return text
    if _ISO_DATE.match(text):
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            raise _Slow from None
    if _SIMPLE_INT.match(text) and not text.startswith(("0", "+0", "-0")) or text == "0":
        return int(text)
    node = ScalarNode(_RESOLVER.resolve(ScalarNode, text, (True, False)), text)  # type: ignore[no-untyped-call,unused-ignore]
    if node.tag not in _FAST_TAGS:
        raise _Slow
    try:
        return _scalar(node)
    except (YamlError, ValueError, OverflowError):
        raise _Slow from None


# Values already read, by their text: a KB repeats the same few (`accepted`, `[ana]`, a date, an
# area's scope) in every rule. Only immutable values are kept (a list as a tuple, copied on the way
# out), so every rule can share one `accepted` and one date instead of parsing and holding its own.
_VALUES: dict[str, Any] = {}
_VALUES_HELD = 4096
_MISSING = object()


def _fast_value(text: str) -> Any:
    known = _VALUES.get(text, _MISSING)
    if known is not _MISSING:
        return list(known) if isinstance(known, tuple) else known
    if text.startswith("[") and text.endswith("]"):
        inner = text[1:-1].strip(" \t")  # YAML's white space; a no-break space is text
        value: Any = [_fast_scalar(item.strip(" \t"), True) for item in inner.split(",")] if inner else []
    else:
        value = _fast_scalar(text, False)
    if len(text) <= 64:
        if len(_VALUES) >= _VALUES_HELD:
            _VALUES.clear()
        _VALUES[text] = tuple(value) if isinstance(value, list) else value
    return value


# Keys PyYAML reads as a boolean or null, not a string (`no: 1` is {False: 1}); the full parser decides.
_NOT_STRING_KEYS = frozenset({"yes", "no", "true", "false", "on", "off", "null"})


class _Slow(Exception):
    """The text is outside the simple shape; use the full parser."""


# Characters YAML refuses (the full parser names them) and line breaks other than \n (YAML folds them).
_NOT_SIMPLE = re.compile("[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _load_located(text: str) -> YamlDoc:
    """The fast path's reading with every key's line: `_load_simple` without the line memo, also
    how a document `_load_simple` read finds its lines when a finding asks."""
    if _NOT_SIMPLE.search(text):
        raise _Slow
    data: dict[str, Any] = {}
    lines: dict[tuple[str | int, ...], int] = {}
    parent: str | None = None
    first: dict[tuple[str, ...], int] = {}
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip():
            if raw:
                raise _Slow
            continue
        match = _LINE.match(raw)
        if match is None:
            raise _Slow
        indent, key, value = match.groups()
        if indent == " " or (indent and parent is None) or key.lower() in _NOT_STRING_KEYS:
            raise _Slow
        nested = bool(indent)
        path: tuple[str, ...] = (parent, key) if nested and parent else (key,)
        if path in first:
            raise YamlError(f"duplicate key {key!r} (first on line {first[path]})", number)
        first[path] = number
        lines[path] = number
        target = data[parent] if nested and parent else data
        if value is None or value == "":
            if nested:
                raise _Slow
            data[key] = {}
            parent = key
            continue
        if not nested:
            parent = None
        parsed = _fast_value(value)
        if isinstance(parsed, list):
            for index in range(len(parsed)):
                lines[(*path, index)] = number
        target[key] = parsed
    for key, value in data.items():
        if value == {}:
            data[key] = None  # `key:` with nothing nested is null, as in YAML
    return YamlDoc(data, lines)


# Each line's reading by its text: (nested, key, value), the value as `_fast_value` holds it (a list
# as a tuple) or _OPEN for `key:` with nothing after. A KB repeats most lines (`status: accepted`,
# `  author: ana`, a date) in every rule, so most lines are one dictionary look-up.
_LINES: dict[str, tuple[bool, str, Any]] = {}
_LINES_HELD = 8192
_LINE_CHARS = 96
_OPEN = object()


def _read_line(raw: str) -> tuple[bool, str, Any]:
    match = _LINE.match(raw)
    if match is None:
        raise _Slow
    indent, key, value = match.groups()
    if indent == " " or key.lower() in _NOT_STRING_KEYS:
        raise _Slow
    if value is None or value == "":
        read: tuple[bool, str, Any] = (bool(indent), key, _OPEN)
    else:
        parsed = _fast_value(value)
        read = (bool(indent), key, tuple(parsed) if isinstance(parsed, list) else parsed)
    if len(raw) <= _LINE_CHARS:
        if len(_LINES) >= _LINES_HELD:
            _LINES.clear()
        _LINES[raw] = read
    return read


def _load_simple(text: str) -> YamlDoc:
    """The values `_load_located` gives, from the line memo; a duplicate key is left to it, which
    names both lines."""
    if _NOT_SIMPLE.search(text):
        raise _Slow
    data: dict[str, Any] = {}
    parent: dict[str, Any] | None = None
    opened: list[str] = []
    for raw in text.split("\n"):
        if not raw:
            continue
        nested, key, value = _LINES.get(raw) or _read_line(raw)
        if nested:
            if parent is None or value is _OPEN:
                raise _Slow
            target = parent
        else:
            target = data
            parent = None
        if key in target:
            return _load_located(text)
        if value is _OPEN:
            if nested:
                raise _Slow
            parent = data[key] = {}
            opened.append(key)
        else:
            target[key] = list(value) if isinstance(value, tuple) else value
    for key in opened:
        if data[key] == {}:
            data[key] = None  # `key:` with nothing nested is null, as in YAML
    return YamlDoc(data, None, text)


def load_yaml(text: str) -> YamlDoc:
    """Parse one YAML document; raise YamlError with a 1-based line on any problem.

    The fast path either gives PyYAML's values or steps aside: anything it cannot take (a control
    character in a quoted string, a timestamp that resolves but does not construct) goes to the full
    parser, which decides whether the text is YAML at all. Only a duplicate key, which the full parser
    refuses too, is reported from the fast path.
    """
    try:
        return _load_simple(text)
    except _Slow:
        return load_full(text)


def load_full(text: str) -> YamlDoc:
    """The full parser (libyaml's composer, our construction); the reference the fast path must match."""
    lines: dict[tuple[str | int, ...], int] = {}
    folded: list[tuple[str | int, ...]] = []
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
        data = _build(node, (), lines, _Budget(text), 0, folded) if node is not None else None
    except YamlError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problem = exc.problem or exc.context or "invalid YAML"
        raise YamlError(f"invalid YAML: {problem}", line) from None
    except (yaml.YAMLError, ValueError) as exc:
        raise YamlError(f"invalid YAML: {exc}", 1) from None
    return YamlDoc(data, lines, folded=tuple(folded))


def line_of(doc: YamlDoc, path: tuple[str | int, ...], default: int = 1) -> int:
    """The line of the deepest known prefix of `path` (errors point at the nearest key that exists)."""
    for end in range(len(path), 0, -1):
        found = doc.key_lines.get(path[:end])
        if found is not None:
            return found
    return default
