"""A very small Chrome DevTools Protocol client for tests: Debian's headless `chromium`, driven
over one page's WebSocket (the `websockets` package Prefect already installs).

No browser download, no framework: start Chromium with a debugging port on loopback, attach
to its page, send commands and read their results. Enough to load the report page, click
like a person (mouse events at an element's centre), measure elements and take screenshots."""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0"]  # fmt: skip


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, profile: Path) -> None:
        self._proc = subprocess.Popen(
            [CHROMIUM or "chromium", *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: closed whole, helpers included
        )
        port = self._port(profile / "DevToolsActivePort")
        self._ws: ClientConnection = connect(self._page_socket(port), max_size=None)
        self._ids = itertools.count(1)
        self.send("Page.enable")

    def _port(self, marker: Path, wait: float = 30.0) -> int:
        """Chromium writes the port it chose into the profile once it listens."""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"chromium exited with {self._proc.returncode}")
            if marker.is_file() and (first := marker.read_text().split("\n")[0]).isdigit():
                return int(first)
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its debugging port")

    @staticmethod
    def _page_socket(port: int) -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
            targets = json.load(r)
        return next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self._ws.close()
        group = os.getpgid(self._proc.pid)
        os.killpg(group, signal.SIGTERM)
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(group, signal.SIGKILL)
            self._proc.wait()
        with contextlib.suppress(ProcessLookupError):  # helpers that outlive it, briefly
            for _ in range(100):
                os.killpg(group, 0)
                time.sleep(0.05)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        """One command; its result (events that arrive meanwhile are dropped)."""
        ident = next(self._ids)
        self._ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            msg = json.loads(self._ws.recv(timeout=60))
            if msg.get("id") == ident:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def open(self, url: str, width: int, height: int = 900) -> None:
        """Load `url` in a viewport `width` CSS pixels wide and wait until it has loaded."""
        self.send(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=1,
            mobile=False,
        )
        self.send("Page.navigate", url=url)
        deadline = time.monotonic() + 30
        while self.js("document.readyState") != "complete" or self.js("location.href") != url:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load")
            time.sleep(0.05)

    def js(self, expression: str) -> Any:
        """Evaluate a JavaScript expression in the page; its value (JSON-able)."""
        out = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in out:
            raise RuntimeError(f"{expression}: {out['exceptionDetails']}")
        return out["result"].get("value")

    def rect(self, selector: str) -> dict[str, float]:
        """An element's box in CSS pixels (getBoundingClientRect)."""
        return self.js(  # type: ignore[no-any-return]
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height}; })()"
        )

    def click(self, selector: str) -> None:
        """A real mouse click at the centre of the element (scrolled into view first)."""
        self.js(
            f"document.querySelector({json.dumps(selector)}).scrollIntoView({{block: 'center'}})"
        )
        box = self.rect(selector)
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self, png: Path, full_page: bool = True) -> None:
        shot = self.send("Page.captureScreenshot", format="png", captureBeyondViewport=full_page)
        png.write_bytes(base64.b64decode(shot["data"]))


def chromium_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or None. In CI (env CI set) a missing Chromium
    is a failure, not a skip: the page must be checked there."""
    if CHROMIUM:
        return None
    if os.environ.get("CI"):
        raise RuntimeError("CI must have chromium (.ci/run installs it: apt-get install chromium)")
    return "Chromium is not installed (apt-get install chromium): page not checked in a browser"


def screenshots(page: Path, out: Path, profile: Path) -> list[Path]:
    """The page's first screen at 1400 px and at 400 px (docs/screenshots/)."""
    out.mkdir(parents=True, exist_ok=True)
    shots = []
    with Browser(profile) as b:
        for width, height in ((1400, 1000), (400, 1400)):
            b.open(page.resolve().as_uri(), width, height)
            shots.append(out / f"report-{width}.png")
            b.screenshot(shots[-1], full_page=False)
    return shots


if __name__ == "__main__":  # python -m tests.browser <report>/summary.html docs/screenshots
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(*screenshots(Path(sys.argv[1]), Path(sys.argv[2]), Path(tmp)), sep="\n")
