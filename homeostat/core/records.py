"""`Record`: `typing.NamedTuple`'s class syntax, without its cost at import.

`typing.NamedTuple` checks each field's annotation as it makes the class, and under
`from __future__ import annotations` every annotation is a string it compiles: 86 compiles for
`core.selection`'s thirteen classes alone, the larger part of what a session hook pays to import it.
`Record` makes the same `collections.namedtuple` class (fields, defaults, methods, properties and
docstring as written) and skips the check; mypy sees `typing.NamedTuple` itself, so every class is
type-checked as one. Generic records and the functional form are not supported.
"""

from __future__ import annotations

from homeostat.core.type_hints import TYPE_CHECKING

__all__ = ["Record"]

if TYPE_CHECKING:
    from typing import Any
    from typing import NamedTuple as Record
else:
    from collections import namedtuple

    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
    _PROHIBITED = frozenset(
        {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make"}
        | {"_replace", "_asdict", "_source"}
    )

    class _RecordMeta(type):
        def __new__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> type:
            fields = list(namespace.get("__annotations__", {}))
            defaults = [namespace[field] for field in fields if field in namespace]
            made = namedtuple(name, fields, defaults=defaults, module=namespace["__module__"])  # noqa: PYI024
            made.__annotations__ = dict(namespace.get("__annotations__", {}))
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"cannot overwrite Record attribute {key}")
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    _Base = type.__new__(_RecordMeta, "Record", (), {})

    def Record(*args: object, **kwargs: object) -> type:  # noqa: N802 - stands in for a class
        raise TypeError("Record supports only the class syntax: class Name(Record): field: type")

    Record.__mro_entries__ = lambda bases: (_Base,)
