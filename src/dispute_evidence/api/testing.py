"""A fake HTTP transport for tests, as httpx's MockTransport: the client runs whole (pacing,
retries, error translation, parsing) while `handler` answers each attempt in memory.

    def handler(request: HttpRequest) -> RawResponse:
        return respond(request, 200, {"data": []})

    async with DisputeEvidenceClient(URL, TOKEN, transport=MockTransport(handler)) as c: ...

A handler may raise an aiohttp error (aiohttp.ServerDisconnectedError(), TimeoutError()) to
act as the network; every request it saw is kept in `requests`."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

from dispute_evidence.api.errors import RequestInfo
from dispute_evidence.api.transport import HttpRequest, RawResponse

Handler = Callable[[HttpRequest], RawResponse | Awaitable[RawResponse]]


class MockTransport:
    """An HttpTransport answering from `handler`; keeps each request in `requests`."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[HttpRequest] = []

    async def __call__(self, request: HttpRequest, /) -> RawResponse:
        self.requests.append(request)
        answer = self.handler(request)
        return await answer if inspect.isawaitable(answer) else answer


def respond(
    request: HttpRequest, status: int, body: Any = None, headers: dict[str, str] | None = None
) -> RawResponse:
    """An answer to `request`: `body` as JSON (bytes as they are)."""
    raw = body if isinstance(body, bytes) else b"" if body is None else orjson.dumps(body)
    return RawResponse(status, raw, headers or {}, RequestInfo(request.method, request.url))


__all__ = ["Handler", "HttpRequest", "MockTransport", "RawResponse", "respond"]
