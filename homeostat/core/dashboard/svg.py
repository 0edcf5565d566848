"""Inline SVG charts: plain shapes with escaped labels, no script and no style attribute (the page's
Content-Security-Policy allows neither), so a chart is as safe as the text around it.

Every chart has both axes drawn, ticked and titled (`x-title`, `y-title`, `x-tick`, `y-tick`: the
browser tests look for them), and says "no data" in its plot instead of being an empty box. Lines
are told apart three ways, so no reader depends on colour: the Okabe-Ito colours (chosen to stay
apart for the common colour-vision deficiencies), a dash pattern and a marker shape. A chart scales
down with its column (`viewBox`; the stylesheet caps it at its drawn width).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

from markupsafe import Markup

from homeostat.core.dashboard.trends import Line, Trend

# Okabe & Ito, "Color Universal Design": blue, vermillion, bluish green, reddish purple, orange, sky blue
STYLES = (
    ("#0072B2", "", "circle"),
    ("#D55E00", "6 3", "square"),
    ("#009E73", "2 3", "triangle"),
    ("#CC79A7", "8 3 2 3", "diamond"),
    ("#E69F00", "10 4", "cross"),
    ("#56B4E9", "4 2", "ring"),
)
REFERENCE = ("#000000", "5 4")
BAR_COLOUR = "#0072B2"
AXIS = "#4a5568"
GRID = "#e2e8f0"
MUTED = "#4a5568"

LINE_SIZE = (420, 244)
SMALL_SIZE = (320, 176)
BAR_WIDTH = 420
BAR_LABEL = 120  # room for a bar's category label
BAR_ROW = 26
FONT = 12  # a small chart's text, in its own units; the pages' charts are drawn at LARGE_FONT
LARGE_FONT = 14
Place = Callable[[float], float]  # a week's index, or a value, to a coordinate


def _y_title(text: str) -> str:
    """The y axis's title, across the top-left corner above the axis: it reads without turning one's
    head, and a long one is not cut to the plot's height."""
    return f'<text class="y-title" x="4" y="15" font-weight="600" fill="{MUTED}">{escape(text)}</text>'


def _svg(width: int, height: int, title: str, body: str, extra: str = "", font: int = LARGE_FONT) -> Markup:
    """Every text inherits the chart's font size."""
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart{extra}" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" font-size="{font}">'
        f"<title>{escape(title)}</title>{body}</svg>"
    )


def fmt(value: float, unit: str) -> str:
    """A value as a chart writes it: 40%, $1.25, 12 h, 3 days, 7."""
    if unit == "%":
        return f"{value:.0%}"
    if unit == "$":
        return f"${value:,.2f}" if value and value < 100 else f"${value:,.0f}"
    number = f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else f"{int(value)}"
    return f"{number} {unit}" if unit else number


def _tick(value: float, unit: str) -> str:
    if unit == "$":
        return f"${int(value):,}" if value == int(value) else f"${value:,.2f}"
    if unit == "days":
        return fmt(value, "")
    return fmt(value, unit)


def ticks(top: float, unit: str, high: float | None = None) -> list[float]:
    """0 to a round number at or above `top`, in four or five steps (whole steps for counts)."""
    if high is not None:
        return [high * i / 4 for i in range(5)]
    top = max(top, 0.0) or 1.0
    raw = top / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(power * m for m in (1, 2, 2.5, 5, 10) if power * m >= raw)
    if unit in ("", "days", "h"):
        step = max(1.0, math.ceil(step))
    count = math.ceil(top / step - 1e-9)
    return [step * i for i in range(count + 1)]


def _marker(shape: str, x: float, y: float, colour: str, tip: str) -> str:
    title = f"<title>{escape(tip)}</title>"
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.6" fill="{colour}">{title}</circle>'
    if shape == "ring":
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.6" fill="#fff" stroke="{colour}" '
            f'stroke-width="2">{title}</circle>'
        )
    if shape == "square":
        return f'<rect x="{x - 3.3:.1f}" y="{y - 3.3:.1f}" width="6.6" height="6.6" fill="{colour}">{title}</rect>'
    paths = {
        "triangle": f"M{x:.1f},{y - 4.4:.1f}L{x + 4.2:.1f},{y + 3.2:.1f}L{x - 4.2:.1f},{y + 3.2:.1f}Z",
        "diamond": f"M{x:.1f},{y - 4.8:.1f}L{x + 4.8:.1f},{y:.1f}L{x:.1f},{y + 4.8:.1f}L{x - 4.8:.1f},{y:.1f}Z",
        "cross": f"M{x - 3.8:.1f},{y - 3.8:.1f}L{x + 3.8:.1f},{y + 3.8:.1f}M{x - 3.8:.1f},{y + 3.8:.1f}L{x + 3.8:.1f},{y - 3.8:.1f}",
    }
    if shape == "cross":
        return f'<path d="{paths[shape]}" stroke="{colour}" stroke-width="2.2" fill="none">{title}</path>'
    return f'<path d="{paths[shape]}" fill="{colour}">{title}</path>'


def _dash(pattern: str) -> str:
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def _segments(points: Sequence[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """Runs of consecutive points: a week with no value breaks the line."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if run]


def _empty(left: float, top: float, width: float, height: float, text: str) -> str:
    x, y = left + width / 2, top + height / 2
    return (
        f'<text class="empty" x="{x:.1f}" y="{y - 4:.1f}" font-size="1.15em" font-weight="600" '
        f'text-anchor="middle" fill="{MUTED}">No data yet</text>'
        f'<text class="empty" x="{x:.1f}" y="{y + 14:.1f}" text-anchor="middle" '
        f'fill="{MUTED}">{escape(text)}</text>'
    )


def line_chart(trend: Trend, *, small: bool = False) -> Markup:
    """Weeks on the x axis, the trend's unit on the y axis, a line per series, and a legend below
    (an HTML list, so it wraps on a narrow screen) naming each line by its colour, dash and marker."""
    width, height = SMALL_SIZE if small else LINE_SIZE
    font = FONT if small else LARGE_FONT
    left, right, top, bottom = font * 4 + 4, 14, font * 2 + 2, font * 3 + 4
    plot_w, plot_h = width - left - right, height - top - bottom
    labels = [week.label for week in trend.weeks]
    values = [v for line in (*trend.lines, trend.reference) if line for v in line.values if v is not None]
    marks = ticks(max(values, default=0.0), trend.unit, trend.high)
    high = marks[-1] or 1.0
    band = plot_w / max(1, len(labels))

    def x_of(i: float) -> float:
        return left + band * (i + 0.5)

    def y_of(value: float) -> float:
        return top + plot_h * (1 - min(value, high) / high)

    parts = []
    for mark in marks:
        y = y_of(mark)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="{GRID}"/>')
        parts.append(
            f'<text class="y-tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{escape(_tick(mark, trend.unit))}</text>"
        )
    every = 1 if band >= font * 4 else 2  # a label is about 3.5 characters' widths
    for i, label in enumerate(labels):
        if (len(labels) - 1 - i) % every == 0:
            parts.append(
                f'<text class="x-tick" x="{x_of(i):.1f}" y="{top + plot_h + font + 4}" '
                f'text-anchor="middle">{escape(label)}</text>'
            )
    parts.append(
        f'<path d="M{left},{top}V{top + plot_h}H{left + plot_w}" stroke="{AXIS}" fill="none" stroke-width="1.2"/>'
    )
    parts.append(
        f'<text class="x-title" x="{left + plot_w / 2:.1f}" y="{height - 6}" '
        f'text-anchor="middle" fill="{MUTED}">Week starting (Monday, UTC)</text>'
    )
    parts.append(_y_title(trend.y_label))
    if not trend.has_data:
        parts.append(_empty(left, top, plot_w, plot_h, trend.empty))
    else:
        if trend.reference is not None:
            parts += _reference(trend.reference, band, x_of, y_of)
        for style, line in zip(STYLES, trend.lines, strict=False):
            parts += _series(line, style, labels, trend.unit, x_of, y_of)
    chart = _svg(width, height, trend.title, "".join(parts), " small" if small else "", font)
    return Markup(f'<figure class="trend">{chart}{legend(trend) if trend.has_data else ""}</figure>')


def _series(
    line: Line,
    style: tuple[str, str, str],
    labels: Sequence[str],
    unit: str,
    x_of: Place,
    y_of: Place,
) -> list[str]:
    colour, dash, shape = style
    points = [None if v is None else (x_of(i), y_of(v)) for i, v in enumerate(line.values)]
    parts = [
        f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in run)}" fill="none" '
        f'stroke="{colour}" stroke-width="2.2"{_dash(dash)}/>'
        for run in _segments(points)
    ]
    for i, value in enumerate(line.values):
        if value is not None:
            tip = f"{line.name}, week of {labels[i]}: {fmt(value, unit)}"
            parts.append(_marker(shape, x_of(i), y_of(value), colour, tip))
    return parts


def _reference(line: Line, band: float, x_of: Place, y_of: Place) -> list[str]:
    """A step a week, across the week's width: a cap can differ from week to week (the weeks'
    scheduled runs), and a week alone still shows it."""
    colour, dash = REFERENCE
    steps = []
    for i, value in enumerate(line.values):
        if value is not None:
            x, y = x_of(i), y_of(value)
            steps.append(f"M{x - band / 2:.1f},{y:.1f}H{x + band / 2:.1f}")
    if not steps:
        return []
    return [
        f'<path d="{"".join(steps)}" fill="none" stroke="{colour}" stroke-width="1.5"{_dash(dash)}>'
        f"<title>{escape(line.name)}</title></path>"
    ]


def _swatch(colour: str, dash: str, shape: str | None) -> str:
    mark = _marker(shape, 15, 7, colour, "") if shape else ""
    return (
        '<svg class="swatch" xmlns="http://www.w3.org/2000/svg" width="30" height="14" viewBox="0 0 30 14" '
        f'aria-hidden="true"><line x1="1" y1="7" x2="29" y2="7" stroke="{colour}" stroke-width="2.2"'
        f"{_dash(dash)}/>{mark}</svg>"
    )


def legend(trend: Trend) -> Markup:
    """What each line is; a single line with no reference needs none (the chart's heading names it)."""
    if len(trend.lines) < 2 and trend.reference is None:
        return Markup("")
    items = [
        f"<li>{_swatch(colour, dash, shape)}{escape(line.name)}</li>"
        for (colour, dash, shape), line in zip(STYLES, trend.lines, strict=False)
    ]
    if trend.reference is not None:
        items.append(f"<li>{_swatch(*REFERENCE, None)}{escape(trend.reference.name)}</li>")
    return Markup(f'<ul class="legend">{"".join(items)}</ul>')


def bars(
    items: Sequence[tuple[str, float]],
    title: str,
    *,
    x_label: str,
    y_label: str,
    unit: str = "",
    high: float | None = None,
    notes: Sequence[str] = (),
    empty: str = "nothing to show yet",
) -> Markup:
    """Horizontal bars, one per (category, value), with a value axis along the bottom; `high` fixes
    the scale (1.0 for shares), `notes` adds a word after each value ("of 4"). A bar of 0 is drawn as
    a hairline at the axis, so a row of zeros reads as zeros; no rows at all says so in the plot."""
    left, right, top, bottom = BAR_LABEL + 8, 84, 26, 46
    rows = max(len(items), 3)
    plot_w, plot_h = BAR_WIDTH - left - right, rows * BAR_ROW
    height = top + plot_h + bottom
    marks = ticks(max((v for _, v in items), default=0.0), unit, high)
    scale = marks[-1] or 1.0
    parts = []
    for mark in marks:
        x = left + plot_w * mark / scale
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" stroke="{GRID}"/>')
        parts.append(
            f'<text class="x-tick" x="{x:.1f}" y="{top + plot_h + 18}" '
            f'text-anchor="middle">{escape(_tick(mark, unit))}</text>'
        )
    offset = (plot_h - len(items) * BAR_ROW) / 2 if items else 0
    for i, (label, value) in enumerate(items):
        y = top + offset + i * BAR_ROW
        w = max(2.0, plot_w * min(value, scale) / scale)
        shown = fmt(value, unit) + (f" {notes[i]}" if i < len(notes) and notes[i] else "")
        parts.append(
            f'<text class="y-tick" x="{left - 6}" y="{y + 18}" text-anchor="end">'
            f"{escape(label[:18])}<title>{escape(label)}</title></text>"
            f'<rect x="{left}" y="{y + 4}" width="{w:.1f}" height="{BAR_ROW - 8}" fill="{BAR_COLOUR}">'
            f"<title>{escape(label)}: {escape(shown)}</title></rect>"
            f'<text x="{left + w + 5:.1f}" y="{y + 18}">{escape(shown)}</text>'
        )
    if not items:
        parts.append(_empty(left, top, plot_w, plot_h, empty))
    parts.append(
        f'<path d="M{left},{top}V{top + plot_h}H{left + plot_w}" stroke="{AXIS}" fill="none" stroke-width="1.2"/>'
    )
    parts.append(
        f'<text class="x-title" x="{left + plot_w / 2:.1f}" y="{height - 6}" '
        f'text-anchor="middle" fill="{MUTED}">{escape(x_label)}</text>'
    )
    parts.append(_y_title(y_label))
    return _svg(BAR_WIDTH, height, title, "".join(parts))
