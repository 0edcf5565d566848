"""Inline SVG charts: plain shapes with escaped labels, no script and no style attribute (the page's
Content-Security-Policy allows neither), so a chart is as safe as the text around it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from markupsafe import Markup

BAR_HEIGHT = 18
LABEL_WIDTH = 180
CHART_WIDTH = 560
COLOURS = {
    "merged": "#2f855a",
    "updated": "#38a169",
    "duplicate": "#718096",
    "review": "#d69e2e",
    "declined": "#c53030",
    "disputed": "#9b2c2c",
    "retired": "#4a5568",
}
DEFAULT_COLOUR = "#3182ce"


def _svg(width: int, height: int, title: str, body: str) -> Markup:
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}"><title>{escape(title)}</title>{body}</svg>'
    )


def bars(items: Sequence[tuple[str, float]], title: str, unit: str = "", high: float | None = None) -> Markup:
    """Horizontal bars, one per (label, value); `high` fixes the scale (1.0 for shares)."""
    if not items:
        return Markup("")
    top = high if high is not None else max((value for _, value in items), default=0) or 1
    room = CHART_WIDTH - LABEL_WIDTH - 70
    rows = []
    for i, (label, value) in enumerate(items):
        y = i * (BAR_HEIGHT + 4)
        width = max(0, round(room * min(value, top) / top))
        shown = f"{value:.0%}" if unit == "%" else f"{value:g}{unit}"
        rows.append(
            f'<text x="0" y="{y + 13}" font-size="12">{escape(label[:28])}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{width}" height="{BAR_HEIGHT}" fill="{DEFAULT_COLOUR}"/>'
            f'<text x="{LABEL_WIDTH + width + 4}" y="{y + 13}" font-size="12">{escape(shown)}</text>'
        )
    return _svg(CHART_WIDTH, len(items) * (BAR_HEIGHT + 4), title, "".join(rows))


def stacked(rows: Sequence[tuple[str, Mapping[str, int]]], title: str) -> Markup:
    """Vertical stacked columns (a run per column, its outcomes stacked), with a legend."""
    if not rows:
        return Markup("")
    height, column, gap = 140, 22, 6
    top = max((sum(counts.values()) for _, counts in rows), default=0) or 1
    parts = []
    for i, (label, counts) in enumerate(rows):
        x, y = i * (column + gap), height
        parts.append(f'<text x="{x}" y="{height + 12}" font-size="9">{escape(label[-5:])}</text>')
        for outcome in COLOURS:
            value = counts.get(outcome, 0)
            if not value:
                continue
            h = round((height - 10) * value / top)
            y -= h
            parts.append(
                f'<rect x="{x}" y="{y}" width="{column}" height="{h}" fill="{COLOURS[outcome]}">'
                f"<title>{escape(label)}: {value} {escape(outcome)}</title></rect>"
            )
    legend = [
        f'<rect x="{j * 90}" y="{height + 20}" width="10" height="10" fill="{colour}"/>'
        f'<text x="{j * 90 + 14}" y="{height + 29}" font-size="11">{outcome}</text>'
        for j, (outcome, colour) in enumerate(COLOURS.items())
    ]
    width = max(len(COLOURS) * 90, len(rows) * (column + gap))
    return _svg(width, height + 36, title, "".join(parts + legend))
