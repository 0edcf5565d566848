"""Secrets whose key and value sit apart: a name and a value given as two fields (Kubernetes `env`,
ECS task definitions, CloudFormation parameters: `- name: DB_PASSWORD` then `value: …`), a YAML key
whose value is on the next line (`password:` or `api_key: >-`, then the value indented), and a flag
and its value as two items of a list (`["--password", "…"]`, `args: ["-p", "…"]`).

Each value is judged by the name it belongs to, as a `key: value` on one line is (`positional.judge`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from homeostat.core.scanners.secrets.commands import strong_password
from homeostat.core.scanners.secrets.found import RANK_KEYED, Found
from homeostat.core.scanners.secrets.keys import KeyClass, classify_key
from homeostat.core.scanners.secrets.positional import judge, password_ok

_NAME_VALUE = re.compile(
    r"""(?:name|Name|NAME|key|Key|ParameterKey|parameter_name)["']?[ \t]*[:=][ \t]*["']?([\w.\-]{1,80})["']?"""
    r"""[ \t]*,?[ \t]*(?:\r?\n[ \t]*-?[ \t]*|[ \t]*)["']?(?:value|Value|ParameterValue)["']?[ \t]*[:=][ \t]*"""
    r"""(?:"([^"\n]{1,256})"|'([^'\n]{1,256})'|([^\s,}\]"']{1,256}))"""
)
_NAME_WORDS = ("name", "parameterkey")


def _kind(key: str, value: str, quoted: bool) -> str | None:
    kind = judge(key, value, quoted=quoted)
    return kind if kind and kind != "high-entropy" else None


def name_value_pairs(text: str, lowered: str) -> Iterator[Found]:
    """`- name: DB_PASSWORD` / `value: …`, `{"name": "API_TOKEN", "value": "…"}`: the value of the name."""
    if "value" not in lowered:
        return
    for word in _NAME_WORDS:
        pos = lowered.find(word)
        while pos >= 0:
            m = _NAME_VALUE.match(text, pos)
            if m is not None and classify_key(m.group(1)) in (KeyClass.PASSWORD, KeyClass.SECRET):
                group = next(i for i in (2, 3, 4) if m.group(i) is not None)
                if _kind(m.group(1), m.group(group), group < 4):
                    yield Found("keyed-secret", m.start(group), m.end(group), RANK_KEYED)
            pos = lowered.find(word, pos + len(word))


# A key ending its line (maybe with a block scalar's `|` or `>-`), then one indented value alone.
_KEY_ALONE = re.compile(
    r"""[ \t]*-?[ \t]*["']?([\w.\-]{1,80})["']?[ \t]*:[ \t]*(?:[|>][+\-]?[0-9]?)?[ \t]*\Z"""
)
_NEXT_VALUE = re.compile(
    r"""[ \t]+(?:"([^"\s]{4,256})"|'([^'\s]{4,256})'|([^\s"'#][^\s"']{3,255}))[ \t]*(?:[ \t]#[^\n]*)?(?=\r?\n|\Z)"""
)


def next_line_values(text: str, lines: dict[int, int]) -> Iterator[Found]:
    """The value on the line after `password:` or `token: |`, for the lines the keyword gate chose."""
    for start, end in lines.items():
        if end >= len(text) or text[end - 1 : end] not in (":", "|", ">", "-", "+", " ", "\t"):
            continue
        m = _KEY_ALONE.match(text, start, end)
        if m is None:
            continue
        value = _NEXT_VALUE.match(text, end + 1)
        if value is None:
            continue
        key_line = text[start:end]
        key_indent = len(key_line) - len(key_line.lstrip(" \t-"))
        value_indent = len(value.group(0)) - len(value.group(0).lstrip(" \t"))
        if value_indent <= key_indent:
            continue  # not indented under the key: the next key, not its value
        group = next(i for i in (1, 2, 3) if value.group(i) is not None)
        kind = _kind(m.group(1), value.group(group), group < 3)
        if kind:
            yield Found(kind, value.start(group), value.end(group), RANK_KEYED)


# A flag and its value as neighbouring items of a list: `["--password", "…"]`, `['-p', '…']`.
_LIST_FLAG = re.compile(r"""(["'])(--?)([A-Za-z][\w\-]{0,40})\1[ \t]*,[ \t]*(["'])([^"'\s]{1,256})\4""")


def list_flags(line: str, lowered: str) -> Iterator[Found]:
    """The item after a flag item named for a secret (a long flag), or after `-p` (a strong password)."""
    if '"-' not in line and "'-" not in line:
        return
    for m in _LIST_FLAG.finditer(line):
        name, value = m.group(3), m.group(5)
        if m.group(2) == "-" and len(name) == 1:
            ok = name in "pP" and password_ok(value, quoted=True) and strong_password(value)
            kind = "password-flag" if ok else None
        else:
            kind = _kind(name, value, True)
        if kind:
            yield Found(kind, m.start(5), m.end(5), RANK_KEYED)


# An Azure shared access signature without its URL (`AZURE_SAS=sv=2022-11-02&ss=b…&sig=…`): the
# signature grants what the token says to whoever holds it.
_SAS_TOKEN = re.compile(
    r"(?<![\w])sv=\d{4}-\d{2}-\d{2}&[^\s\"'<>]{0,400}?(?<=[?&])sig=([A-Za-z0-9%+/]{30,200}(?:={1,2}|%3[Dd]){0,2})"
)


def sas_tokens(line: str, lowered: str) -> Iterator[Found]:
    if "sig=" not in line or "sv=" not in line:
        return
    for m in _SAS_TOKEN.finditer(line):
        yield Found("azure-sas-signature", m.start(1), m.end(1), RANK_KEYED)


LAYOUT_DETECTORS = (name_value_pairs,)
LAYOUT_LINE_DETECTORS = (list_flags, sas_tokens)
LAYOUT_GATES = ('"-', "'-", "sig=")
