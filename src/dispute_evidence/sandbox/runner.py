"""Start the sandbox: in a background thread (tests, demo) or in the foreground (CLI)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from dispute_evidence.sandbox.app import (
    ACCESS_LOG_FORMAT,
    CONFIG_KEY,
    STATS_KEY,
    STORE_KEY,
    SandboxConfig,
    build_app,
)
from dispute_evidence.sandbox.db import SandboxStore

access_log = logging.getLogger("dispute_evidence.sandbox.access")


@dataclass
class RunningSandbox:
    """A sandbox serving on loopback from its own thread and event loop."""

    base_url: str
    app: web.Application
    loop: asyncio.AbstractEventLoop
    runner: web.AppRunner
    thread: threading.Thread

    @property
    def config(self) -> SandboxConfig:
        return self.app[CONFIG_KEY]

    def call(self, fn: Any, *args: Any) -> Any:
        """Run `fn(store, *args)` on the server's loop (SQLite is used from that thread only)."""

        async def _run() -> Any:
            return fn(self.app[STORE_KEY], *args)

        return asyncio.run_coroutine_threadsafe(_run(), self.loop).result(timeout=30)

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = self.call(lambda store: store.snapshot())
        return snap

    def move(
        self,
        provider_dispute_id: str,
        status: str | None = None,
        response_due_by: str | None = None,
    ) -> None:
        """The provider moves a dispute (a new status, a new deadline), as POST /_sandbox/…."""
        found = self.call(
            lambda store: store.move_dispute(provider_dispute_id, status, response_due_by)
        )
        if not found:
            raise KeyError(provider_dispute_id)

    def requests_by_route(self) -> dict[str, int]:
        """Admitted requests so far, per 'METHOD /route' (the budget each kind of call spent)."""
        return dict(self.app[STATS_KEY]["by_route"])

    def requests_by_key(self) -> dict[str, list[float]]:
        """Admission times (monotonic seconds) per key: 'key-1' is config.tokens[0], and so on."""
        logs: dict[str, list[float]] = self.call(
            lambda _store: {k: list(v) for k, v in self.app[STATS_KEY]["by_key"].items()}
        )
        return logs

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)

    def __enter__(self) -> RunningSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_sandbox_in_thread(
    config: SandboxConfig | None = None,
    seed_rows: Iterable[dict[str, Any]] = (),
    host: str = "127.0.0.1",
    port: int = 0,
    db_path: str = ":memory:",
) -> RunningSandbox:
    """Start a sandbox on `host:port` (0 = any free port) and return once it accepts requests."""
    loop = asyncio.new_event_loop()
    ready: dict[str, Any] = {}
    started = threading.Event()

    async def _start() -> None:
        store = SandboxStore(db_path)
        for row in seed_rows:
            store.add_dispute(row)
        app = build_app(config, store)
        runner = web.AppRunner(app, access_log=access_log, access_log_format=ACCESS_LOG_FORMAT)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1]
        ready.update(app=app, runner=runner, url=f"http://{host}:{bound}/v1")

    def _serve() -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(_start())
        except BaseException as exc:  # surface start-up failures to the caller
            ready["error"] = exc
            started.set()
            return
        started.set()
        loop.run_forever()
        loop.close()

    thread = threading.Thread(target=_serve, name="sandbox", daemon=True)
    thread.start()
    started.wait(timeout=30)
    if "error" in ready:
        raise ready["error"]
    return RunningSandbox(ready["url"], ready["app"], loop, ready["runner"], thread)


def serve_forever(
    config: SandboxConfig,
    seed_rows: list[dict[str, Any]],
    host: str,
    port: int,
    db_path: str = ":memory:",
) -> None:
    """Run the sandbox in the foreground until interrupted (the `sandbox` command)."""
    store = SandboxStore(db_path)
    for row in seed_rows:
        store.add_dispute(row)
    app = build_app(config, store)
    print(
        f"Dispute Evidence API sandbox: http://{host}:{port}/v1  ({store.count_disputes()} disputes)",
        flush=True,
    )
    web.run_app(
        app,
        host=host,
        port=port,
        access_log=access_log,
        access_log_format=ACCESS_LOG_FORMAT,
        print=None,
    )
