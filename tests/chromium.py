"""Drive the system's headless Chromium over the DevTools protocol, for tests that read pages.

The protocol runs over a pipe (``--remote-debugging-pipe``: Chromium reads
commands on its fd 3 and writes answers on fd 4, one JSON message each, ended by
a NUL byte), so nothing beyond Chromium itself is needed: no websocket library,
no browser download, no network. DevTools' own evaluations are not subject to a
page's Content-Security-Policy, so pages that forbid every script can still be
measured.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

#: Debian names the package and the command `chromium`; other systems have other names.
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One headless Chromium; :meth:`open` gives a tab at a window size."""

    def __init__(self, executable: str, profile: Path, timeout: float = 30.0) -> None:
        self.timeout = timeout
        commands, self._to_browser = os.pipe()
        self._from_browser, answers = os.pipe()
        args = [
            executable,
            "--headless",
            "--disable-gpu",
            "--remote-debugging-pipe",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--mute-audio",
            "about:blank",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run its sandbox as root
        self.log = profile / "chromium.log"

        def on_fds_3_and_4() -> None:  # in the child, before Chromium starts
            import fcntl

            # Out of the way first (either end may itself be 3 or 4), then into place.
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (commands, answers)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                args,
                stdout=log,
                stderr=log,
                preexec_fn=on_fds_3_and_4,  # only dup2, before exec
                close_fds=False,  # keep 3 and 4; papertrack's own fds are not inheritable
            )
        os.close(commands)
        os.close(answers)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def _said(self) -> str:
        """The end of what Chromium wrote on stderr, for an error message."""
        try:
            return self.log.read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    # -- protocol
    def _read_message(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError(f"Chromium closed the DevTools pipe: {self._said()}")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def send(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        """Send a command and wait for its answer; events that come meanwhile are kept."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise RuntimeError(f"Chromium is gone: {self._said()}") from None
        while True:
            reply = self._read_message()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self.events.append(reply)

    def wait_for(self, method: str, session: str) -> dict[str, Any]:
        """The first event ``method`` of ``session`` not yet consumed (waiting for it)."""
        while True:
            for n, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(n)
            self.events.append(self._read_message())

    def open(self, width: int, height: int = 900) -> Tab:
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            session,
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        return Tab(self, session, target)

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass


class Tab:
    """A page in the browser, at the size it was opened with."""

    def __init__(self, browser: Browser, session: str, target: str) -> None:
        self.browser, self.session, self.target = browser, session, target

    def goto(self, url: str) -> None:
        self.browser.send("Page.navigate", self.session, url=url)
        self.browser.wait_for("Page.loadEventFired", self.session)

    def click(self, selector: str) -> None:
        """Click the link ``selector`` finds, as a reader would, and wait for the next page."""
        self.evaluate(f"document.querySelector({json.dumps(selector)}).click()")
        self.browser.wait_for("Page.loadEventFired", self.session)

    def evaluate(self, expression: str) -> Any:
        answer = self.browser.send(
            "Runtime.evaluate",
            self.session,
            expression=expression,
            returnByValue=True,
            userGesture=True,
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['exceptionDetails']}")
        return answer["result"].get("value")

    def screenshot(self, path: Path) -> Path:
        data = self.browser.send(
            "Page.captureScreenshot", self.session, format="png", captureBeyondViewport=True
        )["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def errors(self) -> list[str]:
        """What the page reported as errors: console errors, uncaught exceptions, log errors."""
        found = []
        for event in self.browser.events:
            if event.get("sessionId") != self.session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(json.dumps(params.get("args")))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params.get("exceptionDetails")))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(params["entry"].get("text", ""))
        return found

    def close(self) -> None:
        self.browser.send("Target.closeTarget", targetId=self.target)
