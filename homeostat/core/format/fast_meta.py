"""RuleMeta built without pydantic's validation, for the shape nearly every rule has.

What it saves is memory: pydantic gives each instance a dictionary of its own, about 550 bytes for a
rule's 19 fields, where fields set one by one in field order share their keys with every other
instance (CPython's split table, 270 bytes), and tuples of strings repeated across rules (scopes,
approvers) are shared: 15 % of a loaded KB, 40 MB at 100,000 rules. It takes about as long as
pydantic-core's validation (4 % more instructions over a whole load).

`rule_meta` accepts a mapping only when every key is a RuleMeta alias, every required field is
there, every value is of the one plain type its field takes (a `str` for a string, a list of `str`
for a tuple, a `date` for a date, no flags, a bare handle for `riskReviewedBy`) and passes the
model's own validators; it then builds the value pydantic would (the same fields in the same order,
the same defaults, the same set of fields given). Anything else, however valid, gives None, and the
caller validates with pydantic, so every error message stays pydantic's. tests/core/format/test_model_fast.py
holds the two equal.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, get_args

from pydantic import BaseModel

from homeostat.core.format.one_line import is_glob, single_line
from homeostat.core.schema import (
    RULE_KEY_ORDER,
    TITLE_CHAR_LIMIT,
    RuleKind,
    RuleMeta,
    RuleStatus,
    Source,
    SourceType,
)
from homeostat.core.text import is_valid_id


def _names(model: type[BaseModel]) -> dict[str, str]:
    """Each field's name by its alias, in field order."""
    return {(info.alias or name): name for name, info in model.model_fields.items()}


_RULE_NAMES = _names(RuleMeta)
_SOURCE_NAMES = _names(Source)
# `rule_meta` and `_source` name every field: a field added to the models must be added there too.
if tuple(_RULE_NAMES) != RULE_KEY_ORDER or tuple(_SOURCE_NAMES) != ("type", "url", "author", "changedCode"):
    raise TypeError("model_fast: RuleMeta's or Source's fields changed; update rule_meta to match")

_STATUSES = frozenset(get_args(RuleStatus))
_KINDS = frozenset(get_args(RuleKind))
_SOURCE_TYPES = frozenset(get_args(SourceType))


_RULE_KEYS = _RULE_NAMES.keys()
_SOURCE_KEYS = _SOURCE_NAMES.keys()
# The set of fields given, one per combination of keys (in their order), shared by every instance
# that gave it, as `parse._share_fields_sets` shares pydantic's.
_RULE_SETS: dict[tuple[str, ...], set[str]] = {}
_SOURCE_SETS: dict[tuple[str, ...], set[str]] = {}
_ABSENT: Any = object()


def _fields_set(
    sets: dict[tuple[str, ...], set[str]], names: dict[str, str], keys: tuple[str, ...]
) -> set[str]:
    shared = sets.get(keys)
    if shared is None:
        shared = {names[key] for key in keys}
        if len(sets) < 1000:
            sets[keys] = shared
    return shared


# Tuples of strings already made: a KB repeats a few scopes and approvers in every rule, and each
# rule holding its own tuple was 10 MB at 100,000 rules.
_TUPLES: dict[tuple[str, ...], tuple[str, ...]] = {}
_TUPLES_HELD = 4096


def _strings(value: Any) -> tuple[str, ...] | None:
    """A list of strings as the tuple pydantic makes of it (absent: the default, empty); else None."""
    if value is _ABSENT:
        return ()
    if type(value) is not list:
        return None
    for item in value:
        if type(item) is not str:
            return None
    made = tuple(value)
    shared = _TUPLES.get(made)
    if shared is None:
        if len(_TUPLES) < _TUPLES_HELD:
            _TUPLES[made] = made
        return made
    return shared


_set = object.__setattr__


def _made(model: type[BaseModel], values: dict[str, Any], fields_set: set[str]) -> Any:
    """The instance `model.model_construct` makes, without its per-field alias and default look-ups
    (a frozen, extra-forbidding model with no private attributes or post-init hook).

    Its fields are set one by one, always in field order, rather than as a ready `__dict__`, so the
    instances share one table of keys (see the module's docstring)."""
    made = model.__new__(model)
    for name, value in values.items():
        _set(made, name, value)
    _set(made, "__pydantic_fields_set__", fields_set)
    _set(made, "__pydantic_extra__", None)
    _set(made, "__pydantic_private__", None)
    return made


def _source(value: Any) -> Source | None:
    if type(value) is not dict or not value.keys() <= _SOURCE_KEYS:
        return None
    get = value.get
    kind, url, author, changed = get("type"), get("url", ""), get("author", ""), get("changedCode")
    if (
        type(kind) is not str
        or kind not in _SOURCE_TYPES
        or type(url) is not str
        or type(author) is not str
        or (changed is not None and type(changed) is not bool)
    ):
        return None
    values = {"type": kind, "url": url, "author": author, "changed_code": changed}
    return _made(Source, values, _fields_set(_SOURCE_SETS, _SOURCE_NAMES, tuple(value)))  # type: ignore[no-any-return]


def rule_meta(data: Any) -> RuleMeta | None:
    """`RuleMeta.model_validate(data)` where the check proves `data` valid; None where it cannot."""
    if type(data) is not dict or not data.keys() <= _RULE_KEYS:
        return None
    get = data.get
    rule_id, title, area, status = get("id"), get("title"), get("area"), get("status")
    created, last_confirmed = get("created"), get("lastConfirmed")
    if not _required_valid(rule_id, title, area, status, created, last_confirmed):
        return None
    scope = _strings(get("scope"))
    if not scope or any(not is_glob(glob) for glob in scope):
        return None
    topic, kind, score, tokens = get("topic"), get("kind"), get("score"), get("tokens")
    adopted, owner, risk = get("adopted", True), get("owner", ""), get("riskReviewedBy", "")
    flags = get("flags", _ABSENT)
    if not _optional_valid(topic, kind, score, tokens, adopted, owner, risk, flags):
        return None
    approved_by = _strings(get("approvedBy", _ABSENT))
    contradicts = _strings(get("contradicts", _ABSENT))
    also_from = _strings(get("alsoFrom", _ABSENT))
    source = _source(get("source"))
    if approved_by is None or contradicts is None or also_from is None or source is None:
        return None
    values = {
        "id": rule_id,
        "title": title,
        "area": area,
        "topic": topic,
        "scope": scope,
        "status": status,
        "kind": kind,
        "adopted": adopted,
        "owner": owner,
        "approved_by": approved_by,
        "flags": (),
        "contradicts": contradicts,
        "risk_reviewed_by": risk,
        "source": source,
        "also_from": also_from,
        "created": created,
        "last_confirmed": last_confirmed,
        "score": score,
        "tokens": tokens,
    }
    return _made(RuleMeta, values, _fields_set(_RULE_SETS, _RULE_NAMES, tuple(data)))  # type: ignore[no-any-return]


def _required_valid(
    rule_id: Any, title: Any, area: Any, status: Any, created: Any, last_confirmed: Any
) -> bool:
    """The fields every rule has, as `RuleMeta` checks them: strings, a known status, dates in order,
    a one-line title within its limit and a valid id."""
    return not (
        type(rule_id) is not str
        or type(title) is not str
        or type(area) is not str
        or type(status) is not str
        or status not in _STATUSES
        or type(created) is not dt.date
        or type(last_confirmed) is not dt.date
        or last_confirmed < created
        or len(title) > TITLE_CHAR_LIMIT
        or not title.strip()
        or not single_line(title, tab=True)
        or not is_valid_id(rule_id)
    )


def _optional_valid(
    topic: Any, kind: Any, score: Any, tokens: Any, adopted: Any, owner: Any, risk: Any, flags: Any
) -> bool:
    """The optional fields, where the check can prove them valid; a risk sign-off with a fingerprint
    or any flag is left to pydantic."""
    return not (
        (topic is not None and type(topic) is not str)
        or (kind is not None and (type(kind) is not str or kind not in _KINDS))
        or (score is not None and type(score) is not int)
        or (tokens is not None and type(tokens) is not int)
        or type(adopted) is not bool
        or type(owner) is not str
        or type(risk) is not str
        or (flags is not _ABSENT and (type(flags) is not list or flags))
    )
