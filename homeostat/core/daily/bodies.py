"""PR bodies and the dry-run decisions table, rendered from jinja2 templates in the package. Every value
a template interpolates is shown as `core.served` shows text (one line, Homeostat's comments dropped),
and in a PR body with no HTML of its own.

Every decision and its score breakdown goes into the daily PR's body, so a person reading the KB's
history sees why each lesson merged without them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from homeostat.core.daily.trust import quote_inline
from homeostat.core.served import served_line


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _line(value: object) -> object:
    """Each text a template interpolates, as every surface shows it (`served.served_line`): on one
    line, Homeostat's comments dropped, so no value can start a heading or a list of its own."""
    return served_line(value) if isinstance(value, str) else value


def _markdown(value: object) -> object:
    """Each text a PR body interpolates: `_line`, and no `<` or `&` GitHub would read as HTML (a
    comment or tag hides text from the reviewer, who sees what an agent reading the body reads). A
    value that is one inline code span already shows its text as written (GitHub renders nothing in
    it), so it is left as it is."""
    shown = _line(value)
    if not isinstance(shown, str) or _one_code_span(shown):
        return shown
    return shown.replace("&", "&amp;").replace("<", "&lt;")


def _one_code_span(text: str) -> bool:
    """`text` is one Markdown code span: a run of backticks, text with no run as long, the same run."""
    fence = len(text) - len(text.lstrip("`"))
    inner = text[fence:-fence] if fence else ""
    return (
        0 < fence < len(text) - fence
        and text.endswith("`" * fence)
        and not inner.startswith("`")
        and not inner.endswith("`")
        and all(len(run) != fence for run in _BACKTICKS.findall(inner))
    )


_BACKTICKS = re.compile(r"`+")


@lru_cache(maxsize=2)
def _environment(markdown: bool) -> Environment:
    env = Environment(
        loader=PackageLoader("homeostat", "templates"),
        undefined=StrictUndefined,
        autoescape=False,  # noqa: S701 - Markdown for PR bodies (escaped by `_markdown`), never HTML
        keep_trailing_newline=True,
        trim_blocks=False,
        finalize=_markdown if markdown else _line,
    )
    env.filters["cell"] = _cell
    env.filters["inline"] = quote_inline  # a model's or an attacker's words, shown without rendering
    return env


def render(template: str, **context: Any) -> str:
    """A template's text; a Markdown one's (`*.md.j2`, a PR body) with every value escaped."""
    text = _environment(template.endswith(".md.j2")).get_template(template).render(**context)
    return text.strip("\n") + "\n"
