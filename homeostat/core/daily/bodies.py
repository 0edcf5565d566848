"""PR bodies and the dry-run decisions table, rendered from jinja2 templates in the package.

Every decision and its score breakdown goes into the daily PR's body, so a person reading the KB's
history sees why each lesson merged without them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from homeostat.core.daily.trust import quote_inline


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("homeostat", "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # noqa: S701 - Markdown for PR bodies, never HTML
        keep_trailing_newline=True,
        trim_blocks=False,
    )
    env.filters["cell"] = _cell
    env.filters["inline"] = quote_inline  # a model's or an attacker's words, shown without rendering
    return env


def render(template: str, **context: Any) -> str:
    text = _environment().get_template(template).render(**context)
    return text.strip("\n") + "\n"
