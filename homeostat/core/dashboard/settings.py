"""The settings forms: one form per top-level section of `homeostat.yaml`, a field for every key.

Fields are made by walking the config model (the walk `docs/config.md` is checked with), so a key
added to the model gets a field by itself and a test fails if one does not. A list of items (members,
repos, areas) shows each item with a remove box plus one blank item to add. A submitted form is read
back into a whole new `Config` (pydantic checks it) and the changed keys are what the PR writes.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from homeostat.core.config import Config

Widget = Literal["text", "number", "decimal", "checkbox", "select", "lines"]
NEW = "+"  # the index of a list's blank item
REMOVE = "_remove"
_INDEX = re.compile(r"\[(?:\d+|\+)\]")


@dataclass(frozen=True)
class FormField:
    name: str  # what the form posts: agents.maxCostUsd, team.members[0].handle, team.members[+].handle
    key: str  # the key path as docs/config.md lists it: team.members[].handle
    label: str
    help: str
    widget: Widget
    value: str
    choices: tuple[str, ...] = ()
    optional: bool = False
    checked: bool = False
    depth: int = 0
    mapping: bool = False  # a name-to-list map, one `name: a, b` line per name (`languages`)


@dataclass(frozen=True)
class Legend:
    """A heading inside a form: a nested section or one item of a list."""

    text: str
    depth: int
    remove: str = ""  # the remove box's name, for an existing list item


Row = FormField | Legend


@dataclass(frozen=True)
class SettingsForm:
    section: str
    help: str
    rows: tuple[Row, ...]

    @property
    def fields(self) -> tuple[FormField, ...]:
        return tuple(row for row in self.rows if isinstance(row, FormField))


def key_of(name: str) -> str:
    """A field's config key path: list indices and dict keys dropped (`a[0].b` → `a[].b`)."""
    return _INDEX.sub("[]", name)


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """The type inside `X | None`, and whether None was allowed."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _model_of(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _item_model(annotation: Any) -> type[BaseModel] | None:
    if typing.get_origin(annotation) is tuple:
        return _model_of(typing.get_args(annotation)[0])
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (tuple, list)):
        return "\n".join(str(item) for item in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _widget(inner: Any) -> Widget:
    if typing.get_origin(inner) is Literal:
        return "select"
    if typing.get_origin(inner) is tuple:
        return "lines"
    widgets: dict[Any, Widget] = {bool: "checkbox", int: "number", float: "decimal"}
    return widgets.get(inner, "text")


def _scalar_field(name: str, info: FieldInfo, value: Any, depth: int) -> FormField:
    inner, optional = _unwrap(info.annotation)
    widget = _widget(inner)
    return FormField(
        name=name,
        key=key_of(name),
        label=name.rsplit(".", 1)[-1],
        help=info.description or "",
        widget=widget,
        value="true" if widget == "checkbox" else _text(value),
        choices=typing.get_args(inner) if widget == "select" else (),
        optional=optional,
        checked=widget == "checkbox" and bool(value),
        depth=depth,
    )


def model_rows(model: type[BaseModel], value: BaseModel | None, prefix: str, depth: int) -> list[Row]:
    rows: list[Row] = []
    for attr, info in model.model_fields.items():
        name = f"{prefix}{info.alias or attr}"
        current = getattr(value, attr) if value is not None else None  # a new item starts blank
        annotation, _ = _unwrap(info.annotation)
        rows += _rows_for(name, info, annotation, current, depth)
    return rows


def _rows_for(name: str, info: FieldInfo, annotation: Any, current: Any, depth: int) -> list[Row]:
    nested, items = _model_of(annotation), _item_model(annotation)
    if nested is not None:
        return [Legend(name, depth), *model_rows(nested, current, name + ".", depth + 1)]
    if items is not None:
        rows: list[Row] = []
        for i, item in enumerate(current or ()):
            rows.append(Legend(f"{name}[{i}]", depth, remove=f"{name}[{i}].{REMOVE}"))
            rows += model_rows(items, item, f"{name}[{i}].", depth + 1)
        rows.append(Legend(f"{name}: add one", depth))
        return rows + model_rows(items, None, f"{name}[{NEW}].", depth + 1)
    if typing.get_origin(annotation) is dict and typing.get_origin(typing.get_args(annotation)[1]) is tuple:
        lines = "\n".join(f"{k}: {', '.join(v)}" for k, v in dict(current or {}).items())
        return [
            FormField(
                name, key_of(name), name, info.description or "", "lines", lines, depth=depth, mapping=True
            )
        ]
    if typing.get_origin(annotation) is dict:
        values = dict(current or {}) or dict(info.get_default(call_default_factory=True) or {})
        return [Legend(name, depth)] + [
            FormField(
                f"{name}.{k}", key_of(name), k, info.description or "", "number", _text(v), depth=depth + 1
            )
            for k, v in values.items()
        ]
    return [_scalar_field(name, info, current, depth)]


def settings_forms(config: Config) -> list[SettingsForm]:
    forms = []
    for attr, info in Config.model_fields.items():
        key = info.alias or attr
        annotation, _ = _unwrap(info.annotation)
        rows = _rows_for(key, info, annotation, getattr(config, attr), 0)
        if rows and isinstance(rows[0], Legend) and rows[0].text == key:
            rows = rows[1:]
        forms.append(SettingsForm(key, info.description or "", tuple(rows)))
    return forms


def form_for(config: Config, section: str) -> SettingsForm | None:
    return next((form for form in settings_forms(config) if form.section == section), None)


# --- reading a submitted form back ---------------------------------------------------------------


class FormError(ValueError):
    """A submitted form that does not make a valid config; the message names the key."""


def _convert(field: FormField, raw: str | None) -> Any:
    if field.widget == "checkbox":
        return raw is not None
    text = (raw or "").strip()
    if field.widget == "lines":
        values = [line.strip() for line in (raw or "").splitlines() if line.strip()]
        return None if field.optional and not values else values
    if not text:
        return None if field.optional or field.widget in ("number", "decimal", "select") else ""
    if field.widget in ("number", "decimal"):
        try:
            return int(text) if field.widget == "number" else float(text)
        except ValueError:
            raise FormError(f"{field.key}: {text!r} is not a number") from None
    return text


def _put(data: dict[str, Any], name: str, value: Any) -> None:
    """Set `value` at a form name's path in nested dicts; list items go in dicts keyed by index."""
    parts = re.findall(r"[^.\[\]]+|\[[^\]]*\]", name)
    node: dict[str, Any] = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        key = part[1:-1] if part.startswith("[") else part
        if last:
            node[key] = value
        else:
            node = node.setdefault(key, {})


def _blank(item: Mapping[str, Any]) -> bool:
    return all(
        value in (None, "", [], False) or (isinstance(value, dict) and _blank(value))
        for key, value in item.items()
        if key != REMOVE
    )


def _lists(value: Any, model: type[BaseModel] | None) -> Any:
    """Turn index-keyed dicts back into lists, dropping removed and blank new items, and Nones."""
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    fields = {(info.alias or attr): info for attr, info in model.model_fields.items()} if model else {}
    for key, inner in value.items():
        info = fields.get(key)
        annotation, optional = _unwrap(info.annotation) if info else (None, False)
        items = _item_model(annotation)
        if items is not None and isinstance(inner, dict):
            kept = []
            for index in sorted(inner, key=lambda k: (k == NEW, int(k) if k.isdigit() else 0)):
                item = inner[index]
                if item.get(REMOVE) or (index == NEW and _blank(item)):
                    continue
                kept.append(_lists({k: v for k, v in item.items() if k != REMOVE}, items))
            out[key] = kept
        elif inner is None:
            continue
        else:
            nested = _model_of(annotation)
            if nested is not None and optional and isinstance(inner, dict) and _blank(inner):
                out[key] = None
            else:
                out[key] = _lists(inner, nested)
    return out


def _mapping(field: FormField, lines: Any) -> dict[str, list[str]]:
    """`name: a, b` lines back into a map; a line without its colon is refused naming the key."""
    found: dict[str, list[str]] = {}
    for line in lines or ():
        name, colon, rest = str(line).partition(":")
        if not colon or not name.strip():
            raise FormError(f"{field.key}: {line!r} is not `name: a, b`")
        found[name.strip()] = [item.strip() for item in rest.split(",") if item.strip()]
    return found


def read_form(config: Config, section: str, posted: Mapping[str, Sequence[str]]) -> Config:
    """The whole config with `section` replaced by what the form posted; a `FormError` if invalid."""
    form = form_for(config, section)
    if form is None:
        raise FormError(f"there is no settings section {section!r}")
    data: dict[str, Any] = {}
    for field in form.fields:
        raw = posted.get(field.name)
        value = _convert(field, raw[-1] if raw else None)
        _put(data, field.name, _mapping(field, value) if field.mapping else value)
    for row in form.rows:
        if isinstance(row, Legend) and row.remove and posted.get(row.remove):
            _put(data, row.remove, True)
    whole = config.model_dump(by_alias=True, mode="json")
    whole.update(_lists(data, Config))
    try:
        return Config.model_validate(whole)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise FormError(f"{where}: {first['msg']}") from None
