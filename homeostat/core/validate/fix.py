"""`validate --fix`: rewrite only the cached `score` and `tokens` lines, nothing else.

Generators that regenerate whole files clobber what people wrote (PEERS.md, lesson 1). So the fixer
edits single lines inside each rule's own field block, joining a file's edits in one pass, and
returns only the files whose text actually changed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from homeostat.core.format.markdown import split_frontmatter
from homeostat.core.kb import KB
from homeostat.core.schema import Rule

_FIELD = {name: re.compile(rf"^{name}:[ \t]*.*$", re.MULTILINE) for name in ("score", "tokens")}
_AFTER = re.compile(r"^lastConfirmed:[ \t]*.*$", re.MULTILINE)


def _block_span(kb: KB, rule: Rule) -> tuple[int, int] | None:
    """Offsets of the YAML block holding the rule's fields (frontmatter or topic-section comment)."""
    text = kb.files[rule.file]
    if not rule.in_topic_file:
        front = split_frontmatter(text)
        if front is None:
            return None
        start = text.index("\n") + 1
        return start, start + len(front.yaml_text)
    section = kb.topic_section(rule.file, rule.id)
    if section is None:
        return None
    open_at = text.find("<!-- homeostat", section.start, section.end)
    if open_at == -1:
        return None
    start = text.find("\n", open_at) + 1
    end = text.find("-->", start, section.end)
    return (start, end) if end != -1 else None


def _patch_block(block: str, values: Mapping[str, int]) -> str:
    for name in ("score", "tokens"):
        line = f"{name}: {values[name]}"
        pattern = _FIELD[name]
        if pattern.search(block):
            block = pattern.sub(line, block, count=1)
            continue
        if name == "tokens" and _FIELD["score"].search(block):
            anchor = _FIELD["score"].search(block)
        else:
            anchor = _AFTER.search(block)
        if anchor is not None:
            block = block[: anchor.end()] + "\n" + line + block[anchor.end() :]
        else:
            block = block.rstrip("\n") + "\n" + line + "\n"
    return block


def fix_cached_fields(kb: KB, cache: Mapping[str, tuple[int, int]]) -> dict[str, str]:
    """New text for every file whose cached score/tokens differ from the computed ones."""
    edits: dict[str, list[tuple[int, int, str]]] = {}
    for rule in kb.rules:
        score, tokens = cache[rule.id]
        if rule.meta.score == score and rule.meta.tokens == tokens:
            continue
        span = _block_span(kb, rule)
        if span is None:
            continue
        start, end = span
        block = kb.files[rule.file][start:end]
        edits.setdefault(rule.file, []).append(
            (start, end, _patch_block(block, {"score": score, "tokens": tokens}))
        )
    changed: dict[str, str] = {}
    for path, spans in edits.items():
        original = kb.files[path]
        parts: list[str] = []
        done = 0
        for start, end, replacement in sorted(set(spans)):  # a duplicated id names one block twice
            parts += [original[done:start], replacement]
            done = end
        text = "".join([*parts, original[done:]])
        if text != original:
            changed[path] = text
    return changed
