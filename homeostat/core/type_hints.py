"""`typing.TYPE_CHECKING` and `typing.cast` for the modules a session hook imports, without `typing`.

Importing `typing` costs a session hook about 3 ms, a tenth of its own work at 1,000 rules, and the
hook's modules need only these two at run time (their annotations are strings). mypy reads any
`if TYPE_CHECKING:` block as typing's, by the name, and sees `cast` here as typing's own.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import cast as cast
else:

    def cast(typ: object, value: object) -> object:
        """`typing.cast`: the value itself."""
        return value
