"""A real headless Chromium (Debian's `chromium`) driven over the DevTools protocol, for page tests.

The protocol runs over a pipe (`--remote-debugging-pipe`: JSON messages ending in a NUL byte, we
write fd 3 and read fd 4), so no websocket client and no open debugging port are needed. Each page
keeps what a person's browser console and network panel would show: console errors, uncaught
exceptions, log entries (CSP violations, failed loads) and every request's URL.

    with Browser.launch(tmp_path / "profile") as browser:
        page = browser.new_page()
        page.goto("http://127.0.0.1:8765/")
        assert not page.errors
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--no-default-browser-check",
    "--mute-audio",
    "--hide-scrollbars",
    "--window-size=1280,900",
    "--remote-debugging-pipe",
)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    pass


@dataclass
class Page:
    browser: Browser
    session: str
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    loads: int = 0

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.browser.call(method, params, self.session)

    def goto(self, url: str) -> None:
        self.navigate(lambda: self.call("Page.navigate", {"url": url}))

    def navigate(self, start: Callable[[], object], timeout: float = 30) -> None:
        """Run `start` (a navigation or a form submit) and wait for the next page's load event."""
        loads = self.loads
        start()
        self.browser.pump(lambda: self.loads > loads, timeout)

    def evaluate(self, expression: str) -> Any:
        done = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in done:
            raise BrowserError(f"{expression}: {done['exceptionDetails']}")
        return done["result"].get("value")

    def resize(self, width: int, height: int) -> None:
        """A window of `width` x `height` CSS pixels; under 600 wide, as a phone lays a page out (the
        page's viewport meta applies, text is not inflated)."""
        mobile = width < 600
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def overflow(self) -> dict[str, int]:
        """How far the page is wider than its window (0 when nothing makes it scroll sideways)."""
        found: dict[str, int] = self.evaluate(
            "({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth})"
        )
        return found

    def screenshot(self, path: Path) -> Path:
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def on_event(self, method: str, params: dict[str, Any]) -> None:
        if method == "Page.loadEventFired":
            self.loads += 1
        elif method == "Runtime.exceptionThrown":
            self.errors.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(f"console.{params['type']}: {params.get('args')}")
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text')} {entry.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])
        elif method == "Network.responseReceived":
            self.statuses[params["response"]["url"]] = params["response"]["status"]


class Browser:
    def __init__(self, process: subprocess.Popen[bytes], write: int, read: int) -> None:
        self.process = process
        self._write = write
        self._read = read
        self._buffer = b""
        self._next = 0
        self.pages: dict[str, Page] = {}

    @classmethod
    def launch(cls, profile: Path, executable: str | None = None) -> Browser:
        binary = executable or chromium_path()
        if binary is None:
            raise BrowserError("chromium is not installed")
        profile.mkdir(parents=True, exist_ok=True)
        to_browser_read, to_browser_write = os.pipe()
        from_browser_read, from_browser_write = os.pipe()

        def wire() -> None:  # in the child: our pipe ends become its fds 3 and 4
            ours_in, ours_out = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(ours_in, 3)
            os.dup2(ours_out, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=wire,  # noqa: PLW1509 - the pipe fds must be set up in the child
            close_fds=False,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        browser = cls(process, to_browser_write, from_browser_read)
        browser.call("Browser.getVersion")
        return browser

    def call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> dict[str, Any]:
        self._next += 1
        number = self._next
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        answers: dict[int, dict[str, Any]] = {}
        self.pump(lambda: number in answers, 30, answers)
        answer = answers[number]
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer.get("result", {})
        return result

    def pump(self, until: Callable[[], bool], timeout: float, answers: dict[int, Any] | None = None) -> None:
        """Read messages, handing events to their pages, until `until()` holds."""
        end = time.monotonic() + timeout
        while not until():
            if time.monotonic() > end:
                raise BrowserError("timed out waiting for the browser")
            message = self._message(end)
            if "id" in message:
                if answers is not None:
                    answers[message["id"]] = message
                continue
            page = self.pages.get(message.get("sessionId", ""))
            if page is not None:
                page.on_event(message["method"], message.get("params", {}))

    def _message(self, end: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._read], [], [], max(0.0, end - time.monotonic()))
            if not ready:
                raise BrowserError("timed out reading from the browser")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise BrowserError(f"the browser exited ({self.process.poll()})")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(raw)
        return parsed

    def new_page(self) -> Page:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session)
        self.pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.call(f"{domain}.enable")
        return page

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._write)
        os.close(self._read)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
