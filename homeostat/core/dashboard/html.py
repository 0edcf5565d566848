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

from homeostat.core.dashboard import glance, pages, svg
from homeostat.core.dashboard.settings import SettingsForm
from homeostat.core.measure.metrics import share
from homeostat.core.state.sync import SYNCING_HOURS

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
    tiles = glance.tiles(inputs)
    charts = {tile.key: svg.line_chart(tile.trend, small=True) for tile in tiles if tile.trend is not None}
    page = pages.overview(inputs)
    return _page("overview.html.j2", inputs, "Overview", "/", page=page, tiles=tiles, charts=charts, **common)


def automation(inputs: pages.Inputs, **common: Any) -> str:
    page = pages.automation(inputs)
    s = glance.span(inputs)
    trends = (glance.decided(inputs, s), glance.runs_counts(inputs, s))
    charts = [(trend.title, svg.line_chart(trend)) for trend in trends]
    queue = svg.line_chart(glance.queue_size(inputs, s))
    return _page(
        "automation.html.j2",
        inputs,
        "Automation",
        "/automation",
        page=page,
        charts=charts,
        queue_chart=queue,
        **common,
    )


def performance(inputs: pages.Inputs, days: int = pages.WINDOW_DAYS, **common: Any) -> str:
    m = pages.performance(inputs, days)
    bands = m.decisions.calibration
    calibration = svg.bars(
        [(b.band, b.share or 0.0) for b in bands],
        "Review decisions merged by a reviewer, per confidence band",
        x_label="Merged by a reviewer",
        y_label="Confidence",
        unit="%",
        high=1.0,
        notes=[f"of {b.reviewed}" for b in bands],
        empty="no review was settled in the window",
    )
    cost = svg.bars(
        [(s.name, s.usd) for s in m.steps],
        "Dollars per step, in this machine's log",
        x_label="US dollars",
        y_label="Step",
        unit="$",
        empty="no model call in this machine's log",
    )
    s = glance.span(inputs)
    trends = {
        "merged": glance.merged_share(inputs, s),
        "latency": glance.latency(inputs, s),
        "sessions": glance.sessions(inputs, s),
        "cost": glance.cost(inputs, s),
    }
    return _page(
        "performance.html.j2",
        inputs,
        "Performance",
        "/performance",
        m=m,
        days=days,
        calibration=calibration,
        cost=cost,
        trends={key: svg.line_chart(trend) for key, trend in trends.items()},
        repeats=dict(zip(("measured", "rate"), glance.repeat_rate(m), strict=True)),
        looked=share(m.usage.turns_looked_up, m.usage.turns),
        credited=share(m.usage.turns_credited, m.usage.turns),
        syncing_hours=SYNCING_HOURS,
        **common,
    )


def entries(
    inputs: pages.Inputs,
    query: str,
    area: str,
    status: str,
    kind: str,
    page: str = "",
    per: str = "",
    **common: Any,
) -> str:
    shown = pages.entries(inputs, query, area, status, kind, page, per)
    return _page("entries.html.j2", inputs, "Entries", "/entries", page=shown, **common)


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
    chart = svg.bars(
        page["chart"],
        "Times each rule was credited",
        x_label="Times credited",
        y_label="Rule",
        empty="no turn credited a rule yet",
    )
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
    chart = svg.bars(
        page["chart"], "Events by kind", x_label="Events", y_label="Kind", empty="no event in this log yet"
    )
    return _page("events.html.j2", inputs, "Events", "/events", page=page, chart=chart, **common)


def settings(
    inputs: pages.Inputs, forms: list[SettingsForm], token: str, result: Any = None, **common: Any
) -> str:
    return _page(
        "settings.html.j2", inputs, "Settings", "/settings", forms=forms, token=token, result=result, **common
    )


def error(inputs: pages.Inputs, title: str, message: str, **common: Any) -> str:
    return _page("error.html.j2", inputs, title, "", message=message, **common)
