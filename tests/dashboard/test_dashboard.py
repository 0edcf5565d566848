"""The dashboard's pages from a fixture state branch and event log, its settings writes, and its
refusals: a wrong Host, a cross-origin POST, a missing token. (The same pages in Chromium:
test_dashboard_browser.py.)"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dashboardworld import MARKUP_TITLE, QUEUED_TITLE, DashboardWorld
from gitfixtures import git

from homeostat.cli import main
from homeostat.core.config import Config
from homeostat.core.config_keys import walk
from homeostat.core.dashboard.settings import FormError, read_form, settings_forms
from homeostat.core.schedule.cron import parse_cron
from homeostat.dashboard.server import CSP, Dashboard, DashboardServer
from homeostat.runs.sync import read_config

PAGES = (
    "/",
    "/automation",
    "/performance",
    "/entries",
    "/entries/escape-titles",
    "/members",
    "/coverage",
    "/impact",
    "/documents",
    "/desire-paths",
    "/events",
    "/settings",
)


@pytest.fixture
def world(github_harness, anthropic_stub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> DashboardWorld:  # type: ignore[no-untyped-def]
    return DashboardWorld(github_harness, anthropic_stub, tmp_path, monkeypatch)


@pytest.fixture
def server(world: DashboardWorld) -> Iterator[DashboardServer]:
    with DashboardServer(Dashboard(world.work, env={})) as running:
        yield running


def request(
    server: DashboardServer, method: str, path: str, body: str = "", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.app.port, timeout=30)
    sent = {"Host": f"127.0.0.1:{server.app.port}", **(headers or {})}
    if body:
        sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
    connection.request(method, path, body=body.encode() if body else None, headers=sent)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, text


def form_of(page: str, section: str, server: DashboardServer, **changes: str) -> str:
    """The settings form of `section` as the page holds it, with `changes`, url-encoded."""
    config = read_config(server.app.root)
    [form] = [f for f in settings_forms(config) if f.section == section]
    fields: list[tuple[str, str]] = [("token", server.app.token)]
    for field in form.fields:
        if field.widget == "checkbox":
            if field.checked:
                fields.append((field.name, "true"))
        else:
            fields.append((field.name, changes.pop(field.name, field.value)))
    assert not changes, f"no such fields: {changes}"
    return urllib.parse.urlencode(fields)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_renders_with_the_security_headers(server: DashboardServer, path: str) -> None:
    status, headers, body = request(server, "GET", path)
    assert status == 200, body
    assert headers["content-security-policy"] == CSP
    assert "script-src" not in CSP and "default-src 'none'" in CSP
    assert headers["x-content-type-options"] == "nosniff"
    assert "<script" not in body.lower(), "the dashboard has no script of its own, and escapes every other"
    assert "http://" not in body.replace(server.url, "").replace("http://www.w3.org/2000/svg", "")


def test_a_title_holding_markup_is_shown_as_text(server: DashboardServer) -> None:
    _, _, entries = request(server, "GET", "/entries?q=escape")
    assert "Escape &lt;script&gt;alert(1)&lt;/script&gt; in page titles" in entries
    assert MARKUP_TITLE not in entries
    _, _, automation = request(server, "GET", "/automation")
    assert "Wrap &lt;b&gt;money&lt;/b&gt; in Decimal" in automation and QUEUED_TITLE not in automation
    _, _, desire = request(server, "GET", "/desire-paths")
    assert "get_rules&lt;img src=x&gt;" in desire


def test_overview_shows_each_agents_liveness(server: DashboardServer) -> None:
    _, _, body = request(server, "GET", "/")
    assert "ok: 3 merged, 1 review" in body  # the last daily run that did work, not the failed one
    assert "ok: 1 retired" in body  # the deep dive
    assert "first run due" in body  # the digest never ran, and the KB is younger than its first slot
    assert "ran on box-1 (pid 4242), exit 0" in body  # up's lock on the daily schedule
    assert "1 overdue" in body and "not syncing (no heartbeat for 48 hours): bo</span>" in body
    assert "no heartbeat yet: cy, dee" in body  # never synced: not set up yet, which is no alarm
    assert "What happens next" not in body  # runs are recorded: this is no new KB


def test_automation_marks_the_overdue_review_and_the_silent_members(server: DashboardServer) -> None:
    _, _, body = request(server, "GET", "/automation")
    row = body[body.index("Wrap &lt;b&gt;") :].split("</tr>")[0]
    assert "5 days" in row and "overdue" in row and 'href="https://github.com/example/kb/pull/7"' in row
    sync = body[body.index("Developer sync") :]
    bo = sync[sync.index("<td>bo</td>") :].split("</tr>")[0]
    assert (
        "not syncing" in bo and "<td>12</td>" in bo and "<td>4</td>" in bo and "not the pinned version" in bo
    )
    ana = sync[sync.index("<td>ana</td>") :].split("</tr>")[0]
    assert "not syncing" not in ana
    assert "failed: the host refused the push" in body
    assert "<svg" in body and "Lessons decided per week" in body


def test_performance_shows_what_homeostat_metrics_computes(
    server: DashboardServer, world: DashboardWorld
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "homeostat", "metrics", "--format", "json", "--kb", str(world.work)],
        capture_output=True,
        text=True,
        check=True,
    )
    metrics = json.loads(done.stdout)
    _, _, body = request(server, "GET", "/performance")
    decisions = metrics["decisions"]
    assert f"{decisions['decided']} decided" in body
    assert (
        f"{decisions['autoMerged']} merged by the daily run, {decisions['sentToReview']} sent to review"
        in body
    )
    usage = metrics["usage"]
    assert f"{usage['sessions']} sessions, {usage['promptMatches']} prompt matches" in body
    # one definition of syncing: ana's heartbeat is 2 hours old, bo's 3 days, cy and dee have none
    assert (metrics["membersSyncing"], metrics["members"]) == (1, 4)
    assert "1 of 4 members synced in the last 48 hours" in body
    _, _, members = request(server, "GET", "/members")
    flagged = [row.split("</td>")[0] for row in members.split("<tr")[2:] if "not syncing" in row]
    assert flagged == [' class="bad"><td>bo']
    [step] = metrics["costByStep"]
    assert f"<td>{step['name']}</td><td>{step['calls']}</td><td>{step['inputTokens']}</td>" in body


def new_kb(tmp_path: Path, committed: dt.datetime | None) -> Path:
    """A KB as `homeostat init` writes it, committed at `committed` (None: not yet), no run yet."""
    kb = tmp_path / "new-kb"
    kb.mkdir(parents=True)
    git(kb, "init", "--quiet", "--initial-branch=main")
    assert (
        main(["init", "--kb", str(kb), "--host", "github", "--member", "ana:lead", "--member", "bo", "--yes"])
        == 0
    )
    if committed is not None:
        git(kb, "add", "-A")
        subprocess.run(
            ["git", "commit", "--quiet", "-m", "Homeostat KB"],
            cwd=kb,
            check=True,
            env={
                **os.environ,
                "GIT_COMMITTER_DATE": committed.isoformat(),
                "GIT_AUTHOR_DATE": committed.isoformat(),
            },
        )
    return kb


def test_a_new_kb_shows_when_the_first_run_is_due_and_how_to_preview_it_not_alarms(tmp_path: Path) -> None:
    kb = new_kb(tmp_path, committed=dt.datetime.now(dt.UTC))
    cron = read_config(kb).agents.schedules.daily
    with DashboardServer(Dashboard(kb, env={})) as running:
        due = parse_cron(cron).next_slot(dt.datetime.now(dt.UTC)).strftime("%Y-%m-%d %H:%M UTC")
        _, _, overview = request(running, "GET", "/")
        _, _, members = request(running, "GET", "/members")
        _, _, automation = request(running, "GET", "/automation")
        _, _, performance = request(running, "GET", "/performance")
    assert "What happens next" in overview and f"The first daily run is due {due}" in overview
    assert "<code>homeostat daily --dry-run</code>" in overview
    assert f"first run due {due}" in overview
    assert "late</span>" not in overview and 'class="bad"' not in overview
    assert "no heartbeat yet: ana, bo" in overview and "not syncing" not in overview
    for page in (members, automation):
        assert page.count("no heartbeat yet") == 2 and "not syncing" not in page and 'class="bad"' not in page
    assert "0 of 2 members synced in the last 48 hours" in performance


def test_a_job_that_never_ran_is_late_once_a_slot_passed_after_the_kb_was_committed(tmp_path: Path) -> None:
    kb = new_kb(tmp_path, committed=dt.datetime.now(dt.UTC) - dt.timedelta(days=3))
    with DashboardServer(Dashboard(kb, env={})) as running:
        _, _, overview = request(running, "GET", "/")
    daily = overview[overview.index("<td>daily</td>") :].split("</tr>")[0]
    assert "never" in daily and "late</span>" in daily
    assert "What happens next" not in overview  # a KB that should have run is no first look
    uncommitted = new_kb(tmp_path / "uncommitted", committed=None)  # nothing pushed: nothing can run
    with DashboardServer(Dashboard(uncommitted, env={})) as running:
        _, _, overview = request(running, "GET", "/")
    assert "late</span>" not in overview and "first run due" in overview


def test_entries_filter_and_explain(server: DashboardServer) -> None:
    _, _, candidates = request(server, "GET", "/entries?status=candidate")
    assert "escape-titles" in candidates and "log-with-fields" not in candidates
    _, _, core = request(server, "GET", "/entries?area=core")
    assert "log-with-fields" in core and "escape-titles" not in core
    _, _, explained = request(server, "GET", "/entries/log-with-fields")
    assert (
        "homeostat explain log-with-fields" in explained
        and "score" in explained
        and "manual by bo" in explained
    )
    _, _, team_only = request(server, "GET", "/entries/migrations-expand-then-contract")
    assert "billing/db" in team_only  # a team-only area's rule is shown to the KB's keeper
    status, _, missing = request(server, "GET", "/entries/no-such-rule")
    assert status == 200 and "No rule" in missing


def test_usage_pages_count_the_event_log(server: DashboardServer) -> None:
    _, _, impact = request(server, "GET", "/impact")
    row = impact[impact.index("<td>log-with-fields</td>") :].split("</tr>")[0]
    assert "<td>2</td><td>1</td>" in row  # served twice, credited once
    _, _, documents = request(server, "GET", "/documents")
    errors = documents[documents.index("billing/api/overview#errors") :].split("</tr>")[0]
    assert "<td>1</td>" in errors
    _, _, coverage = request(server, "GET", "/coverage")
    assert "no documents" in coverage
    _, _, events = request(server, "GET", "/events?kind=desire-path")
    assert "desire-path" in events and "turn-usage</td>" not in events


def test_refusals(server: DashboardServer) -> None:
    good = form_of("", "handoff", server, **{"handoff.minEdits": "7"})
    origin = f"http://127.0.0.1:{server.app.port}"
    status, _, body = request(server, "GET", "/", headers={"Host": "evil.example:80"})
    assert status == 421 and "wrong Host header" in body
    status, _, body = request(server, "POST", "/settings/handoff", good, {"Origin": "http://evil.example"})
    assert status == 403 and "cross-origin" in body
    status, _, body = request(server, "POST", "/settings/handoff", good)  # no Origin at all
    assert status == 403
    no_token = "&".join(part for part in good.split("&") if not part.startswith("token="))
    status, _, body = request(server, "POST", "/settings/handoff", no_token, {"Origin": origin})
    assert status == 403 and "token" in body
    status, _, body = request(
        server, "POST", "/settings/handoff", good, {"Origin": origin, "Host": "localhost:1"}
    )
    assert status == 421
    assert (server.app.root / "homeostat.yaml").read_text().count("minEdits") == 0


def raw(server: DashboardServer, head: str, body: bytes = b"", *, close: bool = True) -> str:
    """Send bytes no well-behaved client would, and read the answer until the server closes."""
    with socket.create_connection(("127.0.0.1", server.app.port), timeout=60) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        if close:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer.decode("utf-8", "replace")


@pytest.mark.parametrize(
    ("length", "status", "reason"),
    [
        ("-1", "400", "Content-Length '-1' is not a number of bytes"),
        ("abc", "400", "Content-Length 'abc' is not a number of bytes"),
        ("1e3", "400", "Content-Length '1e3' is not a number of bytes"),
        ("1000001", "413", "form too large"),
    ],
)
def test_a_content_length_that_is_no_size_is_refused_before_reading(
    server: DashboardServer, length: str, status: str, reason: str
) -> None:
    """`-1` read the stream to its end (past the 1 MB limit), and `abc` raised with no answer. The
    request sends no body: one the server refuses to read would reset the connection, answer and all."""
    host = f"127.0.0.1:{server.app.port}"
    head = (
        f"POST /settings/handoff HTTP/1.1\nHost: {host}\nOrigin: http://{host}\n"
        f"Content-Type: application/x-www-form-urlencoded\nContent-Length: {length}\n"
    )
    answer = raw(server, head)
    assert answer.startswith(f"HTTP/1.0 {status} ") and answer.rstrip().endswith(reason), answer[:300]


def test_a_chunked_or_doubled_length_is_refused(server: DashboardServer) -> None:
    host = f"127.0.0.1:{server.app.port}"
    base = f"POST /settings/handoff HTTP/1.1\nHost: {host}\nContent-Type: application/x-www-form-urlencoded\n"
    answer = raw(server, base + "Transfer-Encoding: chunked\n")
    assert answer.startswith("HTTP/1.0 411 ")
    answer = raw(server, base + "Content-Length: 3\nContent-Length: 5\n")
    assert answer.startswith("HTTP/1.0 400 ") and "more than one Content-Length" in answer


def test_an_idle_or_trickling_connection_is_closed(world: DashboardWorld) -> None:
    with DashboardServer(Dashboard(world.work, env={}), idle_seconds=0.5) as running:
        assert raw(running, "", close=False) == ""  # connected, sent nothing: closed, not held
        host = f"127.0.0.1:{running.app.port}"
        head = (
            f"POST /settings/handoff HTTP/1.1\nHost: {host}\n"
            "Content-Type: application/x-www-form-urlencoded\nContent-Length: 100\n"
        )
        answer = raw(running, head, b"a=1", close=False)  # 3 of 100 bytes, then nothing
        assert answer.startswith("HTTP/1.0 408 ") and "the form did not arrive in time" in answer
        status, _, _ = request(running, "GET", "/")  # and it still serves
        assert status == 200


def trickle(server: DashboardServer, at_once: bytes, slowly: bytes, give_up: float) -> tuple[float, str]:
    """Send `at_once`, then `slowly` a byte every 0.2 s (giving up after `give_up` seconds), as a
    client holding a connection open would; the seconds until the server answered or closed, and
    its answer."""
    start = time.monotonic()
    answer = b""
    with socket.create_connection(("127.0.0.1", server.app.port), timeout=10) as sock:
        sock.sendall(at_once)
        for byte in slowly:
            if time.monotonic() - start > give_up:
                break
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break  # closed by the server
            if select.select([sock], [], [], 0.2)[0]:
                break
        else:
            select.select([sock], [], [], give_up)
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except OSError:
            pass  # reset: closed without an answer
    return time.monotonic() - start, answer.decode("utf-8", "replace")


def test_a_request_trickling_in_is_closed_at_its_deadline(world: DashboardWorld) -> None:
    """A byte every 0.2 s never trips the idle timeout (1 s here, 30 s by default), yet the whole
    request must arrive by its deadline (1.5 s here): the headers' trickle is closed unanswered,
    the form's gets `408`, and neither holds a thread past the deadline."""
    with DashboardServer(Dashboard(world.work, env={}), idle_seconds=1, request_seconds=1.5) as running:
        host = f"127.0.0.1:{running.app.port}"
        head = f"GET / HTTP/1.1\r\nHost: {host}\r\nX-Slow: {'a' * 60}\r\n\r\n".encode()
        took, answer = trickle(running, b"", head, give_up=8)
        assert took < 4 and answer == "", (took, answer[:200])
        form = (
            f"POST /settings/handoff HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 60\r\n\r\n"
        ).encode()
        took, answer = trickle(running, form, b"a=" + b"1" * 58, give_up=8)
        assert took < 4 and answer.startswith("HTTP/1.0 408 "), (took, answer[:200])
        status, _, _ = request(running, "GET", "/")
        assert status == 200


def test_connections_beyond_the_cap_are_refused_at_once(world: DashboardWorld) -> None:
    """Two connections held open fill a cap of two: a third gets `503` at once (not a wait for a
    thread), and once they close the dashboard serves again."""
    app = Dashboard(world.work, env={})
    with DashboardServer(app, idle_seconds=20, request_seconds=20, max_connections=2) as running:
        held = [socket.create_connection(("127.0.0.1", app.port), timeout=10) for _ in range(2)]
        try:
            start = time.monotonic()
            with socket.create_connection(("127.0.0.1", app.port), timeout=5) as third:
                answer = third.recv(65536).decode()
            assert answer.startswith("HTTP/1.0 503 ") and time.monotonic() - start < 3, answer
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + 5
        while (status := request(running, "GET", "/")[0]) == 503 and time.monotonic() < deadline:
            time.sleep(0.05)  # the held connections' threads end as they see the close
        assert status == 200


def test_without_a_host_a_settings_change_shows_the_diff(
    server: DashboardServer, world: DashboardWorld
) -> None:
    before = (world.work / "homeostat.yaml").read_text()
    body = form_of("", "agents", server, **{"agents.maxCostUsd": "3.5"})
    status, _, page = request(
        server, "POST", "/settings/agents", body, {"Origin": f"http://127.0.0.1:{server.app.port}"}
    )
    assert status == 200
    assert "No code host is configured here" in page
    assert "-  maxCostUsd: 2.0\n+  maxCostUsd: 3.5" in page
    assert (world.work / "homeostat.yaml").read_text() == before


def test_an_invalid_change_is_refused_before_anything_is_written(
    server: DashboardServer, world: DashboardWorld
) -> None:
    origin = {"Origin": f"http://127.0.0.1:{server.app.port}"}
    broken = form_of("", "scoring", server, **{"scoring.confidence.decline": "90"})
    _, _, page = request(server, "POST", "/settings/scoring", broken, origin)
    assert "Nothing was written" in page and "decline must not be above accept" in page
    unknown_owner = form_of("", "repos", server, **{"repos[1].areas[0].owner": "nobody"})
    _, _, page = request(server, "POST", "/settings/repos", unknown_owner, origin)
    assert "Nothing was written" in page and "the KB does not validate" in page and "nobody" in page


def test_a_settings_change_opens_a_pr_on_the_host(world: DashboardWorld) -> None:
    with DashboardServer(Dashboard(world.work, env=world.host_env())) as running:
        body = form_of("", "agents", running, **{"agents.schedules.daily": "30 5 * * *"})
        _, _, page = request(
            running, "POST", "/settings/agents", body, {"Origin": f"http://127.0.0.1:{running.app.port}"}
        )
    assert "Opened" in page, page
    [pull] = [p for p in world.pulls().values() if p.head_ref.startswith("homeostat/settings-agents-")]
    assert pull.title == "homeostat: settings: agents" and "`agents.schedules.daily`" in pull.body
    text = world.bare().read_file(f"refs/heads/{pull.head_ref}", "homeostat.yaml")
    assert text is not None and '  schedules:\n    daily: "30 5 * * *"\n' in text.decode()
    assert "homeostat/settings-" in page and "schedules" not in (world.work / "homeostat.yaml").read_text()


@pytest.mark.parametrize(
    ("path", "default"), [(p, d) for p, d, _ in walk(Config)], ids=[p for p, _, _ in walk(Config)]
)
def test_every_config_key_has_a_form_field(path: str, default: str) -> None:
    """As docs/config.md must list every key (test_config_docs.py), the settings must edit it, even in
    a KB with no members, repos or areas yet (each list has a blank item to add)."""
    keys = {field.key for form in settings_forms(Config()) for field in form.fields}
    assert any(key == path or key.startswith(path + ".") or key.startswith(path + "[].") for key in keys), (
        f"no settings form field edits `{path}`"
    )


@pytest.mark.parametrize(
    ("stop", "code"), [(signal.SIGTERM, 0), (signal.SIGINT, 130)], ids=["term", "ctrl-c"]
)
def test_the_dashboard_command_serves_and_stops_on_sigterm_or_ctrl_c(
    world: DashboardWorld, stop: signal.Signals, code: int
) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "homeostat", "dashboard", "--port", "0", "--kb", str(world.work)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    line = child.stderr.readline()
    assert "dashboard at http://127.0.0.1:" in line, line
    url = line.split("dashboard at ", 1)[1].split(" ", 1)[0]
    port = int(url.rsplit(":", 1)[1].strip("/"))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/members")
    response: Any = connection.getresponse()
    assert response.status == 200 and "Ana Lima" in response.read().decode()
    child.send_signal(stop)  # a service manager's SIGTERM is done (0); Ctrl-C is interrupted (130)
    assert child.wait(timeout=30) == code
    assert "dashboard stopped" in child.stderr.read()


def test_the_languages_form_edits_the_map_one_line_a_language() -> None:
    """`languages` maps a name to extensions: one `name: a, b` line each, and a line without its
    colon is refused naming the key."""
    edited = read_form(Config(), "languages", {"languages": ["kotlin: kt, kts\nvue: vue"]})
    assert edited.languages == {"kotlin": ("kt", "kts"), "vue": ("vue",)}
    [form] = [f for f in settings_forms(edited) if f.section == "languages"]
    assert [field.value for field in form.fields] == ["kotlin: kt, kts\nvue: vue"]
    with pytest.raises(FormError, match=r"^languages: 'kotlin kt' is not"):
        read_form(Config(), "languages", {"languages": ["kotlin kt"]})
