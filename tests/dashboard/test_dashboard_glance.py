"""The dashboard at a glance: the overview's tiles and the weekly trends, computed from a state branch
written for a known week (pure: `Inputs` in, tiles out); the charts' axes and their "no data" state;
the entries page in pages of rules, served over HTTP. (The same pages in Chromium, at a desktop's and
a phone's size: test_dashboard_browser.py.)"""

from __future__ import annotations

import datetime as dt
import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from dashboardworld import record, run_report

from dashboard.test_dashboard import new_kb, request
from homeostat.core.config import Config
from homeostat.core.dashboard import glance, pages, svg, trends
from homeostat.core.measure.metrics import Band, Metrics, compute_metrics
from homeostat.core.state.branch import (
    DecisionRecord,
    DecisionsFile,
    DigestRecord,
    Heartbeat,
    RunReport,
    StateSnapshot,
)
from homeostat.dashboard.server import Dashboard, DashboardServer

UTC = dt.UTC
NOW = dt.datetime(2026, 11, 18, 12, 0, tzinfo=UTC)  # a Wednesday: this week began Monday 16 November


def at(day: int, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 11, day, hour, minute, tzinfo=UTC)


def run(kind: str, started: dt.datetime, usd: float, **extra: Any) -> RunReport:
    return run_report(kind, started, cost={"usd": usd, "estimated": False}, **extra)


def lesson(member: str, title: str, when: dt.datetime, outcome: str, **extra: Any) -> DecisionRecord:
    return record(member, title, outcome, when, confidence=70, **extra)


def known_week() -> pages.Inputs:
    """Last week (9-15 Nov) every slot ran on time but Thursday's daily run, which started 2.5 hours
    late; this week the daily run went on Monday, failed on Tuesday and has not run today, the deep
    dive ran (and stopped at the spending cap) and the digest was posted. Two lessons wait for review,
    one of them 6 days (the first review, settled, was opened on 3 November); ana synced 2 hours ago, bo 3 days ago, cy never."""
    runs = [run("daily", at(day, 6, 4), 0.25) for day in (9, 10, 11, 13, 14, 15)]
    runs += [run("daily", at(12, 8, 30), 0.25), run("deep-dive", at(9, 7, 5), 1.0)]
    runs += [
        run("daily", at(16, 6, 3), 0.5),
        run(
            "daily", at(17, 6, 5), 0.75, failed={"since": at(17, 6, 6), "reason": "the host refused the push"}
        ),
        run("deep-dive", at(16, 7, 10), 1.0, capped={"since": at(16, 7, 12)}),
    ]
    digests = {
        f"digests/2026-11-{day}.json": DigestRecord(
            run_id=f"digest-{day}", since=at(day, 8) - dt.timedelta(days=7), until=at(day, 8, 2), posted=True
        )
        for day in (9, 16)
    }
    ana = [
        lesson("ana", "merged-this-week", at(16, 6, 3), "merged"),
        lesson("ana", "merged-too", at(17, 6, 5), "merged"),
        lesson(
            "ana",
            "waiting-six-days",
            at(12, 12),
            "review",
            state="in-review",
            settled_at=None,
            review_opened_at=at(12, 12),
        ),
        lesson(
            "ana", "reviewed-long-ago", at(3, 6), "merged", review_opened_at=at(3, 6), settled_at=at(4, 6)
        ),
    ]
    bo = [
        lesson(
            "bo",
            "waiting-a-day",
            at(17, 6, 5),
            "review",
            state="in-review",
            settled_at=None,
            review_opened_at=at(17, 6, 5),
        ),
        lesson("bo", "declined-this-week", at(16, 6, 3), "declined"),
    ]
    snapshot = StateSnapshot(
        commit="f" * 40,
        decisions={
            "decisions/ana.json": DecisionsFile(member="ana", records=tuple(ana)),
            "decisions/bo.json": DecisionsFile(member="bo", records=tuple(bo)),
        },
        heartbeats={
            "ana": Heartbeat(
                member="ana", at=NOW - dt.timedelta(hours=2), homeostat_version="0.2.0", pending=0
            ),
            "bo": Heartbeat(member="bo", at=NOW - dt.timedelta(days=3), homeostat_version="0.2.0", pending=2),
        },
        runs={f"runs/{r.run_id}.json": r for r in runs},
        digests=digests,
    )
    config = Config.model_validate({"team": {"members": [{"handle": h} for h in ("ana", "bo", "cy")]}})
    return pages.Inputs(
        now=NOW, config=config, kb=None, snapshot=snapshot, set_up=at(1, 0) - dt.timedelta(days=60)
    )


def tiles_by_key(inputs: pages.Inputs) -> dict[str, glance.Tile]:
    return {tile.key: tile for tile in glance.tiles(inputs)}


def test_weeks_are_iso_weeks_ending_with_this_one() -> None:
    spans = trends.weeks(NOW)
    assert len(spans) == 8 and spans[-1].start == at(16, 0) and spans[-1].holds(NOW)
    assert spans[0].start == at(16, 0) - dt.timedelta(weeks=7) and spans[0].label == "28 Sep"
    assert all(later.start == earlier.end for earlier, later in zip(spans, spans[1:], strict=False))


def test_runs_on_time_count_each_slot_a_run_started_within_the_hour() -> None:
    tile = tiles_by_key(known_week())["runs"]
    # this week: daily Mon (on time), Tue (failed), Wed (no run: missed); deep dive and digest on time
    assert tile.value == "3 of 5" and tile.status == "attention"
    assert tile.flags == ("daily is late", "1 run failed", "1 missed (no run within the hour)")
    assert "last week: 8 of 9" in tile.lines  # Thursday's daily run started 2.5 hours after its slot
    assert tile.trend is not None
    assert tile.trend.lines[0].values[-2:] == (8 / 9, 3 / 5)


def test_review_queue_shows_how_old_the_oldest_wait_is_and_was() -> None:
    tile = tiles_by_key(known_week())["queue"]
    assert tile.value == "2 waiting" and tile.flags == ("1 overdue",) and tile.status == "attention"
    assert tile.lines == ("oldest waiting 6 days", "overdue after 2 days")
    assert tile.trend is not None and tile.trend.reference is not None
    # at the end of last week (Monday 00:00) one lesson had waited 3.5 days; a week earlier the first
    # review had been settled and nothing waited; before that, no lesson had been sent to review
    assert tile.trend.lines[0].values[-4:] == (None, 0.0, 3.0, 6.0)
    assert tile.trend.reference.values[-1] == 2.0


def test_cost_this_week_is_held_against_the_cap_of_the_weeks_scheduled_runs() -> None:
    tile = tiles_by_key(known_week())["cost"]
    assert tile.value == "$2.25"  # Monday's and Tuesday's daily runs and the deep dive
    assert tile.lines == ("cap $40.00: 8 scheduled runs × $5.00", "last week: $2.75")
    assert tile.flags == ("1 run stopped at the spending cap",) and tile.status == "attention"
    assert tile.trend is not None and tile.trend.reference is not None
    assert tile.trend.lines[0].values[-2:] == (2.75, 2.25) and tile.trend.reference.values[-1] == 40.0


def test_syncing_is_one_definition_and_counts_every_member() -> None:
    inputs = known_week()
    tile = tiles_by_key(inputs)["sync"]
    metrics = compute_metrics(inputs.snapshot, (), NOW, 30, None, ["ana", "bo", "cy"])
    assert tile.value == f"{metrics.members_syncing} of {metrics.members}" == "1 of 3"
    assert tile.flags == ("not syncing (no heartbeat for 48 hours): bo",)
    assert "no heartbeat yet: cy (a clone sends one when it syncs)" in tile.lines


def test_merged_without_a_person_is_what_metrics_computes() -> None:
    inputs = known_week()
    tile = tiles_by_key(inputs)["merged"]
    d = pages.performance(inputs).decisions
    assert d.merged_without_a_person is not None
    assert tile.value == f"{d.merged_without_a_person:.0%}"
    assert f"{d.auto_merged} merged by the daily run, {d.sent_to_review} sent to review" in tile.lines[0]
    assert tile.trend is not None
    this_week = tile.trend.lines[0].values[-1]
    assert (
        this_week == 2 / 3
    )  # two merged by the run, one sent to review (the declined one counts in neither)


def test_the_repeat_lesson_rate_is_the_one_metrics_reports() -> None:
    import dataclasses

    from homeostat.core.state.branch import RepeatRecord, RepeatsFile

    week = known_week()
    repeat = RepeatRecord(
        hash="h1",
        member="bo",
        rule_id="use-theme-spacing",
        action="duplicate",
        opened_at=at(16, 9),
        rule_since=dt.date(2026, 10, 11),
        at=at(17, 9),
    )
    snapshot = dataclasses.replace(week.snapshot, repeats={"bo": RepeatsFile(member="bo", records=(repeat,))})
    inputs = dataclasses.replace(week, snapshot=snapshot)
    measured = pages.performance(inputs)
    assert measured.repeats is not None and measured.repeats.repeats == 1
    rate = measured.repeats.rate
    assert rate is not None and rate > 0
    tile = tiles_by_key(inputs)["repeats"]
    assert tile.value == f"{rate:.0%}" and tile.link == "/performance"
    assert tiles_by_key(week)["repeats"].value in ("0%", "–")
    fields = {name: getattr(measured, name) for name in Metrics.__dataclass_fields__}
    fields["repeats"] = None  # metrics that give no rate (an older release's) read as not measured
    unmeasured = glance.repeats_tile(Metrics(**fields), 30)
    assert (
        unmeasured.value == "not measured yet" and unmeasured.status == "quiet" and unmeasured.trend is None
    )


def test_weeks_before_the_kb_was_set_up_have_no_value() -> None:
    inputs = known_week()
    young = pages.Inputs(
        now=NOW, config=inputs.config, kb=None, snapshot=inputs.snapshot, set_up=at(4, 9)
    )  # set up on Wednesday 4 November: the weeks up to 1 November were before it
    trend = tiles_by_key(young)["cost"].trend
    assert trend is not None and trend.reference is not None
    assert trend.reference.values[:5] == (None,) * 5 and trend.reference.values[5] == 40.0
    # and the cost of the runs begins with the first run recorded, on Monday 9 November
    assert trend.lines[0].values[:6] == (None,) * 6 and trend.lines[0].values[6] == 2.75


def test_a_new_kb_has_quiet_tiles_and_empty_charts_not_alarms() -> None:
    config = Config.model_validate({"team": {"members": [{"handle": "ana"}, {"handle": "bo"}]}})
    inputs = pages.Inputs(
        now=NOW, config=config, kb=None, snapshot=StateSnapshot(), set_up=NOW - dt.timedelta(hours=1)
    )
    tiles = glance.tiles(inputs)
    assert [t.status for t in tiles] == ["quiet"] * 6, [(t.key, t.status) for t in tiles]
    assert not any(t.flags for t in tiles)
    runs = tiles[0]
    assert runs.value == "–" and any(
        line.startswith("first daily run due 2026-11-19 06:00 UTC") for line in runs.lines
    )
    for tile in tiles:
        if tile.trend is not None:
            assert not tile.trend.has_data, tile.key
            chart = str(svg.line_chart(tile.trend, small=True))
            assert "No data yet" in chart and 'class="x-title"' in chart and 'class="y-title"' in chart


def _texts(chart: str, kind: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(rf'<text class="{kind}"[^>]*>([^<]*)', chart)]


def test_calibration_at_zero_percent_still_has_axes_and_bars() -> None:
    """Every band reviewed and none merged: a chart of zeros, not an empty white box."""
    bands = [Band("50-59", 3, 0), Band("60-69", 2, 0)]
    chart = str(
        svg.bars(
            [(b.band, b.share or 0.0) for b in bands],
            "Calibration",
            x_label="Merged by a reviewer",
            y_label="Confidence",
            unit="%",
            high=1.0,
            notes=[f"of {b.reviewed}" for b in bands],
        )
    )
    assert _texts(chart, "x-title") == ["Merged by a reviewer"] and _texts(chart, "y-title") == ["Confidence"]
    assert _texts(chart, "x-tick") == ["0%", "25%", "50%", "75%", "100%"]
    assert _texts(chart, "y-tick") == ["50-59", "60-69"]
    assert chart.count('width="2.0" height="18" fill="#0072B2"') == 2  # a hairline at 0 for each band
    assert ">0% of 3</text>" in chart and "No data yet" not in chart
    empty = str(
        svg.bars([], "Calibration", x_label="Merged by a reviewer", y_label="Confidence", unit="%", high=1.0)
    )
    assert "No data yet" in empty and _texts(empty, "x-tick") == ["0%", "25%", "50%", "75%", "100%"]


def test_lines_differ_by_colour_dash_and_marker() -> None:
    weeks = trends.weeks(NOW)
    lines = tuple(trends.Line(f"line {n}", tuple(float(n + i) for i in range(8))) for n in range(6))
    chart = str(svg.line_chart(trends.Trend("six", "Count", "", weeks, lines)))
    styles = re.findall(
        r'<polyline points="[^"]*" fill="none" stroke="(#\w+)" stroke-width="2.2"( stroke-dasharray="[^"]*")?',
        chart,
    )
    assert len({colour for colour, _ in styles}) == 6 and len({dash for _, dash in styles}) == 6
    assert {"<circle", "<rect", "<path"} <= {tag for tag in re.findall(r"<(?:circle|rect|path)", chart)}
    assert _texts(chart, "x-tick")[-1] == "16 Nov" and _texts(chart, "x-title") == [
        "Week starting (Monday, UTC)"
    ]
    assert [line.split("</svg>")[-1] for line in re.findall(r"<li>.*?</li>", chart)] == [
        f"line {n}</li>" for n in range(6)
    ]


# --- entries, a page at a time ---------------------------------------------------------------------


def paging_topic(count: int) -> str:
    """A topic file of `count` core rules; every tenth is about the ledger (for `?q=ledger`)."""
    sections = []
    for n in range(count):
        word = "ledger" if n % 10 == 0 else "cursor"
        sections.append(
            f"## Rule number {n:03d} about the {word} {{#paging-rule-{n:03d}}}\n<!-- homeostat\n"
            'scope: ["src/**/*.py"]\nstatus: accepted\nkind: convention\nsource:\n  type: manual\n'
            "  author: ana\ncreated: 2026-09-01\nlastConfirmed: 2026-11-01\n-->\n"
            f"### Rule\nKeep the {word} {n} in one place.\n\n### Why\nIt broke twice.\n"
        )
    return "---\narea: core\ntopic: paging\n---\n" + "\n".join(sections)


@pytest.fixture
def many_rules(tmp_path: Path) -> Path:
    kb = new_kb(tmp_path, committed=dt.datetime.now(UTC))
    (kb / "knowledge/core/paging.md").write_text(paging_topic(250))
    return kb


def _ids(body: str) -> list[str]:
    return re.findall(r'<a href="/entries/(paging-rule-\d+)">', body)


def test_entries_come_a_page_at_a_time_and_every_rule_is_on_one_page(many_rules: Path) -> None:
    with DashboardServer(Dashboard(many_rules, env={})) as running:
        _, _, first = request(running, "GET", "/entries")
        assert "1–100 of 250 rules, page 1 of 3." in first and len(_ids(first)) == 100
        assert (
            '<a href="/entries?page=2">next ›</a>' in first
            and '<a href="/entries?page=3">last »</a>' in first
        )
        seen = _ids(first)
        for number in (2, 3):
            _, _, body = request(running, "GET", f"/entries?page={number}")
            seen += _ids(body)
        assert seen == [f"paging-rule-{n:03d}" for n in range(250)]  # each once, in order
        _, _, last = request(running, "GET", "/entries?page=3")
        assert "201–250 of 250 rules, page 3 of 3." in last and "next ›</span>" in last
        _, _, past = request(running, "GET", "/entries?page=99")  # past the end: the last page
        assert _ids(past) == _ids(last)
        _, _, junk = request(running, "GET", "/entries?page=-1&per=abc")  # not numbers: the defaults
        assert _ids(junk) == _ids(first)


def test_filters_and_page_size_travel_with_the_page_links(many_rules: Path) -> None:
    with DashboardServer(Dashboard(many_rules, env={})) as running:
        _, _, body = request(running, "GET", "/entries?q=ledger&per=10&page=2")
        assert "11–20 of 25 matching, of 250 rules, page 2 of 3." in body
        assert _ids(body) == [f"paging-rule-{n:03d}" for n in range(100, 200, 10)]
        assert '<a href="/entries?q=ledger&amp;per=10&amp;page=3">next ›</a>' in body
        assert '<a href="/entries?q=ledger&amp;per=10">‹ previous</a>' in body
        assert "<option selected>10</option>" in body and 'value="ledger"' in body
        _, _, none = request(running, "GET", "/entries?q=nothing-matches-this")
        assert "No rule matches." in none and '<a href="/entries">Show every rule</a>' in none


def test_a_kb_without_rules_says_where_rules_come_from(tmp_path: Path) -> None:
    kb = new_kb(tmp_path, committed=dt.datetime.now(UTC))
    with DashboardServer(Dashboard(kb, env={})) as running:
        _, _, body = request(running, "GET", "/entries")
        assert "No rule yet" in body and "<code>homeostat learn</code>" in body and "<table>" not in body
        shutil.rmtree(kb / "knowledge")  # a KB that cannot be read is no KB without rules
        _, _, broken = request(running, "GET", "/entries")
    assert "the KB could not be read" in broken and "No rule yet" not in broken


def test_an_edit_to_the_kb_shows_on_the_next_page(many_rules: Path) -> None:
    """Pages parse again only the files that changed since the last page, and never serve a KB older
    than its files: an edited, an added and a removed file each show at the next reload."""
    topic = many_rules / "knowledge/core/paging.md"
    with DashboardServer(Dashboard(many_rules, env={})) as running:
        _, _, before = request(running, "GET", "/entries?q=ledger")
        assert "Rule number 000 about the ledger" in before
        topic.write_text(topic.read_text().replace("Rule number 000 about", "Renamed rule about"))
        (many_rules / "knowledge/core/more.md").write_text(paging_topic(1).replace("paging", "more"))
        _, _, edited = request(running, "GET", "/entries?q=ledger")
        assert "paging-rule-000</a></td><td>Renamed rule about the ledger</td>" in edited
        assert "1–26 of 26 matching, of 251 rules." in edited and "more-rule-000" in edited
        topic.unlink()
        (many_rules / "knowledge/core/more.md").unlink()
        _, _, gone = request(running, "GET", "/entries")
    assert "No rule yet" in gone
