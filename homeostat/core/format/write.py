"""Writing rule files and topic files, byte-stable.

The writers produce one canonical form (the one shared/examples/kb uses), and they leave alone every
byte they were not asked to change: an unchanged rule keeps its original text, a topic-file upsert
touches one section, and cached fields are patched line by line. So loading and writing an unchanged
KB changes no byte, and a daily PR's diff shows only what the run decided.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import yaml

from homeostat.core.format.parse import TopicFile
from homeostat.core.schema import RULE_KEY_ORDER, TOPIC_SECTION_KEYS, Rule, RuleMeta

_QUOTED_LISTS = {"scope", "alsoFrom"}


def _plain_ok(value: str, *, in_flow: bool) -> bool:
    if not value or value != value.strip() or "\n" in value:
        return False
    if in_flow and any(ch in value for ch in ",[]{}"):
        return False
    try:
        loaded = yaml.safe_load(f"k: [{value}]" if in_flow else f"k: {value}")
    except yaml.YAMLError:
        return False
    expected: Any = [value] if in_flow else value
    return isinstance(loaded, dict) and loaded.get("k") == expected


def scalar(value: object, *, in_flow: bool = False, quote: bool = False) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value)
    if not quote and _plain_ok(text, in_flow=in_flow):
        return text
    return json.dumps(text, ensure_ascii=False)


def _flow_list(values: Sequence[object], *, quote: bool) -> str:
    return "[" + ", ".join(scalar(v, in_flow=True, quote=quote) for v in values) + "]"


def _emit(key: str, value: object, indent: str = "") -> list[str]:
    if isinstance(value, Mapping):
        lines = [f"{indent}{key}:"]
        for sub_key, sub_value in value.items():
            lines += _emit(str(sub_key), sub_value, indent + "  ")
        return lines
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(item, Mapping) for item in value):
            lines = [f"{indent}{key}:"]
            for item in value:
                first = True
                for sub_key, sub_value in item.items():
                    prefix = indent + ("  - " if first else "    ")
                    emitted = _emit(str(sub_key), sub_value, "")
                    lines.append(prefix + emitted[0])
                    lines += [indent + "    " + extra for extra in emitted[1:]]
                    first = False
            return lines
        return [f"{indent}{key}: {_flow_list(list(value), quote=key in _QUOTED_LISTS)}"]
    return [f"{indent}{key}: {scalar(value)}"]


def meta_fields(meta: RuleMeta) -> dict[str, Any]:
    """The fields worth writing, camelCase, in canonical order, defaults left out."""
    data = meta.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True)
    for key in ("id", "title", "area", "scope", "status", "source", "created", "lastConfirmed"):
        data[key] = meta.model_dump(by_alias=True)[key]
    source = data.get("source")
    if isinstance(source, dict):
        data["source"] = {k: v for k, v in source.items() if v not in ("", None)}
    order = {k: i for i, k in enumerate(RULE_KEY_ORDER)}
    return {k: data[k] for k in sorted(data, key=lambda k: order.get(k, len(order)))}


def yaml_block(fields: Mapping[str, Any]) -> str:
    lines: list[str] = []
    for key, value in fields.items():
        lines += _emit(key, value)
    return "\n".join(lines) + "\n"


def _body(rule_text: str, why: str, example: str | None, marks: str) -> str:
    out = f"{marks} Rule\n{rule_text.strip()}\n\n{marks} Why\n{why.strip()}\n"
    if example:
        out += f"\n{marks} Example\n{example.strip()}\n"
    return out


def render_rule_file(meta: RuleMeta, rule_text: str, why: str, example: str | None) -> str:
    fields = meta_fields(meta)
    return "---\n" + yaml_block(fields) + "---\n" + _body(rule_text, why, example, "##")


def render_topic_section(meta: RuleMeta, rule_text: str, why: str, example: str | None) -> str:
    fields = {k: v for k, v in meta_fields(meta).items() if k in TOPIC_SECTION_KEYS}
    return (
        f"## {meta.title} {{#{meta.id}}}\n<!-- homeostat\n"
        + yaml_block(fields)
        + "-->\n"
        + _body(rule_text, why, example, "###")
    )


def render_topic_file(area: str, topic: str, sections: Iterable[tuple[str, str]]) -> str:
    """A whole topic file from (id, section text) pairs, sorted by id, one blank line between."""
    ordered = [text.rstrip("\n") + "\n" for _, text in sorted(sections, key=lambda item: item[0])]
    header = f"---\narea: {scalar(area)}\ntopic: {scalar(topic)}\n---\n"
    return header + "\n".join(ordered)


def render_rule(rule: Rule) -> str:
    """The canonical text of a loaded rule, in the form it was loaded from."""
    if rule.in_topic_file:
        return render_topic_section(rule.meta, rule.rule, rule.why, rule.example)
    return render_rule_file(rule.meta, rule.rule, rule.why, rule.example)


def upsert_topic_section(text: str, topic: TopicFile, rule_id: str, section: str) -> str:
    """Replace the section with this id, or insert it in id order; every other byte stays."""
    section = section.rstrip("\n") + "\n"
    existing = next((s for s in topic.sections if s.id == rule_id), None)
    if existing is not None:
        tail = text[existing.start : existing.end]
        trailing = tail[len(tail.rstrip("\n")) :]
        keep = trailing if len(trailing) > 1 else "\n"
        if existing.end >= len(text):
            keep = "\n"
        replacement = section.rstrip("\n") + keep
        return text[: existing.start] + replacement + text[existing.end :]
    after = next((s for s in topic.sections if s.id > rule_id), None)
    if after is not None:
        return text[: after.start] + section + "\n" + text[after.start :]
    if not topic.sections:
        body = text.rstrip("\n") + "\n"
        return body + section
    return text.rstrip("\n") + "\n\n" + section


def remove_topic_section(text: str, topic: TopicFile, rule_id: str) -> str:
    existing = next((s for s in topic.sections if s.id == rule_id), None)
    if existing is None:
        return text
    result = text[: existing.start] + text[existing.end :]
    return result.rstrip("\n") + "\n"
