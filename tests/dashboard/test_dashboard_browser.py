"""The dashboard in a real headless Chromium: every page loads with no console error and no request
leaving 127.0.0.1, a settings form round-trips a change to a PR on the GitHub emulator (and one that
another site posts is refused, even holding the token), and the overview's screenshot is kept as a
test artifact (`<pytest tmp dir>/artifacts/overview.png`).

Every page, of a lived-in KB, a new one and one of 250 rules, is laid out at a desktop's 1400x1000
and a phone's 390x844: none may scroll sideways, and every chart must have both axes titled, tick
labels that neither overlap nor leave the chart, and text no smaller than 9 px as shown. The
screenshots are kept in `<pytest tmp dir>/artifacts/dashboard/` (the test prints the folder).

One browser process serves the whole module. Skipped, saying why, only where chromium cannot run.
"""

from __future__ import annotations

import datetime as dt
import html
import threading
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from browserkit import Browser, BrowserError, Page, chromium_path
from dashboardworld import DashboardWorld

from dashboard.test_dashboard import PAGES, new_kb
from dashboard.test_dashboard_glance import paging_topic
from homeostat.dashboard.server import Dashboard, DashboardServer


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if chromium_path() is None:
        pytest.skip("chromium is not installed (.ci/run installs Debian's chromium where it can)")
    try:
        launched = Browser.launch(tmp_path_factory.mktemp("chromium-profile"))
    except (BrowserError, OSError) as exc:
        pytest.skip(f"chromium cannot run here: {exc}")
    with launched:
        yield launched


@pytest.fixture
def world(github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DashboardWorld:  # type: ignore[no-untyped-def]
    return DashboardWorld(github_harness, anthropic_stub, tmp_path, monkeypatch)


def _local(url: str, server: DashboardServer) -> bool:
    return url.startswith(server.url) or url.startswith(("data:", "about:"))


def test_every_page_loads_clean_and_stays_on_loopback(
    browser: Browser, world: DashboardWorld, tmp_path_factory: pytest.TempPathFactory
) -> None:
    with DashboardServer(Dashboard(world.work, env={})) as server:
        page = browser.new_page()
        for path in PAGES:
            page.goto(server.url.rstrip("/") + path)
            title = page.evaluate("document.title")
            assert title.endswith("· Homeostat"), (path, title)
            assert page.evaluate("document.querySelectorAll('script').length") == 0
        assert page.errors == [], page.errors
        leaving = [url for url in page.requests if not _local(url, server)]
        assert leaving == [], f"requests left 127.0.0.1: {leaving}"
        assert all(status == 200 for status in page.statuses.values()), page.statuses
        assert server.url + "static/dashboard.css" in page.requests  # the stylesheet, not inline style
        page.goto(server.url + "entries?q=escape")
        shown = page.evaluate("document.querySelector('main table').innerText")
        assert "Escape <script>alert(1)</script> in page titles" in shown  # as text, never as a tag
        page.goto(server.url)
        artifacts = tmp_path_factory.getbasetemp() / "artifacts"
        artifacts.mkdir(exist_ok=True)
        shot = page.screenshot(artifacts / "overview.png")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
        assert page.errors == [], page.errors


def test_a_settings_form_round_trips_to_a_pr(browser: Browser, world: DashboardWorld) -> None:
    with DashboardServer(Dashboard(world.work, env=world.host_env())) as server:
        page = browser.new_page()
        page.goto(server.url + "settings")
        page.evaluate("document.getElementById('f-notifications.reviewOverdueDays').value = '4'")
        page.navigate(lambda: page.evaluate("document.getElementById('notifications').requestSubmit()"))
        result = page.evaluate("document.querySelector('section.result').innerText")
        assert "Opened" in result and "homeostat/settings-notifications-" in result, result
        assert page.errors == [], page.errors
        assert all(_local(url, server) for url in page.requests), page.requests
    [pull] = [p for p in world.pulls().values() if p.head_ref.startswith("homeostat/settings-notifications-")]
    text = world.bare().read_file(f"refs/heads/{pull.head_ref}", "homeostat.yaml")
    assert text is not None and "notifications:\n  reviewOverdueDays: 4\n" in text.decode()
    assert "`notifications.reviewOverdueDays`: `4`" in pull.body


class _AttackerPage(BaseHTTPRequestHandler):
    """Another site's page (another port is another origin) holding a form aimed at the dashboard."""

    page = b""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(self.page)))
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        return None


def test_a_form_on_another_site_cannot_change_settings(browser: Browser, world: DashboardWorld) -> None:
    """Even holding this run's token (say it leaked), a form another origin posts is refused."""
    with DashboardServer(Dashboard(world.work, env=world.host_env())) as server:
        fields = {"token": server.app.token, "notifications.reviewOverdueDays": "1"}
        inputs = "".join(
            f'<input name="{html.escape(k)}" value="{html.escape(v)}">' for k, v in fields.items()
        )
        target = server.url + "settings/notifications"
        _AttackerPage.page = (
            f'<!doctype html><title>win a prize</title><form id="f" method="post" action="{target}">'
            f"{inputs}</form>"
        ).encode()
        attacker = ThreadingHTTPServer(("127.0.0.1", 0), _AttackerPage)
        threading.Thread(target=attacker.serve_forever, daemon=True).start()
        try:
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{attacker.server_address[1]}/")
            page.navigate(lambda: page.evaluate("document.getElementById('f').submit()"))
            shown = page.evaluate("document.body.innerText")
        finally:
            attacker.shutdown()
            attacker.server_close()
        assert page.statuses[target] == 403 and "cross-origin write refused" in shown, shown
    assert not [p for p in world.pulls().values() if p.head_ref.startswith("homeostat/settings-")]
    assert "reviewOverdueDays" not in (world.work / "homeostat.yaml").read_text()


SIZES = ((1400, 1000), (390, 844))
# What a reader of each chart needs, measured as Chromium lays the chart out; a list of what is wrong.
CHART_PROBLEMS = r"""
(() => {
  const problems = [];
  document.querySelectorAll('svg.chart').forEach((svg, n) => {
    const name = (svg.querySelector('title') || {}).textContent || `chart ${n + 1}`;
    const box = svg.viewBox.baseVal;
    const inside = (b) => b.width > 0 && b.x >= box.x - 1 && b.y >= box.y - 1
      && b.x + b.width <= box.x + box.width + 1 && b.y + b.height <= box.y + box.height + 1;
    for (const [kind, axis] of [['x-title', 'x axis'], ['y-title', 'y axis']]) {
      const label = svg.querySelector('text.' + kind);
      if (!label || !label.textContent.trim()) problems.push(`${name}: the ${axis} has no title`);
    }
    if (svg.querySelectorAll('text.x-tick, text.y-tick').length < 2) problems.push(`${name}: no tick labels`);
    for (const text of svg.querySelectorAll('text')) {
      if (!inside(text.getBBox())) problems.push(`${name}: "${text.textContent}" is cut off at its edge`);
    }
    const ticks = [...svg.querySelectorAll('text.x-tick')].map((t) => t.getBBox()).sort((a, b) => a.x - b.x);
    for (let i = 1; i < ticks.length; i++) {
      if (ticks[i].x < ticks[i - 1].x + ticks[i - 1].width) problems.push(`${name}: x axis labels overlap`);
    }
    const shown = svg.getBoundingClientRect();
    const px = parseFloat(getComputedStyle(svg).fontSize) * shown.width / box.width;
    if (px < 9) problems.push(`${name}: its text is ${px.toFixed(1)} px as shown`);
  });
  return problems;
})()
"""


def layout_problems(page: Page) -> list[str]:
    """Why the page as laid out now fails a reader: sideways scrolling, unlabelled or unreadable charts."""
    wide = page.overflow()
    problems = [] if wide["scroll"] <= wide["client"] else [f"scrolls sideways: {wide}"]
    found: list[str] = page.evaluate(CHART_PROBLEMS)
    return problems + found


def test_the_layout_check_fails_a_chart_without_axis_labels_and_a_page_too_wide(browser: Browser) -> None:
    """The checks below can fail: an unlabelled chart and a page wider than its window are caught."""
    bare = (
        '<!doctype html><meta name="viewport" content="width=device-width">'
        '<svg class="chart" viewBox="0 0 300 100" width="300" height="100" font-size="12">'
        '<title>bare</title><polyline points="0,90 300,10" stroke="black" fill="none"/>'
        '<text x="280" y="50">cut off at the edge</text></svg><div style="width: 2000px">wide</div>'
    )
    page = browser.new_page()
    page.resize(390, 844)
    page.goto("data:text/html," + urllib.parse.quote(bare))
    problems = layout_problems(page)
    assert any(p.startswith("scrolls sideways") for p in problems), problems
    assert "bare: the x axis has no title" in problems and "bare: the y axis has no title" in problems
    assert "bare: no tick labels" in problems
    assert 'bare: "cut off at the edge" is cut off at its edge' in problems


def test_every_page_fits_a_desktop_and_a_phone_with_labelled_charts(
    browser: Browser,
    world: DashboardWorld,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path_factory.getbasetemp() / "artifacts" / "dashboard"
    folder.mkdir(parents=True, exist_ok=True)
    paged = new_kb(tmp_path / "paged", committed=dt.datetime.now(dt.UTC))
    (paged / "knowledge/core/paging.md").write_text(paging_topic(250))
    kbs = {
        "lived": (world.work, PAGES),
        "new": (new_kb(tmp_path / "new", committed=dt.datetime.now(dt.UTC)), PAGES[:4]),
        "paged": (paged, ("/entries", "/entries?page=2&per=50")),
    }
    problems: list[str] = []
    shots = 0
    for name, (root, paths) in kbs.items():
        with DashboardServer(Dashboard(root, env={})) as server:
            page = browser.new_page()
            for width, height in SIZES:
                page.resize(width, height)
                for path in paths:
                    page.goto(server.url.rstrip("/") + path)
                    slug = path.strip("/").replace("/", "-").replace("?", "-").replace("&", "-") or "overview"
                    shot = page.screenshot(folder / f"{name}-{slug}-{width}x{height}.png")
                    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
                    shots += 1
                    problems += [f"{name} {path} at {width}x{height}: {p}" for p in layout_problems(page)]
            assert page.errors == [], page.errors
    with capsys.disabled():
        print(f"\ndashboard screenshots ({shots}, at 1400x1000 and 390x844): {folder}")
    assert problems == [], "\n".join(problems)
