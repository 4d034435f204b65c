"""The sandbox app's configuration, the keys the app keeps its parts under, and the spec's
Error body."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from dispute_evidence.filetypes import SANDBOX_MAX_FILE_BYTES
from dispute_evidence.sandbox.db import SandboxStore
from dispute_evidence.sandbox.ratelimit import SlidingWindowLimiter

CONFIG_KEY: web.AppKey[SandboxConfig] = web.AppKey("config")
STORE_KEY: web.AppKey[SandboxStore] = web.AppKey("store")
LIMITER_KEY: web.AppKey[SlidingWindowLimiter] = web.AppKey("limiter")
STATS_KEY: web.AppKey[dict[str, Any]] = web.AppKey("stats")
TOKEN_KEY: web.RequestKey[str] = web.RequestKey("token")


@dataclass
class SandboxConfig:
    """Everything the sandbox can be told; each fault has its own probability (0..1)."""

    tokens: tuple[str, ...] = ("sk_test_sandbox",)
    rate_limit: int = 5000
    rate_window: float = 3600.0
    evidence_mode: str = "replace"  # or "merge": top-level evidence sections are merged
    max_file_bytes: int = SANDBOX_MAX_FILE_BYTES
    fail_rate: float = 0.0  # 503 before doing anything
    fail_retry_after: float = 0.0  # seconds the injected 503 asks to wait (Retry-After), if > 0
    ambiguous_rate: float = 0.0  # POSTs: commit the effect, then 502 or drop the connection
    latency_rate: float = 0.0
    latency_ms: tuple[int, int] = (20, 200)
    hang_rate: float = 0.0  # sleep hang_seconds, then 504 without doing anything
    hang_seconds: float = 35.0
    # test-only misbehaviours of a broken API (never chosen at random)
    endless_files: bool = False  # GET /files pads every page with made-up files: never ends
    hidden_disputes: bool = False  # GET /disputes lists made-up disputes forever, never ours
    html_reads: bool = False  # every GET answers 200 with a login page (text/html)
    answer_dispute_id: str = ""  # an evidence update's answer names this dispute id, if set
    seed: int | None = None
    rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def __repr__(self) -> str:  # tokens are secrets
        return f"SandboxConfig(tokens=<{len(self.tokens)} hidden>, rate_limit={self.rate_limit})"


def error(
    status: int,
    message: str,
    *,
    type_: str = "invalid_request_error",
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> web.Response:
    """A response carrying the spec's Error body."""
    body: dict[str, Any] = {"type": type_, "message": message}
    if code:
        body["code"] = code
    if param:
        body["param"] = param
    return web.json_response(body, status=status, headers=headers)
