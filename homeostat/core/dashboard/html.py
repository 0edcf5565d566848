"""The dashboard's pages as HTML, from jinja2 templates with autoescape on: every text from the KB,
the state branch or the event log (a rule title holding `<script>` included) reaches the page as
text. Charts are `svg`'s inline SVG; links to PRs are kept only when they are http(s)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from homeostat.core.dashboard import pages, svg
from homeostat.core.dashboard.settings import SettingsForm
from homeostat.core.metrics import share
from homeostat.core.sync import SYNCING_HOURS

NAV = (
    ("/", "Overview"),
    ("/automation", "Automation"),
    ("/performance", "Performance"),
    ("/entries", "Entries"),
    ("/members", "Members"),
    ("/coverage", "Coverage"),
    ("/impact", "Impact"),
    ("/documents", "Documents"),
    ("/desire-paths", "Desire paths"),
    ("/events", "Events"),
    ("/settings", "Settings"),
)


def safe_url(value: object) -> str:
    """An http(s) URL as it is, anything else (javascript:, data:) as nothing."""
    text = str(value or "")
    return text if urlsplit(text).scheme in ("http", "https") else ""


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _when(moment: dt.datetime | None) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if moment else ""


@lru_cache(maxsize=1)
def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("homeostat", "templates/dashboard"),
        undefined=StrictUndefined,
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    env.filters["safe_url"] = safe_url
    env.globals.update(pct=_pct, when=_when, nav=NAV)
    return env


def stylesheet() -> bytes:
    return files("homeostat").joinpath("templates/dashboard/dashboard.css").read_bytes()


def _page(template: str, inputs: pages.Inputs, title: str, current: str, **context: Any) -> str:
    common = {
        "title": title,
        "current": current,
        "kb_name": context.pop("kb_name", ""),
        "notes": context.pop("notes", ()),
        "branch": inputs.branch,
        "state_commit": inputs.snapshot.commit or "",
        "now": _when(inputs.now),
    }
    return _environment().get_template(template).render(**common, **context)


def overview(inputs: pages.Inputs, **common: Any) -> str:
    return _page("overview.html.j2", inputs, "Overview", "/", page=pages.overview(inputs), **common)


def automation(inputs: pages.Inputs, **common: Any) -> str:
    page = pages.automation(inputs)
    chart = svg.stacked(page["chart"], "Lessons decided per run")
    return _page("automation.html.j2", inputs, "Automation", "/automation", page=page, chart=chart, **common)


def performance(inputs: pages.Inputs, days: int = pages.WINDOW_DAYS, **common: Any) -> str:
    m = pages.performance(inputs, days)
    calibration = svg.bars(
        [(b.band, b.share or 0.0) for b in m.decisions.calibration],
        "Merged by a reviewer, per band",
        "%",
        1.0,
    )
    cost = svg.bars([(s.name, s.usd) for s in m.steps], "Dollars per step", "$")
    return _page(
        "performance.html.j2",
        inputs,
        "Performance",
        "/performance",
        m=m,
        days=days,
        calibration=calibration,
        cost=cost,
        looked=share(m.usage.turns_looked_up, m.usage.turns),
        credited=share(m.usage.turns_credited, m.usage.turns),
        syncing_hours=SYNCING_HOURS,
        **common,
    )


def entries(inputs: pages.Inputs, query: str, area: str, status: str, kind: str, **common: Any) -> str:
    page = pages.entries(inputs, query, area, status, kind)
    return _page("entries.html.j2", inputs, "Entries", "/entries", page=page, **common)


def entry(
    inputs: pages.Inputs, rule_id: str, found: bool, facts: dict[str, object], rule_text: str, **common: Any
) -> str:
    shown = [
        (key, value if isinstance(value, list) else str(value))
        for key, value in facts.items()
        if key != "hint"
    ]
    title = str(facts.get("title") or rule_id)
    return _page(
        "entry.html.j2",
        inputs,
        title,
        "/entries",
        rule_id=rule_id,
        found=found,
        facts=[(k, v) for k, v in shown if v not in ("", [], "None")],
        hint=str(facts.get("hint", "")),
        rule_text=rule_text,
        **common,
    )


def members(inputs: pages.Inputs, **common: Any) -> str:
    return _page("members.html.j2", inputs, "Members", "/members", page=pages.members(inputs), **common)


def coverage(inputs: pages.Inputs, **common: Any) -> str:
    return _page("coverage.html.j2", inputs, "Coverage", "/coverage", page=pages.coverage(inputs), **common)


def impact(inputs: pages.Inputs, **common: Any) -> str:
    page = pages.impact(inputs)
    chart = svg.bars(page["chart"], "Times credited")
    return _page("impact.html.j2", inputs, "Impact", "/impact", page=page, chart=chart, **common)


def documents(inputs: pages.Inputs, **common: Any) -> str:
    stale = inputs.config.scoring.stale_after_days
    return _page(
        "documents.html.j2",
        inputs,
        "Documents",
        "/documents",
        page=pages.documents(inputs),
        stale=stale,
        **common,
    )


def desire_paths(inputs: pages.Inputs, **common: Any) -> str:
    page = pages.desire_paths(inputs)
    return _page("desire_paths.html.j2", inputs, "Desire paths", "/desire-paths", page=page, **common)


def events(inputs: pages.Inputs, kind: str, **common: Any) -> str:
    page = pages.events(inputs, kind)
    chart = svg.bars(page["chart"], "Events by kind")
    return _page("events.html.j2", inputs, "Events", "/events", page=page, chart=chart, **common)


def settings(
    inputs: pages.Inputs, forms: list[SettingsForm], token: str, result: Any = None, **common: Any
) -> str:
    return _page(
        "settings.html.j2", inputs, "Settings", "/settings", forms=forms, token=token, result=result, **common
    )


def error(inputs: pages.Inputs, title: str, message: str, **common: Any) -> str:
    return _page("error.html.j2", inputs, title, "", message=message, **common)
