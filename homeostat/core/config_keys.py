"""Every homeostat.yaml key path with its default, as docs/config.md's tables list them.

`python -m homeostat.core.config_keys` prints the table rows when a key is added;
tests/core/test_config_docs.py fails when docs/config.md misses a key, so the doc and models cannot drift.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Iterator

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from homeostat.core.config import Config


def walk(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str, str]]:
    for name, field in model.model_fields.items():
        key = field.alias or name
        path = f"{prefix}{key}"
        annotation = field.annotation
        args = typing.get_args(annotation) or (annotation,)
        nested = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        if (field.default is PydanticUndefined and field.default_factory is None) or extra.get(
            "checked"
        ) == "required":  # read leniently, but validate requires it: the person must give it
            default = "(required)"
        else:
            value = field.get_default(call_default_factory=True)
            if isinstance(value, BaseModel):
                default = "(section)"
            else:
                default = json.dumps(list(value) if isinstance(value, tuple) else value)
        yield path, default, field.description or ""
        if nested:
            is_list = typing.get_origin(annotation) is tuple
            yield from walk(nested[0], path + ("[]." if is_list else "."))


if __name__ == "__main__":
    for path, default, description in walk(Config):
        print(f"| `{path}` | `{default}` | {description} |")
